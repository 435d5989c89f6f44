"""Golden rounds of the five Boo Bucks presets: the document's alternative lines as switches.

Boo Bucks document: "SPLIT ACES MAY BE HIT" / "SPLIT ACES ONLY GET DEALT ONE CARD", "THE PLAYER MAY
(NOT) DOUBLE DOWN ON SPLIT HANDS", "THE DEALER MUST HIT ON 17 IF AN ACE ..." / "THE DEALER STANDS ON
ALL 17S", "ONE STANDARD 52 CARD DECK" / "6 STANDARD 52 CARD DECKS", Fisher-Yates, the reshuffle
lines; DECISIONS.md rules 24 and 25 (reshuffle before every round).
"""

from __future__ import annotations

from collections import Counter

import golden_helpers as golden
import pytest

from boundless.core.cards import fresh_decks
from boundless.core.random_source import SeededSource
from boundless.core.round import Action
from boundless.core.shoe import fisher_yates
from boundless.core.shoe_cycle import ShoeCycle
from boundless.entropy import CryptoSource

# preset: (decks, dealer hits soft 17, double after split, split aces take one card)
SWITCHES = {
    "boo-bucks": (6, False, True, True),
    "boo-bucks-h17": (6, True, True, True),
    "boo-bucks-no-das": (6, False, False, True),
    "boo-bucks-single-deck": (1, False, True, True),
    "boo-bucks-split-aces-hit": (6, False, True, False),
}


def test_the_five_presets_are_shipped() -> None:
    assert set(SWITCHES) == set(golden.BOO_BUCKS_PRESETS)


@pytest.mark.parametrize("preset", golden.BOO_BUCKS_PRESETS)
def test_each_presets_switches_and_the_rules_they_share(preset: str) -> None:
    rules = golden.rules_of(preset)
    decks, hits_soft_17, after_split, one_card = SWITCHES[preset]
    assert rules.shoe.decks == decks
    assert rules.dealer.hits_soft_17 is hits_soft_17
    assert rules.double.after_split is after_split
    assert rules.split.split_aces_one_card is one_card
    # shared by every preset
    assert (rules.table.spots, rules.table.shared) == (3, False)
    assert rules.table.main_bet_max_multiple_of_right == 5
    assert rules.split.max_hands == 2 and rules.split.pair_by == "value"
    assert rules.dealer.hole_card == "peek" and rules.dealer.peek_up_values == (1, 10)
    assert rules.shoe.reshuffle_every_round
    assert rules.surrender.up_values == tuple(range(1, 11))
    assert rules.insurance.blackjack_offer == "even_money"
    assert rules.side_bet_offer.mode == "player_chooses"
    assert rules.side_bet_offer.choose_count == 2


def test_the_boo_bucks_preset_is_six_decks_s17_das_split_aces_one_card() -> None:
    assert SWITCHES[golden.BOO_BUCKS] == (6, False, True, True)


@pytest.mark.parametrize("preset", golden.BOO_BUCKS_PRESETS)
def test_the_shoe_holds_one_or_six_standard_decks_shuffled_before_every_round(
    preset: str,
) -> None:
    rules = golden.rules_of(preset)
    decks = SWITCHES[preset][0]
    cycle = ShoeCycle(rules, SeededSource(7))
    for round_number in (1, 2, 3):
        start = cycle.start_round()
        assert start.shuffled is not None, "a new shuffle before every round"
        assert start.shoe_number == round_number and start.round_in_shoe == 1
        assert start.shuffled.card_count == 52 * decks
        shoe = cycle.shoe
        assert shoe is not None
        for _ in range(10):
            shoe.draw()  # a round deals a few cards; the rest is never used
        assert cycle.end_round() is True
    reveal = cycle.finish_now()
    assert reveal is not None
    assert Counter(reveal.cards) == Counter(fresh_decks(decks))


def test_the_shuffle_is_fisher_yates_over_the_random_source() -> None:
    rules = golden.rules_of("boo-bucks-single-deck")
    cycle = ShoeCycle(rules, SeededSource(11))
    cycle.start_round()
    reveal = cycle.finish_now()
    assert reveal is not None
    expected = list(fresh_decks(1))
    fisher_yates(expected, SeededSource(11))
    assert list(reveal.cards) == expected
    # In play the source is the operating system's cryptographic generator.
    live = ShoeCycle(rules, CryptoSource())
    assert live.start_round().shuffled is not None


