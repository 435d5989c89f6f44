"""The wallet options and commands refuse bad input with one line and change nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from boundless.wallet.signing import SECRET_VARIABLE
from tests.cli.cli_helpers import invoke


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["serve", "--wallet", "paper"], "--wallet 'paper': choose one of internal, seamless"),
        (["serve", "--wallet", "seamless"], f"set {SECRET_VARIABLE}"),
        (["serve", "--wallet-url", "http://w"], "--wallet-url is for --wallet seamless"),
        (["serve", "--wallet", "seamless", "--bots", "2"], "bots play on coins we grant"),
        (["serve", "--currency", "euro"], "--currency 'euro'"),
        (["wallet", "demo-operator", "--port", "9"], f"set {SECRET_VARIABLE}"),
        (
            ["wallet", "reconcile", "--date", "yesterday", "--wallet-url", "http://w"],
            "--date 'yesterday': give a day as YYYY-MM-DD",
        ),
    ],
)
def test_bad_wallet_input_is_one_line(
    args: list[str], says: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(SECRET_VARIABLE, raising=False)
    monkeypatch.chdir(tmp_path)
    outcome = invoke(*args)
    assert outcome.code == 2, outcome.output
    assert outcome.stderr.count("\n") == 1 and says in outcome.stderr, outcome.stderr


def test_seamless_needs_a_wallet_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SECRET_VARIABLE, "x" * 20)
    monkeypatch.chdir(tmp_path)
    outcome = invoke("serve", "--wallet", "seamless", "--wallet-url", "ftp://w")
    assert outcome.code == 2 and "needs --wallet-url http(s)://" in outcome.stderr
    assert not (tmp_path / "data").exists()  # refused before anything was made
