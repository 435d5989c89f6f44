"""Shipped titles as data, and the adapter that reads them from the package."""

from __future__ import annotations

from functools import cache
from importlib import resources

from boundless.core.errors import InvalidRuleSetError
from boundless.core.rules import RuleSet, parse_rule_set


def shipped_title_keys() -> list[str]:
    folder = resources.files(__package__)
    return sorted(
        entry.name.removesuffix(".toml")
        for entry in folder.iterdir()
        if entry.name.endswith(".toml") and not entry.name.endswith(".chart.toml")
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
