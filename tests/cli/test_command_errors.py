"""Bad command lines get one clear refusal (exit 2), never a traceback."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from cli_helpers import assert_refused, invoke

from boundless.core.amount_limits import MAX_AMOUNT

HUGE = "99999999999999999999999999"
GOLDEN = Path(__file__).parents[1] / "core" / "golden" / "scenarios"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _bad_urls(tmp_path: Path) -> list[tuple[str, str]]:
    not_a_database = tmp_path / "notes.txt"
    not_a_database.write_text("hello, this is not SQLite\n" * 200)
    return [
        (f"postgresql+psycopg://postgres@127.0.0.1:{_free_port()}/test", "cannot use the database"),
        (f"sqlite:///{not_a_database}", "not a database"),
        (f"sqlite:///{tmp_path}", "is a directory"),
        ("nosuch://x", "unknown database kind 'nosuch'"),
        ("mysql://someone@127.0.0.1/db", "driver for 'mysql' is not installed"),
        ("::not a url::", "is not a database URL"),
    ]


@pytest.mark.parametrize("case", range(6))
def test_ledger_check_refuses_an_unusable_database(tmp_path: Path, case: int) -> None:
    url, words = _bad_urls(tmp_path)[case]
    assert_refused(invoke("ledger", "check", "--database-url", url), words)


@pytest.mark.parametrize("case", range(6))
def test_serve_refuses_an_unusable_database_before_announcing(tmp_path: Path, case: int) -> None:
    url, words = _bad_urls(tmp_path)[case]
    outcome = invoke(
        "serve", "--database-url", url, "--data-dir", str(tmp_path / "d"), "--port", "1"
    )
    assert_refused(outcome, words)
    assert "serving at" not in outcome.output


def test_serve_refuses_a_data_dir_it_cannot_create() -> None:
    outcome = invoke("serve", "--data-dir", "/proc/nope", "--port", str(_free_port()))
    assert_refused(outcome, "--data-dir /proc/nope", "cannot create")
    assert "serving at" not in outcome.output


@pytest.mark.parametrize("port", ["99999", "-1", "65536", "0"])
def test_serve_checks_the_port_range(port: str) -> None:
    outcome = invoke("serve", "--port", port)
    assert outcome.code == 2, outcome.output
    assert "--port" in outcome.stderr
    assert "serving at" not in outcome.output


def test_serve_says_when_the_port_is_taken(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        outcome = invoke("serve", "--data-dir", str(tmp_path), "--port", str(port))
    assert_refused(outcome, f"cannot listen on 127.0.0.1:{port}", "already listening")
    assert "serving at" not in outcome.output


def test_serve_refuses_an_unknown_log_level(tmp_path: Path) -> None:
    outcome = invoke("serve", "--data-dir", str(tmp_path), "--log-level", "loud")
    assert_refused(outcome, "--log-level 'loud'")


def test_play_refuses_a_balance_beyond_the_maximum() -> None:
    outcome = invoke("play", "--balance", HUGE, "--seed", "1", input_text="q\n")
    assert outcome.code == 2, outcome.output
    assert "--balance" in outcome.stderr
    assert "Final" not in outcome.output


def test_play_accepts_the_maximum_balance() -> None:
    outcome = invoke(
        "play", "--balance", str(MAX_AMOUNT), "--seed", "1", "--bots", "0", input_text="q\n"
    )
    assert outcome.code == 0, outcome.output
    assert "Final" in outcome.output


def test_play_checks_the_reveal_dir_before_the_first_round() -> None:
    outcome = invoke("play", "--reveal-dir", "/proc/x", "--seed", "1", input_text="q\n")
    assert_refused(outcome, "--reveal-dir /proc/x")
    assert "Final" not in outcome.output


def test_play_names_the_title_option() -> None:
    assert_refused(invoke("play", "--title", "nope", input_text="q\n"), "--title 'nope'")


@pytest.mark.parametrize("field", ["balance", "main"])
def test_replay_refuses_amounts_beyond_the_maximum(tmp_path: Path, field: str) -> None:
    data = json.loads((GOLDEN / "all_side_options_one_round.json").read_text())
    player = data["players"][0]
    if field == "balance":
        player["balance"] = int(HUGE)
    else:
        player["bets"]["main"] = int(HUGE)
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(data))
    assert_refused(invoke("replay", str(path)), f"{MAX_AMOUNT:,}")


@pytest.mark.parametrize("level", ["warning", "trace"])
def test_serve_announces_the_url_once_it_answers_there(tmp_path: Path, level: str) -> None:
    import signal
    import subprocess
    import sys
    import urllib.request

    port = _free_port()
    command = [sys.executable, "-m", "boundless.cli.main", "serve", "--port", str(port)]
    command += ["--data-dir", str(tmp_path), "--log-level", level]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        first = server.stdout.readline()  # the log goes to stderr, at any level
        assert first == f"Boundless is serving at http://127.0.0.1:{port}/\n", first
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as response:
            assert response.status == 200
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--timer-scale", "inf"], "--timer-scale inf"),
        (["--decision-seconds", "inf"], "--decision-seconds inf"),
        (["--timer-scale", "1e308"], "--timer-scale 1e+308: give a number from 0 to 1000"),
        (["--betting-seconds", "1e12"], "--betting-seconds 1e+12: give a number from 0 to 86400"),
        (["--forwarded-allow-ips", "proxy.example"], "--forwarded-allow-ips: 'proxy.example'"),
        (["--host", "nonexistent.invalid"], "--host 'nonexistent.invalid'"),
        (["--starting-grant", HUGE], "--starting-grant"),
        (["--signup-rate", "ten a minute"], "--signup-rate: sign-up rate 'ten a minute'"),
        (["--web-dir", "/nonexistent"], "--web-dir /nonexistent"),
    ],
)
def test_serve_refuses_other_bad_options(tmp_path: Path, args: list[str], words: str) -> None:
    outcome = invoke("serve", "--data-dir", str(tmp_path), "--port", str(_free_port()), *args)
    assert_refused(outcome, words)
    assert "serving at" not in outcome.output


@pytest.mark.parametrize("args", [["--bots", HUGE], ["--bots", "51"], ["--timer-scale", "nan"]])
def test_serve_range_checks_counts_and_scales(args: list[str]) -> None:
    outcome = invoke("serve", *args)
    assert outcome.code == 2 and args[0] in outcome.stderr


def test_simulate_names_the_seed_option() -> None:
    outcome = invoke("simulate", "boundless", "--seed", "-1", "--rounds", "10")
    assert outcome.code == 2 and "--seed" in outcome.stderr


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        (["rng-test", "--shuffles", "0"], ("--shuffles", "greater than or equal to 600")),
        (["rng-test", "--shuffles", "-1"], ("--shuffles", "greater than or equal to 600")),
        (["rng-test", "--shuffles", HUGE], ("--shuffles", "less than or equal to 10000000")),
        (["rng-test", "--shuffles", "many"], ("--shuffles", "valid integer")),
        (["rng-test", "--loud"], ("No such option: --loud",)),
        (["rtp", "--rules"], ("--rules", "requires an argument")),
        (["report", "boundless"], ("Missing option '--out'",)),
        (["simulate", "boundless", "--rounds", HUGE], ("--rounds", "less than or equal to")),
        (["report", "boundless", "--out", "r.html", "--rounds", HUGE], ("--rounds",)),
    ],
)
def test_a_command_line_typer_refuses_is_one_line_too(
    arguments: list[str], words: tuple[str, ...]
) -> None:
    outcome = invoke(*arguments)
    assert_refused(outcome, *words)
    assert len(outcome.stderr.strip().splitlines()) == 1, outcome.stderr
    assert "--help)" in outcome.stderr
