"""The play record, read side: pages of a player's rounds and one round in full.

A player reads only their own rounds (another player's round is ``forbidden``). Everything comes
from the database, so the record is there while a table is paused and after a restart.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import orjson
from sqlalchemy.orm import Session

from boundless.ledger import LedgerService, wallet_account
from boundless.server.errors import BadMessageError, ForbiddenError, NotFoundError
from boundless.server.records.repository import RecordRepository
from boundless.server.storage.models import Round, RoundPlayer
from boundless.server.tables.schemas import TABLE_ID_PATTERN
from boundless.server.tables.shoes import public_reveal

MAX_PAGE = 100


MAX_ROUND_NO = 2**63 - 1
"""The largest round number a database column holds."""
SHOWN_ID_CHARACTERS = 80


def shown_id(round_id: str) -> str:
    """A round id as an error repeats it: cut short, so no answer or log line grows with it."""
    if len(round_id) <= SHOWN_ID_CHARACTERS:
        return repr(round_id)
    return f"{round_id[:SHOWN_ID_CHARACTERS]!r}... ({len(round_id)} characters)"


def split_round_id(round_id: str) -> tuple[str, int]:
    """``(table_id, round_no)`` of ``boundless-1:42``; a malformed id is ``bad_message``, a
    number beyond what any round can have is ``not_found`` (never converted: Python refuses
    to turn over 4,300 digits into an int)."""
    table_id, _, number = round_id.rpartition(":")
    valid_table = re.fullmatch(TABLE_ID_PATTERN, table_id) is not None
    if not valid_table or not (number.isascii() and number.isdigit()):  # '²'.isdigit() is true
        raise BadMessageError(f"a round id looks like 'boundless-1:42', got {shown_id(round_id)}")
    digits = number.lstrip("0") or "0"
    if len(digits) > len(str(MAX_ROUND_NO)) or int(digits) > MAX_ROUND_NO:
        raise NotFoundError(f"no round {shown_id(round_id)}: the number is too large")
    return table_id, int(digits)


def round_id_of(row: Round) -> str:
    return f"{row.table_id}:{row.round_no}"


class RecordService:
    def __init__(self, session: Session) -> None:
        self.session = session
        self.records = RecordRepository(session)

    def page(
        self, player_id: str, limit: int, before: str | None, table_id: str | None = None
    ) -> dict[str, Any]:
        if not 1 <= limit <= MAX_PAGE:
            raise BadMessageError(f"limit must be 1..{MAX_PAGE}")
        before_id = None
        if before is not None:
            anchor = self.records.round_by_key(*split_round_id(before))
            if anchor is None:
                raise NotFoundError(f"no round {shown_id(before)}")
            before_id = anchor.id
        rows = self.records.player_rounds(player_id, limit + 1, before_id, table_id)
        more = len(rows) > limit
        rows = rows[:limit]
        return {
            "items": [_summary(round_row, line) for round_row, line in rows],
            "next_before": round_id_of(rows[-1][0]) if more and rows else None,
        }

    def detail(self, player_id: str, round_id: str) -> dict[str, Any]:
        round_row = self.records.round_by_key(*split_round_id(round_id))
        if round_row is None:
            raise NotFoundError(f"no finished round {round_id!r}")
        line = self.records.player_line(round_row.id, player_id)
        if line is None:
            raise ForbiddenError(f"round {round_id!r} is not one of your rounds")
        events = orjson.loads(round_row.events_json)
        positions = orjson.loads(line.results_json)
        return {
            **_summary(round_row, line),
            "reason": line.reason or round_row.reason,
            "rules_version": round_row.rules_version,
            "shoe": self._shoe(round_row),
            "cards": cards_in_order(events, show_hole=round_row.status == "settled"),
            "decisions": decisions_of(positions),
            "positions": positions,
            "balance_before": line.balance_before,
            "balance_after": line.balance_after,
            "transactions": self._transactions(round_row, player_id),
            "events_logged": len(events),
        }

    def _shoe(self, round_row: Round) -> dict[str, Any]:
        shoe = self.records.shoe(round_row.table_id, round_row.shoe_number)
        return {
            "number": round_row.shoe_number,
            "commitment": round_row.shoe_commitment,
            "round_in_shoe": round_row.round_in_shoe,
            "finished": bool(shoe is not None and shoe.finished),
            "reveal": public_reveal(shoe),
        }

    def _transactions(self, round_row: Round, player_id: str) -> list[dict[str, Any]]:
        wallet = wallet_account(player_id)
        found = LedgerService(self.session).round_transactions(
            round_row.table_id, round_row.round_no
        )
        shown = []
        for transaction in found:
            amount = transaction.amount_for(wallet)
            if amount == 0 and transaction.player_id not in (None, player_id):
                continue
            shown.append(
                {
                    "key": transaction.key,
                    "category": str(transaction.category),
                    "kind": transaction.kind,
                    "wallet_amount": amount,
                    "created_at": as_utc(transaction.created_at).isoformat(),
                }
            )
        return shown


def _summary(round_row: Round, line: RoundPlayer) -> dict[str, Any]:
    return {
        "round_id": round_id_of(round_row),
        "table_id": round_row.table_id,
        "title": round_row.title,
        "round_no": round_row.round_no,
        "settled_at": as_utc(round_row.ended_at).isoformat(),
        "status": line.status or round_row.status,
        "staked": line.staked,
        "paid": line.paid,
        "net": line.paid - line.staked,
        "outcomes": outcomes_of(orjson.loads(line.results_json)),
    }


def outcomes_of(positions: list[dict[str, Any]]) -> list[str]:
    """Each hand's outcome in spot order (a short line of the round for its summary)."""
    return [
        str(hand["outcome"])
        for position in positions
        for hand in position.get("hands") or []
        if hand.get("outcome")
    ]


