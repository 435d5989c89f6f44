"""Exact side-bet math against published figures, closed forms and a plain reference."""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from functools import cache

import pytest
from side_bet_rules import boo_bucks

from boundless.core.rules import RuleSet
from boundless.math.side_bets import (
    SideBetReport,
    dealer_final_hands,
    matched_distribution,
    side_bet_report,
    side_bet_returns,
    what_if,
)
from boundless.titles import load_title


def report_of(rules: RuleSet, key: str) -> SideBetReport:
    bet = rules.side_bet(key)
    assert bet is not None
    return side_bet_report(bet, rules)


def combinations(count: int, size: int) -> int:
    result = Fraction(1)
    for index in range(size):
        result = result * (count - index) / (index + 1)
    return int(result)


def falling(count: int, steps: int) -> int:
    result = 1
    for index in range(steps):
        result *= count - index
    return result


def test_pair_matches_wizard_of_odds_perfect_pairs_pay_table_b_eight_decks() -> None:
    # Wizard of Odds, "Perfect Pairs", version 1, pay table B (30/10/5), 8 decks:
    # 1456 / 1664 / 3328 pairs of 86,320; return -0.033735.
    report = report_of(load_title("boundless"), "pair")
    total = combinations(416, 2)
    assert total == 86_320
    counts = {name: chance * total for name, chance in report.pattern_probabilities.items()}
    assert counts == {"perfect_pair": 1456, "colored_pair": 1664, "mixed_pair": 3328}
    assert report.rtp == Fraction(1456 * 31 + 1664 * 11 + 3328 * 6, total)
    assert round(float(report.rtp) - 1, 6) == -0.033735


# Wizard of Odds, 6 decks, counts of the 5,013,320 three-card combinations:
# - "21+3", version 3 table (same categories, other pays); A-2-3 and Q-K-A count;
# - "Lucky Lucky", pay table 1 analysis; pay table 3 (200/100/50/30/10/3/2/2) is the
#   Boundless Lucky Trio table.
@pytest.mark.parametrize(
    ("key", "expected"),
    [
        pytest.param(
            "poker_trio",
            {
                "suited_trips": 1040,
                "three_of_a_kind": 25272,
                "straight_flush": 10368,
                "straight": 155520,
                "flush": 292896,
            },
            id="poker-trio-21-plus-3",
        ),
        pytest.param(
            "lucky_trio",
            {
                "suited_777": 80,
                "suited_678": 864,
                "unsuited_777": 1944,
                "unsuited_678": 12960,
                "suited_21": 26568,
                "unsuited_21": 406296,
                "total_19_20": 377568 + 364320,
            },
            id="lucky-trio-lucky-lucky",
        ),
    ],
)
def test_three_card_bets_match_wizard_of_odds_six_decks(key: str, expected: dict[str, int]) -> None:
    rules = what_if(load_title("boundless"), {"shoe": {"decks": 6}})
    report = report_of(rules, key)
    total = combinations(312, 3)
    counts = {name: chance * total for name, chance in report.pattern_probabilities.items()}
    assert counts == expected


def test_bust_bonus_matches_published_buster_blackjack_six_decks_h17() -> None:
    # Wizard of Odds, "Buster Blackjack", pay table 1, 6 decks, dealer hits soft 17
    # (also discountgambling.net's own recursion for the same game).
    rules = what_if(
        load_title("boundless"), {"shoe": {"decks": 6}, "dealer": {"hits_soft_17": True}}
    )
    chances = report_of(rules, "bust_bonus").pattern_probabilities
    published = {
        "bust_3": 0.173032,
        "bust_4": 0.0893918,
        "bust_5": 0.0204726,
        "bust_6": 0.0026376,
        "bust_7": 0.000214444,
    }
    for pattern, value in published.items():
        assert float(chances[pattern]) == pytest.approx(value, abs=6e-7)
    assert 250 * float(chances["bust_8"]) == pytest.approx(0.002986, abs=1e-6)


