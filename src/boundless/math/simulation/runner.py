"""Monte-Carlo play of a title: the public API of the simulator.

``simulate(rules, chart, rounds)`` plays at least ``rounds`` rounds of the real title: its shoe
(Fisher-Yates over xoshiro256**, done as the cards are dealt), the cut card at the title's
penetration, reveal-and-burn after each shuffle, a reshuffle every round where the title says
so, side bets offered by round in the shoe, one position on each of ``spots`` spots playing the
chosen policy, and every side bet of the title staked at one unit on every spot in every round
it is offered. Work is cut into chunks of whole shoes, each with its own seed from
``SeedSequence(seed).spawn``; chunks run on ``workers`` local processes, or as tasks on a Ray
cluster (``backend="ray"``, the optional ``cluster`` extra), and are merged in order, so a
seed gives the same figures whatever runs them.
"""

from __future__ import annotations

import math
import multiprocessing
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import numpy.typing as npt

from boundless.core.rules import RuleSet
from boundless.core.strategy_chart import StrategyChart
from boundless.math.run_limits import MAX_ROUNDS
from boundless.math.simulation.kernels import (
    C_FIELDS,
    CUR_SIZE,
    H_FIELDS,
    MAX_CARDS,
    MAX_HANDS,
    ST_FIELDS,
    Work,
    simulate_chunk,
)
from boundless.math.simulation.rng import seed_state
from boundless.math.simulation.spec import Policy, SimSpec, build_spec
from boundless.math.simulation.stats import MAIN, BetEstimate, Totals

MIN_CHUNK = 20_000
MAX_CHUNK = 2_000_000
TARGET_CHUNKS = 100

Backend = Literal["local", "ray"]
BACKENDS: tuple[Backend, ...] = ("local", "ray")
ChunkTask = tuple[int, np.random.SeedSequence, int]
ChunkResult = tuple[int, npt.NDArray[np.float64], npt.NDArray[np.int64]]


@dataclass(frozen=True, slots=True)
class HistoryPoint:
    """Running figures after a chunk: rounds so far, and each bet's (return, standard error)."""

    rounds: int
    figures: dict[str, tuple[float, float]]


@dataclass(frozen=True, slots=True)
class SimulationResult:
    title: str
    policy: Policy
    spots: int
    fresh_shoe: bool
    seed: int
    rounds: int
    shoes: int
    void_rounds: int
    seconds: float
    workers: int
    estimates: dict[str, BetEstimate]
    history: list[HistoryPoint] = field(default_factory=list)
    backend: Backend = "local"

    @property
    def main(self) -> BetEstimate:
        return self.estimates[MAIN]

    @property
    def side_bets(self) -> dict[str, BetEstimate]:
        return {key: value for key, value in self.estimates.items() if key != MAIN}

    @property
    def rounds_per_second(self) -> float:
        return self.rounds / self.seconds if self.seconds > 0 else math.inf

    def to_json(self) -> dict[str, object]:
        main = self.main.to_json()
        main["house_edge"] = 1.0 - self.main.value
        return {
            "title": self.title,
            "policy": self.policy,
            "spots": self.spots,
            "shoe": "fresh every round" if self.fresh_shoe else "title",
            "seed": self.seed,
            "rounds": self.rounds,
            "shoes": self.shoes,
            "void_rounds": self.void_rounds,
            "seconds": self.seconds,
            "workers": self.workers,
            "backend": self.backend,
            "rounds_per_second": self.rounds_per_second,
            "main": main,
            "side_bets": {key: value.to_json() for key, value in self.side_bets.items()},
        }


def work_arrays(spec: SimSpec) -> Work:
    """The kernel's scratch arrays for one chunk or shoe (it allocates nothing itself)."""
    spots = spec.spots
    bets = 1 + spec.sides.count
    return (
        np.zeros((MAX_HANDS * spots, H_FIELDS), dtype=np.int64),
        np.zeros((MAX_HANDS * spots, MAX_CARDS), dtype=np.int8),
        np.zeros(spots, dtype=np.int64),
        np.zeros((spots, 2), dtype=np.int64),
        np.zeros(MAX_CARDS, dtype=np.int8),
        np.zeros(spots, dtype=np.float64),
        np.zeros((bets - 1, spots), dtype=np.float64),
        np.zeros(CUR_SIZE, dtype=np.int64),
        np.zeros((2, bets), dtype=np.float64),
        np.zeros(0, dtype=np.uint64),
    )


