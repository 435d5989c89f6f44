"""Splits in the Wizard of Odds' no-hole-card games (six and eight decks, H17, every bet lost to
a dealer blackjack), checked where a dealer blackjack can take the extra bets.

Played optimally, no pair is split against an ace and only aces are split against a ten (one
card each, two hands), so the resplit convention never meets a dealer blackjack there: the
measured gap to the Wizard's totals cannot come from how resplit or doubled hands lose to one
(docs/math.md, "Comparison with published figures").
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import pytest
from main_game_rules import classic, resplitting

from boundless.core.rules import RuleSet
from boundless.math.exact import first_move_values
from boundless.math.exact.fast import FastAnalysis
from boundless.math.exact.params import GameParams

ACE, TEN = 1, 10
Shoe = tuple[int, ...]


def no_hole_card_game(decks: int, double_after_split: bool = True, max_hands: int = 4) -> RuleSet:
    """A hole card never checked (peek only behind a 2, which cannot make a blackjack)."""
    base = classic(
        decks, hits_soft_17=True, double_after_split=double_after_split, peek_up_values=(2,)
    )
    return resplitting(base, max_hands)


@cache
def dealer_finals(shoe: Shoe, total: int, soft: bool, cards: int) -> dict[object, Fraction]:
    """H17 dealer, hole card drawn from ``shoe``: chances of "blackjack", 17..21 and "bust"."""
    if cards == 2 and total == 21 and soft:
        return {"blackjack": Fraction(1)}
    if total > 21:
        return {"bust": Fraction(1)}
    if total >= 17 and not (soft and total == 17):
        return {total: Fraction(1)}
    finals: dict[object, Fraction] = {}
    for value in range(1, 11):
        if not shoe[value - 1]:
            continue
        chance = Fraction(shoe[value - 1], sum(shoe))
        rest = (*shoe[: value - 1], shoe[value - 1] - 1, *shoe[value:])
        new_total, new_soft = total + value, soft
        if value == ACE and new_total + 10 <= 21:
            new_total, new_soft = new_total + 10, True
        if new_total > 21 and new_soft:
            new_total, new_soft = new_total - 10, False
        for final, part in dealer_finals(rest, new_total, new_soft, cards + 1).items():
            finals[final] = finals.get(final, Fraction(0)) + chance * part
    return finals


def split_aces_against_a_ten(decks: int) -> Fraction:
    """Both hands of split aces (one card each) against a ten, every bet lost to a dealer
    blackjack: twice one hand, by exchangeability, the other hand's card unseen."""
    shoe = [4 * decks] * 9 + [16 * decks]
    shoe[TEN - 1] -= 1
    shoe[ACE - 1] -= 2
    hand = Fraction(0)
    for card in range(1, 11):
        chance = Fraction(shoe[card - 1], sum(shoe))
        rest = list(shoe)
        rest[card - 1] -= 1
        player = 12 if card == ACE else 11 + card
        hand += chance * settled(player, dealer_finals(tuple(rest), TEN, False, 1))
    return 2 * hand


@pytest.mark.parametrize("decks", [6, 8])
def test_split_aces_against_a_ten_match_a_direct_enumeration(decks: int) -> None:
    ours = first_move_values(no_hole_card_game(decks), TEN, ACE, ACE)["split"]
    assert ours == pytest.approx(float(split_aces_against_a_ten(decks)), abs=1e-12)


@pytest.mark.parametrize("double_after_split", [True, False])
def test_no_resplit_is_made_against_an_ace_or_a_ten(double_after_split: bool) -> None:
    """With four hands allowed, the ace and ten columns are worth what they are split once,
    and eights (split against every other up card) are not split there."""
    games = [no_hole_card_game(6, double_after_split, hands) for hands in (4, 2)]
    for up in (ACE, TEN):
        four, once = (
            FastAnalysis(GameParams.from_rules(rules), rules.key).analyse_up(up, None, False)
            for rules in games
        )
        assert four.optimal.mean == pytest.approx(once.optimal.mean, abs=1e-15)
        eights = first_move_values(games[0], up, 8, 8)
        assert eights["split"] < max(eights.values())


def settled(player: int, finals: dict[object, Fraction]) -> Fraction:
    """A standing total's result against the dealer's finals (a blackjack beats every total)."""
    result = Fraction(0)
    for final, part in finals.items():
        if final == "bust" or (isinstance(final, int) and player > final):
            result += part
        elif final == "blackjack" or (isinstance(final, int) and player < final):
            result -= part
    return result


def stand_and_double_against_a_ten(
    decks: int, first: int, second: int
) -> tuple[Fraction, Fraction]:
    """Hard two-card hands only: standing, and doubling (two units, both lost to a blackjack)."""
    shoe = [4 * decks] * 9 + [16 * decks]
    for card in (TEN, first, second):
        shoe[card - 1] -= 1
    stand = settled(first + second, dealer_finals(tuple(shoe), TEN, False, 1))
    double = Fraction(0)
    for card in range(1, 11):
        rest = list(shoe)
        rest[card - 1] -= 1
        total = first + second + card
        total += 10 if card == ACE and total + 10 <= 21 else 0
        finals = dealer_finals(tuple(rest), TEN, False, 1)
        result = Fraction(-1) if total > 21 else settled(total, finals)
        double += Fraction(shoe[card - 1], sum(shoe)) * 2 * result
    return stand, double


@pytest.mark.parametrize(("decks", "hand"), [(6, (6, 4)), (6, (10, 6)), (8, (9, 2)), (8, (7, 5))])
def test_stand_and_double_against_a_ten_match_a_direct_enumeration(
    decks: int, hand: tuple[int, int]
) -> None:
    """The ten column is the one a dealer blackjack touches that the Wizard's ace figures do
    not check."""
    values = first_move_values(no_hole_card_game(decks), TEN, *hand)
    stand, double = stand_and_double_against_a_ten(decks, *hand)
    assert values["stand"] == pytest.approx(float(stand), abs=1e-12)
    assert values["double"] == pytest.approx(float(double), abs=1e-12)
