"""Rules that several titles share, one test each, parametrized over the titles.

Each case gives the title, the stacked cards that set the rule up, and the title's own
expectation where the titles word the same rule differently.
"""

from __future__ import annotations

import golden_helpers as golden
import pytest

from boundless.core.errors import IllegalActionError
from boundless.core.round import Action

HIT_STAND_DOUBLE = frozenset({Action.HIT, Action.STAND, Action.DOUBLE})


# Boo Bucks splits two cards of equal point value; Unlimited doubles on any first two cards.
# Each case: the player's first and second cards against 6H (Boo Bucks: hole TC).
@pytest.mark.parametrize(
    ("game", "pair", "hole", "action"),
    [
        *[
            (golden.BOO_BUCKS, pair, " TC", Action.SPLIT)
            for pair in ("TS KD", "JS QD", "8S 8D", "AS AD")
        ],
        *[
            (golden.UNLIMITED, cards, "", Action.DOUBLE)
            for cards in ("TS 2D", "9S 8D", "AS 7D", "2S 3D")
        ],
    ],
)
def test_the_action_is_offered_on_these_first_two_cards(
    game: str, pair: str, hole: str, action: Action
) -> None:
    first, second = pair.split()
    round_, _ = golden.dealt(game, f"{first} 6H {second}{hole}")
    assert action in round_.legal_actions("p", 1)


@pytest.mark.parametrize(
    ("game", "cards", "action", "legal_after"),
    [
        # One split per hand. Boo Bucks: 8S 8D against 6H (hole TC) split; hand 1 takes 8C, a
        # new pair of eights. Unlimited: 8S 8D against 6H split; hand 1 takes 8C.
        pytest.param(golden.BOO_BUCKS, "8S 6H 8D TC 8C", "split", None, id="boo-bucks-split"),
        pytest.param(
            golden.UNLIMITED,
            "8S 6H 8D 8C 2C 3C TC TD",
            "split",
            HIT_STAND_DOUBLE,
            id="unlimited-split",
        ),
        # No surrender after a split. Boo Bucks: 8S 8D against 9H (hole 7C) may surrender,
        # then splits; hand 1 takes 3C. Unlimited: 8S 8D against 6H; hand 1 takes 3C and is
        # offered hit, stand, double.
        pytest.param(
            golden.BOO_BUCKS, "8S 9H 8D 7C 3C", "surrender", None, id="boo-bucks-surrender"
        ),
        pytest.param(
            golden.UNLIMITED, "8S 6H 8D 3C", "surrender", HIT_STAND_DOUBLE, id="unlimited-surrender"
        ),
    ],
)
def test_after_a_split_no_second_split_and_no_surrender(
    game: str, cards: str, action: str, legal_after: frozenset[Action] | None
) -> None:
    round_, shoe = golden.dealt(game, cards)
    if game == golden.BOO_BUCKS and action == "surrender":
        assert Action.SURRENDER in round_.legal_actions("p", 1)
    round_.decide("p", 1, "split")
    round_.close_step()
    assert Action.from_word(action) not in round_.legal_actions("p", 1)
    if legal_after is not None:
        assert round_.legal_actions("p", 1) == legal_after
    with golden.refused(round_, shoe, IllegalActionError, f"{action} is not allowed now"):
        round_.decide("p", 1, action)


@pytest.mark.parametrize(
    ("game", "cards", "dealer_total"),
    [
        # AS KD against AD: even money whether the dealer's second card (hole) makes 21 or not.
        pytest.param(golden.BOO_BUCKS, "AS AD KD KC", 21, id="boo-bucks-dealer-blackjack"),
        pytest.param(golden.BOO_BUCKS, "AS AD KD 9C", 20, id="boo-bucks-dealer-20"),
        pytest.param(golden.UNLIMITED, "AS AD KD KC", 21, id="unlimited-dealer-blackjack"),
        pytest.param(golden.UNLIMITED, "AS AD KD 7C", 18, id="unlimited-dealer-18"),
    ],
)
def test_even_money_pays_one_to_one_at_once_whatever_the_dealer_makes(
    game: str, cards: str, dealer_total: int
) -> None:
    round_, _ = golden.dealt(game, cards)
    assert round_.can_take_even_money("p", 1) and not round_.can_take_insurance("p", 1)
    round_.take_even_money("p", 1)
    assert golden.paid_by_stage(round_) == [("even_money", {"p@1": 2000})]
    golden.play(round_)
    assert round_.dealer_hand.total == dealer_total
    assert golden.hand(round_, "p", 1) == golden.Hand("AS KD", 21, 1000, "even_money", 2000)
    assert golden.net(round_, "p") == 1000
    assert golden.paid_by_stage(round_) == [("even_money", {"p@1": 2000})]


