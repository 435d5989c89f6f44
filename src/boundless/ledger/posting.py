"""Writing one balanced, idempotent transaction.

Every ledger write goes through :meth:`Poster.post`:

1. look the idempotency key up; if it exists, compare the request's fingerprint: the same content
   returns the original transaction (``replayed=True``) and moves nothing, different content raises
   :class:`IdempotencyConflictError`;
2. otherwise, inside a SAVEPOINT: build the plan (which may raise a :class:`LedgerError`), insert
   the header (unique key), lock the touched accounts in id order, refuse a wallet going below
   zero, insert the entries and update the cached balances with one executemany each;
3. if the header insert loses a race to a concurrent writer of the same key (``IntegrityError``
   on the unique key), roll back to the savepoint and answer as in 1.

A refused write rolls back to the savepoint, so the caller's transaction is unchanged and usable.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from json.encoder import encode_basestring_ascii as encode_string

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from boundless.ledger.accounts import AccountKind
from boundless.ledger.errors import (
    IdempotencyConflictError,
    InsufficientFundsError,
    RoundClosedError,
)
from boundless.ledger.keys import Category
from boundless.ledger.records import PostedEntry, PostedTransaction
from boundless.ledger.repository import (
    AccountRow,
    LedgerRepository,
    NewTransaction,
    TransactionRow,
)
from boundless.ledger.slice_repository import SliceRepository

JsonValue = str | int | None | list["JsonValue"]


def canonical_json(content: dict[str, JsonValue]) -> str:
    """``json.dumps(content, sort_keys=True, separators=(",", ":"))``, byte for byte, with a fast
    path for flat dicts of strings and ints (one per bet in a batch of 100,000)."""
    parts = []
    for name in sorted(content):
        value = content[name]
        if isinstance(value, str):
            parts.append(f"{encode_string(name)}:{encode_string(value)}")
        elif isinstance(value, int) and not isinstance(value, bool):
            parts.append(f"{encode_string(name)}:{value}")
        elif value is None:
            parts.append(f"{encode_string(name)}:null")
        else:
            return json.dumps(content, sort_keys=True, separators=(",", ":"))
    return "{" + ",".join(parts) + "}"


def fingerprint_of(category: Category, kind: str, content: dict[str, JsonValue]) -> str:
    """SHA-256 of the canonical request: what a replay must match."""
    canonical = canonical_json({"category": category.value, "kind": kind, **content})
    return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class WriteRequest:
    """What the caller asked for. ``content`` is what the fingerprint covers."""

    key: str
    category: Category
    kind: str
    description: str
    content: dict[str, JsonValue]
    player_id: str | None = None
    position: str | None = None
    owner: str | None = None
    """The slice owner this write belongs to (with the round), or None."""
    known_fingerprint: str | None = None
    """Set by a builder that computed :meth:`fingerprint` faster (tests prove it equal); such a
    builder may leave ``content`` empty (a settlement's lines are not built as JSON lists)."""

    def fingerprint(self) -> str:
        if self.known_fingerprint is not None:
            return self.known_fingerprint
        return fingerprint_of(self.category, self.kind, self.content)

    def header(self, round_id: int | None) -> NewTransaction:
        """The transaction row this request writes."""
        return NewTransaction(
            key=self.key,
            fingerprint=self.fingerprint(),
            description=self.description,
            category=self.category.value,
            kind=self.kind,
            round_id=round_id,
            player_id=self.player_id,
            position=self.position,
            owner=self.owner,
        )


@dataclass(slots=True)
class Plan:
    """The movements of one write: ``{account id: amount}`` summing to zero, and what it ends:
    ``ends_slices`` become ``slice_status_after``; the round then ends when no slice is open."""

    round_id: int | None
    amounts: dict[int, int] = field(default_factory=dict)
    ends_slices: list[int] = field(default_factory=list)
    slice_status_after: str | None = None
    round_status_after: str | None = None
    """Set by a round-wide write that ends the round even with no slice (a cancellation)."""

    def move(self, account_id: int, amount: int) -> None:
        self.amounts[account_id] = self.amounts.get(account_id, 0) + amount


def posted(
    row: TransactionRow, entries: list[tuple[str, int]], *, replayed: bool
) -> PostedTransaction:
    return PostedTransaction(
        id=row.id,
        key=row.key,
        category=Category(row.category),
        kind=row.kind,
        description=row.description,
        table_id=row.table_id,
        round_no=row.round_no,
        player_id=row.player_id,
        position=row.position,
        created_at=row.created_at,
        entries=tuple(map(PostedEntry._make, entries)),
        replayed=replayed,
        owner=row.owner,
    )


class Poster:
    def __init__(
        self, session: Session, repository: LedgerRepository, slices: SliceRepository
    ) -> None:
        self.session = session
        self.repository = repository
        self.slices = slices

    def post(self, request: WriteRequest, build: Callable[[], Plan]) -> PostedTransaction:
        existing = self.repository.find_transaction(request.key)
        if existing is not None:
            return self.replay(existing, request)
        try:
            with self.session.begin_nested():
                plan = build()
                if sum(plan.amounts.values()) != 0:  # pragma: no cover - a bug, never input
                    raise AssertionError(f"unbalanced plan for {request.key}: {plan.amounts}")
                transaction_id = self.repository.insert_transaction(request.header(plan.round_id))
                accounts = self.repository.lock_accounts(plan.amounts)
                refuse_negative_wallets(accounts, plan.amounts)
                self.repository.insert_entries(transaction_id, plan.amounts)
                self.repository.add_to_balances(plan.amounts)
                self.end(plan)
        except (IntegrityError, RoundClosedError):
            # A twin wrote the key first (the unique index), or ended the round or slice while
            # this one waited for its lock: if it was this very write, answer as a replay.
            existing = self.repository.find_transaction(request.key)
            if existing is None:
                raise
            return self.replay(existing, request)
        header = self.repository.find_transaction(request.key)
        assert header is not None
        entries = [
            (accounts[account_id].name, amount)
            for account_id, amount in sorted(plan.amounts.items())
            if amount != 0
        ]
        return posted(header, entries, replayed=False)

    def end(self, plan: Plan) -> None:
        """Apply what the plan ends: slices, then the round when none of them is open."""
        if plan.slice_status_after is not None:
            self.slices.set_status(plan.ends_slices, plan.slice_status_after)
        if plan.round_id is None:
            return
        if self.slices.end_round_if_done(plan.round_id) is None and plan.round_status_after:
            self.repository.set_round_status(plan.round_id, plan.round_status_after)

    def replay(self, existing: TransactionRow, request: WriteRequest) -> PostedTransaction:
        if existing.fingerprint != request.fingerprint():
            raise IdempotencyConflictError(request.key, existing.description, request.description)
        entries = self.repository.entries_of([existing.id])[existing.id]
        return posted(existing, entries, replayed=True)


def refuse_negative_wallets(accounts: dict[int, AccountRow], amounts: dict[int, int]) -> None:
    for account_id, amount in sorted(amounts.items()):
        account = accounts[account_id]
        if account.kind == AccountKind.WALLET and account.balance + amount < 0:
            raise InsufficientFundsError(
                account.name, account.balance, -amount, player_id=account.player_id
            )
