"""Bulk writes for shared rounds with many thousands of players, set-based whatever the size.

``stake_many`` and ``grant_many`` write one transaction per item (each under its own key, so a
single retried bet still finds it): the batch goes into the stage table (:mod:`staging`), then one
statement each finds the replays, checks wallets, inserts every header, every entry and updates
every balance. ``settle_slice`` is one transaction that pays every player of a slice and ends it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import chain

from sqlalchemy import DateTime, bindparam, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from boundless.ledger.accounts import (
    ISSUANCE_ACCOUNT,
    AccountKind,
    wallet_account,
)
from boundless.ledger.collection import cycle_collection_paused
from boundless.ledger.errors import (
    IdempotencyConflictError,
    InsufficientFundsError,
    RoundClosedError,
    SettlementMismatchError,
    UnknownAccountError,
)
from boundless.ledger.keys import Category
from boundless.ledger.lookups import house_of, slice_for_write, where
from boundless.ledger.models import ACCOUNTS, ENTRIES, ROUNDS, TRANSACTIONS
from boundless.ledger.posting import Plan, Poster, WriteRequest, posted
from boundless.ledger.records import (
    GrantOrder,
    PlayerSettlement,
    PostedBatch,
    PostedTransaction,
    StakeOrder,
)
from boundless.ledger.repository import (
    TRANSACTION_COLUMNS,
    AccountRow,
    LedgerRepository,
    TransactionRow,
    transaction_row,
)
from boundless.ledger.slice_repository import SliceRepository
from boundless.ledger.sql_conventions import utc_now
from boundless.ledger.staging import (
    STAGE,
    STAGE_TABLE,
    LockedAccount,
    Stage,
    StageRow,
    planner_settings,
)
from boundless.ledger.write_requests import (
    StagedWrite,
    WriteBatch,
    grant_request,
    settle_slice_request,
    settlement_lines,
    staged,
    stake_batch,
)

ATTEMPTS = 3
"""The first try of a batch takes every item for new (no lookup first); one whose keys are partly
written already (a retry) or taken by a concurrent twin goes the long way: replays found first,
the rest written. A twin winning the race again means one more try."""

_INSERT_HEADERS = text(
    "INSERT INTO ledger_transactions (idempotency_key, fingerprint, description, category, kind, "
    "round_id, player_id, position, created_at, owner) SELECT key, fingerprint, description, "
    f":category, kind, :round_id, player_id, position, :created_at, :owner FROM {STAGE} "
    "WHERE key IS NOT NULL ORDER BY seq "
    "ON CONFLICT (idempotency_key) DO NOTHING RETURNING idempotency_key, id"
).bindparams(bindparam("created_at", type_=DateTime(timezone=True)))


_HEADER_COLUMNS = ("id", "idempotency_key", "fingerprint", "description", "category", "kind",
                   "round_id", "player_id", "position", "created_at", "owner")  # fmt: skip
_ADD_ITEMS = (
    "UPDATE ledger_accounts SET balance = balance + d.delta FROM (SELECT wallet, "
    f":sign * sum(amount) AS delta FROM {STAGE} WHERE key IS NOT NULL GROUP BY wallet) AS d "
    "WHERE ledger_accounts.name = d.wallet"
)
"""Wallet balances from a stage of batch items (several may share a wallet)."""
APPLY_STAGED_CHANGES = (
    "UPDATE ledger_accounts SET balance = balance + s.amount FROM ledger_stage AS s "
    "WHERE ledger_accounts.name = s.wallet AND s.key IS NULL AND s.player_id <> '' "
    "AND s.amount <> 0"
)
"""Wallet balances from a stage of one row per wallet holding its signed change, without lock
order: the writes use :meth:`Stage.apply_changes` (wallets and the fixed account locked and
updated in id order, one statement); this plain form stays as the plan tests' reference."""
_HEADER_TYPES = ("int8", "text", "text", "text", "text", "text", "int8", "text", "text",
                 "timestamptz", "text")  # fmt: skip
ENTRY_COLUMNS = ("transaction_id", "account_id", "amount")
ENTRY_TYPES = ("int8", "int8", "int8")


