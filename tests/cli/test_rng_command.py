"""``boundless rng-test``: the report, its JSON, its exit codes."""

from __future__ import annotations

import json
import random

import pytest
from typer.testing import CliRunner

import boundless.entropy
from boundless.cli.main import app


class BrokenSource:
    """Never swaps: the shoe comes out as it went in."""

    def randbelow(self, bound: int) -> int:
        return bound - 1

    def token_bytes(self, count: int) -> bytes:
        return random.Random(1).randbytes(count)


def test_the_json_report_has_every_test_with_a_verdict() -> None:
    answer = CliRunner().invoke(app, ["rng-test", "--shuffles", "600", "--json"])
    report = json.loads(answer.stdout)
    assert answer.exit_code == (0 if report["passed"] else 1)
    assert report["shuffles"] == 600 and report["decks"] == 6 and report["alpha"] == 0.01
    assert [test["key"] for test in report["tests"]] == [
        "positions",
        "permutations",
        "runs",
        "serial",
        "monobit",
    ]
    for test in report["tests"]:
        assert 0.0 <= test["p_value"] <= 1.0
        assert test["passed"] == (test["p_value"] >= 0.01)


def test_a_failing_source_exits_1(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(boundless.entropy, "CryptoSource", BrokenSource)
    answer = CliRunner().invoke(app, ["rng-test", "--shuffles", "600", "--decks", "1"])
    assert answer.exit_code == 1
    assert "FAIL" in answer.stdout


def test_too_few_shuffles_is_a_usage_error() -> None:
    answer = CliRunner().invoke(app, ["rng-test", "--shuffles", "10"])
    assert answer.exit_code == 2
    assert "--shuffles" in answer.output
