"""The bus's cost per decision step: from the coordinator's step close to the last gateway's
follower round holding the step's card, on real NATS, with each gateway a process of its own.

    python benchmarks/bus_overhead.py --json                        # 1, 2 and 4 gateways
    python benchmarks/bus_overhead.py --gateways 4 --rounds 100 --nats-url nats://127.0.0.1:4222

The coordinator runs here, on its own NATS connection; each gateway is a child process (this
script with ``--child``) with its own connection, a follower round with a few autoplayed
positions and no ledger: the path measured is the bus's alone. A step on the bus is:

1. the coordinator appends ``step_closed`` (clock starts);
2. each gateway takes it, autoplays its positions and publishes its ``takers`` report;
3. the coordinator's report consumer gets the last report; the table dealer draws the card;
4. the coordinator appends ``StepDealt``; each gateway's follower round applies it (the last
   gateway to apply it stops the clock).

Times are ``CLOCK_MONOTONIC``, one clock for every process of the machine. ``overhead_ms`` is
1-4; the phases split it: ``delivered_ms`` (1 to the last gateway taking ``step_closed``),
``reported_ms`` (from there to the coordinator holding every report), ``dealt_ms`` (from there to
the ``StepDealt`` append), ``applied_ms`` (from the append to the last gateway applying it).
``append_ack_ms``: how long each of the coordinator's appends waited for JetStream's
acknowledgement (one round trip to the server and its store), the floor of one hop.
Every step of every round counts; each JetStream namespace is deleted afterwards.

The floor (``jetstream_floor.py``): the same three hops bare, in one process, right after each
run: a publish to one stream, each of as many reader connections as there are gateways takes it
and publishes a reply, the last reply taken, a second publish, the last reader holding it.
``p99_ms`` is the step's p99 (``overhead_p99_ms``), ``floor_p99_ms`` the bare step's,
``ratio_to_floor`` their ratio (the target: p99 ≤ 25 ms at load 2, or ≤ 3× the floor). The JSON's
top level repeats them for the run with the most gateways; each run has its ``load_average``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

from boundless.core.random_source import SeededSource
from boundless.core.round import events as ev
from boundless.core.round.dealer_table import TableDealer
from boundless.core.round.follower import FollowerRound
from boundless.core.shoe import Shoe
from boundless.server.cluster.bus import AppendResult, RoundEvent, StoredReport
from boundless.server.cluster.coordinator import Coordinator, CoordinatorTimers
from boundless.server.cluster.gateway import Gateway
from boundless.server.cluster.jetstream_bus import JetStreamBus
from boundless.server.cluster.protocol import Public
from boundless.server.cluster.slices import FollowerSlice, SliceSide
from boundless.titles import load_game
from jetstream_floor import percentile, step_ms

DEFAULT_NATS_URL = "nats://127.0.0.1:4222"
TABLE = "bus-bench"
PLAYERS_PER_GATEWAY = 20
"""On the title's one shared spot: many paths, so rounds run to several steps."""
STAKE = 100
FREE_COINS = 10**9
TIMERS = CoordinatorTimers(
    betting_seconds=0.05,
    insurance_seconds=2.0,
    decision_seconds=2.0,  # steps close early: every gateway reports its players decided
    report_seconds=10.0,
    settle_seconds=10.0,
    round_gap_seconds=0.0,
)
StepKey = tuple[int, int, int]
"""(round, spot, step)"""


def now() -> float:
    return time.clock_gettime(time.CLOCK_MONOTONIC)


# -- a gateway process ------------------------------------------------------------------------


class TimedSlice(FollowerSlice):
    """A follower slice that notes when it applies each step's card (and sees each close)."""

    def __init__(self, follower: FollowerRound, round_number: int) -> None:
        super().__init__(follower)
        self.round_number = round_number

    async def apply(self, event: ev.TableEvent) -> None:
        await super().apply(event)
        if isinstance(event, ev.StepDealt):
            note("applied", (self.round_number, event.spot, event.step), now())


def note(what: str, key: StepKey, at: float) -> None:
    print(json.dumps([what, *key, at]), flush=True)