SORT_MEMORY = "64MB"
"""PostgreSQL's ``work_mem`` for a settlement's two big statements: their sorts and hashes of
a slice's lines (a few MB at 100,000 players) stay in memory instead of spilling to disk at
the server's default 4 MB."""
_PAY_IN_ID_ORDER = (
    "WITH moved AS (UPDATE ledger_accounts AS a SET balance = a.balance + c.paid FROM "
    f"(SELECT l.id, s.paid, s.seq FROM {STAGE} AS s JOIN ledger_accounts AS l "
    "ON l.name = s.wallet WHERE s.paid <> 0 ORDER BY l.id) AS c WHERE a.id = c.id "
    "RETURNING a.id, c.paid, c.seq), written AS (INSERT INTO ledger_entries "
    "(transaction_id, account_id, amount) SELECT :transaction_id, id, paid FROM moved "
    "ORDER BY seq RETURNING 1) SELECT count(*) FROM written"
)
"""A settlement's payments and squares from the stage, accounts locked in id order."""


class _KeysTaken(Exception):
    """Some keys of the batch are written already, or the round refuses new writes (a retry of
    a write that happened is still answered): the batch goes the long way."""


@dataclass(frozen=True, slots=True)
class Route:
    """Where a batch's transfers go: between each item's wallet and one ``fixed`` account
    (issuance for grants, the slice's in-play for stakes)."""

    category: Category
    fixed: AccountRow
    wallet_pays: bool
    round_id: int | None = None
    owner: str | None = None
    table_id: str | None = None
    round_no: int | None = None


@dataclass(frozen=True, slots=True)
class _Written:
    """What one batch wrote: enough to make each item's record when it is read."""

    route: Route
    ids: dict[str, int]
    created_at: datetime

    def posted(self, item: StagedWrite) -> PostedTransaction:
        route = self.route
        row = TransactionRow(self.ids[item.key], item.key, item.fingerprint,
                             item.description[:300], route.category.value, item.kind,
                             route.table_id, route.round_no, item.player_id, item.position,
                             self.created_at, route.owner)  # fmt: skip
        sign = -1 if route.wallet_pays else 1
        wallet = (wallet_account(item.player_id), sign * item.amount)
        fixed = (route.fixed.name, -sign * item.amount)
        return posted(
            row, [wallet, fixed] if route.wallet_pays else [fixed, wallet], replayed=False
        )


def _stage_rows(items: list[StagedWrite]) -> list[StageRow]:
    """The items as stage rows (built only where the stage carries them: SQLite, a retry)."""
    return [(seq, i.key, i.fingerprint, i.description[:300], i.kind, i.player_id, i.position,
             f"{AccountKind.WALLET}:{i.player_id}", i.amount, 0)
            for seq, i in enumerate(items)]  # fmt: skip


def wallet_stage_rows(player_ids: Sequence[str]) -> list[StageRow]:
    """Stage rows naming each player's wallet once (what wallet lookups join on)."""
    players = dict.fromkeys(player_ids)
    return [(seq, None, None, None, None, player, None, wallet_account(player), 0, 0)
            for seq, player in enumerate(players)]  # fmt: skip


def _wallet_deltas(players: Iterable[str], amounts: Iterable[int], route: Route) -> dict[str, int]:
    """What the items move in or out of each player's wallet."""
    sign = -1 if route.wallet_pays else 1
    deltas: dict[str, int] = {}
    get = deltas.get
    for player, amount in zip(players, amounts, strict=True):
        deltas[player] = get(player, 0) + sign * amount
    return deltas


