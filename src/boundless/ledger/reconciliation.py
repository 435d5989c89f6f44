"""``check_books``: prove the books balance, or list precisely what does not."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from boundless.ledger.reconciliation_repository import (
    PROBLEM_ROWS_LIMIT,
    ReconciliationRepository,
)


@dataclass(frozen=True, slots=True)
class Problem:
    code: str
    detail: str

    def __str__(self) -> str:
        return f"[{self.code}] {self.detail}"


@dataclass(frozen=True, slots=True)
class ReconciliationReport:
    problems: tuple[Problem, ...]
    accounts: int
    transactions: int
    entries: int
    wallets_total: int
    house_balance: int
    in_play_total: int
    issued_total: int
    """Coins ever issued, net: minus the issuance account's balance."""
    balance_sum: int
    """Sum of every account's balance, issuance included: zero when coins are conserved."""
    rounds: dict[str, int]
    slices: dict[str, int]
    receivable_players: int = 0
    """Players who owe the house what a void could not take back (ruling 38)."""
    receivable_total: int = 0
    """What they owe together: part of ``house_balance`` (the receivables are house accounts)."""

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        rounds = ", ".join(f"{number} {status}" for status, number in sorted(self.rounds.items()))
        slices = ", ".join(f"{number} {status}" for status, number in sorted(self.slices.items()))
        lines = [
            f"accounts {self.accounts}, transactions {self.transactions}, entries {self.entries}",
            f"rounds: {rounds or 'none'}",
            f"slices: {slices or 'none'}",
            f"issued {self.issued_total} = wallets {self.wallets_total} "
            f"+ in play {self.in_play_total} + house {self.house_balance}",
            f"receivable: {self.receivable_total} owed by {self.receivable_players} player(s) "
            "after voids (ruling 38), counted in the house",
            f"sum of all balances: {self.balance_sum}",
        ]
        if self.ok:
            lines.append("books balance: no problems")
        else:
            lines.append(f"{len(self.problems)} problem(s):")
            lines.extend(f"  {problem}" for problem in self.problems)
        return "\n".join(lines)


def _collect(
    problems: list[Problem],
    code: str,
    rows: Sequence[tuple[Any, ...]],
    describe: Callable[[tuple[Any, ...]], str],
) -> None:
    for row in rows[:PROBLEM_ROWS_LIMIT]:
        problems.append(Problem(code, describe(row)))
    if len(rows) > PROBLEM_ROWS_LIMIT:
        problems.append(Problem(code, f"over {PROBLEM_ROWS_LIMIT} such problems; fix and rerun"))


def check_books(session: Session) -> ReconciliationReport:
    """Check every ledger invariant inside the caller's transaction (read only)."""
    repository = ReconciliationRepository(session)
    problems: list[Problem] = []
    _collect(
        problems,
        "unbalanced_transaction",
        repository.unbalanced_transactions(),
        lambda r: f"transaction {r[0]} ({r[1]!r}) entries sum to {r[2]}, not 0",
    )
    _collect(
        problems,
        "stale_balance",
        repository.stale_balances(),
        lambda r: f"account {r[0]!r} shows balance {r[1]} but its entries sum to {r[2]}",
    )
    _collect(
        problems,
        "negative_wallet",
        repository.negative_wallets(),
        lambda r: f"wallet {r[0]!r} is negative: {r[1]}",
    )
    _collect(
        problems,
        "round_holds_coins",
        repository.ended_rounds_holding_coins(),
        lambda r: f"round {r[1]} of table {r[0]!r} is {r[2]} but its in-play account holds {r[3]}",
    )
    _collect(
        problems,
        "slice_holds_coins",
        repository.ended_slices_holding_coins(),
        lambda r: (
            f"the slice of {r[2]!r} in round {r[1]} of table {r[0]!r} is {r[3]} but its "
            f"in-play account holds {r[4]}"
        ),
    )
    _collect(
        problems,
        "round_status_wrong",
        repository.rounds_with_wrong_status(),
        lambda r: f"round {r[1]} of table {r[0]!r} is {r[2]} with {r[3]} of its {r[4]} slices open",
    )
    _collect(
        problems,
        "transaction_outside_slice",
        repository.transactions_outside_slices(),
        lambda r: f"transaction {r[0]} ({r[1]!r}) names owner {r[2]!r}, who has no slice there",
    )
    _collect(
        problems,
        "dangling_reference",
        repository.dangling_references(),
        lambda r: f"{r[0]} {r[1]} names {r[2]} {r[3]}, which does not exist",
    )
    _collect(
        problems,
        "duplicate_key",
        repository.duplicate_keys(),
        lambda r: f"idempotency key {r[0]!r} is written {r[1]} times",
    )
    _collect(
        problems,
        "cancelled_round_not_reversed",
        repository.cancellations_not_netting_zero(),
        lambda r: (
            f"cancelled part of round {r[1]} of table {r[0]!r}: account {r[2]!r} nets {r[3]}, not 0"
        ),
    )
    _collect(
        problems,
        "receivable_wrong",
        repository.receivables_broken(),
        lambda r: f"receivable account {r[0]!r} {r[1]}",
    )
    totals = repository.balance_totals()
    balance_sum = sum(value for kind, value in totals.items() if kind != "entries")
    if balance_sum != 0:
        problems.append(
            Problem("coins_not_conserved", f"balances of all accounts sum to {balance_sum}, not 0")
        )
    if totals["entries"] != 0:
        problems.append(
            Problem("coins_not_conserved", f"all entries sum to {totals['entries']}, not 0")
        )
    counts = repository.counts()
    owing, owed = repository.receivables()
    return ReconciliationReport(
        problems=tuple(problems),
        accounts=counts["accounts"],
        transactions=counts["transactions"],
        entries=counts["entries"],
        wallets_total=totals.get("wallet", 0),
        house_balance=totals.get("house", 0),
        in_play_total=totals.get("in_play", 0),
        issued_total=-totals.get("issuance", 0),
        balance_sum=balance_sum,
        rounds=repository.rounds_by_status(),
        slices=repository.slices_by_status(),
        receivable_players=owing,
        receivable_total=owed,
    )
