"""Validated requests for the writes that both the single and the bulk paths make."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from boundless.ledger.accounts import check_amount, check_identifier, check_owner, check_round_no
from boundless.ledger.errors import InvalidLedgerInputError
from boundless.ledger.keys import Category, check_key, check_stake_kind, slice_key
from boundless.ledger.lookups import where
from boundless.ledger.posting import JsonValue, WriteRequest
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


def stake_request(table_id: str, round_no: int, order: StakeOrder, owner: str) -> WriteRequest:
    return stake_requests(table_id, round_no, [order], owner)[0]


def stake_fingerprint(kind: str, player_id: str, amount: int, owner: str) -> str:
    """``fingerprint_of(STAKE, kind, {"player", "amount", "owner"})`` without building a dict:
    the canonical JSON written out (validated identifiers and kinds need no escaping)."""
    canonical = (
        f'{{"amount":{amount},"category":"stake","kind":"{kind}","owner":"{owner}",'
        f'"player":"{player_id}"}}'
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def stake_requests(
    table_id: str, round_no: int, orders: Iterable[StakeOrder], owner: str
) -> list[WriteRequest]:
    """Validated stake requests, one pass per batch (the table, round and owner checked once)."""
    check_identifier("table id", table_id)
    check_round_no(round_no)
    check_owner(owner)
    at = where(table_id, round_no)
    requests = []
    for order in orders:
        kind = check_stake_kind(order.kind)
        check_amount(f"{kind} stake", order.amount)
        player = check_identifier("player id", order.player_id)
        position = check_identifier("position", order.position)
        requests.append(
            WriteRequest(
                key=f"{table_id}:{round_no}:{position}:{kind}",
                category=Category.STAKE,
                kind=kind,
                description=(
                    f"{kind} stake of {order.amount} by player {player!r} on position "
                    f"{position!r} at {at}"
                ),
                content={"player": player, "amount": order.amount, "owner": owner},
                player_id=player,
                position=position,
                owner=owner,
                known_fingerprint=stake_fingerprint(kind, player, order.amount, owner),
            )
        )
    return requests


def settlement_lines(
    per_player: Iterable[PlayerSettlement | tuple[str, int, int]],
) -> list[PlayerSettlement]:
    """Validated lines sorted by player; a player listed twice is an error."""
    lines: list[PlayerSettlement] = []
    seen: set[str] = set()
    for item in per_player:
        line = item if isinstance(item, PlayerSettlement) else PlayerSettlement(*item)
        check_identifier("player id", line.player_id)
        check_amount(f"stake of player {line.player_id!r}", line.staked, allow_zero=True)
        check_amount(f"payout to player {line.player_id!r}", line.paid, allow_zero=True)
        if line.player_id in seen:
            raise InvalidLedgerInputError(f"player {line.player_id!r} is listed twice")
        seen.add(line.player_id)
        lines.append(line)
    lines.sort(key=lambda line: line.player_id)
    return lines


def settle_slice_request(
    table_id: str, round_no: int, lines: list[PlayerSettlement], owner: str
) -> WriteRequest:
    total_staked = sum(line.staked for line in lines)
    total_paid = sum(line.paid for line in lines)
    content: dict[str, JsonValue] = {
        "lines": [[line.player_id, line.staked, line.paid] for line in lines]
    }
    return WriteRequest(
        key=slice_key(table_id, round_no, owner, "settle"),
        category=Category.SETTLE,
        kind="settle",
        description=(
            f"settlement of the slice of {owner!r} at {where(table_id, round_no)} for "
            f"{len(lines)} players: staked {total_staked}, paid {total_paid}"
        ),
        content=content,
        owner=owner,
    )
