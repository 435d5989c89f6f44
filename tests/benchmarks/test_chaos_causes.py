"""The chaos benchmark's attribution (no cluster runs here): every cancellation gets a cause from
its reason and the fault before it, and the longest stall names the faults around it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("nats", reason="nats-py is not installed (pip install -e '.[cluster]')")
BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from cluster_chaos import STOP_CAUSE, Faults, cause_of, stall_cause  # noqa: E402


def faults_at(*made: tuple[str, float, float]) -> Faults:
    faults = Faults(1, 0, 0, None, None, Path(), Path())  # type: ignore[arg-type]
    for kind, at, until in made:
        faults.done.append(kind)
        faults.at.append(at)
        faults.until.append(until)
    return faults


def test_every_cancellation_reason_has_a_cause() -> None:
    faults = faults_at(("nats", 100.0, 110.0), ("database 12 s", 200.0, 212.0))
    ledger = "no bets could be staked: the coin ledger is away; nothing was taken"
    assert cause_of(ledger, faults, 205.0) == "no_stakes:database"
    assert cause_of("no bets were placed", faults, 105.0) == "no_bets:nats"
    assert cause_of("no bets were placed", faults, 500.0) == "no_bets:none"
    changed = "the table's coordinator changed during the round; it could not be continued"
    assert cause_of(changed, faults, 201.0) == "takeover:database"
    assert cause_of("the table was stopped during the round", faults, 900.0) == STOP_CAUSE
    assert cause_of("a strange reason", faults, 120.0) == "other:nats"


def test_the_longest_stall_names_the_fault_before_it_and_those_during_it() -> None:
    faults = faults_at(("database 19 s", 100.0, 119.0), ("coordinator", 130.0, 130.0))
    stalls = {"stall_from": 101.0, "stall_after": "round_settling", "max_stall_seconds": 30.0}
    assert stall_cause(stalls, faults) == {
        "after_event": "round_settling",
        "last_fault": "database 19 s",
        "seconds_after_that_fault": 1.0,
        "fault_still_on": True,
        "faults_during": [["coordinator", 29.0]],
    }
    assert stall_cause({"max_stall_seconds": 0.0}, faults) == {}
