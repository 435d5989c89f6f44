"""Play records of players' slices that ended without the gateway that held them.

A gateway that stops mid-round cannot record its players' refunds. The coordinator, which
cancelled that slice in the ledger, records them (off the event loop, before the round closes);
a gateway restarting under the same name records the slices its recovery cancels. Either way
each line is marked *untold*: the player's next gateway sends them ``settled`` once.
"""

from __future__ import annotations

from sqlalchemy.orm import Session, sessionmaker

from boundless.server.tables.service import TableService

RESTARTED_REASON = (
    "the gateway holding your bets restarted during this round; every stake was returned"
)


class SliceRecords:
    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self.sessions = sessions

    def record_cancelled(self, table: str, round_no: int, owner: str, reason: str) -> None:
        """The play record of ``owner``'s slice, which the ledger holds cancelled."""
        with self.sessions.begin() as session:
            TableService(session, owner).record_reversed(table, round_no, reason, untold=True)

    def recover(self, owner: str) -> list[str]:
        """After a restart: cancel and record every slice ``owner`` left open (nobody else's);
        the round ids."""
        with self.sessions.begin() as session:
            service = TableService(session, owner)
            found = service.ledger.open_slices(owner)
            for item in found:
                service.ledger.cancel_slice(item.table_id, item.round_no)
                service.record_reversed(item.table_id, item.round_no, RESTARTED_REASON, untold=True)
        return [f"{item.table_id}:{item.round_no}" for item in found]
