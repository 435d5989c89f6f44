"""Private tables wait for nobody but their one player.

A shared table's betting and insurance windows run their clocks because other players may still
come; at a private table the owner is the only one who can bet, so the round deals as soon as
the owner's bet is in (the bet message is the "Deal"), and the insurance window closes as soon
as every offer on the table has been answered (taken, or declined with ``kind: "decline"``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any, Protocol

from boundless.core.errors import IllegalActionError
from boundless.core.round.players import PlayerRound
from boundless.core.rules import RuleSet
from boundless.server.clock import now


class Table(Protocol):
    """What these rules read of a table (a :class:`~boundless.server.tables.desk.TableDesk`)."""

    @property
    def round(self) -> PlayerRound | None: ...

    bets: Any  # the table's BetBatcher: true while bets wait for their batch
    rules: RuleSet
    declined_insurance: set[tuple[str, int]]
    """The (player, spot) offers declined in this round; emptied by each new round."""
    min_cycle_seconds: float
    last_deal_at: float | None

    @property
    def private(self) -> bool: ...

    def wake(self) -> None:
        """Ends a wait early (the table's clock)."""


def ready_to_deal(table: Table) -> bool:
    """A private table whose owner's bet is placed deals now."""
    round_ = table.round
    return table.private and round_ is not None and round_.position_count() > 0 and not table.bets


def _offered(round_: PlayerRound, player_id: str, spot: int) -> bool:
    return round_.can_take_even_money(player_id, spot) or round_.can_take_insurance(player_id, spot)


def decline_insurance(table: Table, round_: PlayerRound, player_id: str, spot: int) -> None:
    """The player says no to the offer on ``spot``; an answer that changes nothing else."""
    if not _offered(round_, player_id, spot):
        raise IllegalActionError(
            f"player {player_id!r} spot {spot}: there is no insurance offer to decline"
        )
    table.declined_insurance.add((player_id, spot))
    table.wake()


def open_offers(table: Table, player_ids: Iterable[str]) -> set[tuple[str, int]]:
    """These players' insurance offers (player, spot) neither taken nor declined yet."""
    round_ = table.round
    if round_ is None:
        return set()
    declined = table.declined_insurance
    spots = range(1, table.rules.table.spots + 1)
    return {
        (player_id, spot)
        for player_id in player_ids
        for spot in spots
        if (player_id, spot) not in declined and _offered(round_, player_id, spot)
    }


def insurance_answered(table: Table) -> bool:
    """At a private table: no offer is left unanswered (the window may close)."""
    round_ = table.round
    if not table.private or round_ is None:
        return False
    return not open_offers(table, round_.player_ids)


async def pace(table: Table) -> None:
    """A private table deals no sooner than the jurisdiction's minimum game cycle after its
    previous deal (its one player's previous round began then): no turbo play."""
    if not table.private or table.last_deal_at is None or table.min_cycle_seconds <= 0:
        return
    wait = table.last_deal_at + table.min_cycle_seconds - now()
    if wait > 0:
        await asyncio.sleep(wait)
