"""REST refusals over a real uvicorn server: the error shape, never a plain-text 500, and the
keep-alive connection survives every answer (a fault used to reset it)."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.postgres import postgres_schema
from tests.server.live import LiveServer, serving

BEYOND_64_BITS = "99999999999999999999"
BEYOND_INT_PARSING = "9" * 4301  # Python refuses to convert more than 4,300 digits
SUPERSCRIPT_TWO = "%C2%B2"  # '²'.isdigit() is true, int('²') fails


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def live(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    """The same answers on both backends (SQLite cannot bind a 65-bit integer; PostgreSQL
    refuses the cast: two different faults behind one 404)."""
    folder = tmp_path_factory.mktemp("rest-errors")
    if request.param == "sqlite":
        with serving(folder) as server:
            yield server
        return
    with postgres_schema("rest_errors") as url, serving(folder, database_url=url) as server:
        yield server


@pytest.fixture(scope="module")
def player(live: LiveServer) -> dict[str, str]:
    return {"Authorization": f"Bearer {live.sign_up()['token']}"}


def one_connection(live: LiveServer) -> httpx.Client:
    """A client with a single pooled connection, so the follow-up reuses the same socket."""
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    return httpx.Client(base_url=live.base_url, limits=limits, timeout=10.0)


def assert_error_shape(answer: httpx.Response, statuses: set[int]) -> None:
    assert answer.status_code in statuses, (answer.status_code, answer.text)
    assert answer.headers["content-type"] == "application/json"
    body = answer.json()
    assert set(body) == {"error", "detail"}
    assert isinstance(body["error"], str) and isinstance(body["detail"], str)


@pytest.mark.parametrize(
    ("path", "status"),
    [
        (f"/api/v1/records/boundless-1:{BEYOND_64_BITS}", 404),
        (f"/api/v1/records/boundless-1:{SUPERSCRIPT_TWO}", 422),
        (f"/api/v1/records?before=boundless-1:{BEYOND_64_BITS}", 404),
        (f"/api/v1/records?before=boundless-1:{SUPERSCRIPT_TWO}", 422),
        (f"/api/v1/records/boundless-1:{BEYOND_INT_PARSING}", 404),
        (f"/api/v1/records?before=boundless-1:{BEYOND_INT_PARSING}", 404),
        (f"/api/v1/shoes/boundless-1/{BEYOND_INT_PARSING}", 422),
        ("/api/v1/shoes/boundless-1/9223372036854775808", 404),
        ("/api/v1/shoes/boundless-1/-9223372036854775809", 404),
        ("/api/v1/shoes/boundless-1/%C2%B2", 422),
    ],
)
def test_out_of_range_and_odd_digits_are_refused_and_the_connection_lives(
    live: LiveServer, player: dict[str, str], path: str, status: int
) -> None:
    with one_connection(live) as client:
        answer = client.get(path, headers=player)
        assert_error_shape(answer, {status})
        assert len(answer.json()["detail"]) < 300  # never the whole path again
        assert client.get("/healthz").json() == {"status": "ok"}


def test_a_server_fault_is_internal_error_json_and_keeps_the_connection(
    live: LiveServer,
) -> None:
    fastapi_app = live.server.config.app.app  # type: ignore[attr-defined]

    def broken() -> None:
        raise RuntimeError("a bug, not a refusal")

    fastapi_app.add_api_route("/test-only/broken", broken, methods=["GET"])
    with one_connection(live) as client:
        answer = client.get("/test-only/broken")
        assert_error_shape(answer, {500})
        assert answer.json()["error"] == "internal_error"
        assert "a bug" not in answer.text  # the cause is logged, never sent
        assert client.get("/healthz").json() == {"status": "ok"}


segment = st.text(min_size=1, max_size=40).map(lambda text: quote(text, safe=""))
number_like = st.one_of(
    st.integers(min_value=-(2**80), max_value=2**80).map(str),
    st.text(alphabet="0123456789²³¹٣۴߅०১੨૩୪௫౬೭൮๙໒༣၄႙០᠑", min_size=1, max_size=25),
    segment,
)


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(table=segment, number=number_like, which=st.sampled_from(["detail", "before", "shoe"]))
def test_fuzzed_path_params_never_fault(
    live: LiveServer, player: dict[str, str], table: str, number: str, which: str
) -> None:
    quoted = quote(number, safe="")
    path = {
        "detail": f"/api/v1/records/{table}:{quoted}",
        "before": f"/api/v1/records?before={table}:{quoted}",
        "shoe": f"/api/v1/shoes/{table}/{quoted}",
    }[which]
    with one_connection(live) as client:
        answer = client.get(path, headers=player)
        if answer.status_code != 200:
            assert_error_shape(answer, {404, 422})
        assert client.get("/healthz").status_code == 200
