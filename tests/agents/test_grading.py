"""Exact regret: the grade's values agree with the analysis, the optimum costs nothing, a
fixed wrong move costs exactly its value gap."""

from __future__ import annotations

import pytest

pytest.importorskip("gymnasium", reason="the agents extra is not installed (.[agents])")

import numpy as np

from boundless.agents.baselines import BasicStrategyAgent, OptimalAgent
from boundless.agents.blackjack_env import PLAYER, BlackjackEnv
from boundless.agents.table import SPOT
from boundless.core.cards import Card
from boundless.core.hands import best_total, is_natural
from boundless.core.round.dealer import dealer_draws
from boundless.core.rules import RuleSet
from boundless.math.exact import first_move_values


def first_decision(env: BlackjackEnv, seed: int) -> dict[str, object]:
    """Reset on a new shoe and bet; the info of the round's first decision (redealing
    rounds that end without one)."""
    _obs, info = env.reset(seed=seed)
    while True:
        _obs, _, done, _, info = env.step(env.action_words.index("bet_1"))
        while not done and info["legal_actions"] and "decline" in info["legal_actions"]:
            _obs, _, done, _, info = env.step(env.action_words.index("decline"))
        if not done:
            return info
        _obs, info = env.reset()


@pytest.mark.parametrize("title", ["boundless", "unlimited"])
def test_first_decision_values_are_the_analysis_on_the_shoe_as_it_stands(title: str) -> None:
    env = BlackjackEnv(title=title, grade=True)
    for seed in (1, 2):
        info = first_decision(env, seed)
        round_ = env.table.round
        assert round_ is not None and round_.up_card is not None
        hand = round_.path_of(round_.position(PLAYER, SPOT)).hand
        if len(hand.cards) != 2 or hand.from_split:
            continue
        ranks = env.table.unseen_ranks_before_round()
        first, second = (card.value for card in hand.cards)
        expected = first_move_values(
            env.rules, round_.up_card.value, first, second, shoe=ranks.tolist()
        )
        grade = info["grade"]
        assert grade is not None
        for word, value in grade["values"].items():
            if word in expected:
                assert value == pytest.approx(expected[word], abs=1e-12)


def test_the_optimal_agent_has_no_regret() -> None:
    env = BlackjackEnv(title="boundless", grade=True)
    optimal = OptimalAgent(env)
    _obs, info = env.reset(seed=4)
    total, graded = 0.0, 0
    for _ in range(25):
        done = False
        while not done:
            _obs, _, done, _, info = env.step(optimal.act(info))
            if info["graded"] is not None:
                graded += 1
                assert info["graded"]["regret"] == 0.0
        total += info["episode_regret"]
        _obs, info = env.reset()
    assert graded > 20
    assert total == 0.0


def test_a_fixed_wrong_move_costs_exactly_its_value_gap() -> None:
    env = BlackjackEnv(title="boundless", grade=True)
    _obs, info = env.reset(seed=8)
    checked = 0
    for _ in range(40):
        episode = 0.0
        done = False
        while not done:
            grade = info["grade"]
            legal = info["legal_actions"]
            if grade is not None:
                values = grade["values"]
                worst = min(values, key=values.get)
                _obs, _, done, _, info = env.step(env.action_words.index(worst))
                gap = values[grade["best"]] - values[worst]
                assert info["graded"]["taken"] == worst
                assert info["graded"]["regret"] == pytest.approx(gap, abs=1e-12)
                episode += gap
                checked += gap > 0
            else:
                _obs, _, done, _, info = env.step(env.action_words.index(legal[0]))
        assert info["episode_regret"] == pytest.approx(episode, abs=1e-9)
        _obs, info = env.reset()
    assert checked > 20


def test_basic_strategy_agent_plays_the_chart_and_loses_a_little_to_the_optimum() -> None:
    env = BlackjackEnv(title="boundless", grade=True)
    agent = BasicStrategyAgent(env)
    _obs, info = env.reset(seed=6)
    regrets = []
    for _ in range(40):
        done = False
        while not done:
            _obs, _, done, _, info = env.step(agent.act(info))
        regrets.append(info["episode_regret"])
        _obs, info = env.reset()
    assert min(regrets) >= 0.0
    assert float(np.mean(regrets)) < 0.02  # basic strategy is within a few % of the optimum


def dealer_result(total: int, up: Card, cards: list[Card], rules: RuleSet) -> float:
    """Standing on ``total``: +1, 0 or -1 against the dealer drawing ``cards`` after ``up``."""
    hand = [up]
    for card in cards:
        if not dealer_draws(hand, rules):
            break
        hand.append(card)
    dealer = best_total(hand)
    return 1.0 if dealer > 21 or total > dealer else 0.0 if total == dealer else -1.0


def sampled_stand_value(env: BlackjackEnv, samples: int) -> tuple[float, float]:
    """Standing's mean and standard error by dealing the dealer's hand from the cards the player
    has not seen (no dealer blackjack where the dealer peeked): an independent check."""
    table = env.table
    round_ = table.round
    assert round_ is not None and round_.up_card is not None
    unseen = table.unseen_ranks_before_round()
    for card in table.public_cards():
        unseen[card.rank - 1] -= 1
    deck = [Card.of(rank, 0) for rank, count in enumerate(unseen.tolist(), start=1)
            for _ in range(count)]  # fmt: skip
    total = round_.path_of(round_.position(PLAYER, SPOT)).hand.total
    rng = np.random.default_rng(0)
    results = []
    while len(results) < samples:
        order = rng.permutation(len(deck))[:12]
        cards = [deck[i] for i in order]
        if is_natural((round_.up_card, cards[0])):
            continue  # the peek found none
        results.append(dealer_result(total, round_.up_card, cards, env.rules))
    values = np.array(results)
    return float(values.mean()), float(values.std() / np.sqrt(samples))


def test_stand_values_agree_with_dealing_from_the_unseen_cards() -> None:
    env = BlackjackEnv(title="boundless", grade=True)
    _, info = env.reset(seed=21)
    checked = {"first": 0, "split": 0}
    for _ in range(400):
        done = False
        while not done:
            grade, legal = info["grade"], info["legal_actions"]
            round_ = env.table.round
            if grade is not None and "stand" in grade["values"] and round_ is not None:
                path = round_.path_of(round_.position(PLAYER, SPOT))
                kind = "split" if path.hand.from_split and path.current >= 1 else "first"
                if checked[kind] < 1 and path.hand.total >= 12:
                    mean, error = sampled_stand_value(env, 20_000)
                    assert abs(grade["values"]["stand"] - mean) < 4.5 * error
                    checked[kind] += 1
            word = "split" if "split" in legal else ("hit" if "hit" in legal else legal[0])
            word = (
                "stand" if "stand" in legal and round_ is not None and _total(env) >= 15 else word
            )
            _, _, done, _, info = env.step(env.action_words.index(word))
        if all(checked.values()):
            break
        _, info = env.reset()
    assert all(checked.values()), checked


def _total(env: BlackjackEnv) -> int:
    round_ = env.table.round
    assert round_ is not None
    return round_.path_of(round_.position(PLAYER, SPOT)).hand.total
