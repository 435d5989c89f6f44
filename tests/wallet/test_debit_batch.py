"""``debit_batch``: one request carries a betting window's debits, each with its own outcome.

Against the reference operator wallet, on SQLite and PostgreSQL: a refusal in the middle of a
batch refuses that bet only; a debit the answer gives no outcome is sent again alone; a
duplicated delivery and a timeout after the operator applied the batch take each debit once;
a batch that never gets an answer refuses its bets and rolls their debits back.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger import LedgerService, make_engine, make_session_factory, upgrade_database
from boundless.ledger.models import TRANSACTIONS
from boundless.ledger.records import StakeOrder
from boundless.wallet import BetDebit
from boundless.wallet import seamless as seamless_module
from boundless.wallet.calls import DEBIT, DONE, REFUSED, ROLLBACK, CallBook
from boundless.wallet.port import WalletRefusal, WalletUnavailableError
from boundless.wallet.seamless import SeamlessWallets
from tests.postgres import postgres_schema
from tests.server.live import wait_until
from tests.wallet.bench import Operator, operator_wallet, seamless

START = 10_000
STAKE = 100
PLAYERS = [f"p{index}" for index in range(5)]
TABLE, ROUND = "batch-1", 1
LONG_AGO, FAR_AHEAD = datetime(2000, 1, 1, tzinfo=UTC), datetime(2100, 1, 1, tzinfo=UTC)


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'debit_batch.sqlite'}"
        return
    with postgres_schema("wallet_debit_batch") as url:
        yield url


@contextmanager
def playing(
    database_url: str, down: bool = False, **settings: float
) -> Iterator[tuple[Operator, SeamlessWallets]]:
    """The reference wallet (``down``: answering nothing at first) and a started seamless
    wallet on a ledger with the players' wallets open."""
    engine = make_engine(database_url)
    upgrade_database(engine)
    sessions = make_session_factory(engine)
    with sessions.begin() as session:
        LedgerService(session).open_wallets(PLAYERS)
    with operator_wallet(START, down=down) as operator:
        wallets = seamless(operator, **settings)
        try:
            wallets.start(sessions)
            assert wallets.debit_batch is not down  # the reference wallet offers it, if asked
            yield operator, wallets
        finally:
            wallets.close()
            engine.dispose()


def _sessions(wallets: SeamlessWallets) -> sessionmaker[Session]:
    sessions = wallets._sessions
    assert isinstance(sessions, sessionmaker)
    return sessions


def _bet_all(wallets: SeamlessWallets) -> list[Exception | None]:
    bets = [BetDebit(p, f"bet-{p}", (StakeOrder(p, f"{p}@1", "main", STAKE),)) for p in PLAYERS]
    sessions = _sessions(wallets)
    with sessions.begin() as session:
        return wallets(session).debit_bets(TABLE, ROUND, bets)


def _owner_calls(wallets: SeamlessWallets, kind: str) -> dict[str, str]:
    """Each player's call of ``kind`` in our ledger's record, with its status."""
    sessions = _sessions(wallets)
    with sessions.begin() as session:
        calls = CallBook(session).between(LONG_AGO, FAR_AHEAD)
    return {call.player_id: call.status for call in calls if call.kind == kind}


def test_a_refusal_in_the_middle_refuses_that_bet_only(database_url: str) -> None:
    with playing(database_url) as (operator, wallets):
        operator.faults.refuse = {"p2": "responsible_gaming"}
        operator.faults.unanswered_next = 1  # the first debit of the batch gets no outcome
        results = _bet_all(wallets)
        refusal = results[2]
        assert isinstance(refusal, WalletRefusal) and refusal.code == "responsible_gaming"
        assert [r for i, r in enumerate(results) if i != 2] == [None] * 4
        # One request for the five, then one for the debit left without an outcome.
        assert operator.store.debit_batches == [5, 1]
        balances = operator.store.balances
        assert {p: balances[p] for p in PLAYERS} == {
            p: START if p == "p2" else START - STAKE for p in PLAYERS
        }
        debits = _owner_calls(wallets, DEBIT)
        assert debits == {p: REFUSED if p == "p2" else DONE for p in PLAYERS}
        assert _owner_calls(wallets, ROLLBACK) == {}  # a refused debit took nothing
        assert _idle_coins(wallets) == {p: 0 for p in PLAYERS}  # taken and staked


def test_a_duplicated_delivery_takes_each_debit_once(database_url: str) -> None:
    with playing(database_url) as (operator, wallets):
        operator.faults.duplicate = True
        assert _bet_all(wallets) == [None] * 5
        assert {p: operator.store.balances[p] for p in PLAYERS} == {
            p: START - STAKE for p in PLAYERS
        }
        assert operator.store.debit_batches == [5, 5]  # delivered twice, applied once


