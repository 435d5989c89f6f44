"""The simulator's kernel against its plain-Python reference, on identical inputs.

Identical stacked shoes and wheel numbers must give identical rounds (cards, statuses, stakes,
results), and identical generator states identical running sums, bit for bit.
"""

from __future__ import annotations

import random

import numpy as np
import numpy.typing as npt
import pytest
from simulator_helpers import (
    POLICIES,
    TITLES,
    game,
    kernel_and_reference_agree,
    shoe_options,
    shuffled_deck,
    spec_of,
    wheel_numbers,
)

from boundless.core.cards import ALL_CARDS, Card
from boundless.core.round.settlement import side_bet_pattern
from boundless.core.rules import RuleSet
from boundless.core.side_bets import PENDING
from boundless.core.strategy_chart import StrategyChart
from boundless.math.side_bets import what_if
from boundless.math.simulation.kernels import (
    PAIR_TABLE,
    TABLE,
    next_u64,
    randbelow,
)
from boundless.math.simulation.reference import (
    Policy,
    ReferenceGame,
    simulate_chunk_reference,
)
from boundless.math.simulation.rng import py_next_u64, py_randbelow, seed_state
from boundless.math.simulation.runner import fresh_deck, run_chunk
from boundless.math.simulation.spec import SimSpec, build_spec


def test_xoshiro_twin_gives_the_published_sequence() -> None:
    # xoshiro256** from the state (1, 2, 3, 4): the reference C implementation's first outputs.
    state = [1, 2, 3, 4]
    assert [py_next_u64(state) for _ in range(4)] == [
        11520,
        0,
        1509978240,
        1215971899390074240,
    ]


def test_kernel_generator_equals_its_twin() -> None:
    seeds = seed_state(np.random.SeedSequence(5))
    kernel_state = seeds.copy()
    twin_state = [int(word) for word in seeds]
    for step in range(2000):
        if step % 2:
            assert int(next_u64(kernel_state)) == py_next_u64(twin_state)
        else:
            bound = 1 + step % 451
            assert randbelow(kernel_state, bound) == py_randbelow(twin_state, bound)


def test_bounded_draws_cover_their_range_evenly() -> None:
    state = [9, 8, 7, 6]
    counts = [0] * 7
    for _ in range(70_000):
        counts[py_randbelow(state, 7)] += 1
    assert all(abs(count - 10_000) < 500 for count in counts)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("key", TITLES)
def test_recorded_shoes_equal_the_reference(key: str, policy: Policy) -> None:
    rules, chart = game(key)
    spec = spec_of(key, policy)
    reference = ReferenceGame(rules, chart, spec.policy, spec.spots)
    shoes = 40 if rules.shoe.reshuffle_every_round else 6
    for seed in range(shoes):
        deck = shuffled_deck(rules.shoe.decks, seed)
        where = f"{key} {policy} shoe {seed}"
        kernel_and_reference_agree(spec, reference, deck, wheel_numbers(seed), where)


def _kernel_and_reference(
    rules: RuleSet, chart: StrategyChart | None, spec: SimSpec, spots: int, entropy: int, quota: int
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64], list[list[float]], list[int]]:
    """The kernel's sums and the plain reference's for one chunk from the same stream."""
    stats, counts = run_chunk(spec, np.random.SeedSequence(entropy), quota)
    plain_stats, plain_counts = simulate_chunk_reference(
        ReferenceGame(rules, chart, "basic", spots),
        [int(code) for code in fresh_deck(spec)],
        [int(word) for word in seed_state(np.random.SeedSequence(entropy))],
        quota,
        **shoe_options(spec),
    )
    return stats, counts, plain_stats, plain_counts


@pytest.mark.parametrize("key", TITLES)
def test_running_sums_equal_the_reference(key: str) -> None:
    rules, chart = game(key)
    spec = spec_of(key, "basic")
    quota = 150 if rules.shoe.reshuffle_every_round else 250
    stats, counts, plain_stats, plain_counts = _kernel_and_reference(
        rules, chart, spec, spec.spots, 11, quota
    )
    assert counts.tolist() == plain_counts
    assert stats.tolist() == plain_stats


@pytest.mark.parametrize("key", ["boundless", "boo-bucks", "boo-bucks-single-deck"])
def test_side_tables_are_the_evaluators_answers(key: str) -> None:
    rules, _ = game(key)
    spec = spec_of(key, "basic")
    sides = spec.sides
    source = random.Random(3)
    jacks = [Card.parse(text) for text in ("JS", "JH")]
    triples = [tuple(source.choice(ALL_CARDS) for _ in range(3)) for _ in range(3000)]
    triples += [(a, b, c) for a in jacks for b in jacks for c in jacks]
    for row, bet in enumerate(rules.side_bets):
        if sides.kind[row] not in (TABLE, PAIR_TABLE):
            continue
        names = sides.patterns[row]
        for one, two, up in triples:
            hole = source.choice(ALL_CARDS)
            pattern = side_bet_pattern(bet, (one, two), up, None)
            if pattern is PENDING:
                pattern = side_bet_pattern(bet, (one, two), up, (up, hole))
            if sides.kind[row] == PAIR_TABLE:
                code = int(sides.table[row, one * 52 + two])
            else:
                code = int(sides.table[row, one * 2704 + two * 52 + up])
                if code <= -2:
                    code = int(sides.pend[row, -2 - code, hole])
            assert (names[code] if code >= 0 else None) == pattern, (bet.key, one, two, up)


def test_a_shoe_that_runs_out_voids_the_round_like_the_reference() -> None:
    # One deck dealt to the last card: the round the shoe cannot finish is voided.
    rules, chart = game("boundless")
    variant = what_if(rules, {"shoe": {"decks": 1, "penetration": 1.0, "min_cards_behind_cut": 0}})
    spec = build_spec(variant, chart, "basic")
    stats, counts, plain_stats, plain_counts = _kernel_and_reference(
        variant, chart, spec, 1, 4, 200
    )
    assert counts[2] == counts[1] > 0  # every shoe ends on a voided round
    assert counts.tolist() == plain_counts and stats.tolist() == plain_stats