def cards_in_order(events: list[dict[str, Any]], *, show_hole: bool) -> list[dict[str, Any]]:
    """Every card of the round in dealing order, from the stored event log (a round of one
    process, or a cluster gateway's follower log, which learns the hole card only when the
    dealer shows it: at a peek with blackjack, or in ``DealerRevealed`` flagged ``hole``)."""
    cards: list[dict[str, Any]] = []
    shown = _shown_hole(events)
    for event in events:
        kind = event.get("type")
        if kind == "CardsDealt":
            spots = event["spot_cards"]
            cards += [{"to": "spot", "spot": spot, "card": first} for spot, first, _ in spots]
            cards.append({"to": "dealer_up", "card": event["up_card"]})
            cards += [{"to": "spot", "spot": spot, "card": second} for spot, _, second in spots]
            hole = event.get("hole_card") or shown
            if hole is not None:
                cards.append({"to": "hole", "card": hole if show_hole else None})
        elif kind in ("StepClosed", "StepDealt") and event.get("card") is not None:
            cards.append(
                {"to": "step", "spot": event["spot"], "step": event["step"], "card": event["card"]}
            )
        elif kind == "DealerCardsDrawn":
            cards += [{"to": "dealer", "card": card} for card in event["cards"]]
        elif kind == "DealerRevealed":  # the whole hand, from the up card
            drawn = event["cards"][2 if event.get("hole") else 1 :]
            cards += [{"to": "dealer", "card": card} for card in drawn]
    return cards


def _shown_hole(events: list[dict[str, Any]]) -> str | None:
    for event in events:
        if event.get("type") == "PeekResult" and event.get("hole_card") is not None:
            return str(event["hole_card"])
        if event.get("type") == "DealerRevealed" and event.get("hole"):
            return str(event["cards"][1])
    return None


def decisions_of(positions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found = []
    for position in positions:
        for hand_index, hand in enumerate(position.get("hands", [])):
            for decision in hand.get("decisions", []):
                found.append(
                    {
                        "spot": position.get("spot"),
                        "hand": hand_index + 1,
                        "step": decision.get("step"),
                        "action": decision.get("action"),
                        "by": decision.get("by"),
                    }
                )
    return sorted(found, key=lambda item: (item["step"] or 0, item["spot"] or 0, item["hand"]))


def as_utc(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes; every stored time is UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
