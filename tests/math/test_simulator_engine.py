"""The simulator's kernel against the real engine, card for card.

Shoes are shuffled by the engine's own ShoeCycle (seeded) and played by SharedRound: with the
chart's decisions fed in (``basic``) or with no decisions at all, so the engine's autoplay acts
(``autoplay``). The kernel then plays the same shoe order with the same wheel numbers. Per round
both must agree on the cards of every hand and of the dealer, the cards used, each hand's status
and stake, the net result of the main bet and the payout of every side bet staked.
"""

from __future__ import annotations

from collections import Counter

import pytest
from simulator_engine_play import play_engine_shoe
from simulator_helpers import (
    POLICIES,
    TITLES,
    comparable,
    events,
    game,
    spec_of,
    wheel_numbers,
)

from boundless.math.simulation.record import record_shoe
from boundless.math.simulation.reference import Policy

# What the compared rounds must exercise, by title family and policy.
BOUNDLESS_SIDES = {
    "side bet not offered",
    "pair win",
    "bust_bonus win",
    "lucky_trio win",
    "poker_trio win",
}
MUST_SEE = {
    ("boundless", "basic"): {"split", "split aces", "double", "surrendered", "blackjack", "bust",
                             "dealer blackjack"} | BOUNDLESS_SIDES,
    ("boundless", "autoplay"): {"blackjack", "stood", "dealer blackjack"}
    | BOUNDLESS_SIDES,
    ("unlimited", "basic"): {"split", "split aces", "double", "surrendered", "surrendered20",
                             "blackjack", "dealer blackjack"},
    ("boo-bucks", "basic"): {"split", "double", "surrendered", "blackjack", "dealer blackjack",
                             "trifecta win", "jack_a_tack win", "in_between win",
                             "match_the_dealer win", "hole_card_bonus win",
                             "bonus_spin_xtreme win", "jackpot"},
}  # fmt: skip
MUST_SEE[("unlimited", "autoplay")] = MUST_SEE[("unlimited", "basic")]
MUST_SEE[("boo-bucks", "autoplay")] = MUST_SEE[("boo-bucks", "basic")]


def _family(key: str) -> str:
    return "boo-bucks" if key.startswith("boo-bucks") else key


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("key", TITLES)
def test_kernel_plays_engine_shoes_card_for_card(key: str, policy: Policy) -> None:
    rules, chart = game(key)
    spec = spec_of(key, policy)
    shoes = 150 if rules.shoe.reshuffle_every_round else 10
    seen: Counter[str] = Counter()
    for seed in range(shoes):
        numbers = wheel_numbers(seed)
        deck, engine, staked = play_engine_shoe(rules, chart, spec.policy, seed, numbers, seed)
        _, kernel = record_shoe(spec, deck, numbers)
        assert len(kernel) == len(engine), f"{key} {policy} shoe {seed}: rounds in the shoe"
        for number, (ours, theirs, bets) in enumerate(zip(kernel, engine, staked, strict=True)):
            keys = [bet for bet, on in bets.items() if on]
            where = f"{key} {policy} shoe {seed} round {number + 1}"
            assert comparable(ours, keys) == comparable(theirs, keys), where
            # Coverage counts only what the engine settled too (or did not offer).
            ours.side = {bet: value for bet, value in ours.side.items() if bets[bet] or not value}
        seen.update(events(kernel, rules))
    missing = MUST_SEE[(_family(key), policy)] - set(seen)
    assert not missing, f"the compared rounds never saw {sorted(missing)}"
