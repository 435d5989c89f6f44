"""What the desk's helper modules (:mod:`.cancellation`, :mod:`.insurance`) need of
:class:`~boundless.server.tables.desk.TableDesk`: a protocol, so they need not import the desk
that calls them."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Protocol

from sqlalchemy.orm import Session, sessionmaker

from boundless.core.round.players import PlayerRound
from boundless.core.rules import RuleSet
from boundless.server.metrics import ServerMetrics
from boundless.server.tables.money import TableMoney
from boundless.server.tables.service import TableService


class LedgerDesk(Protocol):
    """A desk's round and what its ledger writes go through."""

    @property
    def table_id(self) -> str: ...
    @property
    def round_no(self) -> int: ...
    @property
    def round(self) -> PlayerRound | None: ...
    @property
    def rules(self) -> RuleSet: ...
    @property
    def money(self) -> TableMoney: ...
    @property
    def metrics(self) -> ServerMetrics: ...
    @property
    def sessions(self) -> sessionmaker[Session]: ...
    @property
    def ledger_lock(self) -> AbstractContextManager[object]: ...
    def service(self, session: Session) -> TableService: ...