async def gateway_child(nats_url: str, namespace: str, name: str, rounds: int) -> None:
    rules, chart = load_game("boundless")
    bus = await JetStreamBus.connect(nats_url, namespace=namespace)

    def new_slice(round_number: int, opened: ev.RoundOpened) -> SliceSide:
        follower = FollowerRound(rules, opened, chart=chart)
        for index in range(PLAYERS_PER_GATEWAY):
            follower.place_bet(f"{name}-{index}", 1, STAKE, {}, free_amount=FREE_COINS)
        return TimedSlice(follower, round_number)

    gateway = Gateway(bus, TABLE, name, new_slice)
    seen = bus.events

    def watched(table: str, *, from_seq: int) -> AsyncIterator[Any]:
        async def tap() -> AsyncIterator[Any]:
            async for stored in seen(table, from_seq=from_seq):
                if stored.event.kind == Public.STEP_CLOSED:
                    body = stored.event.body
                    key = (stored.event.round_number, int(body["spot"]), int(body["step"]))
                    note("seen", key, now())
                yield stored

        return tap()

    bus.events = watched  # type: ignore[method-assign]
    print(json.dumps(["ready"]), flush=True)
    try:
        await gateway.run(rounds=rounds)
    finally:
        await bus.close()


# -- the coordinator, here --------------------------------------------------------------------


class TimedBus:
    """The coordinator's bus, noting when it closes a step, when each ``takers`` report reaches
    it, and when it appends the step's card."""

    def __init__(self, bus: JetStreamBus) -> None:
        self._bus = bus
        self.closed: dict[StepKey, float] = {}
        self.reported: dict[StepKey, float] = {}
        self.dealt: dict[StepKey, float] = {}
        self.appends_ms: list[float] = []
        """How long each append waited for JetStream's acknowledgement: the floor of a hop."""
        self._open: StepKey | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._bus, name)

    async def append_event(
        self, event: RoundEvent, *, expected_last_seq: int, round_start_seq: int | None
    ) -> AppendResult:
        at = now()
        if event.kind == Public.STEP_CLOSED:
            self._open = (event.round_number, int(event.body["spot"]), int(event.body["step"]))
            self.closed[self._open] = at
        elif event.kind == Public.TABLE and self._open is not None:
            self.dealt[self._open] = at  # the first table event after the close: StepDealt
            self._open = None
        result = await self._bus.append_event(
            event, expected_last_seq=expected_last_seq, round_start_seq=round_start_seq
        )
        self.appends_ms.append((now() - at) * 1000)
        return result

    def reports(self, table: str, *, from_seq: int) -> AsyncIterator[StoredReport]:
        async def tap() -> AsyncIterator[StoredReport]:
            async for stored in self._bus.reports(table, from_seq=from_seq):
                report = stored.report
                if report.kind == "takers":
                    key = (report.round_number, int(report.body["spot"]), int(report.body["step"]))
                    self.reported[key] = now()  # the last one wins: when all were in
                yield stored

        return tap()


def dealer_maker(rules: Any, seed: int) -> Any:
    def new_dealer(round_number: int) -> TableDealer:
        shoe = Shoe.shuffled(rules.shoe.decks, 0.75, SeededSource(seed + round_number))
        return TableDealer(rules, cards=shoe)

    return new_dealer


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    if not ordered:
        return {"p50": 0.0, "p99": 0.0, "max": 0.0}

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]

    return {"p50": round(at(0.5), 2), "p99": round(at(0.99), 2), "max": round(ordered[-1], 2)}