class BulkWriter:
    def __init__(
        self,
        session: Session,
        repository: LedgerRepository,
        slices: SliceRepository,
        poster: Poster,
    ) -> None:
        self.session = session
        self.repository = repository
        self.slices = slices
        self.poster = poster
        self.stage = Stage(session)

    @cycle_collection_paused()
    def open_wallets(self, player_ids: Sequence[str]) -> list[str]:
        names = [wallet_account(player_id) for player_id in player_ids]
        if names:
            self.stage.load(wallet_stage_rows(player_ids))
            self.stage.execute(
                "INSERT INTO ledger_accounts (name, kind, player_id, balance, created_at) "
                f"SELECT DISTINCT wallet, 'wallet', player_id, 0, :now FROM {STAGE} WHERE true "
                "ON CONFLICT (name) DO NOTHING",
                types={"now": DateTime(timezone=True)},
                now=utc_now(),
            )
        return names

    @cycle_collection_paused()
    def grant_many(self, grants: Sequence[GrantOrder | tuple[str, int, str]]) -> PostedBatch:
        orders = [g if isinstance(g, GrantOrder) else GrantOrder(*g) for g in grants]
        batch = WriteBatch.of([staged(grant_request(order), order.amount) for order in orders])

        def route() -> Route:
            issuance = self.repository.ensure_account(ISSUANCE_ACCOUNT, AccountKind.ISSUANCE)
            return Route(Category.GRANT, issuance, wallet_pays=False)

        return self._post_many(batch, route)

    @cycle_collection_paused()
    def stake_many(
        self,
        table_id: str,
        round_no: int,
        orders: Sequence[StakeOrder | tuple[str, str, str, int]],
        owner: str,
    ) -> PostedBatch:
        batch = stake_batch(table_id, round_no, orders, owner)

        def route() -> Route:
            round_row, slice_row = slice_for_write(
                self.slices, table_id, round_no, owner, action="stake", lock="write"
            )
            fixed = self.repository.account_by_id(slice_row.in_play_account_id)
            return Route(Category.STAKE, fixed, True, round_row.id, owner, table_id, round_no)

        return self._post_many(batch, route)

    def _post_many(self, batch: WriteBatch, route: Callable[[], Route]) -> PostedBatch:
        """Post many two-leg transfers, each its own transaction under its own key."""
        first: dict[str, int] = {}  # each key's first item
        for i, key in enumerate(batch.keys):
            seen = first.setdefault(key, i)
            if seen != i and batch.item(seen).fingerprint != batch.item(i).fingerprint:
                earlier, item = batch.item(seen), batch.item(i)
                raise IdempotencyConflictError(key, earlier.description, item.description)
        order = list(first.values())
        found: dict[str, PostedTransaction] = {}
        written: _Written | None = None
        for attempt in range(ATTEMPTS if order else 0):
            try:
                with self.session.begin_nested():
                    if attempt == 0:
                        written = self._write_new(batch, order, route)
                    else:
                        unique = {item.key: item for item in map(batch.item, order)}
                        self.stage.load(_stage_rows(list(unique.values())))
                        found = self._replays(unique)
                        fresh = [item for key, item in unique.items() if key not in found]
                        written = self._write_staged(fresh, route()) if fresh else None
                break
            except (_KeysTaken, IntegrityError) as error:
                if attempt == ATTEMPTS - 1:
                    raise IntegrityError("ledger batch write", None, error) from error

        def make(key: str) -> PostedTransaction:
            if key in found:
                return found[key]
            assert written is not None
            return written.posted(batch.item(first[key]))

        return PostedBatch(batch.keys, make)

    def _write_new(
        self, batch: WriteBatch, order: list[int], route: Callable[[], Route]
    ) -> _Written:
        """The first try: every item (``order``: the indexes of the batch's distinct keys) taken
        for new, in one pass (no lookup of the keys first). On PostgreSQL the headers are COPYed
        straight into the table under ids drawn from its sequence (a key written before fails
        the COPY, and the batch goes the long way); SQLite inserts them from the stage.

        The rows of both COPYs are made as they are sent: the server writes the first rows
        while this process makes the next (each item's fingerprint and text, made only here)."""
        try:
            where_to = route()
        except RoundClosedError:
            raise _KeysTaken from None  # unless every item is a retry of a write that happened
        if self.stage.dialect != "postgresql":
            items = [batch.item(i) for i in order]
            self.stage.load(_stage_rows(items))
            return self._write_staged(items, where_to)
        players = [batch.players[i] for i in order]
        amounts = [batch.amounts[i] for i in order]
        deltas = _wallet_deltas(players, amounts, where_to)
        # One stage row per wallet, carrying what the batch moves in or out of it, and one for
        # the fixed account (updated with the wallets, in the same id order).
        names = [f"{AccountKind.WALLET}:{player}" for player in deltas]
        changes = zip(deltas, names, deltas.values(), strict=True)
        fixed_change = ("", where_to.fixed.name, -sum(deltas.values()))
        self.stage.load_changes(chain(changes, [fixed_change]))
        created_at = utc_now()
        ids = self.stage.new_ids("ledger_transactions", len(order))
        category, round_id, owner = where_to.category.value, where_to.round_id, where_to.owner
        fields = batch.fields

        def headers() -> Iterator[tuple[object, ...]]:
            for tid, i in zip(ids, order, strict=True):
                key, fingerprint, description, kind, player, position, _ = fields(i)
                yield (tid, key, fingerprint, description[:300], category, kind, round_id,
                       player, position, created_at, owner)  # fmt: skip

        try:
            self.stage.copy_into("ledger_transactions", _HEADER_COLUMNS, headers(), _HEADER_TYPES)
        except IntegrityError:
            raise _KeysTaken from None
        # Checked after the headers (a retry must replay, not be refused): one statement locks
        # and updates every account in id order; a short wallet fails it (the CHECK) and an
        # unknown one is missing from its rows: the long way then names them.
        changed = self.stage.apply_changes()
        wallet_ids = {player: account_id for account_id, player in changed if player is not None}
        if len(wallet_ids) < len(deltas):
            raise _KeysTaken
        self._write_entries(where_to, wallet_ids, zip(ids, players, amounts, strict=True))
        keys = [batch.keys[i] for i in order]
        return _Written(where_to, dict(zip(keys, ids, strict=True)), created_at)

    def _replays(self, unique: dict[str, StagedWrite]) -> dict[str, PostedTransaction]:
        """The staged items already written (then removed from the stage), or a conflict."""
        staged = STAGE_TABLE.join(TRANSACTIONS, TRANSACTIONS.c.idempotency_key == STAGE_TABLE.c.key)
        headers = (
            select(*TRANSACTION_COLUMNS, STAGE_TABLE.c.fingerprint)
            .select_from(staged.outerjoin(ROUNDS, TRANSACTIONS.c.round_id == ROUNDS.c.id))
            .order_by(STAGE_TABLE.c.seq)
        )
        found = [(transaction_row(row[:-1]), row[-1]) for row in self.session.execute(headers)]
        if not found:
            return {}
        for header, fingerprint in found:
            if header.fingerprint != fingerprint:
                attempted = unique[header.key].description
                raise IdempotencyConflictError(header.key, header.description, attempted)
        entries: dict[int, list[tuple[str, int]]] = {header.id: [] for header, _ in found}
        legs = (
            select(TRANSACTIONS.c.id, ACCOUNTS.c.name, ENTRIES.c.amount)
            .select_from(
                staged.join(ENTRIES, ENTRIES.c.transaction_id == TRANSACTIONS.c.id).join(
                    ACCOUNTS, ACCOUNTS.c.id == ENTRIES.c.account_id
                )
            )
            .order_by(ENTRIES.c.id)
        )
        for tid, name, amount in self.session.execute(legs):
            entries[tid].append((name, int(amount)))
        self.stage.execute(
            f"DELETE FROM {STAGE} WHERE EXISTS (SELECT 1 FROM ledger_transactions t "
            f"WHERE t.idempotency_key = {STAGE}.key)"
        )
        return {h.key: posted(h, entries[h.id], replayed=True) for h, _ in found}

    def _wallets(self, extra_names: list[str], expected: set[str]) -> dict[str, LockedAccount]:
        """The staged wallets, locked (see :meth:`Stage.lock_wallets`); one of ``expected``
        (their names) that does not exist is an :class:`UnknownAccountError`."""
        wallets = self.stage.lock_wallets(extra_names)
        if len(wallets) < len(expected):
            raise UnknownAccountError(min(expected - set(wallets)))
        return wallets

    def _write_staged(self, fresh: list[StagedWrite], route: Route) -> _Written:
        """Headers from the stage (it holds exactly ``fresh``), then :meth:`_finish`;
        :class:`_KeysTaken` if a key turns out written already."""
        deltas = _wallet_deltas((i.player_id for i in fresh), (i.amount for i in fresh), route)
        names = [wallet_account(player) for player in deltas]
        wallets = self._wallets([route.fixed.name], set(names))
        created_at = utc_now()
        inserted = self.session.execute(
            _INSERT_HEADERS,
            {"category": route.category.value, "round_id": route.round_id,
             "created_at": created_at, "owner": route.owner},
        ).all()  # fmt: skip
        if len(inserted) < len(fresh):
            raise _KeysTaken
        ids = {str(key): int(tid) for key, tid in inserted}
        legs = ((ids[i.key], i.player_id, i.amount) for i in fresh)
        self._finish(route, wallets, deltas, names, legs)
        return _Written(route, ids, created_at)

    def _finish(
        self,
        route: Route,
        wallets: dict[str, LockedAccount],
        deltas: dict[str, int],
        names: list[str],
        legs: Iterable[tuple[int, str, int]],
    ) -> None:
        """With the headers written and the stage holding the items: refuse a short wallet,
        write the entries (``legs``: each transaction's id, player and amount) and balances
        (``deltas`` by player, ``names`` their wallets' names in the same order). Checked
        after the headers: a batch that is a retry must replay, not be refused."""
        wallet_ids: dict[str, int] = {}
        short = []
        for (player, delta), name in zip(deltas.items(), names, strict=True):
            wallet = wallets[name]
            wallet_ids[player] = wallet[0]
            if wallet[1] + delta < 0:
                short.append((wallet, delta))
        if short:
            (_, balance, player_id, name, _), delta = min(short)
            raise InsufficientFundsError(name, balance, -delta, player_id=player_id)
        self._write_entries(route, wallet_ids, legs)
        self.stage.execute(_ADD_ITEMS, sign=-1 if route.wallet_pays else 1)
        self.repository.add_to_balances({route.fixed.id: -sum(deltas.values())})

    def _write_entries(
        self, route: Route, wallet_ids: dict[str, int], legs: Iterable[tuple[int, str, int]]
    ) -> None:
        """Each item's two entries (``legs``: its transaction's id, player and amount), source
        leg first, as every transaction lists them."""
        fixed_id, wallet_pays = route.fixed.id, route.wallet_pays

        def entries() -> Iterator[tuple[int, int, int]]:
            for tid, player, amount in legs:
                if wallet_pays:
                    yield tid, wallet_ids[player], -amount
                    yield tid, fixed_id, amount
                else:
                    yield tid, fixed_id, -amount
                    yield tid, wallet_ids[player], amount

        self.stage.copy_into("ledger_entries", ENTRY_COLUMNS, entries(), ENTRY_TYPES)

    def with_issuance(self, request: WriteRequest, legs: dict[str, int]) -> PostedTransaction:
        """One transaction under ``request.key`` moving ``legs`` (player -> signed amount) in
        or out of the players' wallets against the issuance account: an operator's coins
        coming in for bets or going back. Written from the stage (one locking update in id
        order that also writes the entries, as a settlement's payments); a key written
        before, an unknown wallet or a short one goes the long way (:class:`Poster`: a
        replay, or the precise refusal)."""
        issuance = self.repository.ensure_account(ISSUANCE_ACCOUNT, AccountKind.ISSUANCE)
        wallet = f"{AccountKind.WALLET}:"
        wallet_legs = [(wallet + player, amount) for player, amount in legs.items()]
        issuance_leg = (issuance.name, -sum(legs.values()))
        # The source leg first, as every transaction lists them.
        into_wallets = issuance_leg[1] < 0
        entries = [issuance_leg, *wallet_legs] if into_wallets else [*wallet_legs, issuance_leg]
        players = {wallet + player: player for player in legs}
        if self.repository.find_transaction(request.key) is None:
            try:
                with self.session.begin_nested():
                    self.stage.load_lines((players.get(name, ""), name, 0, amount)
                                          for name, amount in entries)  # fmt: skip
                    transaction_id = self.repository.insert_transaction(request.header(None))
                    if self._pay_staged(transaction_id) < len(entries):
                        raise _KeysTaken  # an unknown wallet: the long way names it
                header = self.repository.find_transaction(request.key)
                assert header is not None
                return posted(header, entries, replayed=False)
            except (_KeysTaken, IntegrityError):
                pass

        def build() -> Plan:
            found = self.repository.accounts_by_names([name for name, _ in entries])
            plan = Plan(round_id=None)
            for name, amount in entries:
                if name not in found:
                    raise UnknownAccountError(name)
                plan.move(found[name].id, amount)
            return plan

        return self.poster.post(request, build)

    @cycle_collection_paused()
    def settle_slice(
        self,
        table_id: str,
        round_no: int,
        per_player: Sequence[PlayerSettlement | tuple[str, int, int]],
        owner: str,
    ) -> PostedTransaction:
        lines = settlement_lines(per_player)
        request = settle_slice_request(table_id, round_no, lines, owner)
        existing = self.repository.find_transaction(request.key)
        if existing is not None:
            return self.poster.replay(existing, request)
        try:
            with self.session.begin_nested():
                return self._settle(table_id, round_no, lines, owner, request)
        except (IntegrityError, RoundClosedError):
            # A twin settled it while this one waited for the slice's lock: answer as a replay.
            existing = self.repository.find_transaction(request.key)
            if existing is None:
                raise
            return self.poster.replay(existing, request)

    def _settle(
        self,
        table_id: str,
        round_no: int,
        lines: list[PlayerSettlement],
        owner: str,
        request: WriteRequest,
    ) -> PostedTransaction:
        # The round's write lock and the slice's end lock: the round's other slices settle at
        # once (each into its owner's house sub-account, no hot row); a cancellation of this
        # slice or the round takes the round's end lock, so it waits for this settlement.
        round_row, slice_row = slice_for_write(
            self.slices, table_id, round_no, owner, action="settle", lock="write",
            slice_lock="end",
        )  # fmt: skip
        in_play_id = slice_row.in_play_account_id
        house = house_of(self.repository, owner)
        # The slice's end lock keeps every other write out of its in-play account (stakes and
        # payments share the slice's lock, a cancellation takes it too): its balance is what
        # the slice holds until this transaction ends.
        in_play = self.repository.account_by_id(in_play_id)
        held = in_play.balance
        total_paid = sum(line.paid for line in lines)
        squares = {in_play_id: -held, house.id: held - total_paid}
        square_names = {in_play_id: in_play.name, house.id: house.name}
        # The stage: every line (the cross-check joins them all), then the two squaring
        # changes in id order (``paid``: what each account gets).
        wallet = f"{AccountKind.WALLET}:"
        self.stage.load_lines(
            chain(
                ((line.player_id, wallet + line.player_id, line.staked, line.paid)
                 for line in lines),
                (("", square_names[i], 0, squares[i]) for i in sorted(squares)),
            )
        )  # fmt: skip
        if self.stage.dialect == "postgresql":
            self._cross_check_staged(table_id, round_no, round_row.id, owner, in_play_id)
        else:
            held_by_player = self.repository.stakes_by_player(round_row.id, owner, in_play_id)
            cross_check(table_id, round_no, lines, held_by_player)
        transaction_id = self.repository.insert_transaction(request.header(round_row.id))
        paying = [line for line in lines if line.paid > 0]
        written = self._pay_staged(transaction_id)
        if written < len(paying) + sum(1 for amount in squares.values() if amount != 0):
            missing = self.stage.rows(
                f"SELECT min(wallet) FROM {STAGE} AS s WHERE s.paid <> 0 AND NOT EXISTS "
                "(SELECT 1 FROM ledger_accounts AS a WHERE a.name = s.wallet)"
            )
            raise UnknownAccountError(str(missing[0][0]))
        # Last in the lock order: the round-end lock, so that exactly one of the round's
        # concurrent settlements (the last to take it) ends the round.
        self.slices.lock_round_end(round_row.id)
        self.poster.end(
            Plan(round_row.id, ends_slices=[slice_row.id], slice_status_after="settled")
        )
        header = self.repository.find_transaction(request.key)
        assert header is not None
        entries = [(wallet + line.player_id, line.paid) for line in paying]
        entries += [(square_names[i], amount) for i, amount in sorted(squares.items()) if amount]
        return posted(header, entries, replayed=False)

    def _cross_check_staged(
        self, table_id: str, round_no: int, round_id: int, owner: str, in_play_id: int
    ) -> None:
        """:func:`cross_check` of the staged lines, in the database: only the lines that
        disagree (none, normally) come back, not every player's stakes. Hash joins, whatever
        the statistics (see :meth:`LedgerRepository.stakes_by_player`)."""
        held = self.repository.stakes_by_player_statement(round_id, owner, in_play_id)
        compiled = held.compile(self.session.get_bind(), compile_kwargs={"literal_binds": True})
        # One hash full join: a staged line without stakes, stakes without a line, or a line
        # whose stake differs. Sorts off: the stakes were just written, so the planner expects
        # one and would sort them to group them (a third of the statement at 25,000 players).
        sql = (
            f"WITH held (player_id, staked) AS ({compiled}) "
            "SELECT coalesce(s.player_id, h.player_id), h.staked, s.amount FROM "
            f"(SELECT player_id, amount FROM {STAGE} WHERE player_id <> '') AS s "
            "FULL JOIN held AS h ON h.player_id = s.player_id "
            "WHERE s.player_id IS NULL OR coalesce(h.staked, 0) <> s.amount"
        )
        with planner_settings(
            self.session, enable_nestloop="off", enable_sort="off", work_mem=SORT_MEMORY
        ):
            disagree = self.stage.rows(sql)
        if not disagree:
            return
        listed = sorted(
            (PlayerSettlement(player, int(staked), 0) for player, _, staked in disagree
             if staked is not None),
            key=lambda line: line.player_id,
        )  # fmt: skip
        held_of = {player: int(total) for player, total, _ in disagree if total is not None}
        cross_check(table_id, round_no, listed, held_of)
        raise AssertionError("lines that disagree passed the cross-check")  # pragma: no cover

    def _pay_staged(self, transaction_id: int) -> int:
        """Add each staged row's ``paid`` to its account and write it as an entry of the
        transaction, in the stage's order; returns the entries written (an unknown wallet
        has none). PostgreSQL: one statement that locks and updates the accounts in id order
        (see :meth:`Stage.apply_changes`) and inserts the entries from what it updated."""
        if self.stage.dialect == "postgresql":
            with planner_settings(
                self.session, enable_hashjoin="off", enable_mergejoin="off", work_mem=SORT_MEMORY
            ):
                rows = self.stage.rows(_PAY_IN_ID_ORDER, transaction_id=transaction_id)
            return int(rows[0][0])
        self.stage.execute(
            f"UPDATE ledger_accounts SET balance = balance + s.paid FROM {STAGE} AS s "
            "WHERE ledger_accounts.name = s.wallet AND s.paid <> 0"
        )
        inserted = self.session.execute(
            text(
                "INSERT INTO ledger_entries (transaction_id, account_id, amount) SELECT "
                f":transaction_id, a.id, s.paid FROM {STAGE} AS s JOIN ledger_accounts AS a "
                "ON a.name = s.wallet WHERE s.paid <> 0 ORDER BY s.seq"
            ),
            {"transaction_id": transaction_id},
        )
        return int(inserted.rowcount)  # type: ignore[attr-defined]


def cross_check(
    table_id: str, round_no: int, lines: list[PlayerSettlement], held: dict[str, int]
) -> None:
    """Every player who staked is listed, with exactly the stakes the ledger holds."""
    problems: list[str] = []
    listed = {line.player_id for line in lines}
    for line in lines:
        if held.get(line.player_id, 0) != line.staked:
            problems.append(
                f"player {line.player_id!r} staked {held.get(line.player_id, 0)}, "
                f"settlement says {line.staked}"
            )
    for player_id in sorted(set(held) - listed):
        problems.append(f"player {player_id!r} staked {held[player_id]} but is not listed")
    if problems:
        shown = "; ".join(problems[:5])
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        raise SettlementMismatchError(
            f"settlement of {where(table_id, round_no)} disagrees with the stakes held: "
            f"{shown}{more}"
        )
