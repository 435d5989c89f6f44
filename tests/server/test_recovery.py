"""Crash recovery (``recover`` at start) records a round in flight with its true figures.

A round whose blackjack was paid at once (an early credit in the ledger) and that then took a
double is reversed whole by the cancellation: each player's net is zero, and the play record
says so, with the wallet before the round as ``balance_before``.
"""

from __future__ import annotations

from pathlib import Path

from boundless.ledger import (
    LedgerService,
    check_books,
    grant_key,
    make_session_factory,
)
from boundless.server.records.service import RecordService
from boundless.server.recovery import recover
from boundless.server.storage.database import migrated_engine
from boundless.server.tables.repository import TableRepository


def test_recovery_records_a_round_with_an_early_credit_as_net_zero(tmp_path: Path) -> None:
    engine = migrated_engine(f"sqlite:///{tmp_path / 'crash.sqlite'}")
    sessions = make_session_factory(engine)
    with sessions.begin() as session:
        ledger = LedgerService(session)
        ledger.open_wallets(["una"])
        ledger.grant("una", 3000, grant_key("una", "signup"))
        TableRepository(session).open_round(
            table_id="unlimited-1",
            round_no=1,
            title="unlimited",
            rules_version="1",
            shoe_number=1,
            round_in_shoe=1,
            shoe_commitment=None,
        )
        for spot in (1, 2, 3):
            ledger.stake("unlimited-1", 1, "una", f"una@{spot}", "main", 1000)
        ledger.pay("unlimited-1", 1, "una", "una@early", 2500, "payout:early1")
        ledger.stake("unlimited-1", 1, "una", "una@2", "double:1", 1000)
        assert ledger.wallet_balance("una") == 1500
    report = recover(sessions)
    assert report.cancelled_rounds == ["unlimited-1:1"]
    with sessions.begin() as session:
        assert check_books(session).ok
        assert LedgerService(session).wallet_balance("una") == 3000
        record = RecordService(session).detail("una", "unlimited-1:1")
    assert record["status"] == "cancelled"
    assert (record["staked"], record["paid"], record["net"]) == (4000, 4000, 0)
    assert (record["balance_before"], record["balance_after"]) == (3000, 3000)
    engine.dispose()


def test_recovery_leaves_other_owners_slices_alone(tmp_path: Path) -> None:
    """A restarted ``serve`` (owner ``local``) cancels its own slice of a round and never the
    slice a cluster gateway sharing the database is still playing."""
    engine = migrated_engine(f"sqlite:///{tmp_path / 'shared.sqlite'}")
    sessions = make_session_factory(engine)
    with sessions.begin() as session:
        local = LedgerService(session)
        local.open_wallets(["ana", "ben"])
        local.grant("ana", 3000, grant_key("ana", "signup"))
        local.grant("ben", 3000, grant_key("ben", "signup"))
        local.stake("boundless-1", 7, "ana", "ana@1", "main", 1000)
        gateway = LedgerService(session, owner="gateway:east")
        gateway.stake("boundless-1", 7, "ben", "ben@1", "main", 500)
    report = recover(sessions)
    assert report.cancelled_rounds == ["boundless-1:7"]
    with sessions.begin() as session:
        ledger = LedgerService(session)
        assert ledger.wallet_balance("ana") == 3000  # refunded
        assert ledger.wallet_balance("ben") == 2500  # still at stake on the gateway
        assert [s.owner for s in ledger.open_slices("gateway:east")] == ["gateway:east"]
        assert ledger.open_slices("local") == []
        assert check_books(session).ok
    engine.dispose()
