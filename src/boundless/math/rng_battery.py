"""The statistical battery test labs run on a shuffle: is every dealt order equally likely?

The shuffle under test is the core's own :func:`boundless.core.shoe.fisher_yates`, fed by the
``RandomSource`` given (production: ``boundless.entropy.CryptoSource``). Five tests, each with its
statistic, p-value and a verdict at 99% (fail when p < 0.01):

* ``positions``: every card face over every shoe position, Pearson chi-square. The counts of a
  sum of random permutation matrices have covariance ``n/(n-1)`` times that of independent
  cells on the margins' complement, so ``X^2 (n-1)/n`` is chi-square with ``(F-1)(n-1)`` degrees
  of freedom (``F`` faces, ``n`` positions).
* ``permutations``: all ``k!`` orders of a small deck (5 cards: 120 cells), chi-square.
* ``runs``: Wald-Wolfowitz runs of high (8-K) and low (A-7) ranks in each dealt shoe; the exact
  permutation mean and variance of the run count, summed over shoes, give a normal z.
* ``serial``: lag-1 circular serial correlation of the ranks in each shoe, standardised with its
  exact permutation mean and variance (Wald and Wolfowitz, 1943), summed over shoes.
* ``monobit``: NIST SP 800-22's frequency test on the source's random bytes (the salt path).

P-values come from scipy's distributions (``scipy.stats.chi2`` and ``norm`` survival functions),
exact to double precision, rather than special functions written here.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from itertools import permutations
from typing import Any

import numpy as np
from scipy import stats

from boundless.core.arrays import IntArray
from boundless.core.cards import Card, fresh_decks
from boundless.core.random_source import RandomSource
from boundless.core.shoe import fisher_yates

ALPHA = 0.01
"""Verdict threshold: a test fails when its p-value is below 1% (99% confidence)."""
SMALL_DECK = 5
HIGH_RANK = 8
"""Ranks 8..13 (8 to king) count as high in the runs test, ace..7 as low."""
MONOBIT_BYTES_PER_SHUFFLE = 16
BATCH = 256


@dataclass(frozen=True, slots=True)
class TestResult:
    key: str
    name: str
    statistic: float
    degrees_of_freedom: int | None
    """Chi-square tests; ``None`` for the normal (z) tests."""
    p_value: float
    passed: bool
    detail: str


@dataclass(frozen=True, slots=True)
class BatteryReport:
    shuffles: int
    decks: int
    alpha: float
    results: tuple[TestResult, ...]

    @property
    def passed(self) -> bool:
        return all(result.passed for result in self.results)

    def to_json(self) -> dict[str, Any]:
        return {
            "shuffles": self.shuffles,
            "decks": self.decks,
            "alpha": self.alpha,
            "passed": self.passed,
            "tests": [asdict(result) for result in self.results],
        }


# -- p-values -------------------------------------------------------------------------------


def chi_square_p(statistic: float, degrees_of_freedom: int) -> float:
    """P(chi-square with ``degrees_of_freedom`` >= ``statistic``): scipy's survival function."""
    return float(stats.chi2.sf(statistic, degrees_of_freedom))


def normal_two_sided_p(z: float) -> float:
    return float(2 * stats.norm.sf(abs(z)))


# -- exact permutation moments ----------------------------------------------------------------


def runs_moments(high: int, low: int) -> tuple[float, float]:
    """Mean and variance of the number of runs in a random order of ``high`` + ``low`` items."""
    n = high + low
    product = 2 * high * low
    return 1 + product / n, product * (product - n) / (n * n * (n - 1))


def serial_moments(values: list[int]) -> tuple[float, float]:
    """Mean and variance of ``sum x[i] x[i+1 mod n]`` over random orders of ``values``."""
    n = len(values)
    s1, s2, s3, s4 = (sum(v**power for v in values) for power in (1, 2, 3, 4))
    mean = (s1 * s1 - s2) / (n - 1)
    variance = (
        (s2 * s2 - s4) / (n - 1)
        + (s1**4 - 4 * s1 * s1 * s2 + 4 * s1 * s3 + s2 * s2 - 2 * s4) / ((n - 1) * (n - 2))
        - mean * mean
    )
    return mean, variance


# -- the tallies ---------------------------------------------------------------------------------


