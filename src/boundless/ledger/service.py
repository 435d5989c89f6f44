"""The ledger's service API. No commits here: one transaction per request or command, the caller
commits (or rolls back). Every write is idempotent by its key; see :mod:`boundless.ledger.posting`.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.orm import Session

from boundless.ledger.accounts import (
    DEFAULT_OWNER,
    ISSUANCE_ACCOUNT,
    AccountKind,
    check_amount,
    check_identifier,
    check_owner,
    check_round_no,
    in_play_account,
    wallet_account,
)
from boundless.ledger.bulk import BulkWriter
from boundless.ledger.errors import (
    InvalidLedgerInputError,
    SlicesStillOpenError,
    UnknownAccountError,
)
from boundless.ledger.keys import (
    ROUND_SCOPE,
    Category,
    check_key,
    check_payout_kind,
    round_key,
    slice_key,
)
from boundless.ledger.lookups import (
    house_of,
    round_for_write,
    slice_for_write,
    wallet_of,
    where,
)
from boundless.ledger.posting import Plan, Poster, WriteRequest, posted
from boundless.ledger.records import (
    GrantOrder,
    PlayerSettlement,
    PostedBatch,
    PostedTransaction,
    RoundInfo,
    SliceInfo,
    StakeOrder,
    StatementLine,
    StatementPage,
)
from boundless.ledger.repository import LedgerRepository, RoundRow
from boundless.ledger.slice_repository import SliceRepository, SliceRow
from boundless.ledger.voids import plan_void, takes_back
from boundless.ledger.write_requests import grant_request, stake_request

MAX_STATEMENT_PAGE = 500
ROUND_STATUSES = ("open", "closed", "cancelled")


def _slice_request(
    table_id: str, round_no: int, owner: str, category: Category, what: str
) -> WriteRequest:
    """A write about one owner's whole slice of a round (its close, its cancellation): the
    kind is the category's, and no player or amount is in it."""
    return WriteRequest(
        key=slice_key(table_id, round_no, owner, category.value),
        category=category,
        kind=category.value,
        description=f"{what} of the slice of {owner!r} at {where(table_id, round_no)}",
        content={},
        owner=owner,
    )