def fresh_deck(spec: SimSpec) -> npt.NDArray[np.int8]:
    return np.tile(np.arange(52, dtype=np.int8), int(spec.ip[0]) // 52)


def run_chunk(spec: SimSpec, seed: np.random.SeedSequence, quota: int) -> tuple[
    npt.NDArray[np.float64], npt.NDArray[np.int64]
]:  # fmt: skip
    """Play at least ``quota`` rounds (whole shoes) from a fresh stream; returns the sums."""
    stats = np.zeros((1 + spec.sides.count, ST_FIELDS), dtype=np.float64)
    counts = np.zeros(C_FIELDS, dtype=np.int64)
    simulate_chunk(
        spec.game(), fresh_deck(spec), seed_state(seed), quota, work_arrays(spec), stats, counts
    )
    return stats, counts


_WORKER_SPEC: list[SimSpec] = []


def _worker_init(spec: SimSpec) -> None:
    _WORKER_SPEC[:] = [spec]


def _worker_chunk(task: ChunkTask) -> ChunkResult:
    index, seed, quota = task
    stats, counts = run_chunk(_WORKER_SPEC[0], seed, quota)
    return index, stats, counts


def plan_chunks(rounds: int, chunk_rounds: int | None) -> list[int]:
    """Round quotas of the chunks (the last one takes the remainder)."""
    if not 1 <= rounds <= MAX_ROUNDS:
        raise ValueError(f"rounds must be from 1 to {MAX_ROUNDS:,}, got {rounds:,}")
    size = chunk_rounds or min(MAX_CHUNK, max(MIN_CHUNK, math.ceil(rounds / TARGET_CHUNKS)))
    if size < 1:
        raise ValueError(f"chunk_rounds must be positive, got {size}")
    full, rest = divmod(rounds, size)
    return [size] * full + ([rest] if rest else [])


class BackendUnavailableError(RuntimeError):
    """The backend asked for cannot run here (Ray not installed, or no cluster reached)."""


def _ray_results(
    spec: SimSpec, tasks: list[ChunkTask], address: str | None
) -> Iterator[ChunkResult]:
    """The same chunks as Ray tasks; results are taken in chunk order, as the pool's are."""
    try:
        import ray
    except ImportError:
        raise BackendUnavailableError(
            "the ray backend needs Ray: pip install -e '.[cluster]'"
        ) from None
    if not ray.is_initialized():
        try:
            ray.init(address=address, include_dashboard=False, log_to_driver=False)
        except (ConnectionError, RuntimeError, ValueError) as error:
            raise BackendUnavailableError(f"cannot reach the Ray cluster: {error}") from None
    play = ray.remote(run_chunk)
    shared = ray.put(spec)
    pending = [(index, play.remote(shared, seed, quota)) for index, seed, quota in tasks]
    for index, reference in pending:
        stats, counts = ray.get(reference)
        yield index, stats, counts


def _results(
    spec: SimSpec, tasks: list[ChunkTask], workers: int, backend: Backend, address: str | None
) -> Iterator[ChunkResult]:
    if backend == "ray":
        yield from _ray_results(spec, tasks, address)
        return
    if workers == 1 or len(tasks) == 1:
        for task in tasks:
            index, seed, quota = task
            yield (index, *run_chunk(spec, seed, quota))
        return
    methods = multiprocessing.get_all_start_methods()
    # fork shares the parent's compiled kernels; spawn loads them from numba's cache.
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    with context.Pool(min(workers, len(tasks)), _worker_init, (spec,)) as pool:
        yield from pool.imap(_worker_chunk, tasks)


def simulate_spec(
    spec: SimSpec,
    rounds: int,
    *,
    seed: int | None = None,
    workers: int = 1,
    chunk_rounds: int | None = None,
    progress: Callable[[int], None] | None = None,
    backend: Backend = "local",
    address: str | None = None,
) -> SimulationResult:
    """Play ``spec``; ``progress`` is called with the rounds done after each chunk.

    ``backend="ray"`` runs the chunks as Ray tasks (``address``: a cluster to join; by default
    Ray's own choice, a local one if none is running); ``workers`` then plays no part.
    """
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    quotas = plan_chunks(rounds, chunk_rounds)
    root = np.random.SeedSequence(seed)
    entropy = root.entropy
    assert isinstance(entropy, int)
    tasks = [(index, child, quota) for index, (child, quota) in enumerate(
        zip(root.spawn(len(quotas)), quotas, strict=True)
    )]  # fmt: skip
    run_chunk(spec, np.random.SeedSequence(0), 1)  # compile (or load) before forking
    bets = 1 + spec.sides.count
    totals = Totals(np.zeros((bets, ST_FIELDS)), np.zeros(C_FIELDS, dtype=np.int64))
    history: list[HistoryPoint] = []
    started = time.perf_counter()
    for _, stats, counts in _results(spec, tasks, workers, backend, address):
        totals = totals.add(stats, counts)
        figures = totals.estimates(spec.side_keys, spec.spots)
        history.append(
            HistoryPoint(
                totals.rounds,
                {key: (item.value, item.standard_error) for key, item in figures.items()},
            )
        )
        if progress is not None:
            progress(totals.rounds)
    seconds = time.perf_counter() - started
    return SimulationResult(
        title=spec.title,
        policy=spec.policy,
        spots=spec.spots,
        fresh_shoe=spec.fresh_shoe,
        seed=entropy,
        rounds=totals.rounds,
        shoes=totals.shoes,
        void_rounds=totals.void_rounds,
        seconds=seconds,
        workers=workers,
        estimates=totals.estimates(spec.side_keys, spec.spots),
        history=history,
        backend=backend,
    )


def simulate(
    rules: RuleSet,
    chart: StrategyChart | None,
    rounds: int,
    *,
    policy: Policy = "basic",
    seed: int | None = None,
    workers: int = 1,
    spots: int | None = None,
    fresh_shoe: bool = False,
    chunk_rounds: int | None = None,
    progress: Callable[[int], None] | None = None,
    backend: Backend = "local",
    address: str | None = None,
) -> SimulationResult:
    """Simulate ``rounds`` rounds (at least; chunks end on whole shoes) of the title.

    ``policy``: ``basic`` plays the title's chart for every decision (splits only where the
    title offers them); ``autoplay`` plays the title's no-action policy (for Boundless: hit until
    over 11). Insurance and even money are never taken. ``spots``: occupied spots, default all.
    ``fresh_shoe``: reshuffle before every round without a burn (the model of the exact figures).
    """
    spec = build_spec(rules, chart, policy, spots=spots, fresh_shoe=fresh_shoe)
    return simulate_spec(
        spec,
        rounds,
        seed=seed,
        workers=workers,
        chunk_rounds=chunk_rounds,
        progress=progress,
        backend=backend,
        address=address,
    )
