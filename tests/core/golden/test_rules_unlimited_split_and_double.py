"""Golden rounds of Blackjack Unlimited: splits offered by the chart, Surrender 20%, doubles.

Unlimited document: "Splitting Pairs" (Split or Surrender 20%, sub-hands one after the other, no
re-split, split aces one card and no blackjack), the "IMPORTANT NOTE on SPLITTING PAIRS",
"Doubling Down", the payout line "No split option pays 80% of the initial bet back";
DECISIONS.md rules 2 (pairs by rank in this title), 17 and 21.
"""

from __future__ import annotations

import golden_helpers as golden
import pytest

from boundless.core.cards import Card
from boundless.core.errors import InsufficientCoinsError
from boundless.core.round import Action
from boundless.titles import load_game

SPLIT_OFFER = frozenset({Action.SPLIT, Action.SURRENDER20})
RANKS = "A23456789TJQK"
UP_CARDS = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "A")


def _options(pair: str, up: str) -> frozenset[Action]:
    round_, _ = golden.dealt(golden.UNLIMITED, f"{pair[0]}S {up}H {pair[1]}D 5C 5C 5C 5C 5C")
    if round_.phase == "insurance":
        round_.close_insurance()
    return round_.legal_actions("p", 1)


# Pair against up card, where the chart splits (88 v T: Rp, surrender else split; the split is
# offered) and where it does not.
CHART_SPLITS = {
    True: "88v6 88vT 88vA AAvA 44v5 99v6 77v7",
    False: "44v4 99v7 55v6 22v8 77v8 TTv6 JJv6",
}


@pytest.mark.parametrize(
    ("pair", "up", "split"),
    [(cell[:2], cell[3], split) for split, cells in CHART_SPLITS.items() for cell in cells.split()],
)
def test_split_is_offered_only_where_the_chart_splits(pair: str, up: str, split: bool) -> None:
    options = _options(pair, up)
    if split:
        assert options == SPLIT_OFFER
    else:
        assert Action.SPLIT not in options and Action.SURRENDER20 not in options
        assert {Action.HIT, Action.STAND, Action.DOUBLE} <= options


def test_every_pair_against_every_up_card_follows_the_chart() -> None:
    _, chart = load_game(golden.UNLIMITED)
    assert chart is not None
    for rank in RANKS:
        for up in UP_CARDS:
            value = Card.parse(f"{rank}S").value
            up_value = Card.parse(f"{up}S").value
            expected = chart.says_split(value, up_value)
            assert (_options(rank + rank, up) == SPLIT_OFFER) == expected, (rank, up)


def test_ten_and_king_are_no_pair_and_get_the_ordinary_options() -> None:
    options = _options("TK", "6")
    assert options == frozenset({Action.HIT, Action.STAND, Action.DOUBLE, Action.SURRENDER})


def test_surrender_20_returns_80_percent_at_once_and_keeps_it_against_a_dealer_blackjack() -> None:
    # 8S 8D against TH: p declines the split (Surrender 20%); the dealer's AC makes blackjack.
    round_, _ = golden.decided(golden.UNLIMITED, "8S TH 8D AC", "surrender20")
    assert golden.paid_by_stage(round_) == [("surrender", {"p@1": 800})]
    golden.play(round_)
    assert golden.dealer(round_) == "TH AC"
    assert golden.hand(round_, "p", 1) == golden.Hand("8S 8D", 16, 1000, "surrender20", 800)
    assert golden.net(round_, "p") == -200


def test_split_hands_are_dealt_and_played_one_after_the_other() -> None:
    """8S 8D against 6H. a splits: hand 1 takes 3C, hits 9C (20) and stands, and hand 2 takes
    that step's card TD (18); b on the same spot takes Surrender 20% and no card.
    The dealer takes TH (16) and 8C: bust."""
    round_, _ = golden.opened(golden.UNLIMITED, "8S 6H 8D 3C 9C TD TH 8C", "a", "b")
    golden.play(round_, {("a", 1): ["split", "hit", "stand", "stand"], ("b", 1): ["surrender20"]})
    assert golden.step_cards(round_, 1) == ["3C", "9C", "TD"]
    assert golden.drawn(round_, "a", 1) == ["3C", "9C", "TD"]
    assert golden.drawn(round_, "b", 1) == []
    assert golden.hands(round_, "a", 1) == [
        golden.Hand("8S 3C 9C", 20, 1000, "win", 2000),
        golden.Hand("8D TD", 18, 1000, "win", 2000),
    ]
    assert golden.hand(round_, "b", 1) == golden.Hand("8S 8D", 16, 1000, "surrender20", 800)
    assert golden.dealer(round_) == "6H TH 8C"


def test_split_aces_take_exactly_one_card_each_and_no_double() -> None:
    # AS AD against 6H: hand 1 takes KC (21, not blackjack: paid 1:1), hand 2 takes 5D (16); no
    # decision follows. The dealer takes TH and 2C: 18.
    round_, _ = golden.decided(golden.UNLIMITED, "AS 6H AD KC 5D TH 2C", "split")
    assert round_.legal_actions("p", 1) == frozenset()  # hand 2 takes its card without asking
    round_.close_step()
    assert round_.phase == "dealer"
    golden.play(round_)
    assert golden.dealer(round_) == "6H TH 2C"
    assert golden.hands(round_, "p", 1) == [
        golden.Hand("AS KC", 21, 1000, "win", 2000),
        golden.Hand("AD 5D", 16, 1000, "lose", 0),
    ]


def test_double_takes_exactly_one_card_and_doubles_the_bet() -> None:
    # 6S 5D = 11 against 6H doubles and takes 2C: 13, and stands. Dealer 6H TD 9C: bust.
    round_, _ = golden.played(golden.UNLIMITED, "6S 6H 5D 2C TD 9C", "double", "hit")
    assert golden.step_cards(round_, 1) == ["2C"]
    assert golden.hand(round_, "p", 1) == golden.Hand("6S 5D 2C", 13, 2000, "win", 4000)


def test_double_after_a_split() -> None:
    """8S 8D against 6H: split; hand 1 takes 3C and doubles on TC (21); hand 2 takes 2C and
    doubles on 9C (19). The dealer 6H 7D 4S stands on 17."""
    round_, _ = golden.played(
        golden.UNLIMITED, "8S 6H 8D 3C TC 2C 9C 7D 4S", "split", "double", "double"
    )
    assert golden.hands(round_, "p", 1) == [
        golden.Hand("8S 3C TC", 21, 2000, "win", 4000),
        golden.Hand("8D 2C 9C", 19, 2000, "win", 4000),
    ]
    assert golden.dealer(round_) == "6H 7D 4S"


def test_split_and_double_need_the_coins() -> None:
    round_, shoe = golden.dealt(golden.UNLIMITED, "8S 6H 8D 3C", balance=1500)
    assert round_.legal_actions("p", 1) == frozenset({Action.SURRENDER20})
    with golden.refused(round_, shoe, InsufficientCoinsError, r"split costs 10\.00"):
        round_.decide("p", 1, "split")

    round_, shoe = golden.dealt(golden.UNLIMITED, "6S 6H 5D 2C", balance=1500)
    assert Action.DOUBLE not in round_.legal_actions("p", 1)
    with golden.refused(round_, shoe, InsufficientCoinsError, r"double costs 10\.00"):
        round_.decide("p", 1, "double")
