"""boundless/Blackjack-v0: the Gymnasium checker, masks equal to the engine, seeds, rewards."""

from __future__ import annotations

import pytest

gym = pytest.importorskip("gymnasium", reason="the agents extra is not installed (.[agents])")

from importlib.resources import files  # noqa: E402

import numpy as np  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402

from boundless.agents import ENV_ID  # noqa: E402
from boundless.agents.blackjack_env import PLAYER, BlackjackEnv  # noqa: E402
from boundless.agents.table import ACTION_WORDS, SPOT  # noqa: E402
from boundless.core.round import DECISIONS, INSURANCE  # noqa: E402
from boundless.core.round.checks import insurance_offer  # noqa: E402
from boundless.titles import shipped_title_keys  # noqa: E402


def engine_legal(env: BlackjackEnv) -> set[str]:
    """The legal answers as the engine itself says them (not through AgentTable)."""
    round_ = env.table.round
    assert round_ is not None
    if round_.phase == INSURANCE:
        offer = insurance_offer(round_, PLAYER, SPOT)
        return set() if offer is None else {offer, "decline"}
    if round_.phase == DECISIONS:
        return {action.word for action in round_.legal_actions(PLAYER, SPOT)}
    return set()


def play(env: BlackjackEnv, seed: int, rounds: int, chooser_seed: int) -> list[object]:
    """Random legal play; returns every observation, reward and mask for comparison."""
    rng = np.random.default_rng(chooser_seed)
    trace: list[object] = []
    obs, info = env.reset(seed=seed)
    for episode in range(rounds):
        if episode:
            obs, info = env.reset()
        done = False
        while not done:
            mask = info["action_mask"]
            action = int(rng.choice(np.flatnonzero(mask)))
            obs, reward, done, truncated, info = env.step(action)
            assert not truncated
            trace.append((action, reward, obs["hands"].tolist(), obs["seen"].tolist()))
    return trace


def test_the_gymnasium_checker_passes() -> None:
    env = gym.make(ENV_ID, title="boundless", betting=True, side_bets=True)
    check_env(env.unwrapped)


def test_made_by_id_from_a_rule_file() -> None:
    path = files("boundless.titles").joinpath("unlimited.toml")
    env = gym.make(f"boundless.agents:{ENV_ID}", rules=str(path))
    assert env.unwrapped.rules.key == "unlimited"


@pytest.mark.parametrize("title", shipped_title_keys())
def test_masks_are_exactly_the_engines_legal_actions(title: str) -> None:
    env = BlackjackEnv(title=title, path="engine")  # reads the engine's round
    rng = np.random.default_rng(7)
    _, info = env.reset(seed=3)
    asked = set()
    for _ in range(60):
        done = False
        while not done:
            mask = info["action_mask"]
            legal = {word for word, on in zip(env.action_words, mask, strict=True) if on}
            if legal and not next(iter(legal)).startswith("bet_"):
                assert legal == engine_legal(env)
                asked |= legal
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _, _, done, _, info = env.step(action)
        assert not info["action_mask"].any()
        _obs, info = env.reset()
    assert {"hit", "stand", "double"} <= asked


def test_seeds_reproduce_and_differ() -> None:
    env = BlackjackEnv(title="boundless", betting=True, side_bets=True)
    first = play(env, seed=11, rounds=30, chooser_seed=1)
    again = play(env, seed=11, rounds=30, chooser_seed=1)
    other = play(env, seed=12, rounds=30, chooser_seed=1)
    assert first == again
    assert first != other


def test_reward_is_the_engines_net_in_initial_units() -> None:
    env = BlackjackEnv(title="boundless", betting=True, bet_units=(3,), side_bets=True)
    _, info = env.reset(seed=5)
    unit = env.rules.limits.min_main_amount
    for _ in range(40):
        done = False
        while not done:
            _, reward, done, _, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
        round_ = env.table.round
        assert round_ is not None
        paid = int(round_.paid_by_player()[0]) - int(round_.staked_by_player()[0])
        assert reward == paid / unit == info["net_amount"] / unit
        assert int(round_.book.main[0]) == 3 * unit
        _obs, info = env.reset()


def test_the_shoe_carries_on_and_reshuffles_at_the_cut_card() -> None:
    env = BlackjackEnv(title="unlimited")
    obs, info = env.reset(seed=2)
    seen_totals, penetrations = [], []
    for _ in range(90):
        done = False
        while not done:
            obs, _, done, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        seen_totals.append(int(obs["seen"].sum()))
        penetrations.append(float(obs["penetration"][0]))
        obs, info = env.reset()
    assert max(penetrations) > env.rules.shoe.penetration  # the cut card came out
    drops = [i for i in range(1, 90) if seen_totals[i] < seen_totals[i - 1]]
    assert drops, "a new shoe starts its count again"
    for i in drops:
        assert penetrations[i] < penetrations[i - 1]


def test_an_illegal_action_is_left_to_autoplay_or_refused() -> None:
    env = BlackjackEnv(title="boundless", path="engine")
    env.reset(seed=9)
    env.step(ACTION_WORDS.index("hit"))  # illegal at the bet: bets 1 unit
    assert env.table.round is not None
    strict = BlackjackEnv(title="boundless", illegal_action="raise")
    strict.reset(seed=9)
    with pytest.raises(ValueError, match="not legal now"):
        strict.step(ACTION_WORDS.index("hit"))


def test_bad_arguments_get_one_line_errors() -> None:
    with pytest.raises(ValueError, match="bet_units"):
        BlackjackEnv(title="boundless", betting=True, bet_units=(0,))
    with pytest.raises(ValueError, match="unknown title"):
        BlackjackEnv(title="nope")


def test_a_reset_in_the_middle_of_a_round_cancels_it() -> None:
    env = BlackjackEnv(title="boundless", path="engine")
    env.reset(seed=4)
    for _ in range(20):
        _, _, done, _, _ = env.step(env.action_words.index("bet_1"))
        if not done:
            break
    round_ = env.table.round
    assert round_ is not None and not round_.over
    env.reset()
    assert round_.phase == "cancelled"
    assert env.table.net_amounts()[PLAYER] == 0
    env.step(env.action_words.index("bet_1"))
    assert env.table.round is not round_
