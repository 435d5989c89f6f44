"""Monte-Carlo play of a title (see :mod:`.runner`), and its figures beside the exact ones.

``kernels`` holds everything numba compiles (one file: numba caches per file); ``reference``
is the same play in plain Python, held equal to the kernel by the tests.
"""

from boundless.math.simulation.compare import ExactFigure, exact_figures, plays_chart, z_score
from boundless.math.simulation.runner import (
    BACKENDS,
    Backend,
    BackendUnavailableError,
    HistoryPoint,
    SimulationResult,
    plan_chunks,
    run_chunk,
    simulate,
    simulate_spec,
)
from boundless.math.simulation.spec import POLICIES, Policy, SimSpec, build_spec
from boundless.math.simulation.stats import MAIN, Z95, BetEstimate

__all__ = [
    "BACKENDS",
    "MAIN",
    "POLICIES",
    "Z95",
    "Backend",
    "BackendUnavailableError",
    "BetEstimate",
    "ExactFigure",
    "HistoryPoint",
    "Policy",
    "SimSpec",
    "SimulationResult",
    "build_spec",
    "exact_figures",
    "plan_chunks",
    "plays_chart",
    "run_chunk",
    "simulate",
    "simulate_spec",
    "z_score",
]
