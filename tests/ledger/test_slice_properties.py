"""Hypothesis: any interleaving of several owners' slice operations (stakes, batches, payments,
settlements, closes, cancellations of a slice or the round, recoveries, retries) keeps the books
balanced: no coin created or lost, every ended slice empty, a round closed exactly when none of
its slices is open. A refused write changes nothing; a retry moves nothing."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import event
from hypothesis import strategies as st
from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger import (
    Category,
    LedgerService,
    PostedTransaction,
    check_books,
    grant_key,
)
from tests.ledger.helpers import attempt, rolled_back, sequences_of, unchanged

OWNERS = ("gateway:a", "gateway:b", "local")
PLAYERS = {"gateway:a": ("ann", "amy"), "gateway:b": ("ben", "bob"), "local": ("cat",)}
ROUNDS = (1, 2, 3)
NAMES = ("stake", "stake_many", "pay", "settle_position", "settle_slice", "close_slice",
         "cancel_slice", "cancel_round", "recover_owner", "open_round")  # fmt: skip


@dataclass(frozen=True)
class Op:
    name: str
    owner: str
    round_no: int
    player: int
    amount: int
    other: str


ops = st.builds(
    Op,
    st.sampled_from(NAMES),
    st.sampled_from(OWNERS),
    st.sampled_from(ROUNDS),
    st.integers(0, 1),
    st.integers(0, 300),
    st.sampled_from(OWNERS),
)


def staked_in_slice(ledger: LedgerService, round_no: int, owner: str) -> dict[str, int]:
    staked: dict[str, int] = {}
    for transaction in ledger.round_transactions("t", round_no):
        if transaction.category == Category.STAKE and transaction.owner == owner:
            player = transaction.player_id or ""
            staked[player] = staked.get(player, 0) - transaction.amount_for(f"wallet:{player}")
    return staked


def apply(session: Session, op: Op) -> list[PostedTransaction]:
    ledger = LedgerService(session, op.owner)
    players = PLAYERS[op.owner]
    player = players[op.player % len(players)]
    amount = max(op.amount, 1)
    if op.name == "stake":
        return [ledger.stake("t", op.round_no, player, player, "main", amount)]
    if op.name == "stake_many":
        bets = [(p, p, f"side:s{op.amount % 3}", amount) for p in players]
        return ledger.stake_many("t", op.round_no, bets)
    if op.name == "pay":
        return [ledger.pay("t", op.round_no, player, player, amount)]
    if op.name == "settle_position":
        return [ledger.settle_position("t", op.round_no, player, player, op.amount)]
    if op.name == "settle_slice":
        staked = staked_in_slice(ledger, op.round_no, op.owner)
        lines = [(p, total, total * (op.amount % 3)) for p, total in staked.items()]
        return [ledger.settle_slice("t", op.round_no, lines)]
    if op.name == "close_slice":
        return [ledger.close_slice("t", op.round_no)]
    if op.name == "cancel_slice":
        return [ledger.cancel_slice("t", op.round_no, op.other)]
    if op.name == "cancel_round":
        return [ledger.cancel_round("t", op.round_no)]
    if op.name == "recover_owner":
        return ledger.recover_owner()
    ledger.open_round("t", op.round_no)
    return []


def check_interleaving(
    sessions: sessionmaker[Session], sequence: list[Op], retries: list[int]
) -> None:
    with rolled_back(sessions) as session:
        ledger = LedgerService(session)
        everyone = [p for players in PLAYERS.values() for p in players]
        ledger.open_wallets(everyone)
        ledger.grant_many([(p, 2_000, grant_key(p, "signup")) for p in everyone])
        for position, op in enumerate(sequence):
            written = attempt(session, op, lambda one: apply(session, one))
            if written is None:
                continue
            event(f"{op.name} ok")
            assert all(sum(e.amount for e in t.entries) == 0 for t in written)
            if position in retries and op.name not in ("recover_owner", "open_round"):
                with unchanged(session, f"retry of {op} moved coins"):
                    assert all(t.replayed for t in apply(session, op)), f"retry of {op} wrote"
        report = check_books(session)
        assert report.ok, report.summary()
        assert report.balance_sum == 0
        assert report.issued_total == 2_000 * len(everyone)
        assert report.wallets_total + report.in_play_total + report.house_balance == (
            report.issued_total
        )
        for round_no in ROUNDS:
            info = ledger.round_info("t", round_no)
            slices = ledger.slices_of("t", round_no)
            if info is None:
                continue
            open_slices = [s for s in slices if s.status == "open"]
            assert all(s.in_play_balance == 0 for s in slices if s.status != "open")
            if info.status != "open":
                assert not open_slices and info.in_play_balance == 0
            elif slices:
                assert open_slices, f"round {round_no} open with every slice ended"


@sequences_of(ops, longest=35, retries=8, examples=50)
def test_any_interleaving_of_slice_operations_keeps_the_books(
    sessions: sessionmaker[Session], sequence: list[Op], retries: list[int]
) -> None:
    check_interleaving(sessions, sequence, retries)
