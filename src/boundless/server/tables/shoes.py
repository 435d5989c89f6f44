"""A table's shoes: the core's shoe cycle, numbered on from the database, every shuffle stored
(commitment public, order and salt secret) and every finished shoe published with its reveal.

The one reveal check of the server is here (:func:`public_reveal`): a stored shoe becomes the
core's :class:`ShoeReveal` and the core checks it against its commitment.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from boundless.core.cards import Card
from boundless.core.random_source import RandomSource
from boundless.core.rules import RuleSet
from boundless.core.shoe import ShoeReveal
from boundless.core.shoe_cycle import RoundStart, ShoeCycle
from boundless.server.storage.models import Shoe as ShoeRow
from boundless.server.tables.repository import TableRepository
from boundless.server.tables.shoe_notices import public_burn

REVEAL_CHECK = "sha256(salt + ':' + cards joined) == commitment"


def stored_reveal(row: ShoeRow) -> ShoeReveal:
    """A stored shoe as the core's reveal (cards are stored as two-character codes)."""
    codes = [row.cards[index : index + 2] for index in range(0, len(row.cards), 2)]
    return ShoeReveal(
        commitment=row.commitment,
        salt_hex=row.salt,
        cards=tuple(Card.parse(code) for code in codes),
    )


def public_reveal(row: ShoeRow | None) -> dict[str, Any] | None:
    """What anyone may see of a finished shoe's reveal, checked; ``None`` until it is finished."""
    if row is None or not row.finished:
        return None
    reveal = stored_reveal(row)
    return {
        "salt": reveal.salt_hex,
        "cards": [str(card) for card in reveal.cards],
        "verified": reveal.verify(),
        "check": REVEAL_CHECK,
    }


Notify = Callable[[str, dict[str, Any]], None]
"""Tells the table's watchers about a shoe: ``notify(kind, detail)``."""


class TableShoes:
    def __init__(
        self,
        table_id: str,
        rules: RuleSet,
        randomness: RandomSource,
        sessions: sessionmaker[Session],
        notify: Notify,
    ) -> None:
        self.table_id = table_id
        self.sessions = sessions
        self.notify = notify
        self.cycle = ShoeCycle(rules, randomness)
        self.base = 0
        """Shoes this table finished before the server (re)started."""
        self.published = False
        """Whether the current shoe's reveal is already out (published at the round's end)."""
        self.start: RoundStart | None = None
        self._unwritten: RoundStart | None = None
        """A round started whose shoe writes did not go through (the database away)."""

    def load(self, last_shoe_number: int) -> None:
        self.base = last_shoe_number

    @property
    def number(self) -> int:
        return self.base + self.cycle.shoe_number

    def start_round(self) -> RoundStart:
        """Count a round, shuffling first when the last shoe is finished. If the finished
        shoe's reveal or the new shoe cannot be written (the database away: the error is
        raised), the next call writes what is left of the same round start: the same shoe,
        never a second shuffle or a round counted twice."""
        again = self._unwritten is not None
        start = self._unwritten or self.cycle.start_round()
        self._unwritten = start
        if start.finished_shoe is not None and not self.published:
            self._publish(self.base + start.shoe_number - 1, start.finished_shoe)
            self.published = True
        if start.shuffled is not None:
            self._store_shuffle(start, again=again)
        self._unwritten = None
        self.published = False
        self.start = start
        return start

    def end_round(self, exhausted: bool) -> None:
        """After settlement or cancellation: the shoe may be finished (cut card out)."""
        finished = self.cycle.end_round(voided_by_exhaustion=exhausted)
        if finished and self.cycle.shoe is not None and not self.published:
            self._publish(self.number, self.cycle.shoe.reveal())
            self.published = True

    def _store_shuffle(self, start: RoundStart, *, again: bool = False) -> None:
        """``again``: a try after a failed one, whose commit may have landed unanswered."""
        assert start.shuffled is not None and self.cycle.shoe is not None
        reveal = self.cycle.shoe.reveal()
        burn = start.shuffled.burn
        burn_body = (
            None
            if burn is None
            else {"revealed": str(burn.revealed), "burned": [str(card) for card in burn.burned]}
        )
        number = self.base + start.shuffled.shoe_number
        with self.sessions.begin() as session:
            repository = TableRepository(session)
            stored = repository.shoe(self.table_id, number) if again else None
            if stored is None or stored.commitment != reveal.commitment:
                repository.add_shoe(
                    self.table_id,
                    number,
                    reveal.commitment,
                    reveal.salt_hex,
                    [str(card) for card in reveal.cards],
                    burn_body,
                )
            # else: the earlier try's commit landed and only its answer was lost
        self.notify(
            "shuffle",
            {"shoe_number": number, "commitment": reveal.commitment, "burn": public_burn(burn)},
        )

    def _publish(self, shoe_number: int, reveal: ShoeReveal) -> None:
        with self.sessions.begin() as session:
            TableRepository(session).finish_shoes(self.table_id, shoe_number)
        self.notify(
            "shoe_finished",
            {"shoe_number": shoe_number, **reveal.to_json(), "verified": reveal.verify()},
        )
