"""The exact chance of every net result of a round under the basic chart."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
import typer
from main_game_rules import boundless, classic, resplitting, unlimited_like, variant
from typer.testing import CliRunner

from boundless.cli import math_commands
from boundless.core.rules import RuleSet
from boundless.math.exact import analyse_main_game, outcome_distribution, result_label
from boundless.titles import load_title, shipped_title_keys

ONE_ACE_NINE_TENS = (1, 0, 0, 0, 0, 0, 0, 0, 0, 3, 2, 2, 2)
TENS_ONLY = (0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 2, 2, 2)


def _check_against_the_exact_return(
    rules: RuleSet, shoe: tuple[int, ...] | None = None, variance_gap: float = 1e-6
) -> None:
    analysis = analyse_main_game(rules, shoe=shoe)
    outcomes = outcome_distribution(rules, analysis.chart, shoe=shoe)
    assert outcomes.total == pytest.approx(1.0, abs=1e-12)
    assert outcomes.mean == pytest.approx(analysis.basic.expected_value, abs=1e-12)
    assert outcomes.win + outcomes.push + outcomes.lose == pytest.approx(1.0, abs=1e-12)
    assert all(chance > 0 for chance in outcomes.chances.values())
    assert list(outcomes.chances) == sorted(outcomes.chances)
    # the second moment agrees with the standard deviation's (same split convention)
    square = sum(float(value) ** 2 * chance for value, chance in outcomes.chances.items())
    assert square - outcomes.mean**2 == pytest.approx(analysis.basic.variance, abs=variance_gap)


@pytest.mark.parametrize("key", shipped_title_keys())
def test_every_title_sums_to_one_and_averages_to_its_exact_return(key: str) -> None:
    _check_against_the_exact_return(load_title(key))


@pytest.mark.parametrize(
    "rules",
    [
        classic(1, hits_soft_17=True, double_after_split=True, surrender=True),
        classic(6, peek_up_values=(10,)),  # an ace up is not peeked: every bet loses to it
        unlimited_like(decks=4),
        variant(boundless(), split__pair_by="rank", payouts__blackjack="6:5"),
        variant(boundless(), double__allowed=False, double__after_split=False),
    ],
    ids=["1-deck-h17-das-surrender", "6-deck-peek-ten-only", "unlimited-4-deck", "rank-6to5",
         "no-double"],
)  # fmt: skip
def test_rule_variants_sum_to_one_and_average_to_the_exact_return(rules: RuleSet) -> None:
    _check_against_the_exact_return(rules)


def test_results_are_the_ones_the_rules_can_produce() -> None:
    six_five = variant(boundless(), payouts__blackjack="6:5", split__pair_by="rank")
    assert Fraction(6, 5) in outcome_distribution(six_five).chances
    no_double = variant(boundless(), double__allowed=False, double__after_split=False)
    assert set(outcome_distribution(no_double).chances) <= {-2, -1, Fraction(-1, 2), 0, 1,
                                                           Fraction(3, 2), 2}  # fmt: skip
    unlimited = outcome_distribution(load_title("unlimited")).chances
    assert Fraction(-1, 5) in unlimited and Fraction(-1, 2) in unlimited  # both surrenders
    assert min(unlimited) == -4 and max(unlimited) == 4  # a split pair, both hands doubled


def test_a_blackjack_by_counting_cards() -> None:
    """8 decks: the player's ace and ten, then no ace-ten for the dealer from the 414 left."""
    chances = outcome_distribution(load_title("boundless")).chances
    player = 2 * 32 * 128 / (416 * 415)
    dealer = 2 * 31 * 127 / (414 * 413)
    assert chances[Fraction(3, 2)] == pytest.approx(player * (1 - dealer), abs=1e-14)


def test_tiny_shoes_worked_by_hand() -> None:
    """Nine tens: every hand is 20 against 20. One ace and nine tens: the ace is among the
    player's two cards (1 in 5: a blackjack, the dealer cannot have one), the dealer's two
    (1 in 5: a peeked blackjack takes the bet), or neither (20 against 20)."""
    rules = variant(
        boundless(),
        double__allowed=False,
        double__after_split=False,
        split__allowed=False,
        surrender__allowed=False,
    )
    assert outcome_distribution(rules, shoe=TENS_ONLY).chances == {0: pytest.approx(1.0)}
    chances = outcome_distribution(rules, shoe=ONE_ACE_NINE_TENS).chances
    assert chances == {
        -1: pytest.approx(0.2, abs=1e-15),
        0: pytest.approx(0.6, abs=1e-15),
        Fraction(3, 2): pytest.approx(0.2, abs=1e-15),
    }


def test_result_labels() -> None:
    assert [result_label(Fraction(n, d)) for n, d in ((-1, 1), (3, 2), (-1, 5), (4, 1))] == [
        "-1",
        "1.5",
        "-0.2",
        "4",
    ]


def test_rtp_shows_and_returns_the_distribution() -> None:
    app = typer.Typer()
    math_commands.register(app)
    runner = CliRunner()
    result = runner.invoke(app, ["rtp", "boundless", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    outcomes = payload["outcomes"]
    assert {"-1", "0", "1", "1.5", "-0.5", "2", "-2"} <= set(outcomes)
    assert sum(outcomes.values()) == pytest.approx(1.0, abs=1e-12)
    mean = sum(float(key) * chance for key, chance in outcomes.items())
    assert mean == pytest.approx(payload["main"]["basic"] - 1, abs=1e-12)
    split = payload["win_push_lose"]
    assert split["win"] + split["push"] + split["lose"] == pytest.approx(1.0, abs=1e-12)
    text = runner.invoke(app, ["rtp", "boundless"])
    words = " ".join(text.output.split())
    assert "Round results (basic chart, exact)" in words
    assert f"push {split['push']:.4%}" in words


@pytest.mark.parametrize(
    "rules",
    [
        resplitting(load_title("boo-bucks")),
        resplitting(classic(1, double_after_split=True), resplit_aces=True),
        resplitting(unlimited_like(decks=4), 3),
        resplitting(variant(boundless(), split__pair_by="rank"), 4),
    ],
    ids=["boo-bucks-four-hands", "1-deck-resplit-aces", "unlimited-three-hands", "rank-8-deck"],
)
def test_resplit_rules_sum_to_one_and_average_to_the_exact_return(rules: RuleSet) -> None:
    """Split hands of different kinds (levels) see slightly different chances of the
    dealer's outcomes and are coupled by rank in the distribution, by the mean of their
    chances in the standard deviation: the two second moments differ by up to 2.1e-5
    (measured, one deck with resplit aces), so the variance is held within 3e-5. With
    doubles after splits, four hands reach -8 and +8 (three hands -6 and +6)."""
    _check_against_the_exact_return(rules, variance_gap=3e-5)
    chances = outcome_distribution(rules).chances
    most = 2 * rules.split.max_hands
    assert min(chances) == -most and max(chances) == most
