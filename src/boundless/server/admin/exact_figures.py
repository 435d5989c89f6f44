"""Each title's exact figures for the console, computed once per title and kept.

Per unit staked, stake included: the main game under the table's basic-strategy chart (return
and variance per initial unit, doubles and splits inside), every side bet, and insurance.
The first computation of a title takes seconds (the exact analysis), so callers run
:meth:`ExactFigures.of` in a worker thread; a lock keeps two requests from computing it twice.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from fractions import Fraction

from boundless.core.rules import RuleSet
from boundless.core.strategy_chart import StrategyChart
from boundless.math.exact import analyse_main_game, insurance_return
from boundless.math.side_bets import side_bet_returns


@dataclass(frozen=True, slots=True)
class KindFigure:
    """Return (payout per unit staked) and variance of the result per unit staked."""

    rtp: float
    variance: float


@dataclass(frozen=True, slots=True)
class TitleFigures:
    title: str
    kinds: dict[str, KindFigure]
    """``main``, ``side:<key>`` and ``insurance`` (where offered)."""


def insurance_variance(rtp: Fraction, pays: Fraction) -> float:
    """An insurance stake returns ``1 + pays`` times itself with chance ``p``, else nothing:
    ``rtp = p (1 + pays)``, so the variance per unit is ``(1 + pays)^2 p (1 - p)``."""
    chance = rtp / (1 + pays)
    return float((1 + pays) ** 2 * chance * (1 - chance))


def compute_figures(rules: RuleSet, chart: StrategyChart | None) -> TitleFigures:
    main = analyse_main_game(rules, chart=chart).basic
    kinds = {"main": KindFigure(main.return_to_player, main.variance)}
    for key, report in side_bet_returns(rules).items():
        kinds[f"side:{key}"] = KindFigure(float(report.rtp), float(report.variance))
    if rules.insurance.offered:
        insurance = insurance_return(rules)
        kinds["insurance"] = KindFigure(
            float(insurance.insurance_return),
            insurance_variance(insurance.insurance_return, insurance.pays),
        )
    return TitleFigures(rules.key, kinds)


class ExactFigures:
    """The cache: one :class:`TitleFigures` per title key, computed on first use."""

    def __init__(self) -> None:
        self._figures: dict[str, TitleFigures] = {}
        self._lock = threading.Lock()

    def of(self, rules: RuleSet, chart: StrategyChart | None) -> TitleFigures:
        with self._lock:
            known = self._figures.get(rules.key)
            if known is None:
                known = self._figures[rules.key] = compute_figures(rules, chart)
            return known
