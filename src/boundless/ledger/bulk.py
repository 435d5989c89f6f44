"""Bulk writes for shared rounds with thousands of players: a handful of statements per batch.

``stake_many`` writes one transaction per bet (each with its own key, so a single retried bet still
finds it) but inserts all headers, entries and balance updates with one executemany each.
``settle_round`` is a single transaction that pays every player and closes the round.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from boundless.ledger.accounts import ISSUANCE_ACCOUNT, AccountKind, wallet_account
from boundless.ledger.errors import (
    IdempotencyConflictError,
    SettlementMismatchError,
    UnknownAccountError,
)
from boundless.ledger.lookups import house_of, round_for_write, where
from boundless.ledger.posting import Plan, Poster, WriteRequest, posted, refuse_negative_wallets
from boundless.ledger.records import (
    GrantOrder,
    PlayerSettlement,
    PostedEntry,
    PostedTransaction,
    StakeOrder,
)
from boundless.ledger.repository import LedgerRepository
from boundless.ledger.sql_conventions import utc_now
from boundless.ledger.write_requests import (
    grant_request,
    settle_round_request,
    settlement_lines,
    stake_request,
)

ATTEMPTS = 3
"""A batch that loses a key race to a concurrent writer is retried; the winner's rows replay."""


@dataclass(frozen=True, slots=True)
class Route:
    """Where each fresh transfer of a batch goes: ``{key: (from account id, to account id)}``."""

    round_id: int | None
    legs: dict[str, tuple[int, int]]
    table_id: str | None = None
    round_no: int | None = None


