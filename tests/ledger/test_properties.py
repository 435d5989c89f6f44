"""Hypothesis: any sequence of grants, stakes, payments, settlements, closes, cancels and retries
keeps every transaction balanced, conserves coins (all balances, issuance included, sum to zero)
and never takes a wallet below zero. A refused write changes nothing; a retry moves nothing."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import event
from hypothesis import strategies as st
from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger import LedgerService, PostedTransaction, check_books, grant_key
from tests.ledger.helpers import attempt, rolled_back, sequences_of, snapshot, unchanged

PLAYERS = ("ann", "ben", "cat")
ROUNDS = (1, 2, 3, 4, 5, 6)
KINDS = ("main", "double", "insurance", "side:pair")


@dataclass(frozen=True)
class Op:
    name: str
    player: str
    round_no: int
    amount: int
    kind: str = "main"


stakes = st.builds(Op, st.just("stake"), st.sampled_from(PLAYERS), st.sampled_from(ROUNDS),
                  st.integers(1, 400), st.sampled_from(KINDS))  # fmt: skip
ops = st.one_of(
    stakes,
    stakes,
    st.builds(Op, st.just("grant"), st.sampled_from(PLAYERS), st.integers(0, 3),
              st.integers(1, 500)),
    st.builds(Op, st.just("pay"), st.sampled_from(PLAYERS), st.sampled_from(ROUNDS),
              st.integers(1, 600)),
    st.builds(Op, st.just("settle_position"), st.sampled_from(PLAYERS), st.sampled_from(ROUNDS),
              st.integers(0, 800)),
    st.builds(Op, st.just("settle_round"), st.sampled_from(PLAYERS), st.sampled_from(ROUNDS),
              st.integers(0, 3)),
    st.builds(Op, st.just("close"), st.sampled_from(PLAYERS), st.sampled_from(ROUNDS),
              st.just(0)),
    st.builds(Op, st.just("cancel"), st.sampled_from(PLAYERS), st.sampled_from(ROUNDS),
              st.just(0)),
)  # fmt: skip


def apply(ledger: LedgerService, op: Op) -> PostedTransaction:
    table = "t"
    if op.name == "grant":
        return ledger.grant(op.player, op.amount, grant_key(op.player, f"g{op.round_no}"))
    if op.name == "stake":
        return ledger.stake(table, op.round_no, op.player, op.player, op.kind, op.amount)
    if op.name == "pay":
        return ledger.pay(table, op.round_no, op.player, op.player, op.amount)
    if op.name == "settle_position":
        return ledger.settle_position(table, op.round_no, op.player, op.player, op.amount)
    if op.name == "settle_round":
        # everyone gets back ``amount`` times their stake (0: all lose ... 3: all win 2:1)
        info = ledger.round_info(table, op.round_no)
        staked = {} if info is None else _stakes(ledger, op.round_no)
        lines = [(player, total, total * op.amount) for player, total in staked.items()]
        return ledger.settle_round(table, op.round_no, lines)
    if op.name == "close":
        return ledger.close_round(table, op.round_no)
    return ledger.cancel_round(table, op.round_no)


def _stakes(ledger: LedgerService, round_no: int) -> dict[str, int]:
    staked: dict[str, int] = {}
    for transaction in ledger.round_transactions("t", round_no):
        if transaction.category == "stake" and transaction.player_id is not None:
            amount = -transaction.amount_for(f"wallet:{transaction.player_id}")
            staked[transaction.player_id] = staked.get(transaction.player_id, 0) + amount
    return staked


def check_sequence(sessions: sessionmaker[Session], sequence: list[Op], retries: list[int]) -> None:
    with rolled_back(sessions) as session:
        ledger = LedgerService(session)
        for player in PLAYERS:
            ledger.open_wallet(player)
            ledger.grant(player, 1_000, grant_key(player, "signup"))
        granted = 1_000 * len(PLAYERS)
        for position, op in enumerate(sequence):
            posted = attempt(session, op, lambda one: apply(ledger, one))
            if posted is None:
                continue
            event(f"{op.name} {'replayed' if posted.replayed else 'written'}")
            assert sum(entry.amount for entry in posted.entries) == 0
            if not posted.replayed and op.name == "grant":
                granted += op.amount
            for index in retries:
                if index == position and op.name != "settle_round":
                    with unchanged(session, f"retry of {op} moved coins"):
                        assert apply(ledger, op).replayed
        report = check_books(session)
        assert report.ok, report.summary()
        assert report.balance_sum == 0
        assert report.issued_total == granted
        balances = snapshot(session)[2]
        assert all(balances[f"wallet:{player}"] >= 0 for player in PLAYERS)


@sequences_of(ops, longest=30, retries=6, examples=60)
def test_books_balance_after_any_sequence(
    sessions: sessionmaker[Session], sequence: list[Op], retries: list[int]
) -> None:
    check_sequence(sessions, sequence, retries)
