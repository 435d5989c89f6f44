"""The Boo Bucks side bets on the Boundless main game, as the side-bet math tests use them."""

from __future__ import annotations

import tomllib
from pathlib import Path

from boundless.core.rules import RuleSet
from boundless.math.side_bets import what_if
from boundless.titles import load_title

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "boo-bucks-side-bets.toml"


def boo_bucks(decks: int, hits_soft_17: bool = False) -> RuleSet:
    """The Boundless rule set reshuffled every round, with the Boo Bucks side bets."""
    side_bets = tomllib.loads(EXAMPLE.read_text(encoding="utf-8"))["side_bets"]
    return what_if(
        load_title("boundless"),
        {
            "shoe": {"decks": decks, "reshuffle_every_round": True, "burn_after_shuffle": False},
            "dealer": {"hits_soft_17": hits_soft_17},
        },
        side_bets,
    )
