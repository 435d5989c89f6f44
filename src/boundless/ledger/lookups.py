"""Lookups shared by the single and bulk writes: wallets, the house, a round open for writing."""

from __future__ import annotations

from boundless.ledger.accounts import (
    HOUSE_ACCOUNT,
    AccountKind,
    house_account,
    in_play_account,
    slice_account,
    wallet_account,
)
from boundless.ledger.errors import RoundClosedError, SliceClosedError, UnknownAccountError
from boundless.ledger.repository import AccountRow, LedgerRepository, RoundRow
from boundless.ledger.slice_repository import SliceRepository, SliceRow


def where(table_id: str, round_no: int) -> str:
    return f"table {table_id!r} round {round_no}"


def wallet_of(repository: LedgerRepository, player_id: str) -> AccountRow:
    name = wallet_account(player_id)
    row = repository.account_by_name(name)
    if row is None:
        raise UnknownAccountError(name)
    return row


def house_of(repository: LedgerRepository, owner: str | None = None) -> AccountRow:
    """The house account, or ``owner``'s house sub-account (``house:<owner>``)."""
    name = HOUSE_ACCOUNT if owner is None else house_account(owner)
    return repository.ensure_account(name, AccountKind.HOUSE)


def round_for_write(
    repository: LedgerRepository,
    table_id: str,
    round_no: int,
    *,
    action: str,
    lock: str,
    create: bool = True,
    owner: str | None = None,
) -> RoundRow:
    """The round, locked (``write`` or ``end``, see :func:`with_lock`) and still open.

    Creates the round and its own in-play account on first use when ``create`` is true; only
    ``open_round`` names an ``owner`` (a round a stake creates has none: nobody's recovery
    cancels it whole)."""
    row = repository.round_row(table_id, round_no, lock=lock)
    if row is None:
        if not create:
            raise UnknownAccountError(in_play_account(table_id, round_no))
        in_play = repository.ensure_account(
            in_play_account(table_id, round_no), AccountKind.IN_PLAY
        )
        repository.ensure_round(table_id, round_no, in_play.id, owner)
        row = repository.round_row(table_id, round_no, lock=lock)
        assert row is not None
    if row.status != "open":
        raise RoundClosedError(table_id, round_no, row.status, action)
    return row


def slice_for_write(
    slices: SliceRepository,
    table_id: str,
    round_no: int,
    owner: str,
    *,
    action: str,
    lock: str,
    create: bool = True,
    create_round: bool | None = None,
    slice_lock: str | None = None,
) -> tuple[RoundRow, SliceRow]:
    """The round and ``owner``'s slice of it, locked and both open. The round is locked first
    (``lock``), then the slice (``slice_lock``, default ``lock``): a bulk settlement takes the
    round's ``write`` lock and its slice's ``end`` lock, so the slices of a round settle at once.
    Creates what is missing when ``create`` (the round: ``create_round``, default the same)."""
    slice_lock = lock if slice_lock is None else slice_lock
    repository = slices.repository
    round_row = round_for_write(
        repository,
        table_id,
        round_no,
        action=action,
        lock=lock,
        create=create if create_round is None else create_round,
    )
    row = slices.slice_row(round_row.id, owner, lock=slice_lock)
    if row is None:
        name = slice_account(table_id, round_no, owner)
        if not create:
            raise UnknownAccountError(name)
        in_play = repository.ensure_account(name, AccountKind.IN_PLAY)
        slices.ensure_slice(round_row.id, owner, in_play.id)
        row = slices.slice_row(round_row.id, owner, lock=slice_lock)
        assert row is not None
    if row.status != "open":
        raise SliceClosedError(table_id, round_no, owner, row.status, action)
    return round_row, row
