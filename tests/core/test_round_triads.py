"""The round's automations and operator actions are verify / can / do triads like the players'
calls: ``can_x`` is true exactly where ``x`` goes through, and a refused ``x`` changes nothing."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from golden.golden_helpers import unchanged

from boundless.core.errors import PhaseError
from boundless.core.random_source import SeededSource
from boundless.core.round import SharedRound
from boundless.core.shoe import Shoe
from boundless.titles import load_game

RULES, CHART = load_game("boundless")
OPERATIONS = ("close_insurance", "close_step", "play_dealer", "settle", "pause", "resume", "cancel")


def _round(seed: int) -> SharedRound:
    round_ = SharedRound(RULES, chart=CHART, cards=Shoe.shuffled(8, 0.75, SeededSource(seed)))
    round_.place_bet("a", 1, 1000, {}, free_amount=5000)
    return round_


def _check_every_operation(round_: SharedRound) -> list[str]:
    """Each operation's ``can_x`` against what ``x`` does (on a rebuilt copy); the allowed."""
    allowed = []
    for name in OPERATIONS:
        copy = SharedRound.rebuild(RULES, round_.events, CHART)
        call: Callable[[], object] = getattr(copy, name)
        if getattr(round_, f"can_{name}")():
            allowed.append(name)
            if name not in ("close_step", "play_dealer"):  # these draw: a rebuilt copy cannot
                call()
        else:
            with unchanged(copy), pytest.raises(PhaseError):
                call()
    return allowed


@pytest.mark.parametrize("seed", range(6))
def test_can_says_what_each_operation_does_at_every_point_of_a_round(seed: int) -> None:
    round_ = _round(seed)
    seen: set[str] = set()
    while not round_.over:
        seen.update(_check_every_operation(round_))
        round_.advance()
    assert _check_every_operation(round_) == []
    assert {"pause", "cancel", "settle"} <= seen


def test_a_paused_round_can_only_resume_or_cancel() -> None:
    round_ = _round(0)
    round_.deal()
    round_.pause()
    assert _check_every_operation(round_) == ["resume", "cancel"]
