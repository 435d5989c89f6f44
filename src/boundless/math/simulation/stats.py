"""Estimates and confidence intervals from the kernel's running sums.

A bet's return is the ratio ``R = sum(Y) / sum(N)`` over shoes (``Y``: a shoe's summed results,
``N``: its stakes in units). Rounds of one shoe share its cards, so the shoe is the sampling
unit: the variance of ``R`` is the ratio estimator's, ``k/(k-1) * sum((Y - R N)^2) / sum(N)^2``
over ``k`` shoes. For the main game the result is the net per initial unit and the return is
``1 + R`` (the convention of :mod:`boundless.math.exact`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from boundless.math.simulation.kernels import (
    C_ROUNDS,
    C_SHOES,
    C_VOID,
    ST_HAND_SQ,
    ST_N,
    ST_NN,
    ST_Y,
    ST_YN,
    ST_YY,
)

Z95 = 1.959963984540054  # two-sided 95% normal quantile

MAIN = "main"


@dataclass(frozen=True, slots=True)
class BetEstimate:
    """One bet's simulated figures, per unit staked (main game: per initial unit)."""

    key: str
    rounds: int  # rounds in which the bet was offered
    hands: int  # spots x those rounds: the number of unit stakes
    value: float  # the return (main game: 1 + mean net result)
    standard_error: float
    standard_deviation: float  # of one spot's result per unit

    @property
    def ci_low(self) -> float:
        return self.value - Z95 * self.standard_error

    @property
    def ci_high(self) -> float:
        return self.value + Z95 * self.standard_error

    def to_json(self) -> dict[str, object]:
        return {
            "return": self.value,
            "ci95": [self.ci_low, self.ci_high],
            "standard_error": self.standard_error,
            "standard_deviation": self.standard_deviation,
            "rounds": self.rounds,
            "hands": self.hands,
        }


def estimate(
    key: str, row: npt.NDArray[np.float64], spots: int, shoes: int, offset: float
) -> BetEstimate:
    """The estimate from one row of the sums; ``offset`` is 1 for the main game, else 0."""
    total_y, total_n = float(row[ST_Y]), float(row[ST_N])
    if total_n <= 0:
        return BetEstimate(key, 0, 0, math.nan, math.nan, math.nan)
    ratio = total_y / total_n
    spread = float(row[ST_YY] - 2 * ratio * row[ST_YN] + ratio * ratio * row[ST_NN])
    variance = shoes / (shoes - 1) * max(spread, 0.0) / total_n**2 if shoes > 1 else math.inf
    per_hand = max(float(row[ST_HAND_SQ]) / total_n - ratio * ratio, 0.0)
    hands = round(total_n)
    return BetEstimate(
        key=key,
        rounds=hands // spots,
        hands=hands,
        value=offset + ratio,
        standard_error=math.sqrt(variance),
        standard_deviation=math.sqrt(per_hand),
    )


@dataclass(frozen=True, slots=True)
class Totals:
    """Sums over every chunk so far."""

    stats: npt.NDArray[np.float64]
    counts: npt.NDArray[np.int64]

    @property
    def rounds(self) -> int:
        return int(self.counts[C_ROUNDS])

    @property
    def shoes(self) -> int:
        return int(self.counts[C_SHOES])

    @property
    def void_rounds(self) -> int:
        return int(self.counts[C_VOID])

    def add(self, stats: npt.NDArray[np.float64], counts: npt.NDArray[np.int64]) -> Totals:
        return Totals(self.stats + stats, self.counts + counts)

    def estimates(self, side_keys: tuple[str, ...], spots: int) -> dict[str, BetEstimate]:
        keys = (MAIN, *side_keys)
        return {
            key: estimate(key, self.stats[row], spots, self.shoes, 1.0 if row == 0 else 0.0)
            for row, key in enumerate(keys)
        }
