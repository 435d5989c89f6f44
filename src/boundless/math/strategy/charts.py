"""The shipped chart files: their text, where they live, and how to regenerate them.

The derivation itself is :func:`boundless.math.exact.basic_strategy.derive_basic_strategy`
(re-exported by :mod:`boundless.math.strategy`, the name the chart files' headers cite).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from boundless.core.rules import RuleSet
from boundless.core.strategy_chart import StrategyChart, format_strategy_chart
from boundless.math.exact.basic_strategy import derive_basic_strategy
from boundless.titles import CHART_SUFFIX, load_title


def chart_header(rules: RuleSet) -> str:
    return "\n".join(
        (
            f"Basic strategy for {rules.title.name} ({rules.key} {rules.title.version}).",
            "Derived by boundless.math.strategy.derive_basic_strategy; do not edit by hand.",
            f'Regenerate: python -c "from boundless.math.strategy import write_chart; '
            f"write_chart('{rules.key}')\"",
            "Cells: H hit, S stand, Dh double else hit, Ds double else stand, P split,",
            "Rh surrender else hit, Rs surrender else stand, Rp surrender else split.",
        )
    )


def with_chart(
    rules: RuleSet, chart: StrategyChart | None, *, always: bool = False
) -> StrategyChart | None:
    """``chart``, or the chart derived in memory where the rules need one (or ``always``).

    A rule file written by an operator may ship no chart beside it; nothing is written to disk.
    """
    if chart is None and (always or rules.needs_strategy_chart):
        return derive_basic_strategy(rules)
    return chart


def chart_text(rules: RuleSet, chart: StrategyChart | None = None) -> str:
    """The chart file's text for ``rules`` (derived unless ``chart`` is given)."""
    return format_strategy_chart(chart or derive_basic_strategy(rules), chart_header(rules))


def chart_path(key: str) -> Path:
    """Where the shipped chart of title ``key`` lives (beside the title file)."""
    return Path(str(resources.files("boundless.titles").joinpath(f"{key}{CHART_SUFFIX}")))


def write_chart(key: str, directory: Path | None = None) -> Path:
    """Derive the chart of shipped title ``key`` and write ``<key>.chart.toml``."""
    rules = load_title(key)
    path = chart_path(key) if directory is None else directory / f"{key}{CHART_SUFFIX}"
    path.write_text(chart_text(rules), encoding="utf-8")
    return path
