"""The cycle collector is paused exactly while a bulk write runs, and always resumed after."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from boundless.ledger import bulk as bulk_module
from boundless.ledger.collection import cycle_collection_paused
from boundless.ledger.records import PlayerSettlement
from tests.ledger.helpers import Run, fund


@pytest.fixture(autouse=True)
def collection_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_paused_inside_and_resumed_after_even_on_an_error() -> None:
    with cycle_collection_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(ValueError), cycle_collection_paused():
        raise ValueError("inside")
    assert gc.isenabled()


def test_a_collector_turned_off_by_the_caller_stays_off() -> None:
    gc.disable()
    with cycle_collection_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_nested_pauses_resume_only_at_the_outer_end() -> None:
    with cycle_collection_paused():
        with cycle_collection_paused():
            pass
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_bulk_settlement_runs_paused(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    fund(run, "p1")
    run(lambda ledger: ledger.stake_many("t", 1, [("p1", "p1.0", "main", 100)]))
    seen: list[bool] = []
    real = bulk_module.settlement_lines

    def spy(lines: list[PlayerSettlement]) -> list[PlayerSettlement]:
        seen.append(gc.isenabled())
        return real(lines)

    monkeypatch.setattr(bulk_module, "settlement_lines", spy)
    settled = run(lambda ledger: ledger.settle_slice("t", 1, [PlayerSettlement("p1", 100, 200)]))
    assert seen == [False]
    assert settled.amount_for("wallet:p1") == 200
    assert gc.isenabled()
