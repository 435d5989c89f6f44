"""Sign-up is rate-limited per client address (each one grants coins) and a player's open
sockets are capped; both answer in the error shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import func, select
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from boundless.server.app import create_app
from boundless.server.config import ServerConfig
from boundless.server.errors import RateLimitedError
from boundless.server.players.signup_limit import SignUpLimit
from boundless.server.storage.models import Player
from tests.server.live import serving, wait_until

POLICY_VIOLATION = 1008


def test_sign_ups_beyond_the_rate_are_refused_with_429(tmp_path: Path) -> None:
    with serving(tmp_path, signup_rate="3/minute") as live:
        for name in ("A", "B", "C"):
            live.sign_up(name)
        refused = live.http.post("/api/v1/players", json={"display_name": "D"})
        assert refused.status_code == 429
        body = refused.json()
        assert body["error"] == "rate_limited"
        assert "at most 3 sign-ups per minute from one address" in body["detail"]
        # the refused sign-up created nobody (no coins granted)
        with live.app_state.server.read_sessions.begin() as session:
            assert session.scalar(select(func.count()).select_from(Player)) == 3


@pytest.mark.parametrize(("allow_ips", "passed"), [(None, 2), ("127.0.0.1", 4)])
def test_forwarded_addresses_count_only_from_named_proxies(
    tmp_path: Path, allow_ips: str | None, passed: int
) -> None:
    """By default nobody's ``X-Forwarded-For`` is believed: spoofed addresses from one peer
    share its limit. A proxy named in ``--forwarded-allow-ips`` is believed."""
    with serving(tmp_path, signup_rate="2/minute", forwarded_allow_ips=allow_ips) as live:
        answers = [
            live.http.post(
                "/api/v1/players",
                json={"display_name": f"P{n}"},
                headers={"X-Forwarded-For": f"203.0.113.{n}"},
            ).status_code
            for n in range(4)
        ]
    assert answers.count(201) == passed, answers
    assert answers.count(429) == 4 - passed, answers


def test_the_limit_counts_each_address_apart() -> None:
    limit = SignUpLimit("2/minute")
    for _ in range(2):
        limit.check("10.0.0.1")
    with pytest.raises(RateLimitedError, match="try again in"):
        limit.check("10.0.0.1")
    limit.check("10.0.0.2")  # another address has its own window


def test_several_windows_each_hold() -> None:
    limit = SignUpLimit("5/minute;2/hour")
    limit.check("a")
    limit.check("a")
    with pytest.raises(RateLimitedError, match="per hour"):
        limit.check("a")


def test_a_bad_rate_is_refused_when_the_app_is_built(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="sign-up rate 'lots' is not a rate"):
        create_app(ServerConfig(data_dir=tmp_path, signup_rate="lots"))


def test_a_player_may_open_only_so_many_sockets(tmp_path: Path) -> None:
    with serving(tmp_path, max_sockets_per_player=2) as live:
        signed_up = live.sign_up()
        token, player_id = signed_up["token"], signed_up["player_id"]
        first, second = live.client(token), live.client(token)
        first.hello()
        second.hello()
        with connect(live.ws_url, compression=None) as third:
            third.send(json.dumps({"v": 1, "type": "hello", "token": token}))
            answer = json.loads(third.recv(5))
            assert answer["type"] == "error"
            assert answer["error"] == "too_many_sockets"
            assert "at most 2 open sockets per player" in answer["detail"]
            with pytest.raises(ConnectionClosed) as closed:
                third.recv(5)
            assert closed.value.rcvd is not None
            assert closed.value.rcvd.code == POLICY_VIOLATION
        other = live.client(live.sign_up("Bo")["token"])
        assert other.hello()["type"] == "welcome"  # the cap is per player
        first.close()
        hub = live.app_state.handler.hub
        wait_until(lambda: len(hub.by_player.get(player_id, ())) == 1, what="the close seen")
        again = live.client(token)
        assert again.hello()["type"] == "welcome"
