"""Simulated returns against the exact ones, every shipped title, main game and every side bet.

Bound: |simulated - exact| <= 4 standard errors of the simulation + ALLOWANCE. The allowance
is the cut-card effect on the main game of the 8-deck shoes, measured at -0.029% +- 0.006%
(Boundless) and -0.023% +- 0.006% (Unlimited) in runs of 8e8 and 4e8 rounds (docs/math.md,
"Simulation"); everything else the simulator plays has exactly the exact figure in expectation
(boundless.math.simulation.compare), so the side bets, the reshuffled titles and the fresh-shoe runs
take none. Bonus Spin Xtreme jackpots pay about a million units a few times in a billion rounds,
so a run of this size sees none and its sample variance understates the error: those bets are
bounded with the exact standard deviation instead, and a jackpot-free copy of the title is
checked with the tight bound.
"""

from __future__ import annotations

import math

import pytest
from simulator_helpers import TITLES, game

from boundless.core.rules import RuleSet
from boundless.math.side_bets import what_if
from boundless.math.simulation import (
    BetEstimate,
    ExactFigure,
    SimulationResult,
    exact_figures,
    simulate,
)

SIGMAS = 4.0
ALLOWANCE = 5e-4
WORKERS = 2
ROUNDS = {"boundless": 3_000_000, "unlimited": 1_000_000}
BOO_BUCKS_ROUNDS = 400_000

pytestmark = pytest.mark.slow


def _within(estimate: BetEstimate, exact: ExactFigure, allowance: float) -> None:
    bound = SIGMAS * estimate.standard_error + allowance
    gap = estimate.value - exact.value
    assert abs(gap) <= bound, (
        f"{estimate.key}: simulated {estimate.value:.6f}, exact {exact.value:.6f}, "
        f"gap {gap:+.6f} > {bound:.6f}"
    )


def _check(rules: RuleSet, result: SimulationResult, main_allowance: float) -> None:
    exact = exact_figures(rules, game(rules.key)[1], result.policy)
    assert set(exact) == set(result.estimates)  # every bet has its exact figure
    for key, figure in exact.items():
        estimate = result.estimates[key]
        bet = rules.side_bet(key)
        if bet is not None and bet.wheel is not None and bet.wheel.jackpots:
            bound = SIGMAS * figure.standard_deviation / math.sqrt(estimate.rounds)
            assert abs(estimate.value - figure.value) <= bound, key
        else:
            _within(estimate, figure, main_allowance if bet is None else 0.0)


@pytest.mark.parametrize("key", TITLES)
def test_simulation_of_the_title_agrees_with_the_exact_figures(key: str) -> None:
    rules, chart = game(key)
    rounds = ROUNDS.get(key, BOO_BUCKS_ROUNDS)
    result = simulate(rules, chart, rounds, seed=2026, workers=WORKERS)
    assert result.rounds >= rounds and result.void_rounds == 0
    _check(rules, result, 0.0 if rules.shoe.reshuffle_every_round else ALLOWANCE)


@pytest.mark.parametrize("key", ["boundless", "unlimited"])
def test_fresh_shoe_simulation_agrees_with_the_exact_figures(key: str) -> None:
    rules, chart = game(key)
    result = simulate(rules, chart, 1_000_000, seed=7, workers=WORKERS, fresh_shoe=True)
    _check(rules, result, 0.0)


def test_bonus_spin_without_jackpots_agrees_tightly() -> None:
    rules, chart = game("boo-bucks")
    bets = rules.model_dump(mode="json")["side_bets"]
    for bet in bets:
        if bet.get("wheel"):
            bet["wheel"]["jackpots"] = []
    variant = what_if(rules, side_bets=bets)
    result = simulate(variant, chart, 600_000, seed=3, workers=WORKERS)
    exact = exact_figures(variant, chart, "basic")
    for key in ("bonus_spin_xtreme", "bonus_spin_xtreme_dealer"):
        _within(result.estimates[key], exact[key], 0.0)