class BulkWriter:
    def __init__(self, session: Session, repository: LedgerRepository, poster: Poster) -> None:
        self.session = session
        self.repository = repository
        self.poster = poster

    def open_wallets(self, player_ids: Sequence[str]) -> list[str]:
        names = [wallet_account(player_id) for player_id in player_ids]
        self.repository.ensure_accounts(
            [
                (name, AccountKind.WALLET, player_id)
                for name, player_id in zip(names, player_ids, strict=True)
            ]
        )
        return names

    def grant_many(
        self, grants: Sequence[GrantOrder | tuple[str, int, str]]
    ) -> list[PostedTransaction]:
        batch = [grant if isinstance(grant, GrantOrder) else GrantOrder(*grant) for grant in grants]
        items = [(grant_request(grant), grant.amount) for grant in batch]

        def route(fresh: list[tuple[WriteRequest, int]]) -> Route:
            wallets = self._wallets([request.player_id or "" for request, _ in fresh])
            issuance = self.repository.ensure_account(ISSUANCE_ACCOUNT, AccountKind.ISSUANCE)
            legs = {
                request.key: (issuance.id, wallets[wallet_account(request.player_id or "")])
                for request, _ in fresh
            }
            return Route(round_id=None, legs=legs)

        return self._post_many(items, route)

    def stake_many(
        self,
        table_id: str,
        round_no: int,
        orders: Sequence[StakeOrder | tuple[str, str, str, int]],
    ) -> list[PostedTransaction]:
        batch = [order if isinstance(order, StakeOrder) else StakeOrder(*order) for order in orders]
        items = [(stake_request(table_id, round_no, order), order.amount) for order in batch]

        def route(fresh: list[tuple[WriteRequest, int]]) -> Route:
            round_row = round_for_write(
                self.repository, table_id, round_no, action="stake", lock="share"
            )
            wallets = self._wallets([request.player_id or "" for request, _ in fresh])
            in_play_id = round_row.in_play_account_id
            legs = {
                request.key: (wallets[wallet_account(request.player_id or "")], in_play_id)
                for request, _ in fresh
            }
            return Route(round_row.id, legs, table_id, round_no)

        return self._post_many(items, route)

    def _wallets(self, player_ids: list[str]) -> dict[str, int]:
        """``{wallet name: account id}``; a missing wallet is an error."""
        names = sorted({wallet_account(player_id) for player_id in player_ids})
        wallets = self.repository.accounts_by_names(names)
        missing = [name for name in names if name not in wallets]
        if missing:
            raise UnknownAccountError(missing[0])
        return {name: row.id for name, row in wallets.items()}

    def _post_many(
        self,
        items: list[tuple[WriteRequest, int]],
        route: Callable[[list[tuple[WriteRequest, int]]], Route],
    ) -> list[PostedTransaction]:
        """Post many two-leg transfers, each its own transaction under its own key."""
        unique: dict[str, tuple[WriteRequest, int]] = {}
        for request, amount in items:
            seen = unique.setdefault(request.key, (request, amount))[0]
            if seen.fingerprint() != request.fingerprint():
                raise IdempotencyConflictError(request.key, seen.description, request.description)
        written: dict[str, PostedTransaction] = {}
        for attempt in range(ATTEMPTS):
            existing = self.repository.find_transactions(list(unique))
            for key, row in existing.items():
                if row.fingerprint != unique[key][0].fingerprint():
                    raise IdempotencyConflictError(key, row.description, unique[key][0].description)
            fresh = [pair for key, pair in unique.items() if key not in existing]
            try:
                with self.session.begin_nested():
                    written = self._write_transfers(fresh, route(fresh)) if fresh else {}
                break
            except IntegrityError:
                if attempt == ATTEMPTS - 1:
                    raise
        entries = self.repository.entries_of([row.id for row in existing.values()])
        results = {
            key: posted(row, entries[row.id], replayed=True) for key, row in existing.items()
        }
        results.update(written)
        return [results[request.key] for request, _ in items]

    def _write_transfers(
        self, fresh: list[tuple[WriteRequest, int]], route: Route
    ) -> dict[str, PostedTransaction]:
        created_at = utc_now()
        ids = self.repository.insert_transactions(
            [request.header(route.round_id) for request, _ in fresh], created_at
        )
        deltas: dict[int, int] = {}
        rows: list[tuple[int, int, int]] = []
        for request, amount in fresh:
            source, target = route.legs[request.key]
            rows.append((ids[request.key], source, -amount))
            rows.append((ids[request.key], target, amount))
            deltas[source] = deltas.get(source, 0) - amount
            deltas[target] = deltas.get(target, 0) + amount
        accounts = self.repository.lock_accounts(deltas)
        refuse_negative_wallets(accounts, deltas)
        self.repository.insert_entry_rows(rows)
        self.repository.add_to_balances(deltas)
        results: dict[str, PostedTransaction] = {}
        for request, amount in fresh:
            source, target = route.legs[request.key]
            results[request.key] = PostedTransaction(
                id=ids[request.key],
                key=request.key,
                category=request.category,
                kind=request.kind,
                description=request.description,
                table_id=route.table_id,
                round_no=route.round_no,
                player_id=request.player_id,
                position=request.position,
                created_at=created_at,
                entries=(
                    PostedEntry(accounts[source].name, -amount),
                    PostedEntry(accounts[target].name, amount),
                ),
            )
        return results

    def settle_round(
        self,
        table_id: str,
        round_no: int,
        per_player: Sequence[PlayerSettlement | tuple[str, int, int]],
    ) -> PostedTransaction:
        lines = settlement_lines(per_player)
        request = settle_round_request(table_id, round_no, lines)
        total_paid = sum(line.paid for line in lines)

        def build() -> Plan:
            round_row = round_for_write(
                self.repository, table_id, round_no, action="settle", lock="update"
            )
            in_play_id = round_row.in_play_account_id
            held_by_player = self.repository.stakes_by_player(round_row.id, in_play_id)
            cross_check(table_id, round_no, lines, held_by_player)
            names = [wallet_account(line.player_id) for line in lines if line.paid > 0]
            wallets = self.repository.accounts_by_names(names)
            missing = [name for name in names if name not in wallets]
            if missing:
                raise UnknownAccountError(missing[0])
            house = house_of(self.repository)
            held = self.repository.lock_accounts([in_play_id])[in_play_id].balance
            plan = Plan(round_id=round_row.id, round_status_after="closed")
            for line in lines:
                if line.paid > 0:
                    plan.move(wallets[wallet_account(line.player_id)].id, line.paid)
            plan.move(in_play_id, -held)
            plan.move(house.id, held - total_paid)
            return plan

        return self.poster.post(request, build)


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
