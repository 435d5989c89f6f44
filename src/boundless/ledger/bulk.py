"""Bulk writes for shared rounds with many thousands of players, set-based whatever the size.

``stake_many`` and ``grant_many`` write one transaction per item (each under its own key, so a
single retried bet still finds it): the batch goes into the stage table (:mod:`staging`), then one
statement each finds the replays, checks wallets, inserts every header, every entry and updates
every balance. ``settle_slice`` is one transaction that pays every player of a slice and ends it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlalchemy import DateTime, bindparam, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from boundless.ledger.accounts import ISSUANCE_ACCOUNT, AccountKind, wallet_account
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
    PostedEntry,
    PostedTransaction,
    StakeOrder,
)
from boundless.ledger.repository import (
    TRANSACTION_COLUMNS,
    AccountRow,
    LedgerRepository,
    transaction_row,
)
from boundless.ledger.slice_repository import SliceRepository
from boundless.ledger.sql_conventions import utc_now
from boundless.ledger.staging import STAGE, STAGE_TABLE, Stage, StageRow
from boundless.ledger.write_requests import (
    grant_request,
    settle_slice_request,
    settlement_lines,
    stake_requests,
)

ATTEMPTS = 3
"""A batch that loses a key race to a concurrent writer is retried; the winner's rows replay."""

_INSERT_HEADERS = text(
    "INSERT INTO ledger_transactions (idempotency_key, fingerprint, description, category, kind, "
    "round_id, player_id, position, created_at, owner) SELECT key, fingerprint, description, "
    f":category, kind, :round_id, player_id, position, :created_at, :owner FROM {STAGE} "
    "ORDER BY seq RETURNING idempotency_key, id"
).bindparams(bindparam("created_at", type_=DateTime(timezone=True)))


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


