"""The shared round: one dealer hand, one or more spots, any number of positions.

Every operation follows the same pattern: ``verify_x`` raises a precise :class:`RulesError`
and changes nothing, ``can_x`` answers with a bool, and ``x`` verifies, builds an event and
applies it. Only :func:`~boundless.core.round.apply.apply_event` changes the state, so
replaying the event log through :meth:`SharedRound.rebuild` gives back the same round.

The players' calls live in :class:`~boundless.core.round.players.PlayerRound`; this class adds
the table's side: the card source, the deal, closing steps, the dealer and settlement.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from boundless.core.cards import Card
from boundless.core.errors import EventLogError, InvalidRuleSetError, PhaseError
from boundless.core.random_source import RandomSource
from boundless.core.round import events as ev
from boundless.core.round.checks import can_of, require
from boundless.core.round.dealer import play_dealer_hand, spin_wheels
from boundless.core.round.phases import BETTING, DEALER, DECISIONS, INSURANCE, SETTLING
from boundless.core.round.players import PlayerRound
from boundless.core.round.state import Payment
from boundless.core.round.steps import plan_step
from boundless.core.rules import RuleSet
from boundless.core.strategy_chart import StrategyChart

__all__ = ["CardSource", "Payment", "SharedRound", "verify_offer"]


class CardSource(Protocol):
    def draw(self) -> Card: ...


def verify_offer(rules: RuleSet, offered: Sequence[str] | None) -> tuple[str, ...]:
    """The side-bet keys on offer this round, from the chosen offer groups (or all)."""
    groups = rules.side_bet_groups()
    offer = rules.side_bet_offer
    if offered is None:
        chosen = list(groups)
        if offer.mode == "player_chooses":
            chosen = chosen[: offer.choose_count]
    else:
        chosen = []
        for name in offered:
            group = name if name in groups else rules.group_of(name)
            if group is None:
                raise InvalidRuleSetError(
                    f"side bet {name!r} is not offered by {rules.key!r} "
                    f"(choose from {', '.join(groups)})"
                )
            if group not in chosen:
                chosen.append(group)
        if offer.mode == "player_chooses" and len(chosen) != offer.choose_count:
            raise InvalidRuleSetError(
                f"choose exactly {offer.choose_count} side bets to offer, got {len(chosen)}"
            )
    return tuple(key for group in chosen for key in groups[group])


class SharedRound(PlayerRound):
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
        super().__init__(rules, chart=chart, round_in_shoe=round_in_shoe)
        self._cards = cards
        self._randomness = randomness
        offered = verify_offer(rules, offered_side_bets)
        self._apply(
            ev.RoundOpened(round_in_shoe, rules.key, rules.title.version, offered, shoe_commitment)
        )

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

    def _draw(self) -> Card:
        if self._cards is None:
            raise PhaseError("this round has no card source (it was rebuilt from a log)")
        return self._cards.draw()

    # ---- dealing -------------------------------------------------------------------------
    def verify_deal(self) -> None:
        require(self, BETTING)
        if not len(self.book):
            raise PhaseError("no bets were placed; there is nothing to deal")

    can_deal = can_of(verify_deal)

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
        return self._applied(ev.CardsDealt(spot_cards, up, hole))

    def verify_close_insurance(self) -> None:
        require(self, INSURANCE)

    can_close_insurance = can_of(verify_close_insurance)

    def close_insurance(self) -> ev.InsuranceClosed:
        self.verify_close_insurance()
        return self._applied(ev.InsuranceClosed())

    # ---- steps ---------------------------------------------------------------------------
    def verify_close_step(self) -> None:
        require(self, DECISIONS)

    can_close_step = can_of(verify_close_step)

    def close_step(self) -> ev.StepClosed:
        """Execute this step: decisions, autoplay for the rest, and one card if anyone takes it."""
        self.verify_close_step()
        plan = plan_step(self, self.current_spot, self.step)
        card = self._draw() if plan.takes_card else None
        event = ev.StepClosed(self.current_spot, self.step, card)
        self._apply(event, plan)
        return event

    # ---- dealer and settlement -----------------------------------------------------------
    def verify_play_dealer(self) -> None:
        require(self, DEALER)

    can_play_dealer = can_of(verify_play_dealer)

    def play_dealer(self) -> ev.DealerCardsDrawn:
        """Reveal the hole card (or deal the second card) and draw to the dealer's rule."""
        self.verify_play_dealer()
        assert self.up_card is not None
        hand = play_dealer_hand(self.up_card, self.hidden_hole, self._draw, self.rules)
        drawn = hand[1:] if self.hidden_hole is None else hand[2:]
        return self._applied(ev.DealerCardsDrawn(drawn))

    def verify_settle(self) -> None:
        require(self, SETTLING)

    can_settle = can_of(verify_settle)

    def settle(self) -> ev.RoundSettled:
        """Play any triggered bonus wheels, then pay every position what it is owed."""
        self.verify_settle()
        for spin in spin_wheels(self, self._randomness):
            self._apply(spin)
        return self._applied(ev.RoundSettled())

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
    def verify_pause(self) -> None:
        if self.over:
            raise PhaseError(f"the round is already {self.phase}")
        if self.paused:
            raise PhaseError("the round is already paused")

    can_pause = can_of(verify_pause)

    def pause(self, reason: str = "operator pause") -> ev.RoundPaused:
        self.verify_pause()
        return self._applied(ev.RoundPaused(reason))

    def verify_resume(self) -> None:
        if not self.paused:
            raise PhaseError("the round is not paused")

    can_resume = can_of(verify_resume)

    def resume(self) -> ev.RoundResumed:
        self.verify_resume()
        return self._applied(ev.RoundResumed())
