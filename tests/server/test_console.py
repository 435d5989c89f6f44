"""The operator console's REST endpoints and ``/metrics``, checked against the ledger itself.

Bots play a few rounds; the table is paused so nothing moves; then every figure the console and
the metrics show is recomputed here straight from the ledger's rows (plain SQL).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from boundless.ledger import check_books, make_engine, make_session_factory
from boundless.server.admin.exact_figures import compute_figures
from boundless.server.metrics import ServerMetrics
from boundless.server.tables.schemas import OperatorReason
from boundless.server.titles import TitleCatalog
from tests.postgres import postgres_schema
from tests.server.live import ADMIN_TOKEN, BOT_TIMERS, LiveServer, serving, wait_until

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
TITLE = "boundless"


def _rows(database_url: str, sql: str) -> list[tuple[Any, ...]]:
    engine = make_engine(database_url)
    with engine.connect() as connection:
        rows = [tuple(row) for row in connection.exec_driver_sql(sql)]
    engine.dispose()
    return rows


def _value(database_url: str, sql: str) -> int:
    return int(_rows(database_url, sql)[0][0] or 0)


SETTLED_ROUND = """
    JOIN ledger_rounds r ON r.id = t.round_id AND r.status = 'closed'
    JOIN server_rounds s ON s.table_id = r.table_id AND s.round_no = r.round_no
        AND s.status = 'settled'
"""


def _paid_to_wallets(database_url: str) -> int:
    """What the ledger paid into wallets over the settled rounds."""
    return _value(
        database_url,
        f"""SELECT sum(e.amount) FROM ledger_entries e
        JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'wallet'
        JOIN ledger_transactions t ON t.id = e.transaction_id
            AND t.category IN ('payout', 'settle') {SETTLED_ROUND}""",
    )


def _scrape(live: LiveServer) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    answer = live.http.get("/metrics")
    assert answer.status_code == 200
    samples = {}
    for family in text_string_to_metric_families(answer.text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def _total(samples: dict[Any, float], name: str, **labels: str) -> float:
    return sum(
        value
        for (sample, sample_labels), value in samples.items()
        if sample == name and all(dict(sample_labels).get(k) == v for k, v in labels.items())
    )


EXTRAS = """SELECT count(*) FROM ledger_transactions t JOIN ledger_rounds r ON r.id = t.round_id
    AND r.status = 'closed' WHERE t.kind LIKE 'double:%%' OR t.kind LIKE 'split:%%'"""
# ('%%': psycopg reads a lone '%' as a placeholder; to LIKE two wildcards are one.)


def table_idle(live: LiveServer) -> bool:
    """Between rounds or betting with nothing staked: no money is moving."""
    table = live.table(f"{TITLE}-1")
    return table.round is None or (table.round.phase == "betting" and not len(table.round.book))


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def played(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    """Bots at one table until three rounds settled; then the table is paused. On SQLite and
    on the machine's PostgreSQL (skipped, saying why, without one)."""
    with ExitStack() as stack:
        url = None
        if request.param == "postgresql":
            url = stack.enter_context(postgres_schema("console"))
        live = stack.enter_context(
            serving(
                tmp_path_factory.mktemp("console"),
                database_url=url,
                bots=4,
                timers=BOT_TIMERS,
                catalog=TitleCatalog.shipped((TITLE,)),
            )
        )
        settled = "SELECT count(*) FROM server_rounds WHERE status = 'settled'"
        wait_until(lambda: _value(live.database_url, settled) >= 3, 90, "three bot rounds")
        wait_until(  # a double or a split staked, so the extras are counted too
            lambda: _value(live.database_url, EXTRAS) > 0 and table_idle(live), 90, "a double"
        )
        paused = live.http.post(
            f"/api/v1/admin/tables/{TITLE}-1/pause", json={"reason": "audit"}, headers=ADMIN
        )
        assert paused.status_code == 200, paused.text
        yield live


@pytest.mark.parametrize("path", ["/api/v1/admin/returns", "/api/v1/admin/ledger-check"])
def test_the_console_needs_the_admin_token(played: LiveServer, path: str) -> None:
    anonymous = played.http.get(path)
    assert anonymous.status_code == 401 and anonymous.json()["error"] == "unauthorized"
    unknown = played.http.get(path, headers={"Authorization": "Bearer nope"})
    assert unknown.status_code == 401 and set(unknown.json()) == {"error", "detail"}
    player = played.sign_up("Eve")
    mine = played.http.get(path, headers={"Authorization": f"Bearer {player['token']}"})
    assert mine.status_code == 403 and mine.json()["error"] == "forbidden"


