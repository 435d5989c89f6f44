"""The derived basic-strategy charts: the shipped file, a published chart, every rule switch."""

from __future__ import annotations

import pytest
from main_game_rules import boo_bucks_like, boundless, classic, unlimited_like, variant

from boundless.core.rules import RuleSet
from boundless.core.strategy_chart import CELL_MOVES, StrategyChart, parse_strategy_chart
from boundless.math.exact import analyse_main_game
from boundless.math.strategy import chart_path, chart_text, derive_basic_strategy, write_chart
from boundless.titles import load_chart, load_title, shipped_title_keys

UPS = (2, 3, 4, 5, 6, 7, 8, 9, 10, 1)

# Wizard of Odds, "4-deck to 8-deck blackjack strategy" for S17, double after split, no
# surrender (https://wizardofodds.com/games/blackjack/strategy/4-decks/): D is double else
# hit except on soft 18 (double else stand).
WIZARD_4_TO_8_DECKS_S17_DAS = {
    "hard": {
        **{total: "H H H H H H H H H H" for total in range(4, 9)},
        9: "H Dh Dh Dh Dh H H H H H",
        10: "Dh Dh Dh Dh Dh Dh Dh Dh H H",
        11: "Dh Dh Dh Dh Dh Dh Dh Dh Dh H",
        12: "H H S S S H H H H H",
        **{total: "S S S S S H H H H H" for total in range(13, 17)},
        **{total: "S S S S S S S S S S" for total in range(17, 22)},
    },
    "soft": {
        12: "H H H H H H H H H H",
        13: "H H H Dh Dh H H H H H",
        14: "H H H Dh Dh H H H H H",
        15: "H H Dh Dh Dh H H H H H",
        16: "H H Dh Dh Dh H H H H H",
        17: "H Dh Dh Dh Dh H H H H H",
        18: "S Ds Ds Ds Ds S S H H H",
        **{total: "S S S S S S S S S S" for total in range(19, 22)},
    },
    "pairs": {
        1: "P P P P P P P P P P",
        2: "P P P P P P H H H H",
        3: "P P P P P P H H H H",
        4: "H H H P P H H H H H",
        5: "Dh Dh Dh Dh Dh Dh Dh Dh H H",
        6: "P P P P P H H H H H",
        7: "P P P P P P H H H H",
        8: "P P P P P P P P P P",
        9: "P P P P P S P P S S",
        10: "S S S S S S S S S S",
    },
}


def rows_of(chart: StrategyChart, table: str) -> dict[int, str]:
    cells = {"hard": chart.hard, "soft": chart.soft, "pairs": chart.pairs}[table]
    rows = sorted({row for row, _ in cells})
    return {row: " ".join(cells[(row, up)] for up in UPS) for row in rows}


@pytest.mark.parametrize("key", shipped_title_keys())
def test_every_shipped_chart_is_the_derived_one(key: str) -> None:
    """Each title's committed ``<key>.chart.toml`` is exactly what ``write_chart`` writes."""
    rules = load_title(key)
    assert chart_path(key).read_text(encoding="utf-8") == chart_text(rules)
    assert load_chart(key) == derive_basic_strategy(rules)


def test_eight_deck_s17_das_chart_is_the_published_basic_strategy() -> None:
    chart = derive_basic_strategy(classic(8, double_after_split=True))
    for table, expected in WIZARD_4_TO_8_DECKS_S17_DAS.items():
        assert rows_of(chart, table) == expected, table


def test_boundless_chart_surrenders_only_against_two_to_nine() -> None:
    chart = derive_basic_strategy(boundless())
    surrender_cells = [key for key, code in chart.hard.items() if code.startswith("R")]
    assert surrender_cells == [(16, 9)]
    assert all(not code.startswith("R") for code in chart.pairs.values())


def allowed_codes(chart: StrategyChart) -> set[str]:
    return {*chart.hard.values(), *chart.soft.values(), *chart.pairs.values()}


@pytest.mark.parametrize(
    "rules",
    [
        unlimited_like(),
        boo_bucks_like(decks=1, hits_soft_17=True, double_after_split=False),
        boo_bucks_like(decks=6, split_aces_one_card=False),
        variant(classic(2), double__allowed=False, double__after_split=False),
        classic(6, split=False),
    ],
    ids=["unlimited", "boo-1d-h17-ndas", "boo-6d-hittable-aces", "no-double", "no-split"],
)
def test_chart_follows_the_rule_switches(rules: RuleSet) -> None:
    analysis = analyse_main_game(rules)
    chart = analysis.chart
    codes = allowed_codes(chart)
    moves = {move for code in codes for move in CELL_MOVES[code]}
    assert ("double" in moves) == rules.double.allowed
    assert ("split" in moves) == rules.split.allowed
    assert ("surrender" in moves) == rules.surrender.allowed
    if rules.surrender.allowed:
        # A split pair's "Rp" means Surrender 20% where the title offers it against any up card.
        pairs = {} if rules.split.decline_refund is not None else chart.pairs
        for up in set(UPS) - set(rules.surrender.up_values):
            column = [code for (_, col), code in {**chart.hard, **pairs}.items() if col == up]
            assert not any(code.startswith("R") for code in column)
    assert analysis.optimal.expected_value >= analysis.basic.expected_value
    assert analysis.optimal.expected_value - analysis.basic.expected_value < 2e-3


def test_unlimited_chart_offers_the_usual_splits() -> None:
    """Splits are offered only where the chart splits: aces and eights always."""
    chart = derive_basic_strategy(unlimited_like())
    for up in UPS:
        assert chart.says_split(1, up)
        assert chart.says_split(8, up)
        assert not chart.says_split(10, up)
        assert not chart.says_split(5, up)


def test_write_chart_writes_a_chart_that_reads_back(tmp_path: object) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    written = write_chart("boundless", tmp_path)
    text = written.read_text(encoding="utf-8")
    assert text == chart_path("boundless").read_text(encoding="utf-8")
    assert parse_strategy_chart(text) == load_chart("boundless")
