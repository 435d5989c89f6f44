"""Injected faults of the operator's wallet: 500s and duplicates on debits, a credit answered
too late, debits that never get an answer, the wallet down during a settlement. After each, the
operator's balance equals what the rounds say, and no call has two outcomes."""

from __future__ import annotations

import time
from pathlib import Path

from sqlalchemy import select

from boundless.ledger import check_books, make_engine, make_session_factory
from boundless.ledger.models import WALLET_CALLS
from tests.server.live import play_to_settlement
from tests.wallet.bench import (
    Operator,
    bet_when_open,
    launch,
    operator_wallet,
    post_faults,
    seamless,
    seamless_server,
    settled_calls,
)

START = 100_000


def test_every_fault_ends_with_balances_the_rounds_explain(tmp_path: Path) -> None:
    # One debit a call (the faults name /debit); tests/wallet/test_debit_batch.py: batches.
    with operator_wallet(START, debit_batch=False) as operator:
        wallets = seamless(operator, timeout_seconds=0.5)
        live = seamless_server(tmp_path, wallets, seed=11)
        nets = 0
        try:
            player_id, client = launch(live, "op-fay")
            # 500s twice, then an answer; every call delivered twice meanwhile.
            post_faults(operator, fail_next={"debit": 2}, duplicate=True, hang_seconds=1.0)
            assert bet_when_open(client, 1000)["type"] == "ack"
            post_faults(operator, timeout_next={"credit": 1})  # the credit's answer comes late
            nets += play_to_settlement(client)["net"]
            # A debit never answered in time: refused, and rolled back at the operator.
            post_faults(operator, timeout_next={"debit": 3}, duplicate=False)
            refused = bet_when_open(client, 1000)
            assert (refused["type"], refused["error"]) == ("error", "wallet_unavailable")
            # The wallet goes down after the bet and comes back after the settlement.
            assert bet_when_open(client, 2000)["type"] == "ack"
            post_faults(operator, down=True)
            nets += play_to_settlement(client)["net"]
            time.sleep(1.0)
            assert wallets.pending_count() > 0  # queued, shown, not dropped
            post_faults(operator, down=False)
            settled_calls(wallets)
            client.close()
            assert operator.store.balances[player_id] == START + nets
            _one_outcome_each(live.database_url, operator)
        finally:
            live.stop()
            wallets.close()


def _one_outcome_each(database_url: str, operator: Operator) -> None:
    """Our record of each call agrees with the operator's: a debit we staked is taken and not
    rolled back there; one we refused is refused or rolled back there; every credit and
    rollback arrived once with our amount."""
    engine = make_engine(database_url)
    try:
        with make_session_factory(engine).begin() as session:
            assert check_books(session).ok
            ours = {
                row["transaction_id"]: row
                for row in session.execute(select(WALLET_CALLS)).mappings()
            }
    finally:
        engine.dispose()
    theirs = operator.store.transactions
    assert set(theirs) <= set(ours), set(theirs) - set(ours)
    for transaction, row in ours.items():
        assert row["status"] != "pending", row
        there = theirs.get(transaction)
        if row["kind"] == "debit" and row["status"] == "done":
            assert there is not None and there.status == "ok" and not there.rolled_back
        elif row["kind"] == "debit":
            assert there is None or there.status == "refused" or there.rolled_back
        else:
            assert there is not None and there.amount == row["amount"], row