@pytest.mark.parametrize("path", ["/api/v1/admin/tables", "/api/v1/admin/returns"])
def test_a_token_with_non_ascii_bytes_is_refused_not_a_fault(played: LiveServer, path: str) -> None:
    """Header bytes arrive as Latin-1 text; the admin comparison must not fail on them (500)."""
    for token in ("café".encode(), b"\xff\xfe", f"{ADMIN_TOKEN}é".encode()):
        answer = played.http.get(path, headers={"Authorization": b"Bearer " + token})
        assert answer.status_code == 401, answer.text
        assert answer.json()["error"] == "unauthorized"


@pytest.mark.parametrize("action", ["pause", "resume", "cancel"])
@pytest.mark.parametrize(
    "reason",
    [
        "   ",  # blank: nothing to show the players or keep with the round
        "shoe check\nWARNING boundless.server.admin: operator resumed boundless-1: ok",
        "shoe\rcheck",
        "red \x1b[31malert",  # a terminal escape in the operator log
        "check\u2028done",
        "\u202eevil",  # a right-to-left override
    ],
)
def test_a_reason_must_be_one_printable_line(played: LiveServer, action: str, reason: str) -> None:
    """The reason goes to the players, the play record and the log: one line, no controls."""
    answer = played.http.post(
        f"/api/v1/admin/tables/{TITLE}-1/{action}", json={"reason": reason}, headers=ADMIN
    )
    assert answer.status_code == 422, answer.text
    body = answer.json()
    assert body["error"] == "bad_message" and "reason" in body["detail"]
    assert "\n" not in body["detail"]
    row = played.http.get("/api/v1/admin/tables", headers=ADMIN).json()[0]
    assert row["paused"] and row["pause_reason"] == "audit"  # nothing changed


def test_a_reason_is_kept_without_its_surrounding_spaces() -> None:
    assert OperatorReason(reason="  한국어 テーブル check\t").reason == "한국어 テーブル check"
    assert OperatorReason().reason == "operator action"


@pytest.mark.parametrize("action", ["pause", "resume", "cancel"])
@pytest.mark.parametrize("table_id", ["x" * 5000, "%00", "boundless-1%20"])
def test_a_malformed_table_id_is_refused_without_echoing_it(
    played: LiveServer, action: str, table_id: str
) -> None:
    answer = played.http.post(
        f"/api/v1/admin/tables/{table_id}/{action}", json={"reason": "x"}, headers=ADMIN
    )
    assert answer.status_code == 422, answer.text
    assert answer.json()["error"] == "bad_message" and len(answer.json()["detail"]) < 200


def test_a_cancel_of_a_round_no_longer_in_play_cancels_nothing(played: LiveServer) -> None:
    """The console names the round its operator confirmed; the table may have moved on since
    (rounds last seconds): then nothing is cancelled, rather than the next round."""
    table = played.table(f"{TITLE}-1")
    stale = f"{TITLE}-1:{table.round_no - 1}"
    answer = played.http.post(
        f"/api/v1/admin/tables/{TITLE}-1/cancel",
        json={"reason": "dealer error", "round_id": stale},
        headers=ADMIN,
    )
    assert answer.status_code == 409, answer.text
    assert answer.json()["error"] == "conflict" and stale in answer.json()["detail"]
    malformed = played.http.post(
        f"/api/v1/admin/tables/{TITLE}-1/cancel",
        json={"reason": "dealer error", "round_id": "yesterday"},
        headers=ADMIN,
    )
    assert malformed.status_code == 422 and malformed.json()["error"] == "bad_message"
    row = played.http.get("/api/v1/admin/tables", headers=ADMIN).json()[0]
    assert row["round_no"] == table.round_no and row["paused"]


def test_the_floor_shows_every_table(played: LiveServer) -> None:
    rows = played.http.get("/api/v1/admin/tables", headers=ADMIN).json()
    assert [row["table_id"] for row in rows] == [f"{TITLE}-1"]
    row = rows[0]
    assert row["paused"] and row["pause_reason"] == "audit"
    assert row["watchers"] == 4 and row["sockets"] == 0  # bots are not sockets
    table = played.table(f"{TITLE}-1")
    assert row["round_no"] == table.round_no and row["phase"] == table.round.phase


