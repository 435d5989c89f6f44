"""``--backend ray``: the same seeded chunks as Ray tasks give the local pool's figures.

Needs the optional ``cluster`` extra (``pip install -e '.[cluster]'``); a local Ray instance
(``ray.init()``) stands in for a cluster.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_simulate_cli import app
from typer.testing import CliRunner

from boundless.core.strategy_chart import StrategyChart
from boundless.math.exact import derive_basic_strategy
from boundless.math.simulation import BackendUnavailableError, build_spec, simulate_spec
from boundless.titles import load_game, load_rule_file

runner = CliRunner()


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    ray = pytest.importorskip(
        "ray", reason="Ray is not installed: pip install -e '.[cluster]' to run this test"
    )
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


RESPLIT_RULES = Path(__file__).parent / "rules" / "resplit-aces.toml"


@pytest.mark.usefixtures("local_ray")
@pytest.mark.parametrize("resplits", [False, True], ids=["boo-bucks", "resplit-aces"])
def test_ray_tasks_give_the_local_pools_figures_for_a_seed(resplits: bool) -> None:
    if resplits:
        rules, _ = load_rule_file(RESPLIT_RULES)
        chart: StrategyChart | None = derive_basic_strategy(rules)
    else:
        rules, chart = load_game("boo-bucks")
    spec = build_spec(rules, chart, "basic")
    on_ray = simulate_spec(spec, 60_000, seed=11, chunk_rounds=15_000, backend="ray")
    local = simulate_spec(spec, 60_000, seed=11, workers=2, chunk_rounds=15_000)
    assert on_ray.backend == "ray" and local.backend == "local"
    assert on_ray.rounds == local.rounds and on_ray.shoes == local.shoes
    assert on_ray.estimates == local.estimates
    assert on_ray.history == local.history


@pytest.mark.usefixtures("local_ray")
def test_the_command_runs_on_ray() -> None:
    common = ["simulate", "boundless", "--rounds", "40000", "--seed", "4", "--json"]
    on_ray = runner.invoke(app(), [*common, "--backend", "ray"])
    assert on_ray.exit_code == 0, on_ray.output
    local = runner.invoke(app(), [*common, "--workers", "2"])
    ray_json, local_json = json.loads(on_ray.stdout), json.loads(local.stdout)
    assert ray_json["backend"] == "ray"
    assert ray_json["main"] == local_json["main"]
    assert ray_json["side_bets"] == local_json["side_bets"]


def test_without_ray_the_backend_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now raises ImportError
    rules, chart = load_game("boundless")
    spec = build_spec(rules, chart, "basic")
    with pytest.raises(BackendUnavailableError, match=r"pip install -e '\.\[cluster\]'"):
        simulate_spec(spec, 1000, seed=1, backend="ray")
    result = runner.invoke(app(), ["simulate", "boundless", "--rounds", "10", "--backend", "ray"])
    assert result.exit_code == 2 and "the ray backend needs Ray" in result.output


def test_an_address_needs_the_ray_backend() -> None:
    result = runner.invoke(app(), ["simulate", "boundless", "--address", "10.0.0.1:6379"])
    assert result.exit_code == 2 and "--address names a Ray cluster" in result.output
