"""The ledger error tree. A rejected write raises one of these and changes nothing."""

from __future__ import annotations


class LedgerError(ValueError):
    """Base of every error the ledger raises for a write it refuses or a lookup that fails."""

    code = "ledger_error"


class InvalidLedgerInputError(LedgerError):
    """A malformed identifier, kind, key or amount (float, bool, zero or negative stake...)."""

    code = "invalid_ledger_input"


class UnknownAccountError(LedgerError):
    code = "unknown_account"

    def __init__(self, account: str) -> None:
        self.account = account
        super().__init__(f"account {account!r} does not exist")


class InsufficientFundsError(LedgerError):
    """A wallet would go below zero. Wallets never go negative."""

    code = "insufficient_coins"

    def __init__(self, account: str, balance: int, amount: int, *, player_id: str | None) -> None:
        self.account = account
        self.balance = balance
        self.amount = amount
        self.player_id = player_id
        who = f"player {player_id!r}" if player_id is not None else f"account {account!r}"
        super().__init__(
            f"{who} cannot pay {amount} from {account!r}: its balance is {balance}, "
            f"short by {amount - balance}"
        )


class IdempotencyConflictError(LedgerError):
    """The idempotency key was already used for a write with different content."""

    code = "idempotency_conflict"

    def __init__(self, key: str, original: str, attempted: str) -> None:
        self.key = key
        self.original = original
        self.attempted = attempted
        super().__init__(
            f"idempotency key {key!r} was already used for {original}; "
            f"refusing a different write with the same key: {attempted}"
        )


class RoundClosedError(LedgerError):
    """A write to a round that is already closed (settled) or cancelled."""

    code = "round_closed"

    def __init__(
        self, table_id: str, round_no: int, status: str, action: str, *, within: str = ""
    ) -> None:
        self.table_id = table_id
        self.round_no = round_no
        self.status = status
        super().__init__(
            f"cannot {action}: {within}round {round_no} of table {table_id!r} is {status}"
        )


class SliceClosedError(RoundClosedError):
    """A write into one owner's slice that is already settled or cancelled (same code as a closed
    round: for a player the bet is refused the same way)."""

    def __init__(self, table_id: str, round_no: int, owner: str, status: str, action: str) -> None:
        self.owner = owner
        super().__init__(table_id, round_no, status, action, within=f"the slice of {owner!r} in ")


class SlicesStillOpenError(InvalidLedgerInputError):
    """The round cannot end yet: some owners' slices are still open (a coordinator's mistake,
    never a player's: it keeps the input error's code)."""

    def __init__(self, table_id: str, round_no: int, owners: list[str]) -> None:
        self.owners = owners
        super().__init__(
            f"round {round_no} of table {table_id!r} still has open slices: "
            f"{', '.join(repr(owner) for owner in owners)}"
        )


class SettlementMismatchError(LedgerError):
    """A bulk settlement that disagrees with the stakes the ledger holds for the round."""

    code = "settlement_mismatch"


class LedgerUnavailableError(LedgerError):
    """The ledger's database cannot be reached (or was lost mid-write): nothing was written, and
    the same request may be sent again once it is back."""

    code = "ledger_unavailable"


class StorageFullError(LedgerUnavailableError):
    """The database has no space left to write (a full disk): nothing was written, and the same
    request may be sent again once space is freed."""

    code = "storage_full"