def test_returns_are_the_ledgers_figures(played: LiveServer) -> None:
    url = played.database_url
    rows = played.http.get("/api/v1/admin/returns", headers=ADMIN).json()
    assert [row["title"] for row in rows] == [TITLE]
    row = rows[0]
    house = _value(
        url,
        f"""SELECT sum(e.amount) FROM ledger_entries e
        JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'house'
        JOIN ledger_transactions t ON t.id = e.transaction_id {SETTLED_ROUND}""",
    )
    stakes = _rows(
        url,
        f"""SELECT t.kind, -e.amount, t.round_id FROM ledger_entries e
        JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'wallet'
        JOIN ledger_transactions t ON t.id = e.transaction_id AND t.category = 'stake'
        {SETTLED_ROUND}""",
    )
    paid = _paid_to_wallets(url)
    settled = _value(url, "SELECT count(*) FROM server_rounds WHERE status = 'settled'")
    staked = sum(amount for _, amount, _ in stakes)
    assert row["rounds"] == settled >= 3
    assert row["house_result"] == house == staked - paid
    assert row["staked"] == staked and row["paid"] == paid
    initial = [(kind, amount, r) for kind, amount, r in stakes if kind.split(":")[0] in INITIAL]
    initial_total = sum(amount for _, amount, _ in initial)
    assert row["initial_staked"] == initial_total
    assert row["realised_return"] == pytest.approx(1 - house / initial_total, rel=1e-12)
    rules, chart = TitleCatalog.shipped((TITLE,)).get(TITLE)
    figures = compute_figures(rules, chart).kinds
    expected = sum(amount * figures[kind].rtp for kind, amount, _ in initial)
    # Per round, not per bet: the players of one round share its cards (Boundless: one hand for
    # everyone), so a round's stakes of one kind are one draw of that kind's result.
    by_round: dict[tuple[str, int], int] = {}
    for kind, amount, round_id in initial:
        by_round[kind, round_id] = by_round.get((kind, round_id), 0) + amount
    assert len(by_round) < len(initial)  # several bots bet in one round: the two sums differ
    variance = sum(amount**2 * figures[kind].variance for (kind, _), amount in by_round.items())
    exact = expected / initial_total
    half = 1.959963984540054 * math.sqrt(variance) / initial_total
    assert row["exact_return"] == pytest.approx(exact, rel=1e-12)
    assert row["band_low"] == pytest.approx(exact - half, rel=1e-12)
    assert row["band_high"] == pytest.approx(exact + half, rel=1e-12)
    assert 0.98 < figures["main"].rtp < 1.0  # the basic chart's exact return, not a guess


INITIAL = {"main", "side", "insurance"}


def test_the_ledger_check_is_check_books(played: LiveServer) -> None:
    answer = played.http.get("/api/v1/admin/ledger-check", headers=ADMIN).json()
    engine = make_engine(played.database_url, read_only=True)
    with make_session_factory(engine).begin() as session:
        report = check_books(session)
    engine.dispose()
    assert answer["ok"] is True and answer["problems"] == []
    assert answer["summary"] == report.summary()
    assert answer["house_balance"] == report.house_balance
    assert answer["rounds"] == report.rounds


def test_metrics_count_what_the_ledger_holds(played: LiveServer) -> None:
    url = played.database_url
    samples = _scrape(played)
    stakes_by_kind = _rows(
        url,
        """SELECT t.kind, -e.amount FROM ledger_entries e
        JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'wallet'
        JOIN ledger_transactions t ON t.id = e.transaction_id AND t.category = 'stake'""",
    )
    total = sum(amount for _, amount in stakes_by_kind)
    assert _total(samples, "boundless_stakes_coins_total", title=TITLE) == total > 0
    for label in ("main", "double", "split", "insurance"):
        amount = sum(a for kind, a in stakes_by_kind if kind.split(":")[0] == label)
        assert _total(samples, "boundless_stakes_coins_total", kind=label) == amount
    sides = sum(a for kind, a in stakes_by_kind if kind.startswith("side:"))
    side_metrics = sum(
        value
        for (name, labels), value in samples.items()
        if name == "boundless_stakes_coins_total" and dict(labels)["kind"].startswith("side:")
    )
    assert side_metrics == sides
    paid = _paid_to_wallets(url)
    assert _total(samples, "boundless_payouts_coins_total", title=TITLE) == paid
    settled = _value(url, "SELECT count(*) FROM server_rounds WHERE status = 'settled'")
    assert _total(samples, "boundless_rounds_total", outcome="settled") == settled
    bets = _value(url, "SELECT count(*) FROM server_bets")
    assert _total(samples, "boundless_bets_total", title=TITLE) == bets
    steps = _total(samples, "boundless_step_close_seconds_count", title=TITLE)
    assert steps >= 1
    assert _total(samples, "boundless_open_sockets") == 0
    before = _total(samples, "boundless_errors_total", code="not_found")
    assert played.http.get("/api/v1/titles/nothing").status_code == 404
    assert played.http.get("/api/v1/shoes/nowhere-1/1").status_code == 404
    after = _total(_scrape(played), "boundless_errors_total", code="not_found")
    assert after - before == 2


