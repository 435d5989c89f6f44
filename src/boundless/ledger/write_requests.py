"""Validated requests for the writes that both the single and the bulk paths make."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from typing import NamedTuple

from boundless.ledger.accounts import (
    IDENTIFIER,
    MAX_AMOUNT,
    check_amount,
    check_identifier,
    check_owner,
    check_round_no,
)
from boundless.ledger.errors import InvalidLedgerInputError
from boundless.ledger.keys import Category, check_key, check_stake_kind, slice_key
from boundless.ledger.lookups import where
from boundless.ledger.posting import WriteRequest
from boundless.ledger.records import GrantOrder, PlayerSettlement, StakeOrder


def grant_request(order: GrantOrder) -> WriteRequest:
    check_amount("grant amount", order.amount)
    check_identifier("player id", order.player_id)
    return WriteRequest(
        key=check_key(order.key),
        category=Category.GRANT,
        kind="grant",
        description=f"grant of {order.amount} to player {order.player_id!r}",
        content={"player": order.player_id, "amount": order.amount},
        player_id=order.player_id,
    )


class StagedWrite(NamedTuple):
    """One item of a batch write (a bet, a grant), validated: what its transaction header holds.
    A batch of bets makes them one at a time, where an item is read or retried (see
    :class:`WriteBatch`)."""

    key: str
    fingerprint: str
    description: str
    kind: str
    player_id: str
    position: str | None
    amount: int


def staged(request: WriteRequest, amount: int) -> StagedWrite:
    """A single-write request as a batch item (grants share the batched path)."""
    return StagedWrite(
        request.key,
        request.fingerprint(),
        request.description,
        request.kind,
        request.player_id or "",
        request.position,
        amount,
    )


ItemFields = tuple[str, str, str, str, str, str | None, int]
"""A :class:`StagedWrite`'s fields as a plain tuple (made faster than the named one)."""


class WriteBatch:
    """The items of one batch write as columns: ``keys``, ``players`` and ``amounts``, each item
    in full (its fingerprint and text) made by ``fields(i)`` only where it is written or read. A
    batch of 100,000 bets held as 100,000 objects made the garbage collector walk them over and
    over (about 2 µs a bet); lists of strings and ints it does not walk."""

    __slots__ = ("amounts", "fields", "keys", "players")

    def __init__(
        self,
        keys: list[str],
        players: list[str],
        amounts: list[int],
        fields: Callable[[int], ItemFields],
    ) -> None:
        self.keys, self.players, self.amounts, self.fields = keys, players, amounts, fields

    def item(self, i: int) -> StagedWrite:
        return StagedWrite(*self.fields(i))

    @classmethod
    def of(cls, items: list[StagedWrite]) -> WriteBatch:
        """A batch of items made already (grants)."""
        return cls([i.key for i in items], [i.player_id for i in items],
                   [i.amount for i in items], items.__getitem__)  # fmt: skip


def stake_request(table_id: str, round_no: int, order: StakeOrder, owner: str) -> WriteRequest:
    """The single-write form of one :func:`stake_batch` item (the same key, text, fingerprint)."""
    item = stake_batch(table_id, round_no, [order], owner).item(0)
    return WriteRequest(
        key=item.key,
        category=Category.STAKE,
        kind=item.kind,
        description=item.description,
        content={"player": item.player_id, "amount": item.amount, "owner": owner},
        player_id=item.player_id,
        position=item.position,
        owner=owner,
        known_fingerprint=item.fingerprint,
    )


