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
    ("game", "cards", "action", "legal_after"),
    [
        # One split per hand. Boo Bucks: 8S 8D against 6H (hole TC) split; hand 1 takes 8C, a
        # new pair of eights. Unlimited: 8S 8D against 6H split; hand 1 takes 8C.
        pytest.param(BOO_BUCKS, "8S 6H 8D TC 8C", "split", None, id="boo-bucks-split"),
        pytest.param(
            UNLIMITED, "8S 6H 8D 8C 2C 3C TC TD", "split", HIT_STAND_DOUBLE, id="unlimited-split"
        ),
        # No surrender after a split. Boo Bucks: 8S 8D against 9H (hole 7C) may surrender,
        # then splits; hand 1 takes 3C. Unlimited: 8S 8D against 6H; hand 1 takes 3C and is
        # offered hit, stand, double.
        pytest.param(BOO_BUCKS, "8S 9H 8D 7C 3C", "surrender", None, id="boo-bucks-surrender"),
        pytest.param(
            UNLIMITED, "8S 6H 8D 3C", "surrender", HIT_STAND_DOUBLE, id="unlimited-surrender"
        ),
    ],
)
def test_after_a_split_no_second_split_and_no_surrender(
    game: str, cards: str, action: str, legal_after: frozenset[Action] | None
) -> None:
    round_, shoe = new_round(game, cards)
    bet(round_, "p", 1)
    round_.deal()
    if game == BOO_BUCKS and action == "surrender":
        assert Action.SURRENDER in round_.legal_actions("p", 1)
    round_.decide("p", 1, "split")
    round_.close_step()
    assert Action.from_word(action) not in round_.legal_actions("p", 1)
    if legal_after is not None:
        assert round_.legal_actions("p", 1) == legal_after
    with (
        unchanged(round_, shoe),
        pytest.raises(IllegalActionError, match=f"{action} is not allowed now"),
    ):
        round_.decide("p", 1, action)