class ShuffleTally:
    """Counts kept while shuffling; the tests read them at the end."""

    def __init__(self, decks: int) -> None:
        self.decks = decks
        self.deck = fresh_decks(decks)
        self.size = len(self.deck)
        self.positions: IntArray = np.zeros((52, self.size), dtype=np.int64)
        self.small: IntArray = np.zeros(math.factorial(SMALL_DECK), dtype=np.int64)
        self.shuffles = 0
        self.runs_total = 0
        self.serial_total = 0
        self.ones = 0
        self.bits = 0
        self._index = {order: i for i, order in enumerate(permutations(range(SMALL_DECK)))}
        self._batch: list[list[Card]] = []

    def shuffle_once(self, source: RandomSource) -> None:
        cards = list(self.deck)
        fisher_yates(cards, source)
        self._batch.append(cards)
        small = [Card(code) for code in range(SMALL_DECK)]
        fisher_yates(small, source)
        self.small[self._index[tuple(int(card) for card in small)]] += 1
        salt = source.token_bytes(MONOBIT_BYTES_PER_SHUFFLE)
        self.ones += sum(byte.bit_count() for byte in salt)
        self.bits += 8 * len(salt)
        self.shuffles += 1
        if len(self._batch) >= BATCH:
            self.flush()

    def flush(self) -> None:
        if not self._batch:
            return
        orders = np.array(self._batch, dtype=np.int64)
        self._batch = []
        columns = np.broadcast_to(np.arange(self.size), orders.shape)
        np.add.at(self.positions, (orders, columns), 1)
        ranks = orders // 4 + 1
        high = ranks >= HIGH_RANK
        self.runs_total += int(orders.shape[0] + np.count_nonzero(high[:, 1:] != high[:, :-1]))
        self.serial_total += int(np.sum(ranks * np.roll(ranks, -1, axis=1)))


# -- the tests -----------------------------------------------------------------------------------


def _verdict(p_value: float) -> bool:
    return p_value >= ALPHA


def positions_test(tally: ShuffleTally) -> TestResult:
    n = tally.size
    expected = tally.shuffles * tally.decks / n
    observed = tally.positions
    pearson = float(np.sum((observed - expected) ** 2) / expected)
    statistic = pearson * (n - 1) / n
    freedom = 51 * (n - 1)
    p_value = chi_square_p(statistic, freedom)
    return TestResult(
        "positions",
        "card x position (chi-square)",
        statistic,
        freedom,
        p_value,
        _verdict(p_value),
        f"52 faces x {n} positions, {expected:,.1f} expected per cell",
    )


def permutations_test(tally: ShuffleTally) -> TestResult:
    cells = len(tally.small)
    expected = tally.shuffles / cells
    statistic = float(np.sum((tally.small - expected) ** 2) / expected)
    p_value = chi_square_p(statistic, cells - 1)
    return TestResult(
        "permutations",
        f"orders of {SMALL_DECK} cards (chi-square)",
        statistic,
        cells - 1,
        p_value,
        _verdict(p_value),
        f"all {cells} orders, {expected:,.1f} expected per order",
    )


def _z_test(
    key: str,
    name: str,
    total: float,
    shuffles: int,
    moments: tuple[float, float],
    detail: str,
) -> TestResult:
    """A per-shoe statistic summed over the shoes, scored against its exact mean and variance."""
    mean, variance = moments
    z = (total - shuffles * mean) / math.sqrt(shuffles * variance)
    p_value = normal_two_sided_p(z)
    return TestResult(key, name, z, None, p_value, _verdict(p_value), detail)


def runs_test(tally: ShuffleTally) -> TestResult:
    high = sum(1 for card in tally.deck if card.rank >= HIGH_RANK)
    mean, variance = runs_moments(high, tally.size - high)
    return _z_test(
        "runs",
        "runs, high/low ranks",
        tally.runs_total,
        tally.shuffles,
        (mean, variance),
        f"Wald-Wolfowitz: {tally.runs_total / tally.shuffles:,.2f} runs per shoe, "
        f"{mean:,.2f} expected",
    )


def serial_test(tally: ShuffleTally) -> TestResult:
    return _z_test(
        "serial",
        "serial correlation, lag 1",
        tally.serial_total,
        tally.shuffles,
        serial_moments([card.rank for card in tally.deck]),
        "circular lag-1 products of the dealt ranks, exact permutation moments",
    )


def monobit_test(tally: ShuffleTally) -> TestResult:
    s_obs = abs(2 * tally.ones - tally.bits) / math.sqrt(tally.bits)
    p_value = normal_two_sided_p(s_obs)
    return TestResult(
        "monobit",
        "monobit (NIST SP 800-22)",
        s_obs,
        None,
        p_value,
        _verdict(p_value),
        f"{tally.ones:,} ones in {tally.bits:,} bits of the source's random bytes",
    )


TESTS = (positions_test, permutations_test, runs_test, serial_test, monobit_test)


def run_battery(
    source: RandomSource,
    shuffles: int,
    decks: int = 6,
    progress: Callable[[int], None] | None = None,
) -> BatteryReport:
    """Shuffle ``shuffles`` shoes of ``decks`` decks (and as many small decks) and test them.

    ``progress(done)`` is called every :data:`BATCH` shuffles and at the end.
    """
    if shuffles < 1:
        raise ValueError(f"the battery needs at least one shuffle, got {shuffles}")
    tally = ShuffleTally(decks)
    for done in range(1, shuffles + 1):
        tally.shuffle_once(source)
        if progress is not None and (done % BATCH == 0 or done == shuffles):
            progress(done)
    tally.flush()
    return BatteryReport(shuffles, decks, ALPHA, tuple(test(tally) for test in TESTS))