def test_a_cancel_is_counted_refunded_and_recorded(played: LiveServer) -> None:
    """Last in this module: it resumes the table and cancels the round in play."""
    url = played.database_url
    table_id = f"{TITLE}-1"
    resumed = played.http.post(
        f"/api/v1/admin/tables/{table_id}/resume", json={"reason": "audit done"}, headers=ADMIN
    )
    assert resumed.status_code == 200 and not resumed.json()["paused"]
    table = played.table(table_id)
    earlier = _scrape(played)
    before = _total(earlier, "boundless_rounds_total", outcome="cancelled")
    refunds_before = _total(earlier, "boundless_refunds_coins_total", title=TITLE)
    for _ in range(20):  # a round may end between the look and the cancel (409): try the next
        wait_until(
            lambda: table.round is not None and not table.round.over and len(table.round.book),
            60,
            "a round with bets",
        )
        answer = played.http.post(
            f"/api/v1/admin/tables/{table_id}/cancel",
            json={"reason": "dealer error"},
            headers=ADMIN,
        )
        if answer.status_code != 409:
            break
    assert answer.status_code == 200, answer.text
    body = answer.json()
    refunded = sum(line["amount"] for line in body["refunds"])
    round_no = int(body["round_id"].split(":")[1])
    reason = _rows(
        url,
        f"SELECT status, reason FROM server_rounds WHERE table_id = '{table_id}' "
        f"AND round_no = {round_no}",
    )
    assert reason == [("cancelled", "dealer error")]
    held = _value(  # what the players' wallets had put into the round before the cancel
        url,
        f"""SELECT sum(-e.amount) FROM ledger_entries e
        JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'wallet'
        JOIN ledger_transactions t ON t.id = e.transaction_id AND t.category <> 'cancel'
        JOIN ledger_rounds r ON r.id = t.round_id AND r.status = 'cancelled'
        WHERE r.table_id = '{table_id}' AND r.round_no = {round_no}""",
    )
    assert refunded == held > 0
    samples = _scrape(played)
    assert _total(samples, "boundless_rounds_total", outcome="cancelled") == before + 1
    refunds = _total(samples, "boundless_refunds_coins_total", title=TITLE)
    assert refunds - refunds_before == refunded


def test_each_app_has_its_own_registry() -> None:
    first, second = ServerMetrics(), ServerMetrics()  # the default registry would refuse this
    first.count_error("conflict")
    assert b'boundless_errors_total{code="conflict"} 1.0' in first.exposition()
    assert b"conflict" not in second.exposition()


def test_sockets_are_counted_and_reasons_reach_the_players(server: LiveServer) -> None:
    player = server.sign_up("Ivo")
    client = server.client(player["token"])
    client.hello()
    client.request({"type": "join", "table_id": f"{TITLE}-1"})
    assert _total(_scrape(server), "boundless_open_sockets") == 1
    floor = server.http.get("/api/v1/admin/tables", headers=ADMIN).json()
    assert {row["table_id"]: row["sockets"] for row in floor}[f"{TITLE}-1"] == 1
    assert server.admin("pause", reason="shoe check").status_code == 200
    paused = client.wait_for("notice", lambda m: m["kind"] == "paused")
    assert paused["detail"] == "shoe check"
    assert server.admin("resume", reason="shoe checked").status_code == 200
    resumed = client.wait_for("notice", lambda m: m["kind"] == "resumed")
    assert resumed["detail"] == "shoe checked"
    assert server.admin("pause").status_code == 200
    assert server.admin("resume").status_code == 200
    plain = client.wait_for("notice", lambda m: m["kind"] == "resumed")
    assert plain["detail"] is None  # no reason given: the notice stays as before
    client.close()
