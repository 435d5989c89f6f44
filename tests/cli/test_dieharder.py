"""``boundless rng-test --dieharder``: dieharder's result lines read back, the skip where it is
not installed, and real runs on the production source and on a broken one (which must fail)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from boundless.cli import dieharder as module
from boundless.cli.dieharder import dieharder_path, parse_results, run_dieharder, uniformity_p
from boundless.cli.main import app
from boundless.entropy import CryptoSource

TABLE = """#=============================================================================#
        test_name   |ntup| tsamples |psamples|  p-value |Assessment
#=============================================================================#
   diehard_birthdays|   0|       100|     100|0.91944382|  PASSED
      diehard_operm5|   0|   1000000|     100|0.00012345|   WEAK
 sts_serial|  16|    100000|     100|0.00000000|  FAILED
"""
NEEDS_DIEHARDER = pytest.mark.skipif(
    dieharder_path() is None, reason="dieharder is not installed (apt-get install dieharder)"
)


def test_result_lines_are_read_back() -> None:
    results = parse_results(TABLE)
    assert [(r.test, r.ntup, r.psamples, r.verdict) for r in results] == [
        ("diehard_birthdays", 0, 100, "PASSED"),
        ("diehard_operm5", 0, 100, "WEAK"),
        ("sts_serial", 16, 100, "FAILED"),
    ]
    assert results[0].p_value == 0.91944382
    assert uniformity_p([0.5]) is None
    assert uniformity_p([0.01, 0.02, 0.03, 0.01, 0.02]) < 0.01  # p-values piled near 0
    assert uniformity_p([0.1, 0.3, 0.5, 0.7, 0.9]) > 0.5


def test_skipped_with_one_line_where_not_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(module, "dieharder_path", lambda: None)
    result = CliRunner().invoke(app, ["rng-test", "--shuffles", "600", "--json", "--dieharder"])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines == ["dieharder: not installed (Debian: apt-get install dieharder); skipped"]
    assert "dieharder" not in json.loads(result.stdout)


class Zeros:
    def token_bytes(self, count: int) -> bytes:
        return bytes(count)


@NEEDS_DIEHARDER
def test_a_broken_source_fails_and_the_production_source_passes() -> None:
    executable = dieharder_path()
    assert executable is not None
    broken = run_dieharder(executable, Zeros(), [0], 20)
    assert not broken.passed and broken.results[0].verdict == "FAILED"
    good = run_dieharder(executable, CryptoSource(), [0], 20)
    assert good.results[0].test == "diehard_birthdays" and good.bytes_streamed > 0
    assert good.results[0].verdict in ("PASSED", "WEAK")  # FAILED needs p < 1e-6


@NEEDS_DIEHARDER
def test_the_command_reports_dieharder_beside_the_battery() -> None:
    result = CliRunner().invoke(
        app,
        ["rng-test", "--shuffles", "600", "--json", "--dieharder", "--dieharder-test", "0"],
    )
    body = json.loads(result.stdout)
    assert {test["key"] for test in body["tests"]} >= {"positions", "monobit"}
    (line,) = body["dieharder"]["results"]
    assert line["test"] == "diehard_birthdays" and line["psamples"] == 100
    assert result.exit_code == (0 if body["passed"] and body["dieharder"]["passed"] else 1)
