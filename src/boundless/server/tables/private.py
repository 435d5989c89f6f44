"""Private tables wait for nobody but their one player.

A shared table's betting and insurance windows run their clocks because other players may still
come; at a private table the owner is the only one who can bet, so the round deals as soon as
the owner's bet is in (the bet message is the "Deal"), and the insurance window closes as soon
as every offer on the table has been answered (taken, or declined with ``kind: "decline"``).
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

from boundless.core.errors import IllegalActionError
from boundless.core.round import SharedRound
from boundless.core.rules import RuleSet


class Table(Protocol):
    """What these rules read of a table (``boundless.server.tables.table.Table``)."""

    table_id: str
    round: SharedRound | None
    pending_bets: list[Any]
    wake: asyncio.Event
    rules: RuleSet

    @property
    def private(self) -> bool: ...

    @property
    def round_id(self) -> str | None: ...


_declined: dict[str, tuple[str | None, set[tuple[str, int]]]] = {}
"""table_id → (round_id, the (player, spot) offers declined in that round)."""


def ready_to_deal(table: Table) -> bool:
    """A private table whose owner's bet is placed deals now."""
    round_ = table.round
    return table.private and round_ is not None and len(round_.book) > 0 and not table.pending_bets


def _declines(table: Table) -> set[tuple[str, int]]:
    round_id, declined = _declined.get(table.table_id, (None, set()))
    if round_id != table.round_id:
        declined = set()
        _declined[table.table_id] = (table.round_id, declined)
    return declined


def _offered(round_: SharedRound, player_id: str, spot: int) -> bool:
    return round_.can_take_even_money(player_id, spot) or round_.can_take_insurance(player_id, spot)


def decline_insurance(table: Table, round_: SharedRound, player_id: str, spot: int) -> None:
    """The player says no to the offer on ``spot``; an answer that changes nothing else."""
    if not _offered(round_, player_id, spot):
        raise IllegalActionError(
            f"player {player_id!r} spot {spot}: there is no insurance offer to decline"
        )
    _declines(table).add((player_id, spot))
    table.wake.set()


def insurance_answered(table: Table) -> bool:
    """At a private table: no offer is left unanswered (the window may close)."""
    round_ = table.round
    if not table.private or round_ is None:
        return False
    declined = _declines(table)
    spots = range(1, table.rules.table.spots + 1)
    return not any(
        _offered(round_, player_id, spot) and (player_id, spot) not in declined
        for player_id in round_.book.player_ids
        for spot in spots
    )


def forget(table_id: str) -> None:
    """The table is closed: drop what it remembered."""
    _declined.pop(table_id, None)
