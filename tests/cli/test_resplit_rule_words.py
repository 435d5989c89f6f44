"""The report's rule sentences (the rules page's own strings) say the resplit rule: once for a
title that splits once, again up to ``split.max_hands`` hands with aces by their switch."""

from __future__ import annotations

from pathlib import Path

import pytest

from boundless.cli.report.rule_sentences import rule_groups
from boundless.core.rules import RuleSet, rule_set_from_data
from boundless.titles import load_rule_file, load_title, shipped_title_keys

EXAMPLE = Path(__file__).parents[2] / "docs" / "examples" / "rules" / "boo-bucks-resplit.toml"


def _decisions(rules: RuleSet) -> list[str]:
    group = next(group for group in rule_groups(rules) if group.heading == "Your decisions")
    return list(group.sentences)


@pytest.mark.parametrize("key", shipped_title_keys())
def test_a_title_that_splits_once_says_so(key: str) -> None:
    said = _decisions(load_title(key))
    assert "Only one split per hand." in said
    assert not [sentence for sentence in said if "split again" in sentence]


def test_the_resplit_example_says_up_to_four_hands_and_aces_too() -> None:
    said = _decisions(load_rule_file(EXAMPLE)[0])
    assert "Only one split per hand." not in said
    start = said.index("A pair made by a split may be split again, up to 4 hands in all.")
    assert said[start + 1] == "Aces may be split again too."
    assert said[start + 2] == "Split aces get one card each."


def test_aces_that_may_not_be_split_again_are_named() -> None:
    data = load_title("unlimited").model_dump(mode="json")
    data["split"] |= {"max_hands": 3}
    said = _decisions(rule_set_from_data(data))
    assert "A pair made by a split may be split again, up to 3 hands in all." in said
    assert "Aces may not be split again." in said
