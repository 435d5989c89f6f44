"""Shipped titles as data, and the adapter that reads them from the package."""

from __future__ import annotations

from functools import cache
from importlib import resources

from boundless.core.errors import InvalidRuleSetError
from boundless.core.rules import RuleSet, parse_rule_set
from boundless.core.strategy_chart import StrategyChart, parse_strategy_chart

CHART_SUFFIX = ".chart.toml"


def shipped_title_keys() -> list[str]:
    folder = resources.files(__package__)
    return sorted(
        entry.name.removesuffix(".toml")
        for entry in folder.iterdir()
        if entry.name.endswith(".toml") and not entry.name.endswith(CHART_SUFFIX)
    )


@cache
def load_title(key: str) -> RuleSet:
    """The shipped rule set named ``key``; unknown names raise with the list of known ones."""
    known = shipped_title_keys()
    if key not in known:
        raise InvalidRuleSetError(f"unknown title {key!r}; shipped titles: {', '.join(known)}")
    text = resources.files(__package__).joinpath(f"{key}.toml").read_text(encoding="utf-8")
    rules = parse_rule_set(text, source=f"{key}.toml")
    if rules.key != key:
        raise InvalidRuleSetError(f"{key}.toml: title.key is {rules.key!r}, expected {key!r}")
    return rules


@cache
def load_chart(key: str) -> StrategyChart | None:
    """The title's shipped basic-strategy chart, or ``None`` when none is shipped."""
    entry = resources.files(__package__).joinpath(f"{key}{CHART_SUFFIX}")
    if not entry.is_file():
        return None
    chart = parse_strategy_chart(entry.read_text(encoding="utf-8"), source=f"{key}{CHART_SUFFIX}")
    if chart.title_key != key:
        raise InvalidRuleSetError(f"{key}{CHART_SUFFIX} is the chart of {chart.title_key!r}")
    return chart


def load_game(key: str) -> tuple[RuleSet, StrategyChart | None]:
    """Rules and chart together; a title whose rules need a chart must ship one."""
    rules = load_title(key)
    chart = load_chart(key)
    if rules.needs_strategy_chart and chart is None:
        raise InvalidRuleSetError(f"title {key!r} needs {key}{CHART_SUFFIX}, which is missing")
    return rules, chart
