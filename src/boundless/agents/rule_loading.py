"""A title or a rule file as Blackjack-v0 and the vector environment load it."""

from __future__ import annotations

from pathlib import Path

from boundless.core.errors import InvalidRuleSetError
from boundless.core.rules import RuleSet
from boundless.core.strategy_chart import StrategyChart
from boundless.math.strategy import with_chart
from boundless.titles import load_game, load_rule_file


def load_rules(title: str | None, rules: str | Path | None) -> tuple[RuleSet, StrategyChart | None]:
    """A shipped title or a rule file (its chart derived where the rules need one)."""
    if rules is not None and title is not None:
        raise InvalidRuleSetError("give a title or a rule file, not both")
    if rules is not None:
        loaded, chart = load_rule_file(Path(rules))
        return loaded, with_chart(loaded, chart)
    return load_game(title or "boundless")


__all__ = ["load_rules"]
