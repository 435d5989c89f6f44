"""``boundless rtp --split-play``: the optimal player's split convention, named in the output."""

from __future__ import annotations

import json

from cli_helpers import assert_refused, invoke

from boundless.cli.math_commands import SplitPlayChoice
from boundless.math.exact import SPLIT_PLAYS


def test_the_cli_offers_exactly_the_analysis_split_plays() -> None:
    assert tuple(choice.value for choice in SplitPlayChoice) == SPLIT_PLAYS


def test_rtp_names_the_split_play_and_basic_does_not_depend_on_it() -> None:
    runs = {}
    for play in SPLIT_PLAYS:
        outcome = invoke("rtp", "boo-bucks", "--split-play", play, "--json")
        assert outcome.code == 0, outcome.output
        runs[play] = json.loads(outcome.stdout)["main"]
        assert runs[play]["split_play"] == play
    assert runs["cdz"]["basic"] == runs["post-split"]["basic"]
    assert runs["cdz"]["optimal"] <= runs["post-split"]["optimal"]
    text = invoke("rtp", "boo-bucks", "--split-play", "cdz")
    assert "Optimal split hands: cdz" in text.stdout


def test_an_unknown_split_play_is_refused_in_one_line() -> None:
    assert_refused(invoke("rtp", "boundless", "--split-play", "guess"), "--split-play")
