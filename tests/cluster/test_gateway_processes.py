"""Gateways as an operator runs them (``boundless coordinator`` and ``boundless gateway`` processes
on the machine's NATS and PostgreSQL) through the failures that used to stop them:

- the database cut for 15 s across a bet close: no process exits, a player seen before signs in
  and watches during the cut, the coordinator holds that bet close until the database answers
  and no round is cancelled for want of stakes, the next rounds play, the books balance and
  every bot's wallet is its grant plus the nets its gateway reported; each gateway's orderly
  stop exits 0 with nothing of it left open;
- a second process started with a live gateway's name: exit 2 with one line, nothing touched
  (no slice of the live gateway cancelled, its rounds settle);
- a gateway killed during betting: its player's stake is refunded once at the bet close and the
  player, back on the other gateway, is told.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from boundless.ledger import (
    Category,
    LedgerService,
    check_books,
    make_engine,
    make_session_factory,
)
from boundless.server.cluster.bus import ReportKind
from boundless.server.cluster.coordinator import NO_STAKES_REASON
from boundless.server.cluster.processes import BOT_GRANT
from boundless.server.cluster.protocol import Public
from tests.cluster.conftest import NATS_URL, Services
from tests.cluster.launch import BOOT_SECONDS, COMMAND, kill, rounds_ended, status, wait_for
from tests.cluster.nats_cluster import free_port_run
from tests.cluster.test_cluster_players import sign_up, told_about
from tests.outage_proxy import outage_proxy
from tests.server.live import bet, socket_client

pytestmark = pytest.mark.slow
TABLE = "boundless-1"
BOTS = 2
TIMERS = ["--timer-scale", "0.2", "--round-gap-seconds", "0.3"]
"""Betting 3 s; the bots decide at once, so a round takes a few seconds."""
CUT_SECONDS = 15.0


class Processes:
    """A coordinator and gateways started one by one, each one's stderr kept in a file."""

    def __init__(self, services: Services, database_url: str, folder: Path) -> None:
        self.common = ["--database-url", database_url, "--nats-url", NATS_URL]
        self.common += ["--namespace", services.namespace]
        self.folder = folder
        self.running: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, name: str, role: str, *args: str) -> subprocess.Popen[bytes]:
        process = subprocess.Popen(
            [*COMMAND, role, *self.common, "--name", name, *args],
            stdout=subprocess.DEVNULL,
            stderr=(self.folder / f"{name}.err").open("wb"),
        )
        self.running[name] = process
        return process

    def gateway(self, name: str, port: int, bots: int = BOTS) -> subprocess.Popen[bytes]:
        return self.start(name, "gateway", "--port", str(port), "--bots", str(bots))

    def errors(self, name: str) -> str:
        return (self.folder / f"{name}.err").read_text()

    def stop(self) -> dict[str, int | None]:
        """The coordinator first (no new events), then the gateways, each with SIGTERM; the
        exit status of each process stopped here (a gateway refunds its slice, then exits 0)."""
        stopped: dict[str, int | None] = {}
        for name, process in sorted(self.running.items(), key=lambda item: item[0] != "c1"):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    stopped[name] = process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    kill(process.pid)
                    stopped[name] = None
            if name == "c1":
                time.sleep(1.0)  # a settlement under way is written and reported
        return stopped


def wait_for_rounds(ports: list[int], more: int) -> None:
    for port in ports:
        before = rounds_ended(port)
        wait_for(
            lambda p=port, b=before: rounds_ended(p) >= b + more,
            BOOT_SECONDS,
            f"{more} more rounds on the gateway at {port}",
        )


def ready(port: int) -> tuple[int, dict[str, Any]]:
    answer = httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=5)
    return answer.status_code, dict(answer.json())