def _stage_row(seq: int, request: WriteRequest, amount: int, fingerprint: str) -> StageRow:
    player = request.player_id or ""
    return (seq, request.key, fingerprint, request.description[:300], request.kind,
            player, request.position, f"{AccountKind.WALLET}:{player}", amount, 0)  # fmt: skip


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

    def open_wallets(self, player_ids: Sequence[str]) -> list[str]:
        names = [wallet_account(player_id) for player_id in player_ids]
        rows = [(i, None, None, None, None, p, None, n, 0, 0)
                for i, (p, n) in enumerate(zip(player_ids, names, strict=True))]  # fmt: skip
        if rows:
            self.stage.load(rows)
            self.stage.execute(
                "INSERT INTO ledger_accounts (name, kind, player_id, balance, created_at) "
                f"SELECT DISTINCT wallet, 'wallet', player_id, 0, :now FROM {STAGE} WHERE true "
                "ON CONFLICT (name) DO NOTHING",
                types={"now": DateTime(timezone=True)},
                now=utc_now(),
            )
        return names

    def grant_many(
        self, grants: Sequence[GrantOrder | tuple[str, int, str]]
    ) -> list[PostedTransaction]:
        batch = [grant if isinstance(grant, GrantOrder) else GrantOrder(*grant) for grant in grants]
        items = [(grant_request(grant), grant.amount) for grant in batch]

        def route() -> Route:
            issuance = self.repository.ensure_account(ISSUANCE_ACCOUNT, AccountKind.ISSUANCE)
            return Route(Category.GRANT, issuance, wallet_pays=False)

        return self._post_many(items, route)

    def stake_many(
        self,
        table_id: str,
        round_no: int,
        orders: Sequence[StakeOrder | tuple[str, str, str, int]],
        owner: str,
    ) -> list[PostedTransaction]:
        batch = [order if isinstance(order, StakeOrder) else StakeOrder(*order) for order in orders]
        requests = stake_requests(table_id, round_no, batch, owner)
        items = [(request, order.amount) for request, order in zip(requests, batch, strict=True)]

        def route() -> Route:
            round_row, slice_row = slice_for_write(
                self.slices, table_id, round_no, owner, action="stake", lock="write"
            )
            fixed = self.repository.account_by_id(slice_row.in_play_account_id)
            return Route(Category.STAKE, fixed, True, round_row.id, owner, table_id, round_no)

        return self._post_many(items, route)

    def _post_many(
        self, items: list[tuple[WriteRequest, int]], route: Callable[[], Route]
    ) -> list[PostedTransaction]:
        """Post many two-leg transfers, each its own transaction under its own key."""
        unique: dict[str, tuple[WriteRequest, int, str]] = {}
        for request, amount in items:
            fingerprint = request.fingerprint()
            seen = unique.setdefault(request.key, (request, amount, fingerprint))
            if seen[2] != fingerprint:
                raise IdempotencyConflictError(
                    request.key, seen[0].description, request.description
                )
        if not unique:
            return []
        rows = [_stage_row(seq, *item) for seq, item in enumerate(unique.values())]
        results: dict[str, PostedTransaction] = {}
        for attempt in range(ATTEMPTS):
            try:
                with self.session.begin_nested():
                    self.stage.load(rows)
                    results = self._replays(unique)
                    if len(results) < len(unique):
                        fresh = [item for key, item in unique.items() if key not in results]
                        results.update(self._write_staged(fresh, route()))
                break
            except IntegrityError:
                if attempt == ATTEMPTS - 1:
                    raise
        return [results[request.key] for request, _ in items]

    def _replays(
        self, unique: dict[str, tuple[WriteRequest, int, str]]
    ) -> dict[str, PostedTransaction]:
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
                attempted = unique[header.key][0].description
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

    def _wallets(self, extra_ids: list[int]) -> dict[str, tuple[int, int, str | None]]:
        """The staged wallets, locked (see :meth:`Stage.lock_wallets`); a missing one is an
        :class:`UnknownAccountError`."""
        wallets = self.stage.lock_wallets(extra_ids)
        wanted = self.stage.rows(f"SELECT count(DISTINCT wallet) FROM {STAGE}")[0][0]
        if len(wallets) < wanted:
            staged = {row[0] for row in self.stage.rows(f"SELECT DISTINCT wallet FROM {STAGE}")}
            raise UnknownAccountError(min(staged - set(wallets)))
        return wallets

    def _write_staged(
        self, fresh: list[tuple[WriteRequest, int, str]], route: Route
    ) -> dict[str, PostedTransaction]:
        wallets = self._wallets([route.fixed.id])
        wallet_sign, fixed_sign = (-1, 1) if route.wallet_pays else (1, -1)
        deltas: dict[str, int] = {}
        for request, amount, _ in fresh:
            name = f"{AccountKind.WALLET}:{request.player_id}"
            deltas[name] = deltas.get(name, 0) + wallet_sign * amount
        short = [(wallets[name], name, delta) for name, delta in deltas.items()
                 if wallets[name][1] + delta < 0]  # fmt: skip
        if short:
            (_, balance, player_id), name, delta = min(short)
            raise InsufficientFundsError(name, balance, -delta, player_id=player_id)
        created_at = utc_now()
        inserted = self.session.execute(
            _INSERT_HEADERS,
            {"category": route.category.value, "round_id": route.round_id,
             "created_at": created_at, "owner": route.owner},
        )  # fmt: skip
        ids: dict[str, int] = {str(key): int(tid) for key, tid in inserted.all()}
        # Entries straight from the ids: source leg first, as every transaction lists them.
        legs: list[tuple[int, int, int]] = []
        for request, amount, _ in fresh:
            tid = ids[request.key]
            wallet_id = wallets[f"{AccountKind.WALLET}:{request.player_id}"][0]
            wallet_leg = (tid, wallet_id, wallet_sign * amount)
            fixed_leg = (tid, route.fixed.id, fixed_sign * amount)
            legs += (wallet_leg, fixed_leg) if route.wallet_pays else (fixed_leg, wallet_leg)
        self.stage.copy_into("ledger_entries", ("transaction_id", "account_id", "amount"), legs)
        self.stage.execute(
            "UPDATE ledger_accounts SET balance = balance + d.delta FROM (SELECT wallet, "
            f":sign * sum(amount) AS delta FROM {STAGE} GROUP BY wallet) AS d "
            "WHERE ledger_accounts.name = d.wallet",
            sign=wallet_sign,
        )
        total = sum(amount for _, amount, _ in fresh)
        self.repository.add_to_balances({route.fixed.id: fixed_sign * total})
        results: dict[str, PostedTransaction] = {}
        for request, amount, _ in fresh:
            wallet = PostedEntry(f"{AccountKind.WALLET}:{request.player_id}", wallet_sign * amount)
            fixed = PostedEntry(route.fixed.name, fixed_sign * amount)
            results[request.key] = PostedTransaction(
                id=ids[request.key],
                key=request.key,
                category=request.category,
                kind=request.kind,
                description=request.description[:300],
                table_id=route.table_id,
                round_no=route.round_no,
                player_id=request.player_id,
                position=request.position,
                created_at=created_at,
                entries=(wallet, fixed) if route.wallet_pays else (fixed, wallet),
                owner=route.owner,
            )
        return results

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
        round_row, slice_row = slice_for_write(
            self.slices, table_id, round_no, owner, action="settle", lock="end"
        )
        in_play_id = slice_row.in_play_account_id
        held_by_player = self.repository.stakes_by_player(round_row.id, owner, in_play_id)
        cross_check(table_id, round_no, lines, held_by_player)
        paying = [line for line in lines if line.paid > 0]
        self.stage.load([(seq, None, None, None, None, line.player_id, None,
                          wallet_account(line.player_id), line.staked, line.paid)
                         for seq, line in enumerate(paying)])  # fmt: skip
        house = house_of(self.repository)
        wallets = self._wallets([in_play_id, house.id])
        accounts = self.repository.lock_accounts([in_play_id, house.id])
        held = accounts[in_play_id].balance
        total_paid = sum(line.paid for line in paying)
        transaction_id = self.repository.insert_transaction(request.header(round_row.id))
        self.stage.copy_into(
            "ledger_entries",
            ("transaction_id", "account_id", "amount"),
            ((transaction_id, wallets[wallet_account(line.player_id)][0], line.paid)
             for line in paying),
        )  # fmt: skip
        squares = {in_play_id: -held, house.id: held - total_paid}
        self.repository.insert_entries(transaction_id, squares)
        self.stage.execute(
            "UPDATE ledger_accounts SET balance = balance + d.paid FROM (SELECT wallet, "
            f"sum(paid) AS paid FROM {STAGE} GROUP BY wallet) AS d "
            "WHERE ledger_accounts.name = d.wallet"
        )
        self.repository.add_to_balances(squares)
        self.poster.end(
            Plan(round_row.id, ends_slices=[slice_row.id], slice_status_after="settled")
        )
        header = self.repository.find_transaction(request.key)
        assert header is not None
        entries = [(wallet_account(line.player_id), line.paid) for line in paying]
        names = {in_play_id: accounts[in_play_id].name, house.id: accounts[house.id].name}
        entries += [(names[i], amount) for i, amount in sorted(squares.items()) if amount != 0]
        return posted(header, entries, replayed=False)


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
