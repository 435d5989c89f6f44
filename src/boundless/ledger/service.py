"""The ledger's service API. No commits here: one transaction per request or command, the caller
commits (or rolls back). Every write is idempotent by its key; see :mod:`boundless.ledger.posting`.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.orm import Session

from boundless.ledger.accounts import (
    ISSUANCE_ACCOUNT,
    AccountKind,
    check_amount,
    check_identifier,
    check_round_no,
    in_play_account,
    wallet_account,
)
from boundless.ledger.bulk import BulkWriter
from boundless.ledger.errors import InvalidLedgerInputError, UnknownAccountError
from boundless.ledger.keys import (
    ROUND_SCOPE,
    Category,
    check_key,
    check_payout_kind,
    round_key,
)
from boundless.ledger.lookups import house_of, round_for_write, wallet_of, where
from boundless.ledger.posting import Plan, Poster, WriteRequest, posted
from boundless.ledger.records import (
    GrantOrder,
    PlayerSettlement,
    PostedTransaction,
    RoundInfo,
    StakeOrder,
    StatementLine,
    StatementPage,
)
from boundless.ledger.repository import LedgerRepository, RoundRow
from boundless.ledger.write_requests import grant_request, stake_request

MAX_STATEMENT_PAGE = 500
ROUND_STATUSES = ("open", "closed", "cancelled")


class LedgerService:
    """``LedgerService(session)``: coin movements for one database transaction."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.repository = LedgerRepository(session)
        self.poster = Poster(session, self.repository)
        self.bulk = BulkWriter(session, self.repository, self.poster)

    # -- accounts ---------------------------------------------------------------------------

    def open_wallet(self, player_id: str) -> str:
        """Create the player's wallet if it does not exist; return its account name."""
        name = wallet_account(player_id)
        self.repository.ensure_account(name, AccountKind.WALLET, player_id)
        return name

    def open_wallets(self, player_ids: Sequence[str]) -> list[str]:
        """``open_wallet`` for many players in a few statements."""
        return self.bulk.open_wallets(player_ids)

    def balance(self, account: str) -> int:
        row = self.repository.account_by_name(account)
        if row is None:
            raise UnknownAccountError(account)
        return row.balance

    def wallet_balance(self, player_id: str) -> int:
        return self.balance(wallet_account(player_id))

    def wallet_balances(self, player_ids: Sequence[str]) -> dict[str, int]:
        """Many wallets in a few statements; players without a wallet are left out."""
        names = {wallet_account(check_identifier("player id", p)): p for p in set(player_ids)}
        rows = self.repository.accounts_by_names(list(names))
        return {names[name]: row.balance for name, row in rows.items()}

    def round_info(self, table_id: str, round_no: int) -> RoundInfo | None:
        check_identifier("table id", table_id)
        row = self.repository.round_row(table_id, check_round_no(round_no))
        return None if row is None else self._info(row)

    def rounds(self, status: str = "open", table_id: str | None = None) -> list[RoundInfo]:
        """Rounds by status (``open`` ones are in flight: crash recovery cancels them)."""
        if status not in ROUND_STATUSES:
            raise InvalidLedgerInputError(f"status must be one of {ROUND_STATUSES}, got {status!r}")
        return [self._info(row) for row in self.repository.rounds_with_status(status, table_id)]

    def _info(self, row: RoundRow) -> RoundInfo:
        in_play = self.repository.account_by_name(in_play_account(row.table_id, row.round_no))
        balance = 0 if in_play is None else in_play.balance
        return RoundInfo(row.table_id, row.round_no, row.status, balance)

    # -- writes -----------------------------------------------------------------------------

    def grant(self, player_id: str, amount: int, key: str) -> PostedTransaction:
        """Issue new coins to a wallet (issuance -> wallet), e.g. the sign-up grant."""
        request = grant_request(GrantOrder(player_id, amount, key))

        def build() -> Plan:
            wallet = wallet_of(self.repository, player_id)
            issuance = self.repository.ensure_account(ISSUANCE_ACCOUNT, AccountKind.ISSUANCE)
            plan = Plan(round_id=None)
            plan.move(issuance.id, -amount)
            plan.move(wallet.id, amount)
            return plan

        return self.poster.post(request, build)

    def grant_many(
        self, grants: Sequence[GrantOrder | tuple[str, int, str]]
    ) -> list[PostedTransaction]:
        """Many grants ``(player_id, amount, key)`` in a few statements, each its own transaction
        under its own key (already-written ones replay)."""
        return self.bulk.grant_many(grants)

    def stake(
        self, table_id: str, round_no: int, player_id: str, position: str, kind: str, amount: int
    ) -> PostedTransaction:
        """Accept a bet: wallet -> the round's in-play account. Keyed by (table, round, position,
        kind); ``kind`` is main, double, split, insurance or side:<bet>, optionally with a
        ``:<suffix>`` (``double:2``) when one position stakes the same kind again."""
        request = stake_request(table_id, round_no, StakeOrder(player_id, position, kind, amount))

        def build() -> Plan:
            round_row = round_for_write(
                self.repository, table_id, round_no, action="stake", lock="share"
            )
            wallet = wallet_of(self.repository, player_id)
            plan = Plan(round_id=round_row.id)
            plan.move(wallet.id, -amount)
            plan.move(round_row.in_play_account_id, amount)
            return plan

        return self.poster.post(request, build)

    def pay(
        self,
        table_id: str,
        round_no: int,
        player_id: str,
        position: str,
        amount: int,
        kind: str = "payout",
    ) -> PostedTransaction:
        """In-play -> wallet (an early blackjack payment, a surrender refund...). In-play may dip
        below zero until the round closes; the house covers it then."""
        check_payout_kind(kind)
        check_amount(f"{kind} amount", amount)
        check_identifier("player id", player_id)
        request = WriteRequest(
            key=round_key(table_id, round_no, position, kind),
            category=Category.PAYOUT,
            kind=kind,
            description=(
                f"{kind} of {amount} to player {player_id!r} on position {position!r} "
                f"at {where(table_id, round_no)}"
            ),
            content={"player": player_id, "amount": amount},
            player_id=player_id,
            position=position,
        )

        def build() -> Plan:
            round_row = round_for_write(
                self.repository, table_id, round_no, action="pay", lock="share", create=False
            )
            wallet = wallet_of(self.repository, player_id)
            plan = Plan(round_id=round_row.id)
            plan.move(round_row.in_play_account_id, -amount)
            plan.move(wallet.id, amount)
            return plan

        return self.poster.post(request, build)

    def settle_position(
        self, table_id: str, round_no: int, player_id: str, position: str, paid_amount: int
    ) -> PostedTransaction:
        """Final settlement of one position: ``paid_amount`` (stake back plus winnings, 0 on a loss)
        goes in-play -> wallet, and the house takes or adds the difference so that the position's
        share of in-play ends at exactly zero."""
        check_amount("paid amount", paid_amount, allow_zero=True)
        check_identifier("player id", player_id)
        request = WriteRequest(
            key=round_key(table_id, round_no, position, "settle"),
            category=Category.SETTLE,
            kind="settle",
            description=(
                f"settlement paying {paid_amount} to player {player_id!r} on position "
                f"{position!r} at {where(table_id, round_no)}"
            ),
            content={"player": player_id, "paid": paid_amount},
            player_id=player_id,
            position=position,
        )

        def build() -> Plan:
            round_row = round_for_write(
                self.repository,
                table_id,
                round_no,
                action="settle a position",
                lock="share",
                create=False,
            )
            wallet = wallet_of(self.repository, player_id)
            house = house_of(self.repository)
            in_play_id = round_row.in_play_account_id
            held = self.repository.in_play_net(round_row.id, in_play_id, position=position)
            plan = Plan(round_id=round_row.id)
            plan.move(in_play_id, -held)
            plan.move(wallet.id, paid_amount)
            plan.move(house.id, held - paid_amount)
            return plan

        return self.poster.post(request, build)

    def close_round(self, table_id: str, round_no: int) -> PostedTransaction:
        """End a settled round: what is left in-play goes to the house (or the house covers a
        shortfall), so in-play ends at zero. No write into the round is accepted afterwards."""
        request = WriteRequest(
            key=round_key(table_id, round_no, ROUND_SCOPE, "close"),
            category=Category.CLOSE,
            kind="close",
            description=f"close of {where(table_id, round_no)}",
            content={},
        )

        def build() -> Plan:
            round_row = round_for_write(
                self.repository, table_id, round_no, action="close", lock="update"
            )
            house = house_of(self.repository)
            in_play_id = round_row.in_play_account_id
            remainder = self.repository.lock_accounts([in_play_id])[in_play_id].balance
            plan = Plan(round_id=round_row.id, round_status_after="closed")
            plan.move(in_play_id, -remainder)
            plan.move(house.id, remainder)
            return plan

        return self.poster.post(request, build)

    def cancel_round(self, table_id: str, round_no: int) -> PostedTransaction:
        """Void a round that is not closed: one transaction reverses every movement of the round,
        so each player's (and the house's, and in-play's) net for the round is exactly zero.
        Exactly once: a repeat returns the same transaction."""
        request = WriteRequest(
            key=round_key(table_id, round_no, ROUND_SCOPE, "cancel"),
            category=Category.CANCEL,
            kind="cancel",
            description=f"cancellation of {where(table_id, round_no)}",
            content={},
        )

        def build() -> Plan:
            round_row = round_for_write(
                self.repository, table_id, round_no, action="cancel", lock="update"
            )
            plan = Plan(round_id=round_row.id, round_status_after="cancelled")
            for account, net in self.repository.round_net_by_account(round_row.id):
                plan.move(account.id, -net)
            return plan

        return self.poster.post(request, build)

    def stake_many(
        self,
        table_id: str,
        round_no: int,
        orders: Sequence[StakeOrder | tuple[str, str, str, int]],
    ) -> list[PostedTransaction]:
        """Accept a batch of bets ``(player_id, position, kind, amount)`` in a few statements.
        Each bet is its own transaction under its own key (already-written ones replay); all or
        nothing: one bet a wallet cannot cover refuses the batch and changes nothing."""
        return self.bulk.stake_many(table_id, round_no, orders)

    def settle_round(
        self,
        table_id: str,
        round_no: int,
        per_player: Sequence[PlayerSettlement | tuple[str, int, int]],
    ) -> PostedTransaction:
        """Bulk settlement: one transaction pays every player, squares in-play with the house and
        closes the round, with a handful of statements whatever the number of players.

        ``per_player`` lists every player who staked in the round as ``(player_id, staked, paid)``:
        ``staked`` must equal what the ledger holds as that player's stakes for the round (a
        cross-check), ``paid`` is what goes to the wallet now (0 for a loss)."""
        return self.bulk.settle_round(table_id, round_no, per_player)

    # -- reads ------------------------------------------------------------------------------

    def round_transactions(self, table_id: str, round_no: int) -> list[PostedTransaction]:
        """Every transaction of the round, oldest first, with its entries."""
        row = self.repository.round_row(check_identifier("table id", table_id), round_no)
        if row is None:
            return []
        headers = self.repository.round_transactions(row.id)
        entries = self.repository.entries_of([header.id for header in headers])
        return [posted(header, entries[header.id], replayed=False) for header in headers]

    def transaction(self, key: str) -> PostedTransaction | None:
        header = self.repository.find_transaction(check_key(key))
        if header is None:
            return None
        return posted(header, self.repository.entries_of([header.id])[header.id], replayed=False)

    def statement(
        self, player_id: str, *, limit: int = 50, before_entry_id: int | None = None
    ) -> StatementPage:
        """The player's wallet movements, newest first, ``limit`` per page, each with the balance
        right after it."""
        if isinstance(limit, bool) or not isinstance(limit, int):
            raise InvalidLedgerInputError(f"limit must be an int, got {limit!r}")
        if not 1 <= limit <= MAX_STATEMENT_PAGE:
            raise InvalidLedgerInputError(f"limit must be 1..{MAX_STATEMENT_PAGE}, got {limit!r}")
        wallet = wallet_of(self.repository, player_id)
        rows = self.repository.statement(wallet.id, limit + 1, before_entry_id)
        more = len(rows) > limit
        rows = rows[:limit]
        lines = tuple(
            StatementLine(
                entry_id=row.entry_id,
                transaction_id=row.transaction.id,
                key=row.transaction.key,
                category=Category(row.transaction.category),
                kind=row.transaction.kind,
                table_id=row.transaction.table_id,
                round_no=row.transaction.round_no,
                position=row.transaction.position,
                amount=row.amount,
                balance_after=row.balance_after,
                created_at=row.transaction.created_at,
            )
            for row in rows
        )
        next_before = lines[-1].entry_id if more and lines else None
        return StatementPage(player_id, wallet.balance, lines, next_before)
