"""All SQL on the server's round, bet and shoe tables."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from sqlalchemy import Insert, Table, func, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
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
    untold: bool = False
    """(A shared round) the player is still to be told how their part ended."""


def insert_new(session: Session, table: Table) -> Insert:
    """An INSERT that skips rows whose unique key is already there (two processes writing the
    same round's row at once both succeed, one of them writing nothing)."""
    if session.get_bind().dialect.name == "postgresql":
        return postgresql.insert(table).on_conflict_do_nothing()
    return sqlite.insert(table).on_conflict_do_nothing()


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
        self._insert_rows(
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

    def _insert_rows(self, statement: Insert, rows: list[dict[str, Any]]) -> None:
        """Rows in batched multi-row INSERTs: asking for the new ids makes SQLAlchemy send a
        thousand rows per statement (its "insertmany values" mode) where a plain executemany
        costs a round trip per row on PostgreSQL: seconds for a large table's ten thousand
        bets. The ids themselves are not needed."""
        if rows:
            table = statement.table
            self.session.execute(statement.returning(table.c.id), rows)

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
        """The round's row, written with its first bets (status ``open`` until it ends); a row
        already there (another gateway's players bet in the round first) stays as it is."""
        self.session.execute(
            insert_new(self.session, Round.__table__).values(  # type: ignore[arg-type]
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
        shared: bool = False,
        untold: bool = False,
    ) -> bool:
        """Mark an open round settled or cancelled with its players' lines; False if it was not
        open (already ended: nothing is written twice).

        ``shared``: one slice of a round other processes share ended. Its players' lines are
        added, each with this ending (``untold``: the player is still to be told), and a player
        already recorded in the round keeps their line; the round's row ends with the first slice
        and becomes settled once any slice settles (its events then are that slice's, whose log
        runs to the end)."""
        row = self.round_row(table_id, round_no)
        if row is None or (row.status != "open" and not shared):
            return False
        ended: dict[str, Any] = {"status": status, "reason": reason, "ended_at": utc_now()}
        if events is not None:
            ended["events_json"] = orjson.dumps(events).decode()
        if not shared:
            self.session.execute(update(Round).where(Round.id == row.id).values(**ended))
            self._add_players(insert(RoundPlayer), row.id, players)
            return True
        self.add_slice_players(row.id, status, reason, players, untold)
        before = ("open", "cancelled") if status == "settled" else ("open",)
        if status == "settled":
            ended["reason"] = None
        self.session.execute(
            update(Round).where(Round.id == row.id, Round.status.in_(before)).values(**ended)
        )
        return True

    def cancel_without_players(
        self, table_id: str, round_no: int, reason: str, *, shared: bool = False
    ) -> bool:
        """End an open round's row as cancelled with no player lines (nothing was staked in
        it, or nothing of this process's slice); as :meth:`end_round`."""
        return self.end_round(
            table_id,
            round_no,
            status="cancelled",
            reason=reason,
            events=None,
            players=[],
            shared=shared,
        )

    def add_slice_players(
        self,
        round_row_id: int,
        status: str,
        reason: str | None,
        players: Sequence[RoundPlayerLine],
        untold: bool = False,
    ) -> None:
        """A shared round's lines for one slice's players, each with its own ending."""
        extra = {"status": status, "reason": reason}
        statement = insert_new(self.session, RoundPlayer.__table__)  # type: ignore[arg-type]
        self._add_players(statement, round_row_id, players, extra, untold)

    def _add_players(
        self,
        statement: Insert,
        round_row_id: int,
        players: Sequence[RoundPlayerLine],
        extra: dict[str, Any] | None = None,
        untold: bool = False,
    ) -> None:
        self._insert_rows(
            statement,
            [
                {
                    "round_id": round_row_id,
                    "player_id": line.player_id,
                    "staked": line.staked,
                    "paid": line.paid,
                    "balance_before": line.balance_before,
                    "balance_after": line.balance_after,
                    "results_json": orjson.dumps(line.results).decode(),
                    **(extra or {}),
                    **({} if extra is None else {"untold": (untold or line.untold) or None}),
                }
                for line in players
            ],
        )

    def untold_players(self, table_id: str, round_no: int) -> list[str]:
        """Players of the round still to be told how their part of it ended."""
        return list(
            self.session.scalars(
                select(RoundPlayer.player_id)
                .join(Round, Round.id == RoundPlayer.round_id)
                .where(
                    Round.table_id == table_id,
                    Round.round_no == round_no,
                    RoundPlayer.untold.is_(True),
                )
            )
        )

    def claim_untold(
        self, player_ids: Sequence[str], table_id: str | None = None, round_no: int | None = None
    ) -> list[tuple[Round, RoundPlayer]]:
        """Mark the players' untold lines (of one round, or all) told, and return them: each line
        is claimed once, by whichever process asks first (the update is the claim)."""
        found: list[tuple[Round, RoundPlayer]] = []
        for start in range(0, len(player_ids), 500):
            query = update(RoundPlayer).where(
                RoundPlayer.untold.is_(True),
                RoundPlayer.player_id.in_(player_ids[start : start + 500]),
            )
            if table_id is not None and round_no is not None:
                row = self.round_row(table_id, round_no)
                if row is None:
                    return []
                query = query.where(RoundPlayer.round_id == row.id)
            claimed = self.session.scalars(query.values(untold=None).returning(RoundPlayer.id))
            ids = list(claimed)
            if ids:
                rows = self.session.execute(
                    select(Round, RoundPlayer)
                    .join(RoundPlayer, RoundPlayer.round_id == Round.id)
                    .where(RoundPlayer.id.in_(ids))
                    .order_by(Round.id)
                )
                found.extend((row[0], row[1]) for row in rows)
        return found

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
