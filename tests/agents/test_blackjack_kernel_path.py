"""Blackjack-v0's two paths (the engine, the numba kernel with K=1) equal on seeded shoes."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("gymnasium", reason="the agents extra is not installed (.[agents])")

import numpy as np
from gymnasium.utils.env_checker import check_env

from boundless.agents.blackjack_env import BlackjackEnv
from boundless.core.errors import InvalidRuleSetError
from tests.agents.test_vector_env import EUROPEAN, VARIANT


def same(a: object, b: object) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[key], b[key]) for key in a)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(a, b)) and np.asarray(a).dtype == np.asarray(b).dtype
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def lockstep(engine: BlackjackEnv, kernel: BlackjackEnv, steps: int, seed: int) -> dict[str, int]:
    """Random actions (mostly legal, some illegal, some resets mid-round and new seeds) on
    both paths; every observation, reward, flag and info equal."""
    assert engine.path == "engine" and kernel.path == "kernel"
    rng = np.random.default_rng(seed)
    counts = {"rounds": 0, "splits": 0, "illegal": 0, "abandoned": 0, "reseeds": 0}
    pair = [engine.reset(seed=seed), kernel.reset(seed=seed)]
    assert same(pair[0], pair[1])
    info = pair[0][1]
    for _ in range(steps):
        draw = rng.random()
        if draw < 0.01:
            counts["reseeds"] += 1
            seed_now = int(rng.integers(1000))
            pair = [engine.reset(seed=seed_now), kernel.reset(seed=seed_now)]
            assert same(pair[0], pair[1])
            info = pair[0][1]
            continue
        if draw < 0.03 and info["legal_actions"] and info["legal_actions"] != ["bet_1"]:
            counts["abandoned"] += 1
            pair = [engine.reset(), kernel.reset()]
            assert same(pair[0], pair[1])
            info = pair[0][1]
            continue
        if draw < 0.08:
            action = int(rng.integers(engine.action_space.n))
            counts["illegal"] += not info["action_mask"][action]
        else:
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        counts["splits"] += engine.action_words[action] == "split" and bool(
            info["action_mask"][action]
        )
        a, b = engine.step(action), kernel.step(action)
        assert same(a, b), (action, a, b)
        info = a[4]
        if a[2]:
            counts["rounds"] += 1
            pair = [engine.reset(), kernel.reset()]
            assert same(pair[0], pair[1])
            info = pair[0][1]
    return counts


def test_boundless_takes_the_kernel_and_equals_the_engine() -> None:
    engine = BlackjackEnv(title="boundless", path="engine")
    kernel = BlackjackEnv(title="boundless")
    counts = lockstep(engine, kernel, 6000, seed=11)
    assert counts["rounds"] > 1500 and counts["splits"] > 30
    assert counts["illegal"] > 50 and counts["abandoned"] > 20 and counts["reseeds"] > 20


@pytest.mark.parametrize("text", [VARIANT, EUROPEAN], ids=["variant", "european"])
def test_every_switch_the_other_way_equals_the_engine(text: str, tmp_path: Path) -> None:
    path = tmp_path / "variant.toml"
    path.write_text(text)
    engine = BlackjackEnv(rules=path, path="engine")
    kernel = BlackjackEnv(rules=path, path="kernel")
    counts = lockstep(engine, kernel, 3000, seed=12)
    assert counts["rounds"] > 600 and counts["splits"] > 10


def test_the_gymnasium_checker_passes_on_both_paths() -> None:
    for path in ("engine", "kernel"):
        check_env(BlackjackEnv(title="boundless", path=path))


def test_which_path_a_configuration_takes() -> None:
    assert BlackjackEnv(title="boundless").path == "kernel"
    for options in ({"betting": True}, {"side_bets": True}, {"grade": True}):
        env = BlackjackEnv(title="boundless", **options)  # type: ignore[arg-type]
        assert env.path == "engine"
        with pytest.raises(InvalidRuleSetError, match="kernel path cannot play") as error:
            BlackjackEnv(title="boundless", path="kernel", **options)  # type: ignore[arg-type]
        assert "\n" not in str(error.value)
    assert BlackjackEnv(title="unlimited").path == "engine"  # chart splits, basic-strategy autoplay
    with pytest.raises(ValueError, match="path must be"):
        BlackjackEnv(title="boundless", path="fast")
