"""A stopping server refunds the round in flight and tells its players before the sockets close.

uvicorn closes every socket before the app's shutdown runs: the tables used to see their players
leave, autoplay their hands and settle them (a 9-9 stood and lost), and nobody was told. Now the
tables stop first: each player of the round in flight gets ``settled`` with the cancellation,
every stake is back in the wallet, and the stop takes a few seconds at most.

The server here runs in a thread and is stopped the way a signal stops it (``should_exit``);
``test_shutdown.py`` and ``test_shutdown_bound.py`` send real signals to ``boundless serve``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed

from boundless.server.config import TimerSettings
from boundless.server.tables.registry import SHUTDOWN_SECONDS
from boundless.server.tables.runner import SHUTDOWN_REASON
from tests.postgres import postgres_schema
from tests.server.live import Client, Message, assert_books, serving

LONG = 30.0
INSURANCE_SEED = 13
"""``start_server(seed=13)``: boundless-1's first round shows the dealer an ace (insurance)."""
PHASES = {
    # phase: (timers that hold the round there, seed)
    "betting": (TimerSettings(betting_seconds=LONG, round_gap_seconds=0.1), 7),
    "insurance": (
        TimerSettings(betting_seconds=0.2, insurance_seconds=LONG, round_gap_seconds=0.1),
        INSURANCE_SEED,
    ),
    "decisions": (
        TimerSettings(betting_seconds=0.2, decision_seconds=LONG, round_gap_seconds=0.1),
        7,
    ),
}
CASES = [(phase, "sqlite") for phase in PHASES] + [("decisions", "postgresql")]


@pytest.fixture
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str | None]:
    if request.param == "sqlite":
        yield None  # the data folder's SQLite file
        return
    with postgres_schema("shutdown_test") as url:
        yield url


def rest_until_closed(client: Client) -> list[Message]:
    """Every message still to come, until the server closes the socket."""
    rest = []
    while True:
        try:
            rest.append(client.recv(10))
        except (ConnectionClosed, TimeoutError):
            return rest


@pytest.mark.parametrize(("phase", "database_url"), CASES, indirect=["database_url"])
def test_a_stop_refunds_and_tells_every_player_of_the_round_in_flight(
    tmp_path: Path, phase: str, database_url: str | None
) -> None:
    timers, seed = PHASES[phase]
    with serving(tmp_path, database_url=database_url, timers=timers, seed=seed) as live:
        seated = [live.seated(name) for name in ("Ana", "Ben")]
        for index, (_, client) in enumerate(seated):
            bets = {"1": {"main": 1000 * (index + 1)}}
            answer = client.request({"type": "bet", "table_id": "boundless-1", "bets": bets,
                                     "bet_id": f"b{index}"})  # fmt: skip
            assert answer["type"] == "ack", answer
        seated[0][1].wait_for("state", lambda m: m["public"]["phase"] == phase)
        round_id = live.table().round_id
        started = time.monotonic()
        live.stop()
        stopped_in = time.monotonic() - started
        for player, client in seated:
            rest = rest_until_closed(client)
            settled = [m for m in rest if m["type"] == "settled"]
            assert len(settled) == 1, [m["type"] for m in rest]
            assert settled[0]["round_id"] == round_id
            assert settled[0]["cancelled"] == SHUTDOWN_REASON
            assert settled[0]["net"] == 0 and settled[0]["balance"] == 100_000
            notices = [m for m in rest if m["type"] == "notice"]
            assert any(m.get("kind") == "cancelled" for m in notices), notices
            assert player["player_id"]
    assert stopped_in < SHUTDOWN_SECONDS + 10, f"the stop took {stopped_in:.1f} s"
    assert_books(live.database_url, {player["player_id"]: 100_000 for player, _ in seated})