@pytest.mark.parametrize(
    ("decks", "counts", "rtp"),
    [
        (1, (312, 1408, 2560, 3456, 29184), -0.104615),
        (2, (4368, 11264, 20480, 27648, 233472), -0.077582),
    ],
)
def test_in_between_matches_wizard_of_odds(decks: int, counts: tuple[int, ...], rtp: float) -> None:
    # Wizard of Odds, "In BETween", pays 30/10/6/4/1 (the Boo Bucks table), 1 and 2 decks,
    # counted in ordered three-card permutations.
    report = report_of(boo_bucks(decks), "in_between")
    total = falling(52 * decks, 3)
    patterns = ("triple_match", "spread_1", "spread_2", "spread_3", "spread_over_3")
    assert tuple(report.pattern_probabilities[name] * total for name in patterns) == counts
    assert round(float(report.rtp) - 1, 6) == rtp


@pytest.mark.parametrize(
    ("decks", "counts"),
    [(2, (0, 6, 96, 15, 576)), (4, (3, 36, 576, 66, 2304))],
)
def test_match_the_dealer_matches_wizard_of_odds(decks: int, counts: tuple[int, ...]) -> None:
    # Wizard of Odds, "Match the Dealer", 2 and 4 decks: player pairs out of the
    # C(52d - 1, 2) left once the up card is known.
    report = report_of(boo_bucks(decks), "match_the_dealer")
    total = combinations(52 * decks - 1, 2)
    patterns = (
        "two_suited_matches",
        "suited_plus_unsuited",
        "suited_match",
        "two_unsuited_matches",
        "one_unsuited_match",
    )
    assert tuple(report.pattern_probabilities[name] * total for name in patterns) == counts


@pytest.mark.parametrize("decks", [1, 6, 8])
def test_trifecta_closed_forms(decks: int) -> None:
    report = report_of(boo_bucks(decks), "trifecta")
    total = combinations(52 * decks, 3)
    one_rank = combinations(4 * decks, 3)
    sequences = 12  # A-2-3 up to Q-K-A
    straight_flushes = sequences * 4 * decks**3
    straights = sequences * (4 * decks) ** 3 - straight_flushes
    suited_trips = 13 * 4 * combinations(decks, 3)
    flushes = 4 * combinations(13 * decks, 3) - straight_flushes - suited_trips
    assert {name: chance * total for name, chance in report.pattern_probabilities.items()} == {
        "three_fives": one_rank,
        "straight_flush": straight_flushes,
        "three_of_a_kind": 12 * one_rank,
        "straight": straights,
        "flush": flushes,
    }


@pytest.mark.parametrize("decks", [1, 6, 8])
def test_jack_a_tack_closed_forms(decks: int) -> None:
    rules = boo_bucks(decks)
    d = decks
    pairs = falling(52 * d, 2)
    suited_one_eyed = 2 * d * (d - 1)
    two_one_eyed = 2 * d * d
    suited_jacks = 2 * d * (d - 1)
    jacks = 4 * d * (4 * d - 1) - suited_one_eyed - two_one_eyed - suited_jacks
    twenties = 16 * d * (16 * d - 1) + 2 * 4 * d * 4 * d - 4 * d * (4 * d - 1)
    player_only = report_of(rules, "jack_a_tack").pattern_probabilities
    assert {name: chance * pairs for name, chance in player_only.items()} == {
        "suited_one_eyed_jacks": suited_one_eyed,
        "any_two_one_eyed_jacks": two_one_eyed,
        "two_suited_jacks": suited_jacks,
        "any_two_jacks": jacks,
        "any_20": twenties,
    }
    with_dealer = report_of(rules, "jack_a_tack_with_dealer").pattern_probabilities
    four = falling(52 * d, 4)
    identical = 2 * falling(d, 4)
    any_four = falling(2 * d, 4) - identical
    assert with_dealer["four_identical_one_eyed_jacks"] * four == identical
    assert with_dealer["any_four_one_eyed_jacks"] * four == any_four
    # Four-jack hands come out of the two-one-eyed-jack lines, nothing else moves.
    moved = with_dealer["four_identical_one_eyed_jacks"] + with_dealer["any_four_one_eyed_jacks"]
    before = player_only["suited_one_eyed_jacks"] + player_only["any_two_one_eyed_jacks"]
    after = with_dealer["suited_one_eyed_jacks"] + with_dealer["any_two_one_eyed_jacks"]
    assert before - after == moved
    assert with_dealer["any_20"] == player_only["any_20"]


