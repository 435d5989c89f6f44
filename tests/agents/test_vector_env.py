"""The numba vector environment against the engine: every card, mask, action and reward."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason="the agents extra is not installed (.[agents])")

from boundless.agents import vector_kernels as vk
from boundless.agents.table import SPOT, AgentTable, Bet
from boundless.agents.vector_env import VECTOR_ACTION_WORDS, VectorBlackjack, covered
from boundless.core.errors import InvalidRuleSetError
from boundless.titles import load_game, load_rule_file, shipped_title_keys

PLAYER = "agent"


def engine_mask(table: AgentTable, betting: bool) -> list[int]:
    legal = {"bet_1"} if betting else set(table.legal_words(PLAYER))
    return [int(word in legal) for word in VECTOR_ACTION_WORDS]


def round_cards(table: AgentTable) -> tuple[list[list[int]], list[int]]:
    round_ = table.round
    assert round_ is not None
    path = round_.path_of(round_.position(PLAYER, SPOT))
    return [[int(c) for c in hand.cards] for hand in path.hands], [
        int(c) for c in round_.dealer_cards
    ]


VARIANT = """
extends = "boundless"
[title]
key = "variant"
name = "Every switch the other way"
version = "1"
[shoe]
decks = 2
penetration = 0.5
burn_after_shuffle = false
[dealer]
hole_card = "peek"
peek_up_values = [1, 10]
hits_soft_17 = true
[payouts]
blackjack = "6:5"
[double]
allowed = true
after_split = true
on_split_aces = true
[split]
allowed = true
pair_by = "rank"
split_aces_one_card = false
max_hands = 4
resplit_aces = true
[surrender]
allowed = true
refund = "1/2"
up_values = [9, 10, 1]
[insurance]
offered = true
cost = "1/2"
pays = "2:1"
blackjack_offer = "even_money"
"""


# No hole card (European): the dealer's second card after the players; a dealer blackjack
# takes only the original bet.
EUROPEAN = VARIANT.replace('hole_card = "peek"', 'hole_card = "none"').replace(
    "peek_up_values = [1, 10]", "peek_up_values = []"
)


@pytest.mark.parametrize("title", ["boundless", "variant", "european"])
def test_equal_to_the_engine_card_for_card(title: str, tmp_path: Path) -> None:
    if title != "boundless":
        path = tmp_path / f"{title}.toml"
        path.write_text(VARIANT if title == "variant" else EUROPEAN)
        rules, chart = load_rule_file(path)
        vector = VectorBlackjack(4, rules=path, shuffle="engine")
    else:
        rules, chart = load_game(title)
        vector = VectorBlackjack(4, title=title, shuffle="engine")
    seeds = [5, 6, 7, 8]
    tables = [AgentTable(rules, chart, (PLAYER,), seed=seed) for seed in seeds]
    _, info = vector.reset(seeds)
    betting = [True] * len(seeds)
    rng = np.random.default_rng(0)
    rounds = splits = insured = 0
    for _ in range(1000):
        actions = np.zeros(len(seeds), dtype=np.int64)
        for k, table in enumerate(tables):
            mask = engine_mask(table, betting[k])
            assert info["action_mask"][k].tolist() == mask
            actions[k] = rng.choice(np.flatnonzero(mask))
            word = VECTOR_ACTION_WORDS[actions[k]]
            splits += word == "split"
            insured += word in ("insurance", "even_money")
            if betting[k]:
                table.open_round({PLAYER: Bet(rules.limits.min_main_amount)})
                betting[k] = False
            else:
                table.answer(PLAYER, word)
        obs, rewards, done, _, info = vector.step(actions)
        for k, table in enumerate(tables):
            assert bool(done[k]) == table.over
            seen = table.seen_ranks()
            assert obs[k, 7:16].tolist() == seen[:9].tolist()
            assert obs[k, 16] == seen[9:].sum()
            if table.over:
                rounds += 1
                hands, dealer = round_cards(table)
                a = vector.hand_arrays
                assert hands == [
                    vector.hc[k, h, : a["hn"][k, h]].tolist() for h in range(vector.nh[k])
                ]
                assert dealer == vector.dc[k, : vector.dn[k]].tolist()
                net = table.net_amounts()[PLAYER] / rules.limits.min_main_amount
                assert rewards[k] == net
                betting[k] = True
            else:
                assert rewards[k] == 0.0
            cycle_shoe = table.cycle.shoe
            assert cycle_shoe is not None and vector.pos[k] == cycle_shoe.position
    assert rounds > 200 and splits > 10 and insured > 3


def test_an_illegal_action_is_the_titles_autoplay_as_in_the_engine() -> None:
    rules, chart = load_game("boundless")
    tables = [AgentTable(rules, chart, (PLAYER,), seed=seed) for seed in (1, 2)]
    vector = VectorBlackjack(2, title="boundless", shuffle="engine")
    vector.reset([1, 2])
    rounds = 0
    for _ in range(300):
        _, rewards, done, _, _ = vector.step(np.full(2, vk.SUR20))  # never legal in Boundless
        for k, table in enumerate(tables):
            if table.over:
                table.open_round({PLAYER: Bet(rules.limits.min_main_amount)})
            else:
                table.answer(PLAYER, None)  # no answer: autoplay, insurance declined
            assert bool(done[k]) == table.over
            if table.over:
                rounds += 1
                assert rewards[k] == table.net_amounts()[PLAYER] / rules.limits.min_main_amount
    assert rounds > 100


def test_titles_it_does_not_cover_are_refused_with_one_line() -> None:
    for key in shipped_title_keys():
        rules, _ = load_game(key)
        reason = covered(rules)
        if reason is None:
            VectorBlackjack(2, title=key)
            continue
        with pytest.raises(InvalidRuleSetError, match="cannot play") as error:
            VectorBlackjack(2, title=key)
        assert "\n" not in str(error.value)
    assert covered(load_game("boundless")[0]) is None


def test_fast_shuffle_is_seeded() -> None:
    def run(seed: int) -> list[float]:
        vector = VectorBlackjack(8, title="boundless")
        _, info = vector.reset(seed)
        total = []
        for _ in range(300):
            actions = np.argmax(info["action_mask"], axis=1)
            _, rewards, _, _, info = vector.step(actions)
            total.append(float(rewards.sum()))
        return total

    assert run(3) == run(3)
    assert run(3) != run(4)