class LedgerService:
    """``LedgerService(session, owner="local")``: coin movements for one database transaction.

    ``owner`` names the process writing (``local`` for ``boundless serve``, ``gateway:<name>``,
    ``coordinator:<table>``...). Stakes, payments and settlements go into ``owner``'s **slice** of
    the round; a round closes when none of its slices is open any more."""

    def __init__(self, session: Session, owner: str = DEFAULT_OWNER) -> None:
        self.session = session
        self.owner = check_owner(owner)
        self.repository = LedgerRepository(session)
        self.slices = SliceRepository(session, self.repository)
        self.poster = Poster(session, self.repository, self.slices)
        self.bulk = BulkWriter(session, self.repository, self.slices, self.poster)

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

    # -- rounds and slices ------------------------------------------------------------------

    def round_info(self, table_id: str, round_no: int) -> RoundInfo | None:
        check_identifier("table id", table_id)
        row = self.repository.round_row(table_id, check_round_no(round_no))
        return None if row is None else self._info(row)

    def rounds(
        self, status: str = "open", table_id: str | None = None, owner: str | None = None
    ) -> list[RoundInfo]:
        """Rounds by status, optionally only those a given owner opened with ``open_round``."""
        if status not in ROUND_STATUSES:
            raise InvalidLedgerInputError(f"status must be one of {ROUND_STATUSES}, got {status!r}")
        if owner is not None:
            check_owner(owner)
        rows = self.repository.rounds_with_status(status, table_id, owner)
        return [self._info(row) for row in rows]

    def _info(self, row: RoundRow) -> RoundInfo:
        balance = self.slices.in_play_total(row.id)
        return RoundInfo(row.table_id, row.round_no, row.status, balance, row.owner)

    def slices_of(self, table_id: str, round_no: int) -> list[SliceInfo]:
        """Every slice of the round, by owner."""
        row = self.repository.round_row(check_identifier("table id", table_id), round_no)
        return [] if row is None else self.slices.listings(round_id=row.id)

    def open_slices(self, owner: str | None = None) -> list[SliceInfo]:
        """The open slices of ``owner`` (default: this service's): what it was playing when it
        stopped. Recovery cancels them with ``cancel_slice``."""
        return self.slices.listings(owner=check_owner(owner or self.owner), status="open")

    def open_round(self, table_id: str, round_no: int) -> RoundInfo:
        """The coordinator's start of a round: creates it (idempotent) and records this service's
        owner as the one that opened it, so that ``recover_owner`` of that owner cancels it."""
        check_identifier("table id", table_id)
        check_round_no(round_no)
        with self.session.begin_nested():
            row = round_for_write(
                self.repository, table_id, round_no, action="open", lock="end", owner=self.owner
            )
            if row.owner != self.owner:
                self.repository.set_round_owner(row.id, self.owner)
        info = self.round_info(table_id, round_no)
        assert info is not None
        return info

    def end_round(self, table_id: str, round_no: int) -> RoundInfo:
        """End a round whose slices are all settled or cancelled (rounds with slices end by
        themselves when the last one does; this ends one nobody staked in). Idempotent."""
        check_identifier("table id", table_id)
        with self.session.begin_nested():
            row = self.repository.round_row(table_id, check_round_no(round_no), lock="end")
            if row is None:
                raise UnknownAccountError(in_play_account(table_id, round_no))
            if row.status == "open":
                still_open = self.slices.listings(round_id=row.id, status="open")
                if still_open:
                    owners = [item.owner for item in still_open]
                    raise SlicesStillOpenError(table_id, round_no, owners)
                if self.slices.end_round_if_done(row.id) is None:
                    self.repository.set_round_status(row.id, "closed")
        info = self.round_info(table_id, round_no)
        assert info is not None
        return info

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

    def hand_back(self, key: str, amounts: dict[str, int], what: str) -> PostedTransaction | None:
        """Coins leaving players' wallets for an operator's wallet (wallets -> issuance), in one
        transaction under ``key``: the other half of :meth:`take_in`, for a wallet we only pass
        coins through (``seamless``). Zero amounts are skipped; nothing to move writes nothing."""
        return self._operator_transfer(key, amounts, what, Category.HAND_BACK, "hand_back")

    def take_in(self, key: str, amounts: dict[str, int], what: str) -> PostedTransaction | None:
        """Coins an operator's wallet gave up for bets (issuance -> wallets), in one transaction
        under ``key`` however many players: a betting window's debits cost one header, not one
        each. Zero amounts are skipped; nothing to move writes nothing."""
        return self._operator_transfer(key, amounts, what, Category.GRANT, "take_in")

    def _operator_transfer(
        self, key: str, amounts: dict[str, int], what: str, category: Category, kind: str
    ) -> PostedTransaction | None:
        sign = 1 if category is Category.GRANT else -1  # into the wallets, or out of them
        moving = {player: amount for player, amount in sorted(amounts.items()) if amount}
        if not moving:
            return None
        for player, amount in moving.items():
            check_identifier("player id", player)
            check_amount(f"{kind.replace('_', '-')} amount", amount)
        request = WriteRequest(
            key=check_key(key),
            category=category,
            kind=kind,
            description=what[:300],
            content={"amounts": [[player, amount] for player, amount in moving.items()]},
        )

        return self.bulk.with_issuance(
            request, {player: sign * amount for player, amount in moving.items()}
        )

    def grant_many(self, grants: Sequence[GrantOrder | tuple[str, int, str]]) -> PostedBatch:
        """Many grants ``(player_id, amount, key)`` in a few statements, each its own transaction
        under its own key (already-written ones replay)."""
        return self.bulk.grant_many(grants)

    def _slice(
        self, table_id: str, round_no: int, action: str, *, lock: str = "write", create: bool = True
    ) -> tuple[RoundRow, SliceRow]:
        return slice_for_write(
            self.slices, table_id, round_no, self.owner, action=action, lock=lock, create=create
        )

    def _wallet_transfer(
        self,
        table_id: str,
        round_no: int,
        player_id: str,
        action: str,
        amount: int,
        into_slice: bool,
    ) -> Plan:
        """Move ``amount`` from the player's wallet into this owner's slice of the round
        (``into_slice``: a stake, which may open the slice), or back out of the slice."""
        round_row, slice_row = self._slice(table_id, round_no, action, create=into_slice)
        wallet_id = wallet_of(self.repository, player_id).id
        in_play_id = slice_row.in_play_account_id
        source, target = (wallet_id, in_play_id) if into_slice else (in_play_id, wallet_id)
        plan = Plan(round_id=round_row.id)
        plan.move(source, -amount)
        plan.move(target, amount)
        return plan

    def _payment_request(
        self, table_id: str, round_no: int, player_id: str, position: str, kind: str, amount: int
    ) -> WriteRequest:
        """A write from this owner's slice to one position's player: a payment of ``kind``, or
        the position's final ``settle`` (whose content names the amount ``paid``)."""
        check_identifier("player id", player_id)
        settles = kind == "settle"
        what = f"settlement paying {amount}" if settles else f"{kind} of {amount}"
        at = where(table_id, round_no)
        return WriteRequest(
            key=round_key(table_id, round_no, position, kind),
            category=Category.SETTLE if settles else Category.PAYOUT,
            kind=kind,
            description=f"{what} to player {player_id!r} on position {position!r} at {at}",
            content={
                "player": player_id,
                "paid" if settles else "amount": amount,
                "owner": self.owner,
            },
            player_id=player_id,
            position=position,
            owner=self.owner,
        )

    def stake(
        self, table_id: str, round_no: int, player_id: str, position: str, kind: str, amount: int
    ) -> PostedTransaction:
        """Accept a bet: wallet -> this owner's slice of the round. Keyed by (table, round,
        position, kind); ``kind`` is main, double, split, insurance or side:<bet>, optionally with
        a ``:<suffix>`` (``double:2``) when one position stakes the same kind again."""
        order = StakeOrder(player_id, position, kind, amount)
        request = stake_request(table_id, round_no, order, self.owner)

        def build() -> Plan:
            return self._wallet_transfer(table_id, round_no, player_id, "stake", amount, True)

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
        """This owner's slice -> wallet (an early blackjack payment, a surrender refund...).
        In-play may dip below zero until the slice is settled; the house covers it then."""
        check_payout_kind(kind)
        check_amount(f"{kind} amount", amount)
        request = self._payment_request(table_id, round_no, player_id, position, kind, amount)

        def build() -> Plan:
            return self._wallet_transfer(table_id, round_no, player_id, "pay", amount, False)

        return self.poster.post(request, build)

    def settle_position(
        self, table_id: str, round_no: int, player_id: str, position: str, paid_amount: int
    ) -> PostedTransaction:
        """Final settlement of one position: ``paid_amount`` (stake back plus winnings, 0 on a loss)
        goes in-play -> wallet, and the house takes or adds the difference so that the position's
        share of in-play ends at exactly zero."""
        check_amount("paid amount", paid_amount, allow_zero=True)
        request = self._payment_request(
            table_id, round_no, player_id, position, "settle", paid_amount
        )

        def build() -> Plan:
            round_row, slice_row = self._slice(
                table_id, round_no, "settle a position", create=False
            )
            wallet = wallet_of(self.repository, player_id)
            house = house_of(self.repository)
            in_play_id = slice_row.in_play_account_id
            held = self.repository.in_play_net(
                round_row.id, self.owner, in_play_id, position=position
            )
            plan = Plan(round_id=round_row.id)
            plan.move(in_play_id, -held)
            plan.move(wallet.id, paid_amount)
            plan.move(house.id, held - paid_amount)
            return plan

        return self.poster.post(request, build)

    def close_slice(self, table_id: str, round_no: int) -> PostedTransaction:
        """End this owner's slice once its positions are settled: what is left in it goes to the
        house (or the house covers a shortfall), so it ends at zero. The round closes when no
        slice is open. No write into the slice is accepted afterwards."""
        request = _slice_request(table_id, round_no, self.owner, Category.CLOSE, "close")

        def build() -> Plan:
            round_row, slice_row = self._slice(table_id, round_no, "close", lock="end")
            house = house_of(self.repository)
            in_play_id = slice_row.in_play_account_id
            remainder = self.repository.lock_accounts([in_play_id])[in_play_id].balance
            plan = Plan(round_row.id, ends_slices=[slice_row.id], slice_status_after="settled")
            plan.move(in_play_id, -remainder)
            plan.move(house.id, remainder)
            return plan

        return self.poster.post(request, build)

    close_round = close_slice
    """For one process that is the round's only owner, closing its slice closes the round."""

    def cancel_slice(
        self, table_id: str, round_no: int, owner: str | None = None
    ) -> PostedTransaction:
        """Void one owner's slice (default: this service's): one transaction reverses every
        movement of the slice, so each of its players nets exactly zero (an early payment spent
        elsewhere is taken back as far as the wallet allows, the rest booked to the player's
        receivable: ruling 38, :mod:`boundless.ledger.voids`). Anyone may cancel a dead owner's
        slice; exactly once (a repeat replays). Other slices play on."""
        owner = check_owner(owner or self.owner)
        request = _slice_request(table_id, round_no, owner, Category.CANCEL, "cancellation")

        def build() -> Plan:
            round_row, slice_row = slice_for_write(
                self.slices, table_id, round_no, owner, action="cancel", lock="end",
                create_round=False,
            )  # fmt: skip
            plan = Plan(round_row.id, ends_slices=[slice_row.id], slice_status_after="cancelled")
            plan_void(self.repository, round_row.id, [owner], plan)
            return plan

        return self.poster.post(request, build)

    def cancel_round(self, table_id: str, round_no: int) -> PostedTransaction:
        """Void a round that is not closed: one transaction reverses every movement of its open
        slices, so each of their players nets exactly zero (with their receivable, ruling 38);
        slices already settled stay settled
        (the round then ends ``closed``, else ``cancelled``). Exactly once."""
        request = WriteRequest(
            key=round_key(table_id, round_no, ROUND_SCOPE, "cancel"),
            category=Category.CANCEL,
            kind="cancel",
            description=f"cancellation of {where(table_id, round_no)}",
            content={},
        )

        def build() -> Plan:
            round_row = round_for_write(
                self.repository, table_id, round_no, action="cancel", lock="end"
            )
            open_slices = self.slices.lock_open_slices(round_row.id)
            plan = Plan(
                round_row.id,
                ends_slices=[row.id for row in open_slices],
                slice_status_after="cancelled",
                round_status_after="cancelled",
            )
            plan_void(self.repository, round_row.id, [row.owner for row in open_slices], plan)
            return plan

        return self.poster.post(request, build)

    def void_takes_back(self, table_id: str, round_no: int, owner: str | None = None) -> bool:
        """Whether cancelling ``owner``'s slice (default: this service's) would take coins out
        of a wallet: whoever voids several rounds voids these last (ruling 38)."""
        row = self.repository.round_row(check_identifier("table id", table_id), round_no)
        return row is not None and takes_back(
            self.repository, row.id, [check_owner(owner or self.owner)]
        )

    def recover_owner(self, owner: str | None = None) -> list[PostedTransaction]:
        """After ``owner`` (default: this service's) restarted: cancel what it was playing and
        nothing else: each of its open slices, and each open round it opened with
        ``open_round`` (a coordinator's rounds). Other owners' slices in other rounds are left
        alone. Idempotent: a second run finds nothing open and returns []."""
        owner = check_owner(owner or self.owner)
        slices = sorted(
            self.open_slices(owner),
            key=lambda item: self.void_takes_back(item.table_id, item.round_no, owner),
        )  # refunds first: a void that takes back finds them in the wallet (ruling 38)
        cancelled = [self.cancel_slice(item.table_id, item.round_no, owner) for item in slices]
        cancelled.extend(
            self.cancel_round(info.table_id, info.round_no)
            for info in self.rounds("open", owner=owner)
        )
        return cancelled

    def stake_many(
        self,
        table_id: str,
        round_no: int,
        orders: Sequence[StakeOrder | tuple[str, str, str, int]],
    ) -> PostedBatch:
        """Accept a batch of bets ``(player_id, position, kind, amount)`` into this owner's slice
        with a handful of set-based statements. Each bet is its own transaction under its own key
        (already-written ones replay); all or nothing: one bet a wallet cannot cover refuses the
        batch and changes nothing."""
        return self.bulk.stake_many(table_id, round_no, orders, self.owner)

    def settle_slice(
        self,
        table_id: str,
        round_no: int,
        per_player: Sequence[PlayerSettlement | tuple[str, int, int]],
    ) -> PostedTransaction:
        """Bulk settlement of this owner's slice: one transaction pays every player, squares the
        slice's in-play with the house and ends the slice (and the round, if it was the last
        open slice), with a handful of statements whatever the number of players.

        ``per_player`` lists every player who staked in the slice as ``(player_id, staked,
        paid)``: ``staked`` must equal what the ledger holds as that player's stakes (a
        cross-check), ``paid`` is what goes to the wallet now (0 for a loss)."""
        return self.bulk.settle_slice(table_id, round_no, per_player, self.owner)

    settle_round = settle_slice
    """For one process that is the round's only owner, settling its slice closes the round."""

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
