"""How the engine reads a chart cell (core/strategy_chart.py)."""

from __future__ import annotations

from boundless.core.cards import parse_cards
from boundless.titles import load_chart

EIGHTS = parse_cards(["8S", "8D"])


def test_surrender_on_a_split_only_pair_means_surrender_20() -> None:
    chart = load_chart("unlimited")
    assert chart is not None
    assert chart.pair_cell(8, 10) == "Rp"
    assert chart.choose(EIGHTS, 10, frozenset({"split", "surrender20"}), 8) == "surrender20"
    # Where the pair cell says P the split stays.
    assert chart.pair_cell(8, 6) == "P"
    assert chart.choose(EIGHTS, 6, frozenset({"split", "surrender20"}), 8) == "split"


def test_ordinary_surrender_is_preferred_when_offered() -> None:
    chart = load_chart("unlimited")
    assert chart is not None
    allowed = frozenset({"hit", "stand", "double", "split", "surrender"})
    assert chart.choose(EIGHTS, 10, allowed, 8) == "surrender"
    assert chart.choose(EIGHTS, 10, frozenset({"hit", "stand", "split"}), 8) == "split"
