"""The table's side of a round spread over follower rounds: pure, no positions.

:class:`TableDealer` owns what no follower may hold: the card source (so the hole card), the
dealer's hand and the step sequence. It adds up the followers' reports and emits the table's
public events, which every follower applies in order. A coordinator process wraps it (bus,
timers, ledger); the single-process server plays the same round with a
:class:`~boundless.core.round.round.SharedRound`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from boundless.core.cards import ACE, Card
from boundless.core.errors import EventLogError, PhaseError
from boundless.core.hands import is_natural
from boundless.core.round import events as ev
from boundless.core.round.dealer import play_dealer_hand
from boundless.core.round.follower import BetsReport, StepReport
from boundless.core.round.paths import initial_path
from boundless.core.round.phases import (
    BETTING,
    CANCELLED,
    DECISIONS,
    INSURANCE,
    OVER,
    SETTLING,
    Phase,
)
from boundless.core.round.round import CardSource, verify_offer
from boundless.core.rules import RuleSet


class TableDealer:
    def __init__(
        self,
        rules: RuleSet,
        *,
        cards: CardSource,
        round_in_shoe: int = 1,
        offered_side_bets: Sequence[str] | None = None,
        shoe_commitment: str | None = None,
    ) -> None:
        self.rules = rules
        self._cards = cards
        self.phase: Phase = BETTING
        self.paused = False
        self.up_card: Card | None = None
        self._hole: Card | None = None
        self.dealer_cards: tuple[Card, ...] = ()
        self.spot_cards: dict[int, tuple[Card, Card]] = {}
        self.seated_spots: frozenset[int] = frozenset()
        self.current_spot = 0
        self.step = 0
        self.opened = ev.RoundOpened(
            round_in_shoe,
            rules.key,
            rules.title.version,
            verify_offer(rules, offered_side_bets),
            shoe_commitment,
        )
        self.events: list[ev.TableEvent] = [self.opened]

    @property
    def done(self) -> bool:
        """Whether the table has nothing left to emit but an operator's cancel: the dealer
        has played (followers settle on their own), or the round was cancelled."""
        return self.phase in OVER or self.phase == SETTLING

    def _emit(self, out: list[ev.TableEvent], event: ev.TableEvent) -> None:
        out.append(event)
        self.events.append(event)

    def _require(self, phase: Phase) -> None:
        if self.paused:
            raise PhaseError("the round is paused")
        if self.phase != phase:
            raise PhaseError(f"not possible in the {self.phase} phase (needs {phase})")

    # ---- betting closes: the deal --------------------------------------------------------
    def close_bets(self, reports: Iterable[BetsReport]) -> list[ev.TableEvent]:
        """Deal to every spot any follower holds; then the insurance window or the steps."""
        self._require(BETTING)
        reports = list(reports)
        occupied = sorted(set().union(*(report.spots for report in reports)))
        if not occupied:
            raise PhaseError("no bets were placed; there is nothing to deal")
        self.seated_spots = frozenset().union(*(report.seated_spots for report in reports))
        draw = self._cards.draw
        first = [draw() for _ in occupied]
        up = draw()
        second = [draw() for _ in occupied]
        self._hole = draw() if self.rules.dealer.hole_card == "peek" else None
        self.up_card = up
        self.dealer_cards = (up,)
        self.spot_cards = {
            spot: (one, two) for spot, one, two in zip(occupied, first, second, strict=True)
        }
        out: list[ev.TableEvent] = []
        spot_cards = tuple((spot, *cards) for spot, cards in self.spot_cards.items())
        self._emit(out, ev.CardsDealt(spot_cards, up, None))
        insurance = self.rules.insurance
        if insurance.offered and up.rank == ACE and self.seated_spots:
            self.phase = INSURANCE
            return out
        self._after_insurance(out)
        return out

    def close_insurance(self) -> list[ev.TableEvent]:
        self._require(INSURANCE)
        out: list[ev.TableEvent] = []
        self._emit(out, ev.InsuranceClosed())
        self._after_insurance(out)
        return out

    def _after_insurance(self, out: list[ev.TableEvent]) -> None:
        assert self.up_card is not None
        dealer = self.rules.dealer
        if dealer.hole_card == "peek" and self.up_card.value in dealer.peek_up_values:
            assert self._hole is not None
            if is_natural((self.up_card, self._hole)):
                self.dealer_cards = (self.up_card, self._hole)
                self._emit(out, ev.PeekResult(self._hole))
                self.phase = SETTLING
                return
            self._emit(out, ev.PeekResult(None))
        self._open_next_spot(out, after=0)

    # ---- steps ---------------------------------------------------------------------------
    def _open_next_spot(self, out: list[ev.TableEvent], after: int) -> None:
        for spot, cards in sorted(self.spot_cards.items()):
            # Every seated hand on a spot starts on the same two cards: in play unless natural.
            if (
                spot > after
                and spot in self.seated_spots
                and not initial_path(cards, True).finished
            ):
                self._open(out, spot, 1)
                return
        self._play_dealer(out)

    def _open(self, out: list[ev.TableEvent], spot: int, step: int) -> None:
        self.phase = DECISIONS
        self.current_spot, self.step = spot, step
        self._emit(out, ev.StepOpened(spot, step))

    def close_step(self, reports: Iterable[StepReport]) -> list[ev.TableEvent]:
        """One card if any follower's positions take it; then the next step or the dealer."""
        self._require(DECISIONS)
        reports = list(reports)
        for report in reports:
            if (report.spot, report.step) != (self.current_spot, self.step):
                raise EventLogError(
                    f"a report for spot {report.spot} step {report.step}; open is spot "
                    f"{self.current_spot} step {self.step}"
                )
        takers = sum(report.takers for report in reports)
        card = self._cards.draw() if takers else None
        out: list[ev.TableEvent] = []
        spot, step = self.current_spot, self.step
        self._emit(out, ev.StepDealt(spot, step, card, takers))
        rank = 0 if card is None else card.rank
        if sum(report.in_play_if[rank] for report in reports):
            self._open(out, spot, step + 1)
        else:
            self._open_next_spot(out, after=spot)
        return out

    def _play_dealer(self, out: list[ev.TableEvent]) -> None:
        assert self.up_card is not None
        self.current_spot = self.step = 0
        self.dealer_cards = play_dealer_hand(self.up_card, self._hole, self._cards.draw, self.rules)
        self._emit(out, ev.DealerRevealed(self.dealer_cards))
        self.phase = SETTLING

    # ---- operator ------------------------------------------------------------------------
    def pause(self, reason: str = "operator pause") -> list[ev.TableEvent]:
        if self.phase in OVER:
            raise PhaseError(f"the round is already {self.phase}")
        if self.paused:
            raise PhaseError("the round is already paused")
        self.paused = True
        out: list[ev.TableEvent] = []
        self._emit(out, ev.RoundPaused(reason))
        return out

    def resume(self) -> list[ev.TableEvent]:
        if not self.paused:
            raise PhaseError("the round is not paused")
        self.paused = False
        out: list[ev.TableEvent] = []
        self._emit(out, ev.RoundResumed())
        return out

    def cancel(self, reason: str = "operator cancel") -> list[ev.TableEvent]:
        if self.phase in OVER:
            raise PhaseError(f"the round is already {self.phase}")
        self.paused = False
        self.phase = CANCELLED
        out: list[ev.TableEvent] = []
        self._emit(out, ev.RoundCancelled(reason))
        return out