@pytest.mark.parametrize(
    ("game", "cards", "dealer_cards"),
    [
        # TS 9H against an ace with no blackjack behind it: the insurance (5.00) is lost and the
        # 19 beats the dealer's 18.
        pytest.param(golden.BOO_BUCKS, "TS AC 9H 7H", "AC 7H", id="boo-bucks"),
        pytest.param(golden.UNLIMITED, "TS AD 9H 7C", "AD 7C", id="unlimited"),
    ],
)
def test_insurance_is_lost_without_a_dealer_blackjack(
    game: str, cards: str, dealer_cards: str
) -> None:
    round_, _ = golden.played(game, cards, "stand", insured=True)
    assert golden.dealer(round_) == dealer_cards
    assert golden.hand(round_, "p", 1) == golden.Hand("TS 9H", 19, 1000, "win", 2000)
    assert golden.net(round_, "p") == 1000 - 500


@pytest.mark.parametrize("game", [golden.BOO_BUCKS, golden.UNLIMITED])
def test_closer_to_21_wins_one_to_one_a_tie_pushes_farther_loses(game: str) -> None:
    # Spots 20, 19 and 18 stand against the dealer's 9C TC = 19 (Boo Bucks: TC is the hole card).
    round_, _ = golden.seated(game, "TS TH TD 9C KS 9S 8D TC", 1000, 1000, 1000)
    golden.play(round_, {("p", spot): ["stand"] for spot in (1, 2, 3)})
    assert golden.dealer(round_) == "9C TC"
    assert golden.hand(round_, "p", 1) == golden.Hand("TS KS", 20, 1000, "win", 2000)
    assert golden.hand(round_, "p", 2) == golden.Hand("TH 9S", 19, 1000, "push", 1000)
    assert golden.hand(round_, "p", 3) == golden.Hand("TD 8D", 18, 1000, "lose", 0)
    assert golden.net(round_, "p") == 0


# A silent hand is played by the title's own chart. Each case: the first cards (Boo Bucks: and
# the hole card) and the chart's first move. An Unlimited Rp cell (surrender, else split) on a
# pair offered only Split or Surrender 20%: the chart's surrender is the Surrender 20% (ruling of
# commit ee0a095).
SILENT_HANDS = {
    golden.BOO_BUCKS: [
        ("6S 6H 5D TC", "double", "boo-bucks-11-v-6-doubles"),
        ("TS TH 6D 7C", "surrender", "boo-bucks-16-v-10-surrenders"),
        ("8S 6H 8D TC", "split", "boo-bucks-8-8-v-6-splits"),
        ("TS 4H 2D TC", "stand", "boo-bucks-12-v-4-stands"),
    ],
    golden.UNLIMITED: [
        ("TS 4H 2D", "stand", "hard-12-v-4-S"),
        ("TS 2H 2D", "hit", "hard-12-v-2-H"),
        ("TS TH 6D", "surrender", "hard-16-v-10-Rs"),
        ("TS 9H 6D", "surrender", "hard-16-v-9-Rh"),
        ("9S KH 6D", "surrender", "hard-15-v-10-Rh"),
        ("6S TH 5D", "double", "hard-11-v-10-Dh"),
        ("AS 3H 7D", "double", "soft-18-v-3-Ds"),
        ("AS 9H 7D", "hit", "soft-18-v-9-H"),
        ("TS 7H 7D", "stand", "hard-17-v-7-S"),
        ("5S 6H 5D", "double", "pair-of-fives-v-6-Dh"),
        ("9S 6H 9D", "split", "nines-v-6-P"),
        ("8S TH 8D", "surrender20", "eights-v-10-Rp-surrenders-20"),
        ("AS AH AD", "surrender20", "aces-v-ace-Rp-surrenders-20"),
        ("8S 7H 8D", "split", "eights-v-7-P-splits"),
    ],
}
"""Per title: the first cards, the chart's first move, the case's id."""


@pytest.mark.parametrize(
    ("game", "cards", "first_move"),
    [
        pytest.param(game, cards, first_move, id=name)
        for game, cases in SILENT_HANDS.items()
        for cards, first_move, name in cases
    ],
)
def test_a_silent_hand_is_played_by_the_titles_chart(
    game: str, cards: str, first_move: str
) -> None:
    round_, _ = golden.played(game, f"{cards} {' '.join(['2C'] * 12)}")
    assert golden.moves(round_, "p", 1)[0] == (first_move, "autoplay", 1)
    assert all(item.autoplayed for item in golden.result(round_, "p", 1).hands)
