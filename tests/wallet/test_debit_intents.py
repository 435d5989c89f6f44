"""A debit sent and never recorded (the process died before its database transaction committed)
is rolled back at the next start, by itself, on SQLite and PostgreSQL: whether the operator
took it (its coins come back) or never saw it (the rollback moves nothing and bars the debit for
good); a debit recorded before the death keeps its stake; another ledger owner's intents are left
to that owner; and the day then reconciles with no difference."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger import LedgerService, make_engine, make_session_factory, upgrade_database
from boundless.ledger.records import StakeOrder
from boundless.wallet import BetDebit
from boundless.wallet.calls import DEBIT, DONE, ROLLBACK, Call, CallBook, transaction_id
from boundless.wallet.reconcile import compare
from boundless.wallet.seamless import SeamlessWallets
from tests.postgres import postgres_schema
from tests.server.live import wait_until
from tests.wallet.bench import Operator, operator_wallet, seamless

START = 10_000
LONG_AGO, FAR_AHEAD = datetime(2000, 1, 1, tzinfo=UTC), datetime(2100, 1, 1, tzinfo=UTC)


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'intents.sqlite'}"
        return
    with postgres_schema("wallet_intents") as url:
        yield url


def _debit(player: str, amount: int, owner: str = "local") -> Call:
    round_id = "intents-1:1"
    return Call(
        transaction_id=transaction_id(DEBIT, round_id, owner, player, f"bet-{player}"),
        kind=DEBIT,
        player_id=player,
        round_id=round_id,
        owner=owner,
        amount=amount,
        currency="EUR",
    )


def _calls(sessions: sessionmaker[Session]) -> dict[str, Call]:
    with sessions.begin() as session:
        return {c.transaction_id: c for c in CallBook(session).between(LONG_AGO, FAR_AHEAD)}


def _died_mid_debit(wallets: SeamlessWallets, operator: Operator) -> tuple[Call, Call]:
    """What a process killed between the operator's debit and our commit leaves: the intents of
    a debit the operator took and of one it never saw (sent, killed on its way)."""
    taken, unseen = _debit("taken", 700), _debit("unseen", 300)
    wallets.before_sending([taken, unseen])
    answer = wallets.client.run(wallets.client.call("/debit", taken.body()))
    assert answer["status"] == "ok"
    assert operator.store.balances["taken"] == START - 700
    return taken, unseen


def test_a_restart_rolls_back_every_debit_sent_and_never_recorded(database_url: str) -> None:
    engine = make_engine(database_url)
    upgrade_database(engine)
    sessions = make_session_factory(engine)
    with sessions.begin() as session:
        LedgerService(session).open_wallets(["taken", "unseen", "kept"])
    with operator_wallet(START) as operator:
        first = seamless(operator)
        first.start(sessions)
        # A debit recorded (its transaction committed) before the death keeps its stake.
        kept = BetDebit("kept", "bet-kept", (StakeOrder("kept", "kept@1", "main", 500),))
        with sessions.begin() as session:
            assert first(session).debit_bets("intents-1", 1, [kept]) == [None]
        taken, unseen = _died_mid_debit(first, operator)
        elsewhere = _debit("taken", 50, owner="gateway-9:players")
        first.before_sending([elsewhere])  # another process's, alive: not ours to end
        first.close()  # the kill: no transaction end ran for the two debits

        second = seamless(operator)
        try:
            second.start(sessions, owners=["local"])
            wait_until(lambda: second.pending_count() == 0, 30, "the rollbacks")
            calls = _calls(sessions)
            for debit in (taken, unseen):
                rollback = calls[transaction_id(ROLLBACK, debit.transaction_id)]
                assert (rollback.status, rollback.amount) == (DONE, debit.amount)
                assert debit.transaction_id not in calls  # never recorded as staked
            assert operator.store.balances["taken"] == START
            assert operator.store.balance("unseen") == START
            assert operator.store.balances["kept"] == START - 500
            assert second.intents is not None
            assert [c.transaction_id for c in second.intents.left()] == [elsewhere.transaction_id]
            day = datetime.now(UTC).date().isoformat()
            theirs = operator.store.report(day)["transactions"]
            differences = compare(list(calls.values()), theirs, "EUR")
            assert differences == []
            # The debit the operator never saw is barred: if it ever arrives, it is refused.
            late = second.client.run(second.client.call("/debit", unseen.body()))
            assert late["status"] == "refused" and operator.store.balance("unseen") == START
        finally:
            second.close()
            engine.dispose()


def test_a_transaction_rolled_back_after_a_debit_without_an_answer_owes_its_rollback(
    database_url: str,
) -> None:
    """The debit's record and its queued rollback were in the transaction that rolled back:
    the rollback is owed all the same (the operator applied the debit, then hung)."""
    engine = make_engine(database_url)
    upgrade_database(engine)
    sessions = make_session_factory(engine)
    with sessions.begin() as session:
        LedgerService(session).open_wallets(["hung"])
    with operator_wallet(START, timeout_next={"debit_batch": 3}, hang_seconds=2.0) as operator:
        wallets = seamless(operator, timeout_seconds=0.3, tries=1)
        try:
            wallets.start(sessions)
            bet = BetDebit("hung", "bet-hung", (StakeOrder("hung", "hung@1", "main", 400),))
            with pytest.raises(RuntimeError), sessions.begin() as session:
                answers = wallets(session).debit_bets("intents-2", 1, [bet])
                assert answers[0] is not None  # no answer: refused here
                raise RuntimeError("the bet's transaction fails after the debit")
            wait_until(lambda: operator.store.balance("hung") == START, 30, "the rollback")
            wait_until(lambda: wallets.pending_count() == 0, 30, "the rollback acknowledged")
            assert wallets.intents is not None
            wait_until(lambda: not wallets.intents.left(), 30, "the intent to go")  # type: ignore[union-attr]
        finally:
            wallets.close()
            engine.dispose()
