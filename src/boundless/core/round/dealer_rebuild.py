"""A table dealer rebuilt from its round's public events, so a round in flight can go on.

The dealer is made afresh with its card source where it stood when the round opened, then
driven through the calls its first dealer made; each call's events must equal the logged ones,
card for card, so a wrong shoe or position is found, never dealt from. Step reports are not in
the log, but each logged step shows all the dealer reads of them: how many took the card, and
whether the spot went on (the event after it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from boundless.core.errors import EventLogError
from boundless.core.round import events as ev
from boundless.core.round.dealer_table import TableDealer
from boundless.core.round.follower import RANKS, BetsReport, StepReport


@dataclass(frozen=True, slots=True)
class Rebuilt:
    dealer: TableDealer
    unlogged: list[ev.TableEvent]
    """Events the dealer's last call made that the log lacks: the first dealer stopped while
    appending them; they go out before anything else."""
    step_dealt: ev.StepDealt | None = None
    """The log ends on this step's card, without what followed it: the step is closed again
    with its reports (its card must come out the same) and what follows goes out."""


def rebuild_dealer(
    dealer: TableDealer, bets: BetsReport | None, logged: Sequence[ev.TableEvent]
) -> Rebuilt:
    """Drive ``dealer`` (fresh, its cards at the round's start) through ``logged``, the round's
    table events from its ``RoundOpened``; ``bets``: every follower's bets together, ``None``
    before the bets closed. Raises :class:`EventLogError` where the log differs."""
    if not logged or not same_event(logged[0], dealer.opened):
        raise EventLogError("the round's opening is not the one this shoe opens")
    if bets is None:
        if len(logged) > 1:
            raise EventLogError("the log deals cards but holds no bets")
        return Rebuilt(dealer, [])
    at, unlogged = _match(dealer.close_bets([bets]), logged, 1)
    while not unlogged and at < len(logged):
        event = logged[at]
        if isinstance(event, ev.InsuranceClosed):
            made = dealer.close_insurance()
        elif isinstance(event, ev.StepDealt):
            if at + 1 == len(logged):
                return Rebuilt(dealer, [], event)
            goes_on = int(_goes_on(event, logged[at + 1]))
            made = dealer.close_step(
                [StepReport(event.spot, event.step, event.takers, (goes_on,) * (RANKS + 1))]
            )
        else:
            raise EventLogError(f"a logged {type(event).__name__} where the dealer made none")
        at, unlogged = _match(made, logged, at)
    return Rebuilt(dealer, unlogged)


def same_event(one: ev.TableEvent, other: ev.TableEvent) -> bool:
    """Field by field (events compare by identity)."""
    return type(one) is type(other) and dataclasses.astuple(one) == dataclasses.astuple(other)


def _goes_on(dealt: ev.StepDealt, following: ev.TableEvent) -> bool:
    return isinstance(following, ev.StepOpened) and (following.spot, following.step) == (
        dealt.spot,
        dealt.step + 1,
    )


def _match(
    made: Sequence[ev.TableEvent], logged: Sequence[ev.TableEvent], at: int
) -> tuple[int, list[ev.TableEvent]]:
    for index, event in enumerate(made):
        if at + index == len(logged):
            return at + index, list(made[index:])
        if not same_event(event, logged[at + index]):
            raise EventLogError(
                f"logged event {at + index} ({type(logged[at + index]).__name__}) is not what "
                f"the shoe deals ({type(event).__name__}): another shoe or position"
            )
    return at + len(made), []
