"""The convergence plot of a simulation: each bet's running return with its 95% band, and the
exact figure as a line where one is known."""

from __future__ import annotations

import math
from pathlib import Path

from boundless.math.simulation import MAIN, Z95, ExactFigure, SimulationResult

COLUMNS = 2


def convergence_plot(
    result: SimulationResult,
    exact: dict[str, ExactFigure],
    target: Path,
    title: str,
    names: dict[str, str] | None = None,
) -> None:
    """Write the plot to ``target`` (format from its suffix: png, svg, pdf); ``names``: each
    bet's name by key (default the key)."""
    names = names or {}
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = [MAIN, *result.side_bets]
    rows = math.ceil(len(keys) / COLUMNS)
    figure, axes = plt.subplots(
        rows, COLUMNS, figsize=(6 * COLUMNS, 2.8 * rows), squeeze=False, constrained_layout=True
    )
    rounds = [point.rounds for point in result.history]
    for index, key in enumerate(keys):
        axis = axes[index // COLUMNS][index % COLUMNS]
        values = [point.figures[key][0] for point in result.history]
        errors = [point.figures[key][1] for point in result.history]
        low = [value - Z95 * error for value, error in zip(values, errors, strict=True)]
        high = [value + Z95 * error for value, error in zip(values, errors, strict=True)]
        axis.fill_between(rounds, low, high, alpha=0.25, label="95% CI")
        axis.plot(rounds, values, linewidth=1.2, label="simulated")
        if key in exact:
            axis.axhline(exact[key].value, color="black", linestyle="--", label="exact")
        final = result.estimates[key]
        name = names.get(key, key)
        axis.set_title(f"{name}: {final.value:.5f} ± {Z95 * final.standard_error:.5f}")
        axis.set_xscale("log")
        axis.set_xlabel("rounds")
        axis.set_ylabel("return")
        axis.grid(alpha=0.3)
    for index in range(len(keys), rows * COLUMNS):
        axes[index // COLUMNS][index % COLUMNS].axis("off")
    axes[0][0].legend(loc="best", fontsize="small")
    shoe = "fresh shoe every round" if result.fresh_shoe else "title's shoe"
    figure.suptitle(
        f"{title}: {result.rounds:,} rounds, {result.spots} spot(s), policy {result.policy}, "
        f"{shoe}, seed {result.seed}"
    )
    figure.savefig(target, dpi=110, format=target.suffix.lstrip(".").lower())
    plt.close(figure)
