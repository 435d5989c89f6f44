"""Simulated figures beside the exact ones (:mod:`boundless.math.exact` and
:mod:`boundless.math.side_bets`), with the statistical distance between them.

What differs between the two models, and what does not:

* The exact figures are for a freshly shuffled shoe. Every round of the title's shoe starts at a
  stopping point of the card sequence (where the previous round ended), and the cards after a
  stopping point are distributed like a fresh shoe's; so a round that is always played (every
  round of a reshuffled shoe, the side-bet rounds 1-45 of an 8-deck shoe) has exactly the exact
  figure. Which later rounds are played depends on the cut card, and that weighting is the
  cut-card effect: measured -0.029% (Boundless) and -0.023% (Unlimited) on the main game
  (docs/math.md, "Simulation"). ``fresh_shoe=True`` removes it.
* The same argument makes the exact conventions exact in expectation: split hands valued as if
  the other were unseen, other spots' cards unseen, the Bust Bonus without the players' draws.
* Bonus Spin Xtreme jackpots pay up to a million units with a chance of a few in a billion per
  round: runs of test size see none, so their sample variance understates the error; tests
  bound such bets with the exact standard deviation instead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from boundless.core.rules import RuleSet
from boundless.core.strategy_chart import StrategyChart
from boundless.math.simulation.reference import Policy
from boundless.math.simulation.stats import MAIN, BetEstimate


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
