"""The shared table in PettingZoo: the API test, same cards for all, rewards from the engine."""

from __future__ import annotations

import pytest

pytest.importorskip("pettingzoo", reason="the agents extra is not installed (.[agents])")

import numpy as np
from pettingzoo.test import api_test

from boundless.agents.shared_table_env import SharedTableEnv
from boundless.agents.table import ACTION_WORDS


@pytest.mark.parametrize("title", ["boundless", "unlimited"])
def test_the_pettingzoo_api_test_passes(title: str) -> None:
    api_test(SharedTableEnv(title=title, players=3, rounds=3), num_cycles=200)


def run(env: SharedTableEnv, seed: int, chooser: int) -> list[tuple[str, int | None, float]]:
    rng = np.random.default_rng(chooser)
    env.reset(seed=seed)
    trace = []
    for agent in env.agent_iter():
        obs, reward, done, truncated, info = env.last()
        action = None
        if not (done or truncated):
            legal = np.flatnonzero(obs["action_mask"])
            assert len(legal) and info["legal_actions"]
            action = int(rng.choice(legal)) if agent != "player_2" else None  # 2 never acts
        trace.append((agent, action, reward))
        env.step(action)
    return trace


def test_everyone_plays_the_same_cards_and_the_silent_are_autoplayed() -> None:
    env = SharedTableEnv(title="boundless", players=3, rounds=1)
    rng = np.random.default_rng(3)
    env.reset(seed=4)
    for _ in range(30):
        rewards = {}
        for agent in env.agent_iter():
            obs, reward, done, _, _ = env.last()
            if done:
                rewards[agent] = reward
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(None if agent == "player_2" else int(rng.choice(legal)))
        round_ = env.table.round
        assert round_ is not None and round_.over
        assert list(round_.spot_cards) == [1]  # one spot: its two cards are everyone's
        for position in range(round_.position_count()):
            path = round_.path_of(position)
            assert path.hands[0].cards[0] == round_.spot_cards[1][0]
            if len(path.hands) == 1:
                assert path.hands[0].cards[:2] == round_.spot_cards[1]
        silent = round_.path_of(round_.position("player_2", 1))
        assert all(move.source.word != "player" for hand in silent.hands for move in hand.moves)
        net = env.table.net_amounts()
        assert rewards == {agent: net[agent] / env.unit_amount for agent in env.possible_agents}
        env.reset()


def test_seeds_reproduce() -> None:
    env = SharedTableEnv(title="unlimited", players=2, rounds=5, bet_units=(1, 2))
    assert run(env, 3, 1) == run(env, 3, 1)
    assert run(env, 3, 1) != run(env, 4, 1)


def test_a_non_shared_title_takes_one_player_only() -> None:
    with pytest.raises(ValueError, match="not a shared table"):
        SharedTableEnv(title="boo-bucks", players=2)
    assert len(ACTION_WORDS) == 9


def test_graded_agents_regret_their_gaps_and_the_optimum_nothing() -> None:
    env = SharedTableEnv(title="boundless", players=2, rounds=12, grade=True)
    env.reset(seed=5)
    gaps = {agent: 0.0 for agent in env.possible_agents}
    graded = 0
    final = {}
    last: dict[str, str] = {}
    for agent in env.agent_iter():
        _, _, done, _, info = env.last()
        if done:
            final[agent] = info["episode_regret"]
            env.step(None)
            continue
        grade = info.get("grade")
        if grade is None:
            env.step(env.action_words.index(info["legal_actions"][0]))
            continue
        if info["graded"] is not None:  # what the agent's last answer cost
            assert info["graded"]["taken"] == last[agent]
        values = grade["values"]
        word = grade["best"] if agent == "player_0" else min(values, key=values.get)
        last[agent] = word
        gaps[agent] += values[grade["best"]] - values[word]
        graded += 1
        env.step(env.action_words.index(word))
    assert graded > 20
    assert final["player_0"] == 0.0
    assert final["player_1"] == pytest.approx(gaps["player_1"], abs=1e-9)
    assert final["player_1"] > 0
