"""The RNG battery: exact p-values and moments, a pass on good sources, a fail on biased ones."""

from __future__ import annotations

import itertools
import math
import random
import statistics

import pytest

from boundless.core.random_source import SeededSource
from boundless.entropy import CryptoSource
from boundless.math.rng_battery import (
    chi_square_p,
    normal_two_sided_p,
    run_battery,
    runs_moments,
    serial_moments,
)

KEYS = {"positions", "permutations", "runs", "serial", "monobit"}


class LazySource:
    """A biased double: Fisher-Yates skips one swap in five (the card stays where it was), and
    one byte in ten has its low bit forced on."""

    def __init__(self, seed: int) -> None:
        self.generator = random.Random(seed)

    def randbelow(self, bound: int) -> int:
        if self.generator.random() < 0.2:
            return bound - 1
        return self.generator.randrange(bound)

    def token_bytes(self, count: int) -> bytes:
        def one() -> int:
            forced = 1 if self.generator.random() < 0.1 else 0
            return self.generator.getrandbits(8) | forced

        return bytes(one() for _ in range(count))


class ModuloSource:
    """The classic bug: one random byte reduced modulo the bound (small values come more often)."""

    def __init__(self, seed: int) -> None:
        self.generator = random.Random(seed)

    def randbelow(self, bound: int) -> int:
        return self.generator.getrandbits(8) % bound

    def token_bytes(self, count: int) -> bytes:
        return self.generator.randbytes(count)


@pytest.mark.parametrize("x", [0.1, 1.0, 3.84, 10.0, 40.0])
def test_chi_square_tail_matches_closed_forms(x: float) -> None:
    assert chi_square_p(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-12)
    assert chi_square_p(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-12)
    for half in (2, 5, 30):  # even degrees of freedom: a Poisson sum
        exact = math.exp(-x / 2) * sum((x / 2) ** i / math.factorial(i) for i in range(half))
        assert chi_square_p(x, 2 * half) == pytest.approx(exact, rel=1e-10, abs=1e-300)


def test_chi_square_tail_with_many_degrees_of_freedom() -> None:
    freedom = 15_861  # the 6-deck position test
    assert chi_square_p(freedom - 2 / 3, freedom) == pytest.approx(0.5, abs=2e-3)
    upper_1pct = freedom + 2.326348 * math.sqrt(2 * freedom)
    assert chi_square_p(upper_1pct, freedom) == pytest.approx(0.01, rel=0.05)
    assert normal_two_sided_p(2.5758293) == pytest.approx(0.01, rel=1e-6)


def test_the_permutation_moments_are_exact() -> None:
    values = [1, 1, 2, 5, 5, 9, 13]
    n = len(values)
    orders = list(itertools.permutations(values))
    products = [sum(order[i] * order[(i + 1) % n] for i in range(n)) for order in orders]
    mean, variance = serial_moments(values)
    assert mean == pytest.approx(statistics.fmean(products), rel=1e-12)
    assert variance == pytest.approx(statistics.pvariance(products), rel=1e-12)
    flags = [True, True, True, False, False, False, False]
    runs = [
        1 + sum(order[i] != order[i + 1] for i in range(n - 1))
        for order in itertools.permutations(flags)
    ]
    mean, variance = runs_moments(3, 4)
    assert mean == pytest.approx(statistics.fmean(runs), rel=1e-12)
    assert variance == pytest.approx(statistics.pvariance(runs), rel=1e-12)


def test_a_good_seeded_source_passes_every_test() -> None:
    report = run_battery(SeededSource(2026), 1_500)
    assert {result.key for result in report.results} == KEYS
    assert report.passed, [(r.key, r.p_value) for r in report.results]
    assert report.to_json()["passed"] is True


def test_the_production_source_passes() -> None:
    """The real CSPRNG is not seeded: each 99% verdict fails 1% of the time by design, so this
    test asks for p > 1e-4 (a false alarm once in 2,000 runs), not for five passes."""
    report = run_battery(CryptoSource(), 1_500)
    assert {result.key for result in report.results} == KEYS
    for result in report.results:
        assert result.p_value > 1e-4, (result.key, result.p_value)


def test_a_lazy_shuffle_and_biased_bytes_fail_every_test() -> None:
    report = run_battery(LazySource(3), 1_500)
    assert not report.passed
    failed = {result.key for result in report.results if not result.passed}
    assert failed == KEYS


def test_modulo_bias_is_caught_by_the_position_test() -> None:
    report = run_battery(ModuloSource(3), 1_500)
    verdicts = {result.key: result.passed for result in report.results}
    assert verdicts["positions"] is False
    assert not report.passed


def test_a_battery_needs_a_shuffle() -> None:
    with pytest.raises(ValueError, match="at least one shuffle"):
        run_battery(SeededSource(1), 0)