def stake_fingerprint(kind: str, player_id: str, amount: int, owner: str) -> str:
    """``fingerprint_of(STAKE, kind, {"player", "amount", "owner"})`` without building a dict:
    the canonical JSON written out (validated identifiers and kinds need no escaping)."""
    canonical = (
        f'{{"amount":{amount},"category":"stake","kind":"{kind}","owner":"{owner}",'
        f'"player":"{player_id}"}}'
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def stake_batch(
    table_id: str,
    round_no: int,
    orders: Iterable[StakeOrder | tuple[str, str, str, int]],
    owner: str,
) -> WriteBatch:
    """Validated stakes, one pass per batch (the table, round and owner checked once; each item
    only re-checked in full when the quick test of its fields fails, for the precise error)."""
    check_identifier("table id", table_id)
    check_round_no(round_no)
    check_owner(owner)
    at = where(table_id, round_no)
    prefix = f"{table_id}:{round_no}:"
    valid = IDENTIFIER.match
    keys: list[str] = []
    players: list[str] = []
    positions: list[str] = []
    kinds: list[str] = []
    amounts: list[int] = []
    for order in orders:
        if isinstance(order, StakeOrder):
            player, position, kind, amount = (
                order.player_id, order.position, order.kind, order.amount
            )  # fmt: skip
        else:
            player, position, kind, amount = order
        kind = check_stake_kind(kind)
        if type(amount) is not int or not 0 < amount <= MAX_AMOUNT:
            check_amount(f"{kind} stake", amount)
        if type(player) is not str or valid(player) is None:
            check_identifier("player id", player)
        if type(position) is not str or valid(position) is None:
            check_identifier("position", position)
        keys.append(f"{prefix}{position}:{kind}")
        players.append(player)
        positions.append(position)
        kinds.append(kind)
        amounts.append(amount)

    def fields(i: int) -> ItemFields:
        kind, player, position, amount = kinds[i], players[i], positions[i], amounts[i]
        return (
            keys[i],
            stake_fingerprint(kind, player, amount, owner),
            f"{kind} stake of {amount} by player '{player}' on position '{position}' at {at}",
            kind,
            player,
            position,
            amount,
        )

    return WriteBatch(keys, players, amounts, fields)


def settlement_lines(
    per_player: Iterable[PlayerSettlement | tuple[str, int, int]],
) -> list[PlayerSettlement]:
    """Validated lines sorted by player; a player listed twice is an error. Each line is only
    re-checked in full when the quick test of its fields fails, for the precise error (a slice
    of 250,000 lines spent most of its Python time in the checks' calls)."""
    lines: list[PlayerSettlement] = []
    seen: set[str] = set()
    valid = IDENTIFIER.match
    make = PlayerSettlement._make
    for item in per_player:
        line = item if type(item) is PlayerSettlement else make(item)
        player, staked, paid = line
        if (
            type(player) is not str
            or valid(player) is None
            or type(staked) is not int
            or not 0 <= staked <= MAX_AMOUNT
            or type(paid) is not int
            or not 0 <= paid <= MAX_AMOUNT
        ):
            check_identifier("player id", player)
            check_amount(f"stake of player {player!r}", staked, allow_zero=True)
            check_amount(f"payout to player {player!r}", paid, allow_zero=True)
        if player in seen:
            raise InvalidLedgerInputError(f"player {player!r} is listed twice")
        seen.add(player)
        lines.append(line)
    # By player: tuples compare their first field first, and no two lines share a player, so
    # no key function is needed.
    lines.sort()
    return lines


def settle_fingerprint(lines: list[PlayerSettlement]) -> str:
    """``fingerprint_of(SETTLE, "settle", {"lines": [[player, staked, paid], ...]})`` without
    building the lists: the canonical JSON written out (validated player ids need no escaping)."""
    body = ",".join([f'["{line.player_id}",{line.staked},{line.paid}]' for line in lines])
    canonical = f'{{"category":"settle","kind":"settle","lines":[{body}]}}'
    return hashlib.sha256(canonical.encode()).hexdigest()


def settle_slice_request(
    table_id: str, round_no: int, lines: list[PlayerSettlement], owner: str
) -> WriteRequest:
    """The settlement of one slice; ``lines`` validated (:func:`settlement_lines`)."""
    total_staked = sum(line.staked for line in lines)
    total_paid = sum(line.paid for line in lines)
    return WriteRequest(
        key=slice_key(table_id, round_no, owner, "settle"),
        category=Category.SETTLE,
        kind="settle",
        description=(
            f"settlement of the slice of {owner!r} at {where(table_id, round_no)} for "
            f"{len(lines)} players: staked {total_staked}, paid {total_paid}"
        ),
        content={},  # the lines: covered by the known fingerprint, not built as JSON lists
        owner=owner,
        known_fingerprint=settle_fingerprint(lines),
    )
