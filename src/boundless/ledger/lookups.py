"""Lookups shared by the single and bulk writes: wallets, the house, a round open for writing."""

from __future__ import annotations

from boundless.ledger.accounts import (
    HOUSE_ACCOUNT,
    AccountKind,
    in_play_account,
    wallet_account,
)
from boundless.ledger.errors import RoundClosedError, UnknownAccountError
from boundless.ledger.repository import AccountRow, LedgerRepository, RoundRow


def where(table_id: str, round_no: int) -> str:
    return f"table {table_id!r} round {round_no}"


def wallet_of(repository: LedgerRepository, player_id: str) -> AccountRow:
    name = wallet_account(player_id)
    row = repository.account_by_name(name)
    if row is None:
        raise UnknownAccountError(name)
    return row


def house_of(repository: LedgerRepository) -> AccountRow:
    return repository.ensure_account(HOUSE_ACCOUNT, AccountKind.HOUSE)


def round_for_write(
    repository: LedgerRepository,
    table_id: str,
    round_no: int,
    *,
    action: str,
    lock: str,
    create: bool = True,
) -> RoundRow:
    """The round, locked (``share`` to write into it, ``update`` to end it) and still open.

    Creates the round and its in-play account on first use when ``create`` is true."""
    row = repository.round_row(table_id, round_no, lock=lock)
    if row is None:
        if not create:
            raise UnknownAccountError(in_play_account(table_id, round_no))
        in_play = repository.ensure_account(
            in_play_account(table_id, round_no), AccountKind.IN_PLAY
        )
        repository.ensure_round(table_id, round_no, in_play.id)
        row = repository.round_row(table_id, round_no, lock=lock)
        assert row is not None
    if row.status != "open":
        raise RoundClosedError(table_id, round_no, row.status, action)
    return row
