"""Simulated figures beside the exact ones (:mod:`boundless.math.exact` and
:mod:`boundless.math.side_bets`), with the statistical distance between them.

Known differences of model, each far below what a test-sized run resolves:

* The exact figures are for a freshly shuffled shoe; the title's shoe is played down to the cut
  card. By exchangeability every round of a shoe has the fresh-shoe expectation except for the
  cut-card effect (the number of rounds a shoe lasts depends on its cards). Measured for the
  8-deck titles in docs/math.md ("Simulation"); ``fresh_shoe=True`` removes it.
* Exact splits follow the convention of exact analysers (each split hand as if the other were
  unseen), and other spots' cards are unseen by every spot; cards drawn to stopping rules
  before the dealer's (other spots, the first split hand) shift the dealer's composition a
  little. The exact Bust Bonus ignores the players' draws altogether.
* Bonus Spin Xtreme jackpots pay a million units with a chance of a few in a billion per round:
  runs of test size see none, so their sample variance understates the error; tests bound such
  bets with the exact standard deviation instead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from boundless.core.rules import RuleSet
from boundless.core.strategy_chart import StrategyChart
from boundless.math.sim_reference import Policy
from boundless.math.sim_stats import MAIN, BetEstimate


@dataclass(frozen=True, slots=True)
class ExactFigure:
    value: float
    standard_deviation: float  # per unit staked (main: per initial unit), one spot


def plays_chart(rules: RuleSet, policy: Policy) -> bool:
    return policy == "basic" or rules.autoplay.policy == "basic_strategy"


def exact_figures(
    rules: RuleSet, chart: StrategyChart | None, policy: Policy
) -> dict[str, ExactFigure]:
    """Exact returns of what the simulator plays: the main game when the policy is the chart
    (the exact basic-strategy figure of that chart), and every side bet."""
    from boundless.math.exact import main_game_return
    from boundless.math.side_bets import side_bet_returns

    figures: dict[str, ExactFigure] = {}
    if chart is not None and plays_chart(rules, policy):
        report = main_game_return(rules, "basic", chart=chart)
        figures[MAIN] = ExactFigure(report.return_to_player, report.standard_deviation)
    for key, side in side_bet_returns(rules).items():
        figures[key] = ExactFigure(float(side.rtp), side.standard_deviation)
    return figures


def z_score(estimate: BetEstimate, exact: ExactFigure) -> float:
    """(simulated - exact) in standard errors of the simulation."""
    if estimate.standard_error <= 0 or math.isnan(estimate.standard_error):
        return math.nan
    return (estimate.value - exact.value) / estimate.standard_error
