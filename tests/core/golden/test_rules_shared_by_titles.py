"""Rules that several titles share, one test each, parametrized over the titles.

Each case gives the title, the stacked cards that set the rule up, and the title's own
expectation where the titles word the same rule differently.
"""

from __future__ import annotations

import pytest
from golden_helpers import BOO_BUCKS, UNLIMITED, bet, new_round, unchanged

from boundless.core.errors import IllegalActionError
from boundless.core.round import Action

HIT_STAND_DOUBLE = frozenset({Action.HIT, Action.STAND, Action.DOUBLE})


@pytest.mark.parametrize(
    ("game", "cards", "legal_after"),
    [
        # Boo Bucks: 8S 8D against 6H (hole TC) split; hand 1 takes 8C, a new pair of eights.
        pytest.param(BOO_BUCKS, "8S 6H 8D TC 8C", None, id="boo-bucks"),
        # Unlimited: 8S 8D against 6H split; hand 1 takes 8C, a new pair of eights.
        pytest.param(UNLIMITED, "8S 6H 8D 8C 2C 3C TC TD", HIT_STAND_DOUBLE, id="unlimited"),
    ],
)
def test_one_split_per_hand(game: str, cards: str, legal_after: frozenset[Action] | None) -> None:
    round_, shoe = new_round(game, cards)
    bet(round_, "p", 1)
    round_.deal()
    round_.decide("p", 1, "split")
    round_.close_step()
    assert Action.SPLIT not in round_.legal_actions("p", 1)
    if legal_after is not None:
        assert round_.legal_actions("p", 1) == legal_after
    with (
        unchanged(round_, shoe),
        pytest.raises(IllegalActionError, match="split is not allowed now"),
    ):
        round_.decide("p", 1, "split")


@pytest.mark.parametrize(
    ("game", "cards", "legal_after"),
    [
        # Boo Bucks: 8S 8D against 9H (hole 7C) may surrender, then splits; hand 1 takes 3C.
        pytest.param(BOO_BUCKS, "8S 9H 8D 7C 3C", None, id="boo-bucks"),
        # Unlimited: 8S 8D against 6H split; hand 1 takes 3C and is offered hit, stand, double.
        pytest.param(UNLIMITED, "8S 6H 8D 3C", HIT_STAND_DOUBLE, id="unlimited"),
    ],
)
def test_no_surrender_after_a_split(
    game: str, cards: str, legal_after: frozenset[Action] | None
) -> None:
    round_, shoe = new_round(game, cards)
    bet(round_, "p", 1)
    round_.deal()
    if game == BOO_BUCKS:
        assert Action.SURRENDER in round_.legal_actions("p", 1)
    round_.decide("p", 1, "split")
    round_.close_step()
    assert Action.SURRENDER not in round_.legal_actions("p", 1)
    if legal_after is not None:
        assert round_.legal_actions("p", 1) == legal_after
    with (
        unchanged(round_, shoe),
        pytest.raises(IllegalActionError, match="surrender is not allowed now"),
    ):
        round_.decide("p", 1, "surrender")
