"""A private table's owner names it or closes it: ``PATCH``/``DELETE /api/v1/tables/{id}``.

Only the owner may; a shared table is nobody's to rename or close (403). A table closes only
while no bet is on it (a round in play finishes first: 409 ``table_in_play``); its watchers get
a ``closed`` notice and the table leaves the lobby. The stored rounds and shoes stay.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, StringConstraints

from boundless.server import messages
from boundless.server.dependencies import CurrentPlayer, State
from boundless.server.errors import ForbiddenError, TableInPlayError
from boundless.server.players.service import PlayerIdentity
from boundless.server.tables.registry import TableRegistry
from boundless.server.tables.table import Table
from boundless.server.typed_text import printable

router = APIRouter(prefix="/api/v1", tags=["tables"])

TableName = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=40),
    printable("table name"),
]


class TableRename(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: TableName


def _owned(registry: TableRegistry, table_id: str, player: PlayerIdentity) -> Table:
    table = registry.get(table_id)
    if table.owner != player.player_id:
        raise ForbiddenError(f"table {table_id!r} is not your private table")
    return table


@router.patch("/tables/{table_id}")
async def rename_table(
    table_id: str, body: TableRename, state: State, player: CurrentPlayer
) -> dict[str, Any]:
    table = _owned(state.registry, table_id, player)
    table.name = body.name
    return table.lobby_row()


@router.delete("/tables/{table_id}")
async def close_table(table_id: str, state: State, player: CurrentPlayer) -> dict[str, Any]:
    registry = state.registry
    table = _owned(registry, table_id, player)
    round_ = table.round
    if table.bets or (round_ is not None and not round_.over and round_.position_count()):
        raise TableInPlayError(
            f"table {table_id!r} has a round in play; close it once the round is settled"
        )
    task = registry.tasks.pop(table_id, None)
    if task is not None:
        task.cancel()
    registry.tables.pop(table_id, None)
    registry.hub.broadcast(table_id, messages.notice(table_id, "closed", None))
    return {"table_id": table_id, "closed": True}
