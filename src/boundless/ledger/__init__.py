"""The coin ledger: double-entry accounts in integer minor units, idempotent writes, reconciliation.

Typical use, one database transaction per request or command (the caller commits)::

    engine = make_engine(url)
    upgrade_database(engine)
    with make_session_factory(engine).begin() as session:
        ledger = LedgerService(session)
        ledger.open_wallet("p1")
        ledger.grant("p1", 10_000, grant_key("p1", "signup"))
"""

from boundless.ledger.accounts import (
    DEFAULT_OWNER,
    HOUSE_ACCOUNT,
    ISSUANCE_ACCOUNT,
    AccountKind,
    in_play_account,
    slice_account,
    wallet_account,
)
from boundless.ledger.database import (
    default_database_url,
    make_engine,
    make_session_factory,
    upgrade_database,
)
from boundless.ledger.errors import (
    IdempotencyConflictError,
    InsufficientFundsError,
    InvalidLedgerInputError,
    LedgerError,
    LedgerUnavailableError,
    RoundClosedError,
    SettlementMismatchError,
    SliceClosedError,
    SlicesStillOpenError,
    UnknownAccountError,
)
from boundless.ledger.keys import ROUND_SCOPE, Category, grant_key, round_key, slice_key
from boundless.ledger.reconciliation import Problem, ReconciliationReport, check_books
from boundless.ledger.records import (
    PlayerSettlement,
    PostedBatch,
    PostedEntry,
    PostedTransaction,
    RoundInfo,
    SliceInfo,
    StatementLine,
    StatementPage,
)
from boundless.ledger.service import LedgerService

__all__ = [
    "DEFAULT_OWNER",
    "HOUSE_ACCOUNT",
    "ISSUANCE_ACCOUNT",
    "ROUND_SCOPE",
    "AccountKind",
    "Category",
    "IdempotencyConflictError",
    "InsufficientFundsError",
    "InvalidLedgerInputError",
    "LedgerError",
    "LedgerService",
    "LedgerUnavailableError",
    "PlayerSettlement",
    "PostedBatch",
    "PostedEntry",
    "PostedTransaction",
    "Problem",
    "ReconciliationReport",
    "RoundClosedError",
    "RoundInfo",
    "SettlementMismatchError",
    "SliceClosedError",
    "SliceInfo",
    "SlicesStillOpenError",
    "StatementLine",
    "StatementPage",
    "UnknownAccountError",
    "check_books",
    "default_database_url",
    "grant_key",
    "in_play_account",
    "make_engine",
    "make_session_factory",
    "round_key",
    "slice_account",
    "slice_key",
    "upgrade_database",
    "wallet_account",
]
