"""Rule sets with resplits and a shoe rich in pairs, for the resplit properties (not a test
module).

The shipped titles all split once; these are the same titles with ``split.max_hands`` raised
(and aces resplit where the title gives split aces one card or plays them on), plus the
operator example ``docs/examples/rules/boo-bucks-resplit.toml``. A shuffled shoe seldom deals a
pair twice running, so the properties deal from :func:`pair_rich_shoe`: random cards of a few
ranks, mostly eights and aces.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from boundless.core.cards import Card
from boundless.core.random_source import SeededSource
from boundless.core.rules import RuleSet, rule_set_from_data
from boundless.core.shoe import Shoe
from boundless.core.strategy_chart import StrategyChart
from boundless.titles import load_chart, load_game, load_rule_file

Game = tuple[RuleSet, StrategyChart | None]
EXAMPLE_FILE = Path(__file__).parents[2] / "docs" / "examples" / "rules" / "boo-bucks-resplit.toml"
# Mostly eights and aces (pairs every chart splits), some cards that end or make hands.
PAIR_RANKS = (8, 8, 8, 8, 8, 8, 8, 1, 1, 1, 2, 3, 5, 10)
PAIR_RICH_CARDS = 400
EIGHTS_DEALT = 8  # the deal of up to three spots: first cards, the up card, second cards, hole


def resplit_variant(key: str, **split: Any) -> Game:
    """A shipped title with its split rules changed, and the title's own chart."""
    rules, chart = load_game(key)
    data = rules.model_dump(mode="json")
    data["split"] = {**data["split"], **split}
    return rule_set_from_data(data, f"{key} (resplit variant)"), chart


def example_game() -> Game:
    """The operator example; its chart is the base preset's (the engine's chart loading as is)."""
    rules, chart = load_rule_file(EXAMPLE_FILE)
    assert (
        chart is None
    )  # the file ships no chart: the server derives one, the tests use boo-bucks'
    return rules, load_chart("boo-bucks")


RESPLIT_GAMES: list[Game] = [
    resplit_variant("boundless", max_hands=4, resplit_aces=True),
    resplit_variant("boundless", max_hands=3),
    resplit_variant("unlimited", max_hands=3, resplit_aces=True),
    resplit_variant("boo-bucks-split-aces-hit", max_hands=4, resplit_aces=True),
    resplit_variant("boo-bucks-no-das", max_hands=3),
    example_game(),
]


def pair_rich_shoe(seed: int) -> Shoe:
    """Random cards of :data:`PAIR_RANKS`; for an even seed the deal itself is all eights (every
    spot starts on a pair of eights against an eight up), for an odd one it is random too."""
    source = SeededSource(seed)
    cards = [
        Card.of(PAIR_RANKS[source.randbelow(len(PAIR_RANKS))], source.randbelow(4))
        for _ in range(PAIR_RICH_CARDS)
    ]
    if seed % 2 == 0:
        cards[:EIGHTS_DEALT] = [Card.of(8, index % 4) for index in range(EIGHTS_DEALT)]
    return Shoe.stacked(cards)