@pytest.mark.parametrize("decks", [1, 6])
def test_hole_card_bonus_and_wheel_triggers_closed_forms(decks: int) -> None:
    rules = boo_bucks(decks)
    pairs = falling(52 * decks, 2)
    hole = report_of(rules, "hole_card_bonus").pattern_probabilities
    assert hole["suited_pair"] * pairs == 52 * decks * (decks - 1)
    assert hole["non_suited_pair"] * pairs == 52 * decks * 3 * decks
    blackjacks = 2 * 4 * decks * 16 * decks
    assert report_of(rules, "bonus_spin_xtreme").pattern_probabilities == {
        "player_blackjack": Fraction(blackjacks, pairs)
    }
    # A 6 and one of 10, J, Q, K: as many two-card orders as an ace and a 10-value card.
    assert report_of(rules, "bonus_spin_xtreme_dealer").pattern_probabilities == {
        "xtreme_16": Fraction(blackjacks, pairs)
    }


@pytest.mark.parametrize("kind", ["pair", "hole_card_bonus"])
def test_the_player_scope_shortcut_equals_the_full_enumeration(kind: str) -> None:
    assert matched_distribution(kind, None, 2, "player") == matched_distribution(
        kind, None, 2, "player_up"
    )


@cache
def _reference_bust(shoe: tuple[int, ...], hard: int, aces: int, cards: int, h17: bool) -> tuple:
    """Plain recursion over the dealer's draws: (bust-by-card-count, no-bust) probabilities."""
    total = hard + 10 if aces and hard <= 11 else hard
    soft = bool(aces) and hard <= 11
    if cards >= 2 and (total > 17 or (total == 17 and not (soft and h17))):
        if total > 21:
            return ((min(cards, 8), Fraction(1)),)
        return ((0, Fraction(1)),)
    result: dict[int, Fraction] = defaultdict(Fraction)
    left = sum(shoe)
    for index, count in enumerate(shoe):
        if count:
            value = index + 1
            rest = (*shoe[:index], count - 1, *shoe[index + 1 :])
            branch = _reference_bust(rest, hard + value, aces + (value == 1), cards + 1, h17)
            for outcome, chance in branch:
                result[outcome] += Fraction(count, left) * chance
    return tuple(sorted(result.items()))


@pytest.mark.parametrize(("decks", "h17"), [(1, False), (1, True), (2, False)])
def test_dealer_final_hands_equal_a_plain_recursion(decks: int, h17: bool) -> None:
    shoe = (*(4 * decks for _ in range(9)), 16 * decks)
    reference = dict(_reference_bust(shoe, 0, 0, 0, h17))
    ours: dict[int, Fraction] = defaultdict(Fraction)
    for hand in dealer_final_hands(decks, h17):
        ours[min(len(hand.cards), 8) if hand.is_bust else 0] += hand.probability
    assert ours == reference


def test_every_distribution_adds_up_to_one() -> None:
    for rules in (load_title("boundless"), boo_bucks(6)):
        reports = side_bet_returns(rules)
        assert list(reports) == [bet.key for bet in rules.side_bets]
        for report in reports.values():
            assert 0 < report.win_probability < 1
            assert 0 < report.rtp < 1
            assert report.house_edge == 1 - report.rtp
            assert report.variance > 0
            assert report.assumptions


def test_boundless_figures_at_eight_decks() -> None:
    reports = side_bet_returns(load_title("boundless"))
    assert {key: round(float(report.rtp), 6) for key, report in reports.items()} == {
        "pair": 0.966265,
        "bust_bonus": 0.938157,
        "lucky_trio": 0.947219,
        "poker_trio": 0.962961,
    }


def test_wheel_bet_return_is_trigger_chance_times_wheel_return() -> None:
    report = report_of(boo_bucks(6), "bonus_spin_xtreme")
    assert report.wager_amount == 100
    assert round(float(report.rtp), 6) == 0.962088
    assert any("example" in line for line in report.assumptions)
