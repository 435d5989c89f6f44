"""Lobby, titles and shoes: ``/api/v1/tables``, ``/api/v1/titles``, ``/api/v1/shoes``."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path

from boundless.server.dependencies import CurrentPlayer, OptionalPlayer, ReadSession, State
from boundless.server.errors import NotFoundError
from boundless.server.tables.repository import TableRepository
from boundless.server.tables.schemas import TABLE_ID_PATTERN, NewPrivateTable
from boundless.server.tables.shoes import public_reveal
from boundless.server.tables.stats import table_stats

router = APIRouter(prefix="/api/v1", tags=["tables"])


@router.get("/tables")
async def tables(state: State, viewer: OptionalPlayer) -> list[dict[str, Any]]:
    return state.registry.lobby(None if viewer is None else viewer.player_id)


@router.post("/tables", status_code=201)
async def new_private_table(
    body: NewPrivateTable, state: State, player: CurrentPlayer
) -> dict[str, Any]:
    table = state.registry.create_private(player, body.title, body.side_bets_offered)
    return table.lobby_row()


@router.get("/tables/{table_id}/stats")
def stats(
    table_id: Annotated[str, Path(pattern=TABLE_ID_PATTERN)],
    state: State,
    player: CurrentPlayer,
    session: ReadSession,
) -> dict[str, Any]:
    """The dealer's results over the last rounds and the cards dealt in this shoe, by value.
    Of a table in the caller's lobby only (someone else's private table is not found), which a
    cluster gateway's lobby answers as ``serve``'s does."""
    if not any(row["table_id"] == table_id for row in state.registry.lobby(player.player_id)):
        raise NotFoundError(f"no table {table_id!r}")
    return table_stats(session, table_id)


@router.get("/titles")
async def titles(state: State) -> list[dict[str, Any]]:
    return [
        {
            "key": key,
            "name": rules.title.name,
            "vocabulary": rules.title.vocabulary,
            "shared": rules.table.shared,
        }
        for key, (rules, _) in sorted(state.registry.catalog.games.items())
    ]


@router.get("/titles/{key}")
async def title(key: str, state: State) -> dict[str, Any]:
    rules, _ = state.registry.catalog.get(key)
    return rules.model_dump(mode="json")


@router.get("/shoes/{table_id}/{shoe_number}")
def shoe(
    table_id: Annotated[str, Path(pattern=TABLE_ID_PATTERN)],
    shoe_number: int,
    session: ReadSession,
) -> dict[str, Any]:
    row = TableRepository(session).shoe(table_id, shoe_number)
    if row is None:
        raise NotFoundError(f"no shoe {shoe_number} at table {table_id!r}")
    return {
        "table_id": table_id,
        "shoe_number": shoe_number,
        "commitment": row.commitment,
        "finished": row.finished,
        "reveal": public_reveal(row),
    }
