"""Real players on a real cluster: ``boundless cluster`` (a coordinator and two gateways, with
bots) on the machine's NATS and PostgreSQL, WebSocket players on both gateways for 20 rounds.
Mid-step, gateway 2 is killed with SIGKILL: gateway 1's players play on and settle that round;
gateway 2's players reconnect to gateway 1 and are told, in ``settled`` and in their play
record, that their part of it was cancelled and refunded. At the end the books balance
(``boundless ledger check``) and every wallet is its grant plus the nets of its settled rounds.
"""

from __future__ import annotations

import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from boundless.core.bots import Policy, decide, parse_sight
from boundless.ledger import LedgerService, make_engine, make_session_factory
from boundless.server.records.service import RecordService
from tests.cluster.conftest import Services
from tests.cluster.launch import BOOT_SECONDS, COMMAND, kill, launch_cluster, status, wait_for
from tests.cluster.nats_cluster import free_port_run
from tests.server.live import Client, bet, socket_client

ROUNDS = 20
GRANT = 100_000
STAKE = 500
TABLE = "boundless-1"
Message = dict[str, Any]


@dataclass
class Seat:
    """One player's client in a thread: bets every round, decides every step from ``you``."""

    name: str
    token: str
    port: int
    policy: Policy
    fallback_port: int | None = None
    """Where to reconnect when the gateway goes away (the other gateway)."""
    hold: threading.Event | None = None
    """Set: at the next decision, tell ``held`` and do not answer (the gateway is about to die)."""
    held: threading.Event = field(default_factory=threading.Event)
    player_id: str = ""
    settled: dict[str, Message] = field(default_factory=dict)
    held_round: str | None = None
    """The round this player stopped answering in (their gateway was killed then)."""
    playing: str | None = None
    failure: BaseException | None = None

    def run(self) -> None:
        try:
            self._play()
        except BaseException as error:  # reported by the test's main thread
            self.failure = error

    def _play(self) -> None:
        client = socket_client(self.port, self.token, TABLE)
        while len(self.settled) < ROUNDS:
            try:
                self._round(client)
            except ConnectionClosed:
                assert self.fallback_port is not None, f"{self.name}: its gateway went away"
                client = socket_client(self.fallback_port, self.token, TABLE)
                self.fallback_port = None
                lost = self.playing
                assert lost is not None
                self.settled[lost] = told_about(client, lost)
        client.close()

    def _round(self, client: Client) -> None:
        answer = bet(client, STAKE, TABLE)
        assert answer["type"] == "ack", (self.name, answer)
        round_id = self.playing = answer["round_id"]
        decided: set[tuple[int, int]] = set()
        up_card: str | None = None
        while True:
            message = client.recv(60)
            kind = message["type"]
            if kind == "settled" and message["round_id"] == round_id:
                self.settled[round_id] = message
                return
            if kind == "state":
                public = message.get("public") or {}
                up_card = ((public.get("dealer") or {}).get("cards") or [None])[0]
            if kind != "you" or message["phase"] != "decisions":
                continue
            for position in message["player"]["positions"]:
                key = (message["step"], position["spot"])
                if not position["legal_actions"] or position["current_hand"] is None:
                    continue
                if key in decided:
                    continue
                if self.hold is not None and self.hold.is_set():
                    self.hold = None
                    self.held_round = round_id
                    self.held.set()
                    while True:
                        client.recv(60)  # until the socket dies with its gateway
                decided.add(key)
                hand = position["hands"][position["current_hand"]]
                action = decide(
                    self.policy, parse_sight(hand["cards"], up_card, position["legal_actions"])
                )
                word = action.word if action is not None else "stand"
                if word not in position["legal_actions"]:
                    word = sorted(position["legal_actions"])[0]
                client.send(
                    {"type": "decide", "table_id": TABLE, "spot": position["spot"],
                     "step": message["step"], "action": word}
                )  # fmt: skip


