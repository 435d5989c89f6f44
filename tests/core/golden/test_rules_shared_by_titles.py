"""Rules that several titles share, one test each, parametrized over the titles.

Each case gives the title, the stacked cards that set the rule up, and the title's own
expectation where the titles word the same rule differently.
"""

from __future__ import annotations

import pytest
from golden_helpers import (
    BOO_BUCKS,
    UNLIMITED,
    Hand,
    dealer,
    dealt,
    hand,
    net,
    paid_by_stage,
    play,
    played,
    unchanged,
)

from boundless.core.errors import IllegalActionError
from boundless.core.round import Action

HIT_STAND_DOUBLE = frozenset({Action.HIT, Action.STAND, Action.DOUBLE})


# Boo Bucks splits two cards of equal point value; Unlimited doubles on any first two cards.
# Each case: the player's first and second cards against 6H (Boo Bucks: hole TC).
@pytest.mark.parametrize(
    ("game", "pair", "hole", "action"),
    [
        *[(BOO_BUCKS, pair, " TC", Action.SPLIT) for pair in ("TS KD", "JS QD", "8S 8D", "AS AD")],
        *[(UNLIMITED, cards, "", Action.DOUBLE) for cards in ("TS 2D", "9S 8D", "AS 7D", "2S 3D")],
    ],
)
def test_the_action_is_offered_on_these_first_two_cards(
    game: str, pair: str, hole: str, action: Action
) -> None:
    first, second = pair.split()
    round_, _ = dealt(game, f"{first} 6H {second}{hole}")
    assert action in round_.legal_actions("p", 1)


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
    round_, shoe = dealt(game, cards)
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


@pytest.mark.parametrize(
    ("game", "cards", "dealer_total"),
    [
        # AS KD against AD: even money whether the dealer's second card (hole) makes 21 or not.
        pytest.param(BOO_BUCKS, "AS AD KD KC", 21, id="boo-bucks-dealer-blackjack"),
        pytest.param(BOO_BUCKS, "AS AD KD 9C", 20, id="boo-bucks-dealer-20"),
        pytest.param(UNLIMITED, "AS AD KD KC", 21, id="unlimited-dealer-blackjack"),
        pytest.param(UNLIMITED, "AS AD KD 7C", 18, id="unlimited-dealer-18"),
    ],
)
def test_even_money_pays_one_to_one_at_once_whatever_the_dealer_makes(
    game: str, cards: str, dealer_total: int
) -> None:
    round_, _ = dealt(game, cards)
    assert round_.can_take_even_money("p", 1) and not round_.can_take_insurance("p", 1)
    round_.take_even_money("p", 1)
    assert paid_by_stage(round_) == [("even_money", {"p@1": 2000})]
    play(round_)
    assert round_.dealer_hand.total == dealer_total
    assert hand(round_, "p", 1) == Hand("AS KD", 21, 1000, "even_money", 2000)
    assert net(round_, "p") == 1000
    assert paid_by_stage(round_) == [("even_money", {"p@1": 2000})]


@pytest.mark.parametrize(
    ("game", "cards", "dealer_cards"),
    [
        # TS 9H against an ace with no blackjack behind it: the insurance (5.00) is lost and the
        # 19 beats the dealer's 18.
        pytest.param(BOO_BUCKS, "TS AC 9H 7H", "AC 7H", id="boo-bucks"),
        pytest.param(UNLIMITED, "TS AD 9H 7C", "AD 7C", id="unlimited"),
    ],
)
def test_insurance_is_lost_without_a_dealer_blackjack(
    game: str, cards: str, dealer_cards: str
) -> None:
    round_, _ = played(game, cards, "stand", insured=True)
    assert dealer(round_) == dealer_cards
    assert hand(round_, "p", 1) == Hand("TS 9H", 19, 1000, "win", 2000)
    assert net(round_, "p") == 1000 - 500
