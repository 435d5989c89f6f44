"""Ruling 38 on ``boundless serve``: a round that paid early, whose player then spent the coins
at another table, is still voided: by the operator's cancel and by recovery after a crash. The
wallet gives back what it holds; the rest is booked to the player's receivable, which the books
prove. Nothing refuses, nothing blocks the start, no coin is created.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from boundless.ledger import (
    LedgerService,
    check_books,
    grant_key,
    make_engine,
    make_session_factory,
)
from boundless.server.records.service import RecordService
from boundless.server.recovery import recover
from boundless.server.storage.database import migrated_engine
from tests.postgres import postgres_schema
from tests.server.live import ADMIN_TOKEN, bet, serving
from tests.server.test_early_payments import EARLY_BLACKJACK_SEED, SLOW_DECISIONS


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'void.sqlite'}"
        return
    with postgres_schema("void_test") as url:
        yield url


def _books(database_url: str) -> tuple[int, int, dict[str, int]]:
    """(players owing, total owed, wallets) once the books are proven to balance."""
    engine = make_engine(database_url)
    try:
        with make_session_factory(engine).begin() as session:
            report = check_books(session)
            assert report.ok, report.summary()
            wallets = {
                player: balance
                for player, balance in LedgerService(session).wallet_balances(["una"]).items()
            }
            return report.receivable_players, report.receivable_total, wallets
    finally:
        engine.dispose()


def test_recovery_voids_a_round_whose_early_payment_was_spent(database_url: str) -> None:
    """The issue's crash: 60,000 credited at a split's step close, the coins then lost at
    another table and the rest at stake there, kill -9. The restart's recovery used to fail on
    the balance and the server could not start; now it refunds the other round first, takes
    that back, and books what is still missing to the receivable."""
    engine = migrated_engine(database_url)
    sessions = make_session_factory(engine)
    with sessions.begin() as session:
        ledger = LedgerService(session)
        ledger.open_wallets(["una"])
        ledger.grant("una", 10_200, grant_key("una", "signup"))
        ledger.stake("boundless-1", 4, "una", "una@1", "main", 100)
        ledger.stake("boundless-1", 4, "una", "una@1", "side:pair", 10_000)
        ledger.stake("boundless-1", 4, "una", "una@1", "split:1", 100)
        ledger.pay("boundless-1", 4, "una", "una@1", 60_000, "payout:early1")
        ledger.stake("unlimited-1", 9, "una", "una@1", "main", 50_000)
        ledger.settle_round("unlimited-1", 9, [("una", 50_000, 0)])  # lost
        ledger.stake("unlimited-1", 10, "una", "una@1", "main", 10_000)  # in flight
        assert ledger.wallet_balance("una") == 0
    try:
        report = recover(sessions)
        # the refund first (10,000 back to the wallet), then the void that takes back
        assert report.cancelled_rounds == ["unlimited-1:10", "boundless-1:4"]
        # of the 49,800 paid beyond the stakes the wallet gave back 10,000: 39,800 is owed
        assert _books(database_url) == (1, 39_800, {"una": 0})
        with sessions.begin() as session:
            record = RecordService(session).detail("una", "boundless-1:4")
        assert record["status"] == "cancelled"
        assert record["net"] == 39_800  # what the wallet kept of the round: owed back
        assert recover(sessions).cancelled_rounds == []  # the next start finds nothing
    finally:
        engine.dispose()


def test_the_operator_cancels_a_round_whose_early_payment_was_spent(
    tmp_path: Path, database_url: str
) -> None:
    """Una's blackjack on spot 1 (1,000) is paid 2,500 at once and credited with her double on
    spot 2; she spends the wallet at boundless-1; the operator's cancel of unlimited-1 (it used
    to answer 400 insufficient_coins) answers 200, takes back the 200 she has and tells her."""
    with serving(
        tmp_path,
        database_url=database_url,
        starting_grant=3000,
        timers=SLOW_DECISIONS,
        seed=EARLY_BLACKJACK_SEED,
    ) as live:
        player, client = live.seated("Una", "unlimited-1")
        bets = {"1": {"main": 1000}, "2": {"main": 100}, "3": {"main": 100}}
        answer = client.request(
            {"type": "bet", "table_id": "unlimited-1", "bet_id": "three", "bets": bets}
        )
        assert answer["type"] == "ack" and answer["balance"] == 1800
        client.wait_for("state", lambda m: m["public"]["current_spot"] == 2)
        decide = {"type": "decide", "table_id": "unlimited-1", "spot": 2, "step": 1}
        client.send({**decide, "action": "double"})  # the blackjack's 2,500 is credited first
        you = client.wait_for("you", lambda m: m["player"]["positions"][2]["legal_actions"])
        assert you["player"]["positions"][0]["hands"][0]["cards"] == ["AD", "TD"]
        assert you["player"]["free_coins"] == 4200
        elsewhere = live.client(player["token"])
        elsewhere.hello()
        elsewhere.request({"type": "join", "table_id": "boundless-1"})
        spent = bet(elsewhere, 4000)
        assert spent["type"] == "ack" and spent["balance"] == 200, spent
        cancelled = live.admin("cancel", table_id="unlimited-1", reason="dealer error")
        assert cancelled.status_code == 200, cancelled.text
        settled = client.wait_for("settled", lambda m: m["table_id"] == "unlimited-1")
        assert settled["cancelled"] == "dealer error"
        assert settled["balance"] == 0
        client.close()
        elsewhere.close()
        owing, owed, _ = _books(live.database_url)
        assert (owing, owed) == (1, 1000)
        check = live.http.get(
            "/api/v1/admin/ledger-check", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}
        ).json()
        assert check["ok"] and (check["receivable_players"], check["receivable_total"]) == (1, 1000)