def table_events(services: Services) -> list[tuple[str, dict[str, Any]]]:
    """Every event of the table's stream: its kind and body."""
    from boundless.server.cluster.jetstream_bus import JetStreamBus

    async def read() -> list[tuple[str, dict[str, Any]]]:
        bus = await JetStreamBus.connect(NATS_URL, namespace=services.namespace)
        out: list[tuple[str, dict[str, Any]]] = []
        try:
            last = await bus.last_event_seq(TABLE)
            if last:
                async for stored in bus.events(TABLE, from_seq=1):
                    out.append((stored.event.kind, dict(stored.event.body)))
                    if stored.seq >= last:
                        break
        finally:
            await bus.close()
        return out

    return asyncio.run(asyncio.wait_for(read(), 30))


def reported_nets(services: Services) -> dict[str, int]:
    """Each gateway's bots' net over the rounds it settled, from its ``settled`` reports."""
    from boundless.server.cluster.jetstream_bus import JetStreamBus

    async def read() -> dict[str, int]:
        bus = await JetStreamBus.connect(NATS_URL, namespace=services.namespace)
        try:
            last = await bus.last_report_seq(TABLE)
            seen: dict[tuple[str, int], int] = {}
            if last:
                async for stored in bus.reports(TABLE, from_seq=1):
                    report = stored.report
                    if report.kind == ReportKind.SETTLED:
                        net = report.body.get("net", 0)
                        seen[(report.gateway, report.round_number)] = int(net)  # type: ignore[call-overload]
                    if stored.seq >= last:
                        break
        finally:
            await bus.close()
        nets: dict[str, int] = {}
        for (gateway, _), net in seen.items():
            nets[gateway] = nets.get(gateway, 0) + net
        return nets

    return asyncio.run(asyncio.wait_for(read(), 30))


def test_a_database_cut_across_the_bet_close_stops_no_process(
    services: Services, tmp_path: Path
) -> None:
    with outage_proxy(services.database_url) as (proxy, through_proxy):
        cluster = Processes(services, through_proxy, tmp_path)
        try:
            port = free_port_run(2)
            ports = [port, port + 1]
            cluster.start("c1", "coordinator", *TIMERS)
            cluster.gateway("g1", ports[0])
            cluster.gateway("g2", ports[1])
            wait_for_rounds(ports, 1)
            assert ready(ports[0]) == (200, {"ready": True})
            player = sign_up(ports[0], "Cy")
            socket_client(ports[0], player["token"]).close()  # seen by g1 before the cut
            betting = int((status(ports[0]) or {})["round"]) + 1
            wait_for(
                lambda: int((status(ports[0]) or {}).get("round", 0)) >= betting,
                BOOT_SECONDS,
                "the next round's betting",
            )
            proxy.cut()  # across this round's bet close, and the next round's opening
            cut_at = time.monotonic()
            wait_for(lambda: ready(ports[0])[0] == 503, 10, "/readyz to see the database away")
            reasons = ready(ports[0])[1]["reasons"]
            assert [r for r in reasons if r.startswith("the database does not answer")], reasons
            # During the cut: signing in again and watching work; a bet is refused in one line.
            during = socket_client(ports[0], player["token"])
            assert during.seen[0]["type"] == "welcome" and during.seen[-1]["type"] == "ack"
            assert [m for m in during.seen if m["type"] == "state"]
            refused = during.request({"type": "bet", "table_id": TABLE, "bet_id": "cut-1",
                                      "bets": {"1": {"main": 100}}})  # fmt: skip
            assert refused["type"] == "error", refused
            assert refused["error"] in ("ledger_unavailable", "wrong_phase"), refused
            during.close()
            time.sleep(max(0.0, CUT_SECONDS - (time.monotonic() - cut_at)))
            proxy.restore()
            wait_for_rounds(ports, 2)
            for name, process in cluster.running.items():
                assert process.poll() is None, (name, cluster.errors(name))
        finally:
            stopped = cluster.stop()
    # The round whose bet close fell in the cut was held until the database answered, and no
    # round was cancelled for want of stakes (before the hold: every gateway sat it out).
    events = table_events(services)
    held = [body.get("ledger") for kind, body in events if kind == Public.BETTING_HELD]
    assert "away" in held and "back" in held, held
    cancelled = [body for kind, body in events if kind == Public.ROUND_CANCELLED]
    assert not [c for c in cancelled if c.get("reason") == NO_STAKES_REASON], cancelled
    for name in cluster.running:
        assert "Traceback" not in cluster.errors(name), cluster.errors(name)
    assert stopped["g1"] == stopped["g2"] == 0, stopped  # an orderly stop, its slice refunded
    nets = reported_nets(services)
    engine = make_engine(services.database_url)
    try:
        with make_session_factory(engine).begin() as session:
            report = check_books(session)
            assert report.ok, report.summary()
            ledger = LedgerService(session)
            for gateway in ("g1", "g2"):
                for owner in (gateway, f"{gateway}:players"):
                    assert not ledger.open_slices(owner), (owner, cluster.errors(gateway))
                bots = [f"bot-{gateway}-{index + 1}" for index in range(BOTS)]
                held = sum(ledger.wallet_balances(bots).values())
                assert held == BOTS * BOT_GRANT + nets.get(gateway, 0), gateway
    finally:
        engine.dispose()


