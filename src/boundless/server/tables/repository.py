"""All SQL on the server's round, bet and shoe tables."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from sqlalchemy import func, insert, select, update
from sqlalchemy.orm import Session

from boundless.ledger.sql_conventions import utc_now
from boundless.server.storage.models import Bet, Round, RoundPlayer, Shoe


@dataclass(frozen=True, slots=True)
class RoundPlayerLine:
    player_id: str
    staked: int
    paid: int
    balance_before: int | None
    balance_after: int | None
    results: Any


class TableRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    # -- bets --
    def bet_answers(self, keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], Any]:
        """Stored answers of bets already accepted, by (player_id, bet_id)."""
        if not keys:
            return {}
        wanted = set(keys)
        found: dict[tuple[str, str], Any] = {}
        bet_ids = sorted({bet_id for _, bet_id in keys})
        for start in range(0, len(bet_ids), 500):  # by the bet id index, then the pair
            rows = self.session.execute(
                select(Bet.player_id, Bet.bet_id, Bet.answer_json).where(
                    Bet.bet_id.in_(bet_ids[start : start + 500])
                )
            )
            for row in rows:
                if (row[0], row[1]) in wanted:
                    found[(row[0], row[1])] = orjson.loads(row[2])
        return found

    def add_bets(
        self, table_id: str, round_no: int, answers: Sequence[tuple[str, str, Any]]
    ) -> None:
        if not answers:
            return
        now = utc_now()
        self.session.execute(
            insert(Bet),
            [
                {
                    "player_id": player_id,
                    "bet_id": bet_id,
                    "table_id": table_id,
                    "round_no": round_no,
                    "answer_json": orjson.dumps(answer).decode(),
                    "created_at": now,
                }
                for player_id, bet_id, answer in answers
            ],
        )

    # -- rounds --
    def last_round_no(self, table_id: str) -> int:
        value = self.session.scalar(
            select(func.max(Round.round_no)).where(Round.table_id == table_id)
        )
        return int(value or 0)

    def round_row(self, table_id: str, round_no: int) -> Round | None:
        return self.session.scalars(
            select(Round).where(Round.table_id == table_id, Round.round_no == round_no)
        ).first()

    def open_round(
        self,
        *,
        table_id: str,
        round_no: int,
        title: str,
        rules_version: str,
        shoe_number: int | None,
        round_in_shoe: int | None,
        shoe_commitment: str | None,
    ) -> None:
        """The round's row, written with its first bets (status ``open`` until it ends)."""
        if self.round_row(table_id, round_no) is not None:
            return
        self.session.add(
            Round(
                table_id=table_id,
                round_no=round_no,
                title=title,
                rules_version=rules_version,
                shoe_number=shoe_number,
                round_in_shoe=round_in_shoe,
                shoe_commitment=shoe_commitment,
                status="open",
                reason=None,
                events_json="[]",
                ended_at=utc_now(),
            )
        )
        self.session.flush()

    def open_rounds(self) -> list[Round]:
        return list(self.session.scalars(select(Round).where(Round.status == "open")))

    def end_round(
        self,
        table_id: str,
        round_no: int,
        *,
        status: str,
        reason: str | None,
        events: Any | None,
        players: Sequence[RoundPlayerLine],
    ) -> bool:
        """Mark an open round settled or cancelled with its players' lines; False if it was not
        open (already ended: nothing is written twice)."""
        row = self.round_row(table_id, round_no)
        if row is None or row.status != "open":
            return False
        row.status = status
        row.reason = reason
        if events is not None:
            row.events_json = orjson.dumps(events).decode()
        row.ended_at = utc_now()
        self.session.flush()
        if players:
            self.session.execute(
                insert(RoundPlayer),
                [
                    {
                        "round_id": row.id,
                        "player_id": line.player_id,
                        "staked": line.staked,
                        "paid": line.paid,
                        "balance_before": line.balance_before,
                        "balance_after": line.balance_after,
                        "results_json": orjson.dumps(line.results).decode(),
                    }
                    for line in players
                ],
            )
        return True

    # -- shoes --
    def last_shoe_number(self, table_id: str) -> int:
        value = self.session.scalar(
            select(func.max(Shoe.shoe_number)).where(Shoe.table_id == table_id)
        )
        return int(value or 0)

    def add_shoe(
        self,
        table_id: str,
        shoe_number: int,
        commitment: str,
        salt: str,
        cards: Sequence[str],
        burn: Any,
    ) -> None:
        self.session.add(
            Shoe(
                table_id=table_id,
                shoe_number=shoe_number,
                commitment=commitment,
                salt=salt,
                cards="".join(cards),
                burn_json=None if burn is None else orjson.dumps(burn).decode(),
                finished=False,
                shuffled_at=utc_now(),
            )
        )
        self.session.flush()

    def finish_shoes(self, table_id: str | None = None, shoe_number: int | None = None) -> int:
        """Mark shoes finished (their reveal becomes public); returns how many."""
        query = update(Shoe).where(Shoe.finished.is_(False))
        if table_id is not None:
            query = query.where(Shoe.table_id == table_id)
        if shoe_number is not None:
            query = query.where(Shoe.shoe_number == shoe_number)
        result = self.session.execute(query.values(finished=True, finished_at=utc_now()))
        return int(getattr(result, "rowcount", 0) or 0)

    def shoe(self, table_id: str, shoe_number: int) -> Shoe | None:
        return self.session.scalars(
            select(Shoe).where(Shoe.table_id == table_id, Shoe.shoe_number == shoe_number)
        ).first()