async def measure(nats_url: str, gateways: int, rounds: int, seed: int) -> dict[str, Any]:
    namespace = f"busbench{uuid.uuid4().hex[:8]}"
    names = [f"g{index + 1}" for index in range(gateways)]
    bus = await JetStreamBus.connect(nats_url, namespace=namespace)  # makes the streams
    children = [
        subprocess.Popen(
            [sys.executable, __file__, "--child", name, "--namespace", namespace,
             "--nats-url", nats_url, "--rounds", str(rounds)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for name in names
    ]  # fmt: skip
    try:
        for child in children:  # each says ready once connected
            assert child.stdout is not None
            if json.loads(child.stdout.readline() or '["gone"]') != ["ready"]:
                raise SystemExit("a gateway process did not start")
        await asyncio.sleep(0.5)  # their consumers subscribe
        timed = TimedBus(bus)
        rules, _ = load_game("boundless")
        coordinator = Coordinator(
            timed,  # type: ignore[arg-type]
            TABLE,
            "bench-coordinator",
            dealer_maker(rules, seed),
            TIMERS,
            gateways=frozenset(names),
        )
        started = now()
        await coordinator.run(rounds=rounds)
        elapsed = now() - started
        seen: dict[StepKey, list[float]] = {}
        applied: dict[StepKey, list[float]] = {}
        for child in children:
            out, _ = child.communicate(timeout=60)
            for line in out.splitlines():
                what, *key_parts, at = json.loads(line)
                key = (int(key_parts[0]), int(key_parts[1]), int(key_parts[2]))
                (seen if what == "seen" else applied).setdefault(key, []).append(float(at))
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
        await bus.delete_namespace()
        await bus.close()
    phases: dict[str, list[float]] = {
        "overhead_ms": [], "delivered_ms": [], "reported_ms": [], "dealt_ms": [], "applied_ms": []
    }  # fmt: skip
    for key, closed in timed.closed.items():
        took = applied.get(key, [])
        if len(took) < gateways or key not in timed.dealt:
            continue  # a step nobody held a card for, or one a gateway missed
        last_seen = max(seen.get(key, [closed]))
        reported = timed.reported.get(key, last_seen)
        dealt = timed.dealt[key]
        phases["overhead_ms"].append((max(took) - closed) * 1000)
        phases["delivered_ms"].append((last_seen - closed) * 1000)
        phases["reported_ms"].append((reported - last_seen) * 1000)
        phases["dealt_ms"].append((dealt - reported) * 1000)
        phases["applied_ms"].append((max(took) - dealt) * 1000)
    overhead = phases["overhead_ms"]
    # The floor of the same steps, measured right after them on the same server.
    floor = await step_ms(nats_url, gateways, max(len(overhead), 50))
    p99 = percentiles(overhead)["p99"]
    floor_p99 = round(percentile(floor, 0.99), 2)
    return {
        "p99_ms": p99,
        "floor_p99_ms": floor_p99,
        "ratio_to_floor": round(p99 / floor_p99, 2) if floor_p99 else None,
        "floor_p50_ms": round(percentile(floor, 0.5), 2),
        "load_average": os.getloadavg()[0],
        "gateways": gateways,
        "rounds": rounds,
        "steps": len(overhead),
        "seconds": round(elapsed, 2),
        **{f"overhead_{k}_ms": v for k, v in percentiles(overhead).items()},
        "mean_ms": round(statistics.fmean(overhead), 2) if overhead else 0.0,
        "phases": {name: percentiles(values) for name, values in phases.items()
                   if name != "overhead_ms"},
        "append_ack_ms": percentiles(timed.appends_ms),
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gateways", default="1,2,4", help="comma-separated gateway counts")
    parser.add_argument("--rounds", type=int, default=60, help="rounds per gateway count")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--nats-url", default=DEFAULT_NATS_URL)
    parser.add_argument("--json", action="store_true", help="print one JSON line")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--namespace", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        asyncio.run(gateway_child(args.nats_url, args.namespace, args.child, args.rounds))
        return
    counts = [int(part) for part in args.gateways.split(",") if part.strip()]
    if not counts or min(counts) < 1 or args.rounds < 1:
        parser.error("--gateways needs counts of at least 1, --rounds at least 1")
    runs = [asyncio.run(measure(args.nats_url, count, args.rounds, args.seed)) for count in counts]
    widest = max(runs, key=lambda run: run["gateways"])
    result = {"nats_url": args.nats_url, "load_average": os.getloadavg()[0],
              "gateways": widest["gateways"], "p99_ms": widest["p99_ms"],
              "floor_p99_ms": widest["floor_p99_ms"], "ratio_to_floor": widest["ratio_to_floor"],
              "runs": runs}  # fmt: skip
    if args.json:
        print(json.dumps(result))
        return
    print(f"bus overhead per step, {platform.machine()} Python {platform.python_version()}")
    for run in runs:
        print(f"  {run['gateways']} gateways: {run['steps']} steps, "
              f"p50 {run['overhead_p50_ms']} ms, p99 {run['overhead_p99_ms']} ms, "
              f"max {run['overhead_max_ms']} ms, floor p99 {run['floor_p99_ms']} ms "
              f"(ratio {run['ratio_to_floor']}), load {run['load_average']:.1f}, "
              f"phases {run['phases']}")  # fmt: skip
    print(f"rerun: {sys.executable} {' '.join(sys.argv)}")


if __name__ == "__main__":
    main()