@pytest.mark.parametrize("preset", golden.BOO_BUCKS_PRESETS)
def test_the_dealer_hits_or_stands_on_soft_17_by_preset(preset: str) -> None:
    # TS 9D = 19 stands against 6H with AC in the hole: soft 17.
    round_, _ = golden.played(preset, "TS 6H 9D AC 5C 5D", "stand")
    hits_soft_17 = SWITCHES[preset][1]
    assert golden.dealer(round_) == ("6H AC 5C 5D" if hits_soft_17 else "6H AC")
    assert round_.dealer_hand.total == 17


@pytest.mark.parametrize("preset", golden.BOO_BUCKS_PRESETS)
def test_the_dealer_hits_16_and_stands_on_hard_17_in_every_preset(preset: str) -> None:
    round_, _ = golden.played(preset, "TS TH 9D 6C AD 5C", "stand")
    assert golden.dealer(round_) == "TH 6C AD"  # 16 draws; hard 17 stands
    assert round_.dealer_hand.total == 17


@pytest.mark.parametrize("preset", golden.BOO_BUCKS_PRESETS)
def test_double_on_a_split_hand_by_preset(preset: str) -> None:
    """8S 8D against 6H (hole TC): split; hand 1 takes 3C (11). With double after split it
    doubles on 9C (20); without, it hits 9C. Hand 2 takes 2D (10) and stands; the dealer's
    16 draws 9S and busts."""
    round_, _ = golden.decided(preset, "8S 6H 8D TC 3C 9C 2D 9S", "split")
    das = SWITCHES[preset][2]
    assert (Action.DOUBLE in round_.legal_actions("p", 1)) is das
    golden.play(round_, {("p", 1): ["double" if das else "hit", "stand", "stand"]})
    first, second = golden.hands(round_, "p", 1)
    assert first == golden.Hand("8S 3C 9C", 20, 2000 if das else 1000, "win", 4000 if das else 2000)
    assert second == golden.Hand("8D 2D", 10, 1000, "win", 2000)
    assert golden.dealer(round_) == "6H TC 9S"


@pytest.mark.parametrize("preset", golden.BOO_BUCKS_PRESETS)
def test_split_aces_take_one_card_or_may_be_hit_by_preset(preset: str) -> None:
    """AS AD against 6H (hole TC): split; hand 1 takes 5C (soft 16). One-card presets stand it
    and move on; the split-aces-hit preset lets it hit 4C (soft 20). Never a double."""
    one_card = SWITCHES[preset][3]
    round_, _ = golden.decided(preset, "AS 6H AD TC 5C 4C KD 8S 9S", "split")
    if one_card:
        assert round_.path_of(round_.position("p", 1)).hands[0].status == "stood"
        golden.play(round_)
        assert [h.cards for h in golden.hands(round_, "p", 1)] == ["AS 5C", "AD 4C"]
        assert golden.dealer(round_) == "6H TC KD"
    else:
        assert round_.legal_actions("p", 1) == frozenset({Action.HIT, Action.STAND})
        golden.play(round_, {("p", 1): ["hit", "stand"]})
        # hand 2 takes KD: ace and ten after a split is 21, not a blackjack, and stands.
        assert [h.cards for h in golden.hands(round_, "p", 1)] == ["AS 5C 4C", "AD KD"]
        assert golden.hands(round_, "p", 1)[1] == golden.Hand("AD KD", 21, 1000, "win", 2000)
        assert golden.dealer(round_) == "6H TC 8S"


def test_an_operator_may_set_any_switch() -> None:
    """One deck, H17, no double after split and split aces that may be hit, together."""
    rules = golden.variant(
        golden.BOO_BUCKS,
        shoe={"decks": 1},
        dealer={"hits_soft_17": True},
        double={"after_split": False},
        split={"split_aces_one_card": False},
    )
    round_, _ = golden.dealt(golden.BOO_BUCKS, "AS 6H AD AC 5C 4C KD 2S 3S", rules=rules)
    round_.decide("p", 1, "split")
    round_.close_step()
    assert round_.legal_actions("p", 1) == frozenset({Action.HIT, Action.STAND})
    golden.play(round_, {("p", 1): ["hit", "stand"]})
    assert golden.dealer(round_) == "6H AC 2S"  # soft 17 hits to 19
    assert ShoeCycle(rules, SeededSource(1)).start_round().shuffled.card_count == 52  # type: ignore[union-attr]


@pytest.mark.parametrize("preset", golden.BOO_BUCKS_PRESETS)
def test_the_documented_main_wager_return_is_carried_by_every_preset(preset: str) -> None:
    # The exact return of each preset is computed by the math suite (docs/math.md).
    assert golden.rules_of(preset).title.documented_rtp == 0.996
