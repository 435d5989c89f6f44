"""The server's errors and the ONE place that turns any refusal into ``{"error", "detail"}``.

Core ``RulesError``, ledger ``LedgerError`` and wallet ``WalletError`` codes (a refused debit's
reason: ``insufficient_coins``, an operator's, ``limit_reached``...) pass through unchanged; the
server adds its own codes. HTTP statuses are chosen here too, so endpoints never build error
bodies themselves.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass

from pydantic import ValidationError

from boundless.core.errors import RulesError
from boundless.ledger import LedgerError, LedgerUnavailableError
from boundless.ledger.errors import StorageFullError
from boundless.ledger.outage import (
    STORAGE_FULL_DETAIL,
    UNAVAILABLE_DETAIL,
    is_storage_full,
    is_transient,
)
from boundless.wallet import WalletError, WalletUnavailableError


class ServerError(Exception):
    """A refusal decided by the server itself (not by the rules or the ledger)."""

    code = "server_error"
    status = 400

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class UnauthorizedError(ServerError):
    code = "unauthorized"
    status = 401


class ForbiddenError(ServerError):
    code = "forbidden"
    status = 403


class NotFoundError(ServerError):
    code = "not_found"
    status = 404


class BadMessageError(ServerError):
    code = "bad_message"
    status = 422


class UnsupportedVersionError(ServerError):
    code = "unsupported_version"
    status = 400


class RateLimitedError(ServerError):
    code = "rate_limited"
    status = 429


class TablePausedError(ServerError):
    code = "table_paused"
    status = 409


class ConflictError(ServerError):
    code = "conflict"
    status = 409


class CoordinatorUnavailableError(ServerError):
    """(A cluster gateway) no coordinator answered an operator request for the table."""

    code = "coordinator_unavailable"
    status = 503


class RefundPendingError(ServerError):
    """An operator's cancel voided the round but its refund could not be written: the
    database went away between the check and the write. The next start refunds it."""

    code = "ledger_unavailable"
    status = 503


class TooLargeError(ServerError):
    """A request body or WebSocket message over the size limit."""

    code = "too_large"
    status = 413


class TooManySocketsError(ServerError):
    """A player already has as many sockets open as the server allows."""

    code = "too_many_sockets"
    status = 429


class PrivateTableLimitError(ConflictError):
    """A player who already has the most private tables allowed asks for another."""

    code = "private_table_limit"


class SharedTitleError(ConflictError):
    """A private table asked for a title that is played at its one shared table."""

    code = "shared_title"


class SideBetsLockedError(ConflictError):
    """Side bets chosen after a bet is already on the table."""

    code = "side_bets_locked"


class TableInPlayError(ConflictError):
    """A private table asked to close while a bet is on it."""

    code = "table_in_play"


class ProtectionRefusal(ServerError):
    """A player-protection tool refuses the request (403 over REST, an ``error`` on a socket)."""

    code = "protection"
    status = 403


class RealityCheckPendingError(ProtectionRefusal):
    """A new bet while a reality check waits for the player's answer."""

    code = "reality_check_pending"


class TimedOutError(ProtectionRefusal):
    code = "timed_out"


class SelfExcludedError(ProtectionRefusal):
    code = "self_excluded"


ERROR_COUNTER: ContextVar[Callable[[str], None] | None] = ContextVar(
    "boundless_error_counter", default=None
)
"""Set by the app around each call (see ``boundless.server.metrics``): counts replies by code."""


def counted(reply: ErrorReply) -> ErrorReply:
    count = ERROR_COUNTER.get()
    if count is not None:
        count(reply.code)
    return reply


LEDGER_STATUS = {"idempotency_conflict": 409, "round_closed": 409}
LEDGER_UNAVAILABLE = 503
STORAGE_FULL = StorageFullError.code
"""The code of a refusal for want of disk space (503, like ``ledger_unavailable``)."""
"""The ledger's database is away: nothing was changed, the same request may be sent again."""


@dataclass(frozen=True, slots=True)
class ErrorReply:
    status: int
    code: str
    detail: str

    def body(self) -> dict[str, str]:
        return {"error": self.code, "detail": self.detail}


def error_reply(error: Exception) -> ErrorReply:
    """Map any refusal to its code, text and HTTP status. Unknown exceptions are not refusals."""
    if isinstance(error, ServerError):
        return counted(ErrorReply(error.status, error.code, error.detail))
    if isinstance(error, RulesError):
        return counted(ErrorReply(400, error.code, str(error)))
    if is_storage_full(error):
        # The disk is full: nothing was written; the same request works once space is freed.
        return counted(ErrorReply(LEDGER_UNAVAILABLE, STORAGE_FULL, STORAGE_FULL_DETAIL))
    if is_transient(error):
        # A lost or refused database connection (or a write given up after its retries): the
        # driver's text names hosts and ports, so the client gets the one fixed sentence.
        return counted(
            ErrorReply(LEDGER_UNAVAILABLE, LedgerUnavailableError.code, UNAVAILABLE_DETAIL)
        )
    if isinstance(error, LedgerError):
        return counted(ErrorReply(LEDGER_STATUS.get(error.code, 400), error.code, str(error)))
    if isinstance(error, WalletError):
        status = 503 if isinstance(error, WalletUnavailableError) else 409
        return counted(ErrorReply(status, error.code, str(error)))
    if isinstance(error, ValidationError):
        return counted(ErrorReply(422, BadMessageError.code, describe_validation(error)))
    raise TypeError(f"{type(error).__name__} is not a refusal") from error


INTERNAL_ERROR = ErrorReply(500, "internal_error", "the server failed to handle this message")
"""What a client gets when the server itself failed (the cause is logged, never sent)."""


def internal_reply() -> ErrorReply:
    """:data:`INTERNAL_ERROR`, counted."""
    return counted(INTERNAL_ERROR)


HTTP_CODES = {
    401: UnauthorizedError.code,
    403: ForbiddenError.code,
    404: NotFoundError.code,
    413: TooLargeError.code,
    429: RateLimitedError.code,
}


def http_reply(status: int, detail: str) -> ErrorReply:
    """A refusal by the web framework itself (no such route, wrong method)."""
    return counted(ErrorReply(status, HTTP_CODES.get(status, BadMessageError.code), detail))


def is_refusal(error: Exception) -> bool:
    return isinstance(
        error, ServerError | RulesError | LedgerError | WalletError | ValidationError
    ) or (is_transient(error))


def describe_validation(error: ValidationError) -> str:
    parts = []
    for item in error.errors()[:5]:
        where = ".".join(str(part) for part in item["loc"]) or "message"
        parts.append(f"{where}: {item['msg']}")
    return "; ".join(parts)