def test_a_duplicate_gateway_exits_2_and_a_gateway_lost_in_betting_is_refunded(
    services: Services, tmp_path: Path
) -> None:
    cluster = Processes(services, services.database_url, tmp_path)
    port = free_port_run(2)
    ports = [port, port + 1]
    try:
        cluster.start("c1", "coordinator", *TIMERS)
        cluster.gateway("g1", ports[0])
        doomed = cluster.gateway("g2", ports[1], bots=0)
        wait_for_rounds(ports, 1)
        # A second g1 (same name, same port): refused on its name before it touches anything.
        second = cluster.start("g1-again", "gateway", "--port", str(ports[0]), "--name", "g1")
        assert second.wait(timeout=BOOT_SECONDS) == 2
        lines = [line for line in cluster.errors("g1-again").splitlines() if line.strip()]
        assert len(lines) == 1 and "gateway name 'g1'" in lines[0] and "held by" in lines[0]
        wait_for_rounds(ports[:1], 1)
        # A player on g2 bets; g2 is killed (kill -9) while betting is still open.
        player = sign_up(ports[1], "Bea")
        client = socket_client(ports[1], player["token"])
        granted = int(client.seen[0]["player"]["balance"])
        answer = bet(client, 1000)
        assert answer["type"] == "ack", answer
        round_id = str(answer["round_id"])
        kill(doomed.pid)
        client.close()
        back = socket_client(ports[0], player["token"])
        told = told_about(back, round_id)
        assert told["cancelled"] and told["staked"] == told["paid"] == 1000
        wait_for_rounds(ports[:1], 1)
        last_round = int((status(ports[0]) or {})["round"]) + 1  # one may open before the stop
    finally:
        cluster.stop()
    engine = make_engine(services.database_url)
    try:
        with make_session_factory(engine).begin() as session:
            report = check_books(session)
            assert report.ok, report.summary()
            ledger = LedgerService(session)
            assert ledger.wallet_balances([player["player_id"]])[player["player_id"]] == granted
            table, number = round_id.split(":")
            lost = {(s.owner, s.status) for s in ledger.slices_of(table, int(number))}
            assert ("g2:players", "cancelled") in lost
            assert ("g1", "settled") in lost  # the live gateway's part of that round settled
            refunds = [
                t
                for t in ledger.round_transactions(table, int(number))
                if t.owner == "g2:players" and t.category == Category.CANCEL
            ]
            assert len(refunds) == 1  # refunded once
            # The duplicate cancelled nothing of g1's: only the round its stop refunded.
            g1_cancelled = [
                n
                for n in range(1, last_round + 1)
                for s in ledger.slices_of(table, n)
                if s.owner.startswith("g1") and s.status == "cancelled"
            ]
            assert set(g1_cancelled) <= {last_round}, g1_cancelled
    finally:
        engine.dispose()
