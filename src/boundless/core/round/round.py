"""The shared round: one dealer hand, one or more spots, any number of positions.

Every operation follows the same pattern: ``verify_x`` raises a precise :class:`RulesError`
and changes nothing, ``can_x`` answers with a bool, and ``x`` verifies, builds an event and
applies it. Only :meth:`SharedRound._apply` changes state, so replaying the event log through
:meth:`SharedRound.rebuild` gives back the same round.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Protocol

import numpy as np

from boundless.core.cards import Card
from boundless.core.errors import (
    EventLogError,
    IllegalActionError,
    InsufficientCoinsError,
    InvalidBetError,
    InvalidRuleSetError,
    PhaseError,
    RulesError,
    UnknownPositionError,
)
from boundless.core.hands import best_total, is_natural
from boundless.core.money import format_amount
from boundless.core.random_source import RandomSource
from boundless.core.round import events as ev
from boundless.core.round.actions import NO_DECISION, Action
from boundless.core.round.apply import apply_event, final_payouts
from boundless.core.round.betting import verify_bets
from boundless.core.round.nodes import NodeTable
from boundless.core.round.paths import (
    DecisionContext,
    PathState,
    legal_actions,
)
from boundless.core.round.phases import (
    BETTING,
    DEALER,
    DECISIONS,
    INSURANCE,
    OVER,
    SETTLING,
)
from boundless.core.round.positions import PositionBook
from boundless.core.round.results import ExtraStakes
from boundless.core.round.settlement import (
    DealerHand,
    side_bet_pattern,
)
from boundless.core.round.steps import StepPlan, plan_step
from boundless.core.rules import RuleSet
from boundless.core.side_bets import SIDE_BET_KINDS
from boundless.core.strategy_chart import StrategyChart
from boundless.core.wheel import spin_bonus_wheel


class CardSource(Protocol):
    def draw(self) -> Card: ...


class Payment:
    """Coins paid back to positions at one moment of the round (stakes included)."""

    __slots__ = ("amounts", "positions", "stage")

    def __init__(self, stage: str, positions: np.ndarray, amounts: np.ndarray) -> None:
        self.stage = stage
        self.positions = positions
        self.amounts = amounts


class SharedRound:
    def __init__(
        self,
        rules: RuleSet,
        *,
        round_in_shoe: int = 1,
        chart: StrategyChart | None = None,
        cards: CardSource | None = None,
        offered_side_bets: Sequence[str] | None = None,
        shoe_commitment: str | None = None,
        randomness: RandomSource | None = None,
    ) -> None:
        if rules.needs_strategy_chart and chart is None:
            raise InvalidRuleSetError(f"title {rules.key!r} needs its basic-strategy chart")
        self.rules = rules
        self.chart = chart
        self._cards = cards
        self._randomness = randomness
        self.wheel_results: dict[tuple[int, str], tuple[int, tuple[str, ...]]] = {}
        self.events: list[ev.Event] = []
        self.phase = BETTING
        self.paused = False
        self.round_in_shoe = round_in_shoe
        self.offered_side_bets: tuple[str, ...] = ()
        self.book = PositionBook([bet.key for bet in rules.side_bets])
        self.nodes = NodeTable()
        self.spot_cards: dict[int, tuple[Card, Card]] = {}
        self.step_cards: dict[int, list[Card]] = {}
        self.step_takers: dict[int, list[int]] = {}
        self.up_card: Card | None = None
        self._hole_card: Card | None = None
        self.dealer_cards: tuple[Card, ...] = ()
        self.hole_revealed = False
        self.current_spot = 0
        self.step = 0
        self.payments: list[Payment] = []
        self.extra_stakes: list[ExtraStakes] = []
        self.side_patterns: dict[tuple[int, str], object] = {}
        self._spot_positions: dict[int, np.ndarray] = {}
        self._plan: tuple[int, int, StepPlan] | None = None
        offered = self._verify_offer(offered_side_bets)
        self._apply(
            ev.RoundOpened(round_in_shoe, rules.key, rules.title.version, offered, shoe_commitment)
        )

    # ---- construction --------------------------------------------------------------------
    def _verify_offer(self, offered: Sequence[str] | None) -> tuple[str, ...]:
        """The side-bet keys on offer this round, from the chosen offer groups (or all)."""
        groups = self.rules.side_bet_groups()
        offer = self.rules.side_bet_offer
        if offered is None:
            chosen = list(groups)
            if offer.mode == "player_chooses":
                chosen = chosen[: offer.choose_count]
        else:
            chosen = []
            for name in offered:
                group = name if name in groups else self.rules.group_of(name)
                if group is None:
                    raise InvalidRuleSetError(
                        f"side bet {name!r} is not offered by {self.rules.key!r} "
                        f"(choose from {', '.join(groups)})"
                    )
                if group not in chosen:
                    chosen.append(group)
            if offer.mode == "player_chooses" and len(chosen) != offer.choose_count:
                raise InvalidRuleSetError(
                    f"choose exactly {offer.choose_count} side bets to offer, got {len(chosen)}"
                )
        return tuple(key for group in chosen for key in groups[group])

    @classmethod
    def rebuild(
        cls, rules: RuleSet, log: Iterable[ev.Event], chart: StrategyChart | None = None
    ) -> SharedRound:
        """The round that ``log`` describes, without a card source (it only replays)."""
        entries = list(log)
        if not entries or not isinstance(entries[0], ev.RoundOpened):
            raise EventLogError("an event log starts with RoundOpened")
        opened = entries[0]
        if opened.rules_key != rules.key:
            raise EventLogError(f"log is for {opened.rules_key!r}, not {rules.key!r}")
        round_ = cls(
            rules,
            round_in_shoe=opened.round_in_shoe,
            chart=chart,
            offered_side_bets=opened.offered_side_bets,
            shoe_commitment=opened.shoe_commitment,
        )
        for event in entries[1:]:
            round_._apply(event)
        return round_

    # ---- small queries -------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.phase in OVER

    @property
    def hole_card(self) -> Card | None:
        """The hole card once it is revealed, else ``None``."""
        return self._hole_card if self.hole_revealed else None

    @property
    def dealer_hand(self) -> DealerHand:
        return DealerHand(self.dealer_cards)

    def _context(self) -> DecisionContext:
        assert self.up_card is not None
        return DecisionContext(self.rules, self.up_card, self.chart)

    def available_side_bets(self) -> frozenset[str]:
        available = set()
        for key in self.offered_side_bets:
            bet = self.rules.side_bet(key)
            assert bet is not None
            if bet.max_round is None or self.round_in_shoe <= bet.max_round:
                available.add(key)
        return frozenset(available)

    def side_bet_rounds_left(self) -> dict[str, int | None]:
        """For each offered side bet: rounds it stays available in this shoe (None: always)."""
        left: dict[str, int | None] = {}
        for key in self.offered_side_bets:
            bet = self.rules.side_bet(key)
            assert bet is not None
            left[key] = (
                None if bet.max_round is None else max(0, bet.max_round - self.round_in_shoe + 1)
            )
        return left

    def position(self, player_id: str, spot: int) -> int:
        index = self.book.player_index(player_id)
        position = None if index is None else self.book.position_of(index, spot)
        if position is None:
            raise UnknownPositionError(f"player {player_id!r} has no bet on spot {spot}")
        return position

    def positions_of(self, player_id: str) -> list[int]:
        index = self.book.player_index(player_id)
        return [] if index is None else self.book.positions_of_player(index)

    def path_of(self, position: int) -> PathState:
        return self.nodes.states[int(self.book.node[position])]

    def _require(self, *phases: str) -> None:
        if self.paused:
            raise PhaseError("the round is paused; no bets or decisions are accepted")
        if self.phase not in phases:
            raise PhaseError(f"not possible in the {self.phase} phase (needs {'/'.join(phases)})")

    def _draw(self) -> Card:
        if self._cards is None:
            raise PhaseError("this round has no card source (it was rebuilt from a log)")
        return self._cards.draw()

    # ---- betting -------------------------------------------------------------------------
    def verify_place_bets(
        self,
        player_ids: Sequence[str],
        spots: Sequence[int] | np.ndarray,
        main_amounts: Sequence[int] | np.ndarray,
        side_amounts: Mapping[str, Sequence[int] | np.ndarray] | None = None,
        free_amounts: Sequence[int] | np.ndarray | None = None,
    ) -> ev.BetsPlaced:
        """Check a batch of bets; returns the event that placing them would apply."""
        self._require(BETTING)
        player_ids = tuple(player_ids)  # the event keeps this very tuple (see factorize)
        count = len(player_ids)
        spots_array = np.asarray(spots, dtype=np.int64)
        main_array = np.asarray(main_amounts, dtype=np.int64)
        keys = self.book.side_keys
        sides = np.zeros((count, max(1, len(keys))), dtype=np.int64)
        for key, amounts in (side_amounts or {}).items():
            if key not in keys:
                raise InvalidBetError(f"unknown side bet {key!r} (this title has {list(keys)})")
            sides[:, keys.index(key)] = np.asarray(amounts, dtype=np.int64)
        free = (
            np.full(count, -1, dtype=np.int64)
            if free_amounts is None
            else np.asarray(free_amounts, dtype=np.int64)
        )
        if not (len(spots_array) == len(main_array) == len(free) == count):
            raise RulesError("bet columns have different lengths")
        verify_bets(
            self.rules,
            self.book,
            self.available_side_bets(),
            player_ids,
            spots_array,
            main_array,
            sides,
            free,
        )
        return ev.BetsPlaced(
            player_ids,
            ev.frozen_array(spots_array),
            ev.frozen_array(main_array),
            keys,
            ev.frozen_array(sides[:, : len(keys)] if keys else np.zeros((count, 0))),
            ev.frozen_array(free),
        )

    def place_bets(
        self,
        player_ids: Sequence[str],
        spots: Sequence[int] | np.ndarray,
        main_amounts: Sequence[int] | np.ndarray,
        side_amounts: Mapping[str, Sequence[int] | np.ndarray] | None = None,
        free_amounts: Sequence[int] | np.ndarray | None = None,
    ) -> ev.BetsPlaced:
        event = self.verify_place_bets(player_ids, spots, main_amounts, side_amounts, free_amounts)
        self._apply(event)
        return event

    def verify_place_bet(
        self,
        player_id: str,
        spot: int,
        main_amount: int,
        side_amounts: Mapping[str, int] | None = None,
        free_amount: int | None = None,
    ) -> ev.BetsPlaced:
        sides = {key: [amount] for key, amount in (side_amounts or {}).items()}
        free = None if free_amount is None else [free_amount]
        return self.verify_place_bets([player_id], [spot], [main_amount], sides, free)

    def can_place_bet(self, *args: object, **kwargs: object) -> bool:
        return _succeeds(self.verify_place_bet, *args, **kwargs)

    def place_bet(
        self,
        player_id: str,
        spot: int,
        main_amount: int,
        side_amounts: Mapping[str, int] | None = None,
        free_amount: int | None = None,
    ) -> ev.BetsPlaced:
        """One player's bet on one spot. ``free_amount``: their coins outside this round."""
        event = self.verify_place_bet(player_id, spot, main_amount, side_amounts, free_amount)
        self._apply(event)
        return event

    def set_free_coins(self, player_ids: Sequence[str], amounts: Sequence[int]) -> ev.FreeCoinsSet:
        """Refresh players' coins outside this round (their wallet may have moved elsewhere)."""
        if self.over:
            raise PhaseError("the round is over")
        for player_id, amount in zip(player_ids, amounts, strict=True):
            if self.book.player_index(player_id) is None:
                raise UnknownPositionError(f"player {player_id!r} has no bet in this round")
            if amount < 0:
                raise InsufficientCoinsError(f"player {player_id!r}: free coins cannot be negative")
        event = ev.FreeCoinsSet(tuple(player_ids), ev.frozen_array(list(amounts)))
        self._apply(event)
        return event

    # ---- dealing -------------------------------------------------------------------------
    def verify_deal(self) -> None:
        self._require(BETTING)
        if not len(self.book):
            raise PhaseError("no bets were placed; there is nothing to deal")

    def can_deal(self) -> bool:
        return _succeeds(self.verify_deal)

    def deal(self) -> ev.CardsDealt:
        """Close betting and deal: each occupied spot, the up card, each spot again, the hole."""
        self.verify_deal()
        occupied = sorted(set(self.book.spot.tolist()))
        first = [self._draw() for _ in occupied]
        up = self._draw()
        second = [self._draw() for _ in occupied]
        hole = self._draw() if self.rules.dealer.hole_card == "peek" else None
        spot_cards = tuple(
            (spot, one, two) for spot, one, two in zip(occupied, first, second, strict=True)
        )
        event = ev.CardsDealt(spot_cards, up, hole)
        self._apply(event)
        return event

    # ---- insurance -----------------------------------------------------------------------
    def _verify_insurance(self, player_id: str, spot: int, even_money: bool) -> int:
        self._require(INSURANCE)
        position = self.position(player_id, spot)
        main = int(self.book.main[position])
        if main <= 0:
            raise IllegalActionError(f"player {player_id!r} spot {spot}: no main bet to insure")
        if self.book.insurance[position] or self.book.even_money[position]:
            raise IllegalActionError(f"player {player_id!r} spot {spot}: already answered")
        blackjack = self.path_of(position).hands[0].status == "blackjack"
        offers_even_money = blackjack and self.rules.insurance.blackjack_offer == "even_money"
        if even_money and not offers_even_money:
            raise IllegalActionError(
                f"player {player_id!r} spot {spot}: even money is only offered to a blackjack"
            )
        if not even_money and offers_even_money:
            raise IllegalActionError(
                f"player {player_id!r} spot {spot}: a blackjack is offered even money, "
                "not insurance"
            )
        if not even_money:
            cost = self.rules.insurance.cost.of(main)
            free = int(self.book.free[self.book.player[position]])
            if cost > free:
                raise InsufficientCoinsError(
                    f"player {player_id!r} spot {spot}: insurance costs {format_amount(cost)}, "
                    f"free coins are {format_amount(free)}"
                )
        return position

    def verify_take_insurance(self, player_id: str, spot: int = 1) -> None:
        self._verify_insurance(player_id, spot, even_money=False)

    def can_take_insurance(self, player_id: str, spot: int = 1) -> bool:
        return _succeeds(self.verify_take_insurance, player_id, spot)

    def take_insurance(self, player_id: str, spot: int = 1) -> ev.InsuranceTaken:
        position = self._verify_insurance(player_id, spot, even_money=False)
        event = ev.InsuranceTaken(ev.frozen_array([position]), even_money=False)
        self._apply(event)
        return event

    def verify_take_even_money(self, player_id: str, spot: int = 1) -> None:
        self._verify_insurance(player_id, spot, even_money=True)

    def can_take_even_money(self, player_id: str, spot: int = 1) -> bool:
        return _succeeds(self.verify_take_even_money, player_id, spot)

    def take_even_money(self, player_id: str, spot: int = 1) -> ev.InsuranceTaken:
        position = self._verify_insurance(player_id, spot, even_money=True)
        event = ev.InsuranceTaken(ev.frozen_array([position]), even_money=True)
        self._apply(event)
        return event

    def take_insurance_many(self, positions: np.ndarray) -> ev.InsuranceTaken:
        """Bulk insurance (bots, load tests): every position must be eligible and covered."""
        self._require(INSURANCE)
        positions = np.asarray(positions, dtype=np.int64)
        if len(positions) and (positions.min() < 0 or positions.max() >= len(self.book)):
            raise UnknownPositionError("a position index is out of range")
        if len(np.unique(positions)) != len(positions):
            raise IllegalActionError("a position takes insurance twice in one batch")
        book = self.book
        eligible = (
            (book.main[positions] > 0)
            & (book.insurance[positions] == 0)
            & ~book.even_money[positions]
        )
        if self.rules.insurance.blackjack_offer == "even_money":
            naturals = np.array(
                [
                    bool(state.hands) and state.hands[0].status == "blackjack"
                    for state in self.nodes.states
                ],
                dtype=np.bool_,
            )
            eligible &= ~naturals[book.node[positions]]
        if not eligible.all():
            bad = int(positions[np.flatnonzero(~eligible)[0]])
            player_id = book.player_ids[int(book.player[bad])]
            self._verify_insurance(player_id, int(book.spot[bad]), even_money=False)
        cost = self.rules.insurance.cost
        need = np.zeros_like(self.book.free)
        np.add.at(need, self.book.player[positions], cost.of_array(self.book.main[positions]))
        short = np.flatnonzero(need > self.book.free)
        if len(short):
            raise InsufficientCoinsError(
                f"player {self.book.player_ids[int(short[0])]!r}: insurance exceeds free coins"
            )
        event = ev.InsuranceTaken(ev.frozen_array(positions), even_money=False)
        self._apply(event)
        return event

    def close_insurance(self) -> ev.InsuranceClosed:
        self._require(INSURANCE)
        event = ev.InsuranceClosed()
        self._apply(event)
        return event

    # ---- decisions -----------------------------------------------------------------------
    def _legal_for(self, position: int) -> frozenset[Action]:
        return legal_actions(self.path_of(position), self._context())

    def legal_actions(self, player_id: str, spot: int = 1) -> frozenset[Action]:
        """Actions this player may take now on this spot, coins considered."""
        if self.phase != DECISIONS or self.paused:
            return frozenset()
        position = self.position(player_id, spot)
        if spot != self.current_spot or self.book.pending[position] != NO_DECISION:
            return frozenset()
        allowed = set(self._legal_for(position))
        if not allowed:
            return frozenset()
        free = int(self.book.free[self.book.player[position]])
        main = int(self.book.main[position])
        hand_units = self.path_of(position).hand.stake_units
        if free < main * hand_units:
            allowed.discard(Action.DOUBLE)
        if free < main:
            allowed.discard(Action.SPLIT)
        return frozenset(allowed)

    def _verify_decision(self, position: int, action: Action) -> None:
        spot = int(self.book.spot[position])
        player_id = self.book.player_ids[int(self.book.player[position])]
        where = f"player {player_id!r} spot {spot}"
        if spot != self.current_spot:
            raise PhaseError(f"{where}: decisions are for spot {self.current_spot} now")
        path = self.path_of(position)
        if not path.needs_decision:
            raise IllegalActionError(
                f"{where}: cannot {action.word}: no hand of this position awaits a decision"
            )
        if self.book.pending[position] != NO_DECISION:
            raise IllegalActionError(f"{where}: already decided at step {self.step}")
        hand_label = f"hand {path.current + 1}" if len(path.hands) > 1 else "hand"
        legal = self._legal_for(position)
        if action not in legal:
            options = ", ".join(sorted(item.word for item in legal))
            raise IllegalActionError(
                f"{where} {hand_label} {'-'.join(map(str, path.hand.cards))}: "
                f"{action.word} is not allowed now (allowed: {options})"
            )
        if action in (Action.DOUBLE, Action.SPLIT):
            # Unaffordable now: rejected (rule 5). The fall-backs of rules 12 and 22 apply only
            # when coins run short between the decision and the step's execution.
            units = path.hand.stake_units if action == Action.DOUBLE else 1
            cost = int(self.book.main[position]) * units
            free = int(self.book.free[self.book.player[position]])
            if cost > free:
                raise InsufficientCoinsError(
                    f"{where}: {action.word} costs {format_amount(cost)}, "
                    f"free coins are {format_amount(free)}"
                )

    def verify_decide(self, player_id: str, spot: int, action: Action | str) -> int:
        self._require(DECISIONS)
        position = self.position(player_id, spot)
        where = f"player {player_id!r} spot {spot}"
        chosen = action if isinstance(action, Action) else _parse_action(action, where)
        self._verify_decision(position, chosen)
        return position

    def can_decide(self, player_id: str, spot: int, action: Action | str) -> bool:
        return _succeeds(self.verify_decide, player_id, spot, action)

    def decide(self, player_id: str, spot: int, action: Action | str) -> ev.DecisionsMade:
        """Record the player's decision for this step; it executes when the step closes."""
        position = self.verify_decide(player_id, spot, action)
        chosen = action if isinstance(action, Action) else Action.from_word(action)
        event = ev.DecisionsMade(
            spot, self.step, ev.frozen_array([position]), ev.frozen_array([int(chosen)])
        )
        self._apply(event)
        return event

    def decide_many(self, positions: np.ndarray, actions: np.ndarray) -> ev.DecisionsMade:
        """Bulk decisions (bots, load tests): all legal or none applied."""
        self._require(DECISIONS)
        positions = np.asarray(positions, dtype=np.int64)
        actions = np.asarray(actions, dtype=np.int64)
        if len(positions) != len(actions):
            raise RulesError("positions and actions differ in length")
        if len(positions):
            self._verify_many(positions, actions)
        event = ev.DecisionsMade(
            self.current_spot, self.step, ev.frozen_array(positions), ev.frozen_array(actions)
        )
        self._apply(event)
        return event

    def _verify_many(self, positions: np.ndarray, actions: np.ndarray) -> None:
        if positions.min() < 0 or positions.max() >= len(self.book):
            raise UnknownPositionError("a position index is out of range")
        if len(np.unique(positions)) != len(positions):
            raise IllegalActionError("a position is decided twice in one batch")
        if actions.min() < 0 or actions.max() > max(Action):
            raise IllegalActionError("an action code is out of range")
        nodes = self.book.node[positions]
        context = self._context()
        unique_nodes, inverse = np.unique(nodes, return_inverse=True)
        table = np.zeros((len(self.nodes.states), len(Action)), dtype=np.bool_)
        for node in unique_nodes.tolist():
            for action in legal_actions(self.nodes.states[node], context):
                table[node, int(action)] = True
        ok = (
            table[nodes, actions]
            & (self.book.spot[positions] == self.current_spot)
            & (self.book.pending[positions] == NO_DECISION)
        )
        units_by_node = np.array(
            [
                1 if state.finished else state.hand.stake_units
                for state in (self.nodes.states[node] for node in unique_nodes.tolist())
            ],
            dtype=np.int64,
        )
        units = units_by_node[inverse.reshape(-1)]
        cost = np.where(actions == Action.DOUBLE, units, actions == Action.SPLIT)
        ok &= self.book.free[self.book.player[positions]] >= self.book.main[positions] * cost
        if not ok.all():
            bad = int(np.flatnonzero(~ok)[0])
            self._verify_decision(int(positions[bad]), Action(int(actions[bad])))
            raise IllegalActionError(f"position {int(positions[bad])}: decision not allowed")

    def _deciding_on_spot(self) -> tuple[np.ndarray, np.ndarray]:
        """Positions on the open spot, and which of them hold a hand waiting for a decision."""
        on_spot = self._spot_positions[self.current_spot]
        unique_nodes, inverse = np.unique(self.book.node[on_spot], return_inverse=True)
        deciding = np.array(
            [self.nodes.states[node].needs_decision for node in unique_nodes.tolist()],
            dtype=np.bool_,
        )
        return on_spot, deciding[inverse.reshape(-1)]

    def positions_awaiting_decision(self) -> np.ndarray:
        """Positions on the open step whose hand in play waits for a decision (none given yet)."""
        if self.phase != DECISIONS or self.paused:
            return np.zeros(0, dtype=np.int64)
        on_spot, deciding = self._deciding_on_spot()
        waiting = deciding & (self.book.pending[on_spot] == NO_DECISION)
        return np.asarray(on_spot[waiting], dtype=np.int64)

    def undecided_count(self) -> int:
        return len(self.positions_awaiting_decision())

    @property
    def needs_decisions(self) -> bool:
        """Whether the open step has hands to decide (else it can close at once)."""
        if self.phase != DECISIONS:
            return False
        return bool(self._deciding_on_spot()[1].any())

    def close_step(self) -> ev.StepClosed:
        """Execute this step: decisions, autoplay for the rest, and one card if anyone takes it."""
        self._require(DECISIONS)
        plan = plan_step(self, self.current_spot, self.step)
        card = self._draw() if plan.takes_card else None
        event = ev.StepClosed(self.current_spot, self.step, card)
        self._plan = (self.current_spot, self.step, plan)
        self._apply(event)
        return event

    # ---- dealer and settlement -----------------------------------------------------------
    def play_dealer(self) -> ev.DealerCardsDrawn:
        """Reveal the hole card (or deal the second card) and draw to the dealer's rule."""
        self._require(DEALER)
        assert self.up_card is not None
        cards: list[Card] = [self.up_card]
        if self._hole_card is not None:
            cards.append(self._hole_card)
        else:
            cards.append(self._draw())
        while self._dealer_draws(cards):
            cards.append(self._draw())
        drawn = tuple(cards[1:]) if self._hole_card is None else tuple(cards[2:])
        event = ev.DealerCardsDrawn(drawn)
        self._apply(event)
        return event

    def _dealer_draws(self, cards: list[Card]) -> bool:
        total = best_total(cards)
        if is_natural(cards):
            return False
        soft = total <= 21 and sum(card.value for card in cards) + 10 == total
        return total < 17 or (total == 17 and soft and self.rules.dealer.hits_soft_17)

    def settle(self) -> ev.RoundSettled:
        """Play any triggered bonus wheels, then pay every position what it is owed."""
        self._require(SETTLING)
        for spin in self._spin_wheels():
            self._apply(spin)
        event = ev.RoundSettled()
        self._apply(event)
        return event

    def _spin_wheels(self) -> list[ev.WheelSpun]:
        assert self.up_card is not None
        spins: list[ev.WheelSpun] = []
        for column, key in enumerate(self.book.side_keys):
            bet = self.rules.side_bet(key)
            assert bet is not None and (bet.wheel is None) != SIDE_BET_KINDS[bet.kind].uses_wheel
            if bet.wheel is None:
                continue
            triggered: list[int] = []
            for spot, cards in self.spot_cards.items():
                if side_bet_pattern(bet, cards, self.up_card, self.dealer_cards) is not None:
                    on_spot = self._spot_positions[spot]
                    triggered += on_spot[self.book.sides[on_spot, column] > 0].tolist()
            if not triggered:
                continue
            if self._randomness is None:
                raise PhaseError("a bonus wheel was triggered but the round has no random source")
            results = [
                spin_bonus_wheel(bet.wheel, int(self.book.sides[p, column]), self._randomness)
                for p in triggered
            ]
            spins.append(
                ev.WheelSpun(
                    key,
                    ev.frozen_array(triggered),
                    ev.frozen_array([result.payout_amount for result in results]),
                    tuple(result.labels for result in results),
                )
            )
        return spins

    def advance(self) -> ev.Event:
        """Do the next step that needs no player: deal, close a window, dealer, settle."""
        if self.paused:
            raise PhaseError("the round is paused")
        if self.phase == BETTING:
            return self.deal()
        if self.phase == INSURANCE:
            return self.close_insurance()
        if self.phase == DECISIONS:
            return self.close_step()
        if self.phase == DEALER:
            return self.play_dealer()
        if self.phase == SETTLING:
            return self.settle()
        raise PhaseError(f"the round is {self.phase}")

    def run_to_end(self) -> None:
        """Advance until settled (bots and tests): everyone left undecided is autoplayed."""
        while not self.over:
            self.advance()

    # ---- operator ------------------------------------------------------------------------
    def pause(self, reason: str = "operator pause") -> ev.RoundPaused:
        if self.over:
            raise PhaseError(f"the round is already {self.phase}")
        if self.paused:
            raise PhaseError("the round is already paused")
        event = ev.RoundPaused(reason)
        self._apply(event)
        return event

    def resume(self) -> ev.RoundResumed:
        if not self.paused:
            raise PhaseError("the round is not paused")
        event = ev.RoundResumed()
        self._apply(event)
        return event

    def cancel(self, reason: str = "operator cancel") -> ev.RoundCancelled:
        """Void the round: every position gets back exactly what it staked."""
        if self.over:
            raise PhaseError(f"the round is already {self.phase}")
        event = ev.RoundCancelled(reason)
        self._apply(event)
        return event

    # ---- money ---------------------------------------------------------------------------
    def staked(self) -> np.ndarray:
        return self.book.staked()

    def paid(self) -> np.ndarray:
        return self.book.paid

    def _pay(self, stage: str, positions: np.ndarray, amounts: np.ndarray) -> None:
        keep = amounts != 0
        if not keep.any():
            return
        positions, amounts = positions[keep], amounts[keep]
        np.add.at(self.book.paid, positions, amounts)
        # Paid coins are the player's again at once: a later double or split may use them.
        np.add.at(self.book.free, self.book.player[positions], amounts)
        self.payments.append(Payment(stage, positions, amounts))

    # ---- applying events -----------------------------------------------------------------
    def _apply(self, event: ev.Event) -> None:
        apply_event(self, event)
        self.events.append(event)

    def final_payouts(self) -> np.ndarray:
        """What each position is owed in total once the round is settled (stakes included)."""
        return final_payouts(self)


def _succeeds(check: Callable[..., object], *args: object, **kwargs: object) -> bool:
    """The ``can_x`` of a ``verify_x``: whether it passes (it never changes anything)."""
    try:
        check(*args, **kwargs)
    except RulesError:
        return False
    return True


def _parse_action(word: str, where: str) -> Action:
    try:
        return Action.from_word(word)
    except ValueError as error:
        raise IllegalActionError(f"{where}: {error}") from None
