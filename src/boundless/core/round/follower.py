"""A follower round: some of a table's positions, advanced by the table's public events.

A table whose players are spread over several processes runs one :class:`TableDealer`
(``dealer_table.py``: the shoe, the dealer's hand, the step sequence) and any number of
follower rounds, each holding only its own players' positions. A follower takes its players'
bets, insurance and decisions itself (the same calls as :class:`SharedRound`), tells the table
what it needs (:meth:`FollowerRound.bets_report`, :meth:`FollowerRound.step_report`), and
applies the table's public events (:meth:`FollowerRound.apply_public`). It never sees the hole
card before the table shows it: a :class:`~.events.PeekResult` carries it only when it makes
blackjack, a :class:`~.events.DealerRevealed` carries it at the reveal.

Fed the same public events, positions split over any number of followers end with exactly the
stakes, hands, payouts and results they get in one shared round.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from boundless.core.cards import Card
from boundless.core.errors import EventLogError, InvalidRuleSetError, PhaseError
from boundless.core.hands import is_natural
from boundless.core.random_source import RandomSource
from boundless.core.round import events as ev
from boundless.core.round.actions import Action
from boundless.core.round.apply import (
    deal_spots,
    execute_step,
    insurance_opens,
    open_step,
    pay_blackjacks_at_once,
    reveal_dealer,
    reveal_natural,
)
from boundless.core.round.checks import can_of, require
from boundless.core.round.dealer import spin_wheels
from boundless.core.round.paths import receive_card
from boundless.core.round.phases import BETTING, DECISIONS, INSURANCE, SETTLING
from boundless.core.round.players import PlayerRound
from boundless.core.round.steps import StepPlan, plan_step
from boundless.core.rules import RuleSet
from boundless.core.strategy_chart import StrategyChart

RANKS = 13


@dataclass(frozen=True, slots=True)
class BetsReport:
    """What a follower holds when betting closes: spots with any position, spots with a main
    bet (a seated hand)."""

    spots: frozenset[int]
    seated_spots: frozenset[int]


@dataclass(frozen=True, slots=True)
class StepReport:
    """What a follower needs at the close of a step.

    ``takers``: its positions that take the step card. ``in_play_if[0]``: its positions on the
    spot still in play after the step if no card is dealt; ``in_play_if[rank]`` (1..13): still
    in play if the card has that rank. The table adds these up, so one report per step tells it
    whether to deal a card and whether the spot needs another step.
    """

    spot: int
    step: int
    takers: int
    in_play_if: tuple[int, ...]


class FollowerRound(PlayerRound):
    def __init__(
        self,
        rules: RuleSet,
        opened: ev.RoundOpened,
        *,
        chart: StrategyChart | None = None,
        randomness: RandomSource | None = None,
    ) -> None:
        if rules.needs_strategy_chart and chart is None:
            raise InvalidRuleSetError(f"title {rules.key!r} needs its basic-strategy chart")
        if opened.rules_key != rules.key:
            raise EventLogError(f"the table plays {opened.rules_key!r}, not {rules.key!r}")
        super().__init__(rules, chart=chart, round_in_shoe=opened.round_in_shoe)
        self._randomness = randomness
        self._plan: tuple[int, int, StepPlan] | None = None
        self._peek_due = False  # the table's PeekResult comes before any step
        self._bets_closed = False
        self._public = False  # inside apply_public: the log takes the table's event itself
        self.table_events: list[ev.TableEvent] = [opened]
        self.log: list[ev.Event | ev.TableEvent] = []  # everything applied, in order
        self._apply(opened)

    @classmethod
    def rebuild(
        cls,
        rules: RuleSet,
        log: Sequence[ev.Event | ev.TableEvent],
        *,
        chart: StrategyChart | None = None,
        randomness: RandomSource | None = None,
    ) -> FollowerRound:
        """The follower that ``log`` (its :attr:`log`: its own events and the table's, in the
        order applied) describes; a restarted process replays it to carry on."""
        if not log or not isinstance(log[0], ev.RoundOpened):
            raise EventLogError("a follower's log starts with the table's RoundOpened")
        round_ = cls(rules, log[0], chart=chart, randomness=randomness)
        for event in log[1:]:
            if isinstance(event, ev.TABLE_EVENT_TYPES):
                round_.apply_public(event)  # type: ignore[arg-type]
            else:
                round_._apply(event)  # type: ignore[arg-type]
        return round_

    def _apply(self, event: ev.Event, plan: StepPlan | None = None) -> None:
        super()._apply(event, plan)
        if not self._public:
            self.log.append(event)

    # ---- reports to the table ----------------------------------------------------------
    def bets_report(self) -> BetsReport:
        """Close this follower's betting and say which spots it needs dealt."""
        require(self, BETTING)
        self._bets_closed = True
        spots = self.book.spot
        return BetsReport(frozenset(spots.tolist()), frozenset(spots[self.book.main > 0].tolist()))

    def step_open(self) -> bool:
        """Whether the table has a step open for decisions now."""
        return self.phase == DECISIONS and self.current_spot > 0 and not self.paused

    # Once reported, bets and the step are closed here: what the table was told stands.
    def verify_place_bets(self, *args: Any, **kwargs: Any) -> ev.BetsPlaced:
        if self._bets_closed:
            raise PhaseError("betting is closed: this round has reported its bets to the table")
        return super().verify_place_bets(*args, **kwargs)

    def verify_decide(self, player_id: str, spot: int, action: Action | str) -> int:
        self._refuse_after_report()
        return super().verify_decide(player_id, spot, action)

    def decide_many(self, positions: np.ndarray, actions: np.ndarray) -> ev.DecisionsMade:
        self._refuse_after_report()
        return super().decide_many(positions, actions)

    def legal_actions(self, player_id: str, spot: int = 1) -> frozenset[Action]:
        return frozenset() if self._plan is not None else super().legal_actions(player_id, spot)

    def positions_awaiting_decision(self) -> np.ndarray:
        if self._plan is not None:
            return np.zeros(0, dtype=np.int64)
        return super().positions_awaiting_decision()

    def _refuse_after_report(self) -> None:
        if self._plan is not None:
            raise PhaseError(
                f"spot {self.current_spot} step {self.step} is closing: its report is sent"
            )

    def step_report(self) -> StepReport:
        """Plan the open step (own decisions, autoplay for the rest) and say what it needs."""
        require(self, DECISIONS)
        if not self.step_open():
            raise EventLogError("no step is open")
        spot, step = self.current_spot, self.step
        plan = plan_step(self, spot, step)
        self._plan = (spot, step, plan)
        in_play = [0] * (RANKS + 1)
        sizes = np.bincount(plan.group_of, minlength=len(plan.groups)).tolist()
        for (parent, action, source), count in zip(plan.groups, sizes, strict=True):
            after, takes = self.nodes.planned_child(parent, action, source, step)
            if not takes:
                alive = not after.finished
                for rank in range(RANKS + 1):
                    in_play[rank] += count * alive
                continue
            for rank in range(1, RANKS + 1):
                dealt = receive_card(after, Card.of(rank, 0), self.rules)
                in_play[rank] += count * (not dealt.finished)
        return StepReport(spot, step, plan.takers, tuple(in_play))

    # ---- the table's events ------------------------------------------------------------
    def apply_public(self, event: ev.TableEvent) -> None:
        """Apply one event of the table's public stream (in order)."""
        if self.over:
            raise EventLogError(f"{type(event).__name__} after the round ended")
        handler = getattr(self, f"_on_{type(event).__name__}", None)
        if handler is None or not isinstance(event, ev.TABLE_EVENT_TYPES):
            raise EventLogError(f"{type(event).__name__} is not a table event")
        if self.phase == INSURANCE and not isinstance(
            event, ev.InsuranceClosed | ev.RoundPaused | ev.RoundResumed | ev.RoundCancelled
        ):
            # The table opened no window (no main bet at the whole table was seated there):
            # this follower had none either, so its window closes with nothing taken.
            if (self.book.main > 0).any():
                raise EventLogError("the insurance window closed without InsuranceClosed")
            self._after_insurance()
        self._public = True
        try:
            handler(event)
        finally:
            self._public = False
        self.table_events.append(event)
        self.log.append(event)

    def _on_RoundOpened(self, event: ev.RoundOpened) -> None:
        raise EventLogError("the round is already open")

    def _on_CardsDealt(self, event: ev.CardsDealt) -> None:
        if self.phase != BETTING:
            raise EventLogError("cards dealt outside betting")
        if event.hole_card is not None:
            raise EventLogError("a follower is never shown the hole card at the deal")
        dealt = {spot for spot, _, _ in event.spot_cards}
        missing = set(self.book.spot.tolist()) - dealt
        if missing:
            raise EventLogError(f"spots {sorted(missing)} hold bets but were not dealt")
        deal_spots(self, event.spot_cards, event.up_card, None)
        if insurance_opens(self, True):
            self.phase = INSURANCE
        else:
            self._after_insurance()

    def _on_InsuranceClosed(self, event: ev.InsuranceClosed) -> None:
        if self.phase != INSURANCE:
            raise EventLogError("insurance closed outside the insurance window")
        self._after_insurance()

    def _after_insurance(self) -> None:
        self._wait()
        self._peek_due = self._peeks()
        if not self._peek_due:
            pay_blackjacks_at_once(self)

    def _peeks(self) -> bool:
        assert self.up_card is not None
        dealer = self.rules.dealer
        return dealer.hole_card == "peek" and self.up_card.value in dealer.peek_up_values

    def _wait(self) -> None:
        """Decisions phase with no step open: the table opens each step."""
        self.phase = DECISIONS
        self.current_spot = 0
        self.step = 0

    def _on_PeekResult(self, event: ev.PeekResult) -> None:
        if self.phase != DECISIONS or not self._peek_due:
            raise EventLogError("a peek result the round does not expect")
        self._peek_due = False
        if event.hole_card is None:
            pay_blackjacks_at_once(self)
            return
        assert self.up_card is not None
        if not is_natural((self.up_card, event.hole_card)):
            raise EventLogError("the peek shows a hole card that makes no blackjack")
        reveal_natural(self, event.hole_card)

    def _on_StepOpened(self, event: ev.StepOpened) -> None:
        if self.phase != DECISIONS or self._peek_due:
            raise EventLogError("a step opened outside the decisions")
        if self.current_spot:
            raise EventLogError("a step opened before the open one closed")
        if event.spot not in self.spot_cards or event.step < 1:
            raise EventLogError(f"spot {event.spot} step {event.step} cannot open")
        open_step(self, event.spot, event.step)

    def _on_StepDealt(self, event: ev.StepDealt) -> None:
        if not self.step_open() or (event.spot, event.step) != (self.current_spot, self.step):
            raise EventLogError("a step closed that is not open")
        cached, self._plan = self._plan, None
        if cached is not None and cached[:2] == (event.spot, event.step):
            plan = cached[2]
        else:
            plan = plan_step(self, event.spot, event.step)
        if plan.takes_card and event.card is None:
            raise EventLogError(f"step {event.step}: positions here take a card, none was dealt")
        execute_step(self, event.spot, event.step, event.card, plan, event.takers)
        self._wait()

    def _on_DealerRevealed(self, event: ev.DealerRevealed) -> None:
        if self.phase != DECISIONS or self.current_spot or self._peek_due:
            raise EventLogError("the dealer played before the decisions ended")
        if not event.cards or event.cards[0] != self.up_card:
            raise EventLogError("the dealer's hand does not start with the up card")
        if self.rules.dealer.hole_card == "peek" and len(event.cards) > 1:
            self.hidden_hole = event.cards[1]
        reveal_dealer(self, tuple(event.cards))

    def _on_RoundPaused(self, event: ev.RoundPaused) -> None:
        self._apply(event)

    def _on_RoundResumed(self, event: ev.RoundResumed) -> None:
        self._apply(event)

    def _on_RoundCancelled(self, event: ev.RoundCancelled) -> None:
        self._apply(event)

    # ---- settlement ----------------------------------------------------------------------
    def verify_settle(self) -> None:
        require(self, SETTLING)

    can_settle = can_of(verify_settle)

    def settle(self, wheel_spins: Sequence[ev.WheelSpun] | None = None) -> list[ev.Event]:
        """Spin this follower's triggered bonus wheels (or apply ``wheel_spins``, spun
        elsewhere, with this follower's position numbers) and pay every position."""
        self.verify_settle()
        spins = spin_wheels(self, self._randomness) if wheel_spins is None else list(wheel_spins)
        events: list[ev.Event] = []
        for spin in spins:
            self._apply(spin)
            events.append(spin)
        settled = ev.RoundSettled()
        self._apply(settled)
        events.append(settled)
        return events


__all__ = ["BetsReport", "FollowerRound", "StepReport"]
