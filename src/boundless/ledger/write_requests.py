"""Validated requests for the writes that both the single and the bulk paths make."""

from __future__ import annotations

from collections.abc import Iterable

from boundless.ledger.accounts import check_amount, check_identifier
from boundless.ledger.errors import InvalidLedgerInputError
from boundless.ledger.keys import Category, check_key, check_stake_kind, round_key, slice_key
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
    check_stake_kind(order.kind)
    check_amount(f"{order.kind} stake", order.amount)
    check_identifier("player id", order.player_id)
    return WriteRequest(
        key=round_key(table_id, round_no, order.position, order.kind),
        category=Category.STAKE,
        kind=order.kind,
        description=(
            f"{order.kind} stake of {order.amount} by player {order.player_id!r} on position "
            f"{order.position!r} at {where(table_id, round_no)}"
        ),
        content={"player": order.player_id, "amount": order.amount, "owner": owner},
        player_id=order.player_id,
        position=order.position,
        owner=owner,
    )


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
