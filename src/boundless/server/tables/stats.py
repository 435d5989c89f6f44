"""A table's statistics, as a player sitting at it could have noted them: the dealer's final
totals over the last finished rounds and the cards dealt so far in the current shoe, by value.

Read from the play record (the finished rounds' event logs), so ``serve`` and a cluster gateway
answer alike and a restart loses nothing. Only cards that were shown count: a hole card only
where it was turned over, never the order of the cards still in the shoe.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import orjson
from sqlalchemy import select
from sqlalchemy.orm import Session

from boundless.core.cards import parse_cards
from boundless.core.hands import best_total, is_natural
from boundless.server.records.service import cards_in_order
from boundless.server.storage.models import Round

STATS_ROUNDS = 100
VALUES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10")
DEALER_CARDS = ("dealer_up", "hole", "dealer")


def card_value(code: str) -> str:
    """A card's value as counted at the table: ``A``, ``2``..``9``, ``10`` (tens and faces)."""
    rank = code[:-1]
    return "10" if rank in ("T", "J", "Q", "K", "10") else rank


def dealer_result(cards: list[str]) -> str | None:
    """The dealer's final hand: ``blackjack``, ``bust`` or its total; None with one card."""
    if len(cards) < 2:
        return None  # nobody was left to play against: the hand was never finished
    hand = parse_cards(cards)
    if is_natural(hand):
        return "blackjack"
    total = best_total(hand)
    return "bust" if total > 21 else str(total)


def table_stats(session: Session, table_id: str) -> dict[str, Any]:
    rows = session.scalars(
        select(Round)
        .where(Round.table_id == table_id, Round.status == "settled")
        .order_by(Round.round_no.desc())
        .limit(STATS_ROUNDS)
    ).all()
    results: Counter[str] = Counter()
    for row in rows:
        cards = cards_in_order(orjson.loads(row.events_json), show_hole=True)
        result = dealer_result([c["card"] for c in cards if c["to"] in DEALER_CARDS])
        if result is not None:
            results[result] += 1
    finished = sum(results.values())
    shoe_number = rows[0].shoe_number if rows else None
    dealt: Counter[str] = Counter()
    if shoe_number is not None:
        shoe_rounds = session.scalars(
            select(Round).where(Round.table_id == table_id, Round.shoe_number == shoe_number)
        ).all()
        for row in shoe_rounds:
            shown = cards_in_order(orjson.loads(row.events_json), show_hole=row.status == "settled")
            dealt.update(card_value(c["card"]) for c in shown if c["card"] is not None)
    return {
        "table_id": table_id,
        "rounds": finished,
        "dealer_results": dict(results),
        "bust_rate": results["bust"] / finished if finished else None,
        "shoe_number": shoe_number,
        "cards_this_shoe": {value: dealt[value] for value in VALUES},
    }