def test_a_timeout_after_the_operator_applied_it_takes_each_debit_once(
    database_url: str,
) -> None:
    with playing(database_url, timeout_seconds=0.5) as (operator, wallets):
        operator.faults.hang_seconds = 1.0
        operator.faults.timeout_next = {"debit_batch": 1}
        assert _bet_all(wallets) == [None] * 5
        assert wallets.client.retries >= 1
        assert {p: operator.store.balances[p] for p in PLAYERS} == {
            p: START - STAKE for p in PLAYERS
        }
        assert _owner_calls(wallets, DEBIT) == {p: DONE for p in PLAYERS}


def test_a_batch_without_an_answer_is_refused_and_rolled_back(database_url: str) -> None:
    with playing(database_url, timeout_seconds=0.5) as (operator, wallets):
        operator.faults.hang_seconds = 1.0
        operator.faults.timeout_next = {"debit_batch": 3}  # every try applied, none answered
        results = _bet_all(wallets)
        assert all(isinstance(r, WalletUnavailableError) for r in results)
        _rolled_back_in_full(operator, wallets)


def test_a_debit_taken_again_brings_its_coins_in_once(database_url: str) -> None:
    """The same bets sent again (a replay): the operator answers each debit as before; our
    ledger takes their coins in once and stakes them once."""
    with playing(database_url) as (operator, wallets):
        assert _bet_all(wallets) == [None] * 5
        assert _bet_all(wallets) == [None] * 5
        assert {p: operator.store.balances[p] for p in PLAYERS} == {
            p: START - STAKE for p in PLAYERS
        }
        assert _ledger_counts(wallets) == {"grant": 1, "stake": 5}
        assert _idle_coins(wallets) == {p: 0 for p in PLAYERS}


def test_a_debit_answered_after_it_was_rolled_back_is_refused(database_url: str) -> None:
    """A batch applied by the operator but never answered is refused and its rollbacks
    queued; the same bets again, answered before those rollbacks are delivered, stay refused
    (staking them would spend coins the rollbacks give back)."""
    with playing(database_url, timeout_seconds=0.5) as (operator, wallets):
        operator.faults.hang_seconds = 1.0
        operator.faults.timeout_next = {"debit_batch": 3}
        operator.faults.fail_next = {"rollback": 10_000, "credit_batch": 10_000}
        assert all(isinstance(r, WalletUnavailableError) for r in _bet_all(wallets))
        again = _bet_all(wallets)
        assert all(isinstance(r, WalletUnavailableError) for r in again), again
        assert _ledger_counts(wallets) == {}
        assert _idle_coins(wallets) == {p: 0 for p in PLAYERS}
        operator.faults.fail_next = {}
        _rolled_back_in_full(operator, wallets)


def _rolled_back_in_full(operator: Operator, wallets: SeamlessWallets) -> None:
    """Every player's debit rolled back and acknowledged: each operator balance as it began."""
    wallets.wake()
    wait_until(
        lambda: _owner_calls(wallets, ROLLBACK) == {p: DONE for p in PLAYERS},
        20.0,
        "the rollbacks to be acknowledged",
    )
    assert {p: operator.store.balances[p] for p in PLAYERS} == {p: START for p in PLAYERS}


def _ledger_counts(wallets: SeamlessWallets) -> dict[str, int]:
    """Our ledger's transactions by category."""
    sessions = _sessions(wallets)
    query = select(TRANSACTIONS.c.category, func.count()).group_by(TRANSACTIONS.c.category)
    with sessions.begin() as session:
        return {str(category): int(count) for category, count in session.execute(query)}


def _idle_coins(wallets: SeamlessWallets) -> dict[str, int]:
    """What the players' ledger wallets hold (a seamless wallet holds nothing between calls)."""
    sessions = _sessions(wallets)
    with sessions.begin() as session:
        return LedgerService(session).wallet_balances(PLAYERS)


def test_an_operator_down_at_start_gets_its_batches_once_it_answers(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``/capabilities`` unanswered at start: one call each until the operator answers, then
    its ``debit_batch`` and ``credit_batch`` (before, asked once: one by one for good)."""
    monkeypatch.setattr(seamless_module, "OFFERS_SECONDS", 0.1)
    with playing(database_url, down=True) as (operator, wallets):
        assert (wallets.batch, wallets.debit_batch) == (False, False)
        operator.faults.down = False
        wait_until(lambda: wallets.batch and wallets.debit_batch, 20.0, "the offers")
        assert _bet_all(wallets) == [None] * 5
        assert operator.store.debit_batches == [5]