def told_about(client: Client, round_id: str) -> Message:
    """The ``settled`` of a round the player lost with their gateway: sent at ``hello`` when
    it is already recorded, or when the round closes while they are connected here."""

    def about(message: Message) -> bool:
        return message["type"] == "settled" and message["round_id"] == round_id

    told = [message for message in client.seen if about(message)]
    return told[0] if told else client.wait_for("settled", about, 60)


def sign_up(port: int, name: str) -> Message:
    answer = httpx.post(f"http://127.0.0.1:{port}/api/v1/players", json={"display_name": name})
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


@pytest.mark.slow
def test_players_on_two_gateways_play_on_through_a_gateway_killed_mid_step(
    services: Services, tmp_path: Path
) -> None:
    port = free_port_run(2)
    ports = [port, port + 1]
    timers = ["--betting-seconds", "1.5", "--decision-seconds", "4", "--insurance-seconds", "1"]
    timers += ["--round-gap-seconds", "0.3"]
    cluster = launch_cluster(
        services, port, 2, ["--bots", "2", "--standbys", "0", *timers], tmp_path / "err.log"
    )
    try:
        for gateway_port in ports:
            wait_for(lambda p=gateway_port: status(p) is not None, BOOT_SECONDS, "the gateways")
        policies = [Policy.HIT_TO_17, Policy.DOUBLER, Policy.CAUTIOUS]
        hold = threading.Event()
        seats: list[Seat] = []
        for index in range(6):
            on_second = index >= 3
            player = sign_up(port, f"P{index}")  # signed up on gateway 1, playing on either
            seats.append(
                Seat(
                    f"P{index}",
                    player["token"],
                    ports[on_second],
                    policies[index % 3],
                    fallback_port=port if on_second else None,
                    hold=hold if on_second else None,
                    player_id=player["player_id"],
                )
            )
        threads = [threading.Thread(target=seat.run, daemon=True) for seat in seats]
        for thread in threads:
            thread.start()
        wait_for(lambda: min(len(s.settled) for s in seats) >= 8, 300, "eight rounds played")
        hold.set()  # gateway 2's players stop answering at their next decision...
        wait_for(lambda: any(s.held.is_set() for s in seats[3:]), 120, "a step on gateway 2")
        kill(cluster.pids[2])  # ...and gateway 2 dies with SIGKILL, mid-step
        for thread in threads:
            thread.join(timeout=600)
        failures = [(seat.name, seat.failure) for seat in seats if seat.failure is not None]
        assert not failures, failures
    finally:
        cluster.stop()

    lost = {seat.held_round for seat in seats[3:] if seat.held_round is not None}
    assert len(lost) == 1, lost
    (killed_round,) = lost
    for seat in seats:
        assert len(seat.settled) >= ROUNDS, seat.name
    for seat in seats[3:]:  # gateway 2's players: told their part was cancelled and refunded
        told = seat.settled[killed_round]
        assert told["cancelled"] and told["net"] == 0 and told["paid"] == told["staked"], told
    played_on = [seat.settled[killed_round] for seat in seats[:3] if killed_round in seat.settled]
    assert played_on, "nobody on gateway 1 bet in the round gateway 2 died in"
    assert all("cancelled" not in message for message in played_on), played_on

    check = subprocess.run(
        [*COMMAND, "ledger", "check", "--database-url", services.database_url],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    # Every wallet: its grant plus the nets of its settled rounds (cancelled ones net zero),
    # by the settled messages and by the play record alike.
    engine = make_engine(services.database_url)
    try:
        with make_session_factory(engine).begin() as session:
            for seat in seats:
                balance = LedgerService(session).wallet_balance(seat.player_id)
                nets = sum(message["net"] for message in seat.settled.values())
                assert balance == GRANT + nets, (seat.name, balance, nets)
                page = RecordService(session).page(seat.player_id, 100, None)
                played = {item["round_id"]: item for item in page["items"]}
                assert set(played) == set(seat.settled)
                assert balance == GRANT + sum(item["net"] for item in played.values())
                if seat in seats[3:]:
                    lost = played[killed_round]
                    assert lost["status"] == "cancelled" and lost["net"] == 0, lost
                elif killed_round in played:
                    assert played[killed_round]["status"] == "settled"
    finally:
        engine.dispose()
