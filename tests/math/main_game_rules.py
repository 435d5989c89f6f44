"""Rule sets for the main-game math tests: the Boundless title and variants built from it.

The Unlimited and Boo Bucks titles are not shipped yet; these variants switch on the same
rules (DECISIONS.md rules 17-31) so the math is tested on every switch those titles use.
"""

from __future__ import annotations

from boundless.core.rules import RuleSet, rule_set_from_data
from boundless.titles import load_title

EVERY_UP = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
# 15 cards (aces and eights paired, one of each other rank): small enough for the fraction
# reference, varied enough for pairs, soft hands and both dealer blackjacks.
SMALL_SHOE = (2, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1)


def variant(base: RuleSet, **changes: object) -> RuleSet:
    """``base`` with fields changed, as ``section__field=value`` or ``section=value``
    (validated like a title)."""
    data = base.model_dump(mode="json")
    for path, value in changes.items():
        if "__" not in path:
            data[path] = value
            continue
        section, field = path.split("__")
        data[section][field] = value
    return rule_set_from_data(data, source=f"{base.key} variant")


def boundless() -> RuleSet:
    return load_title("boundless")


def fresh_shoe_each_round(key: str, decks: int, hits_soft_17: bool, **changes: object) -> RuleSet:
    """Boundless as a table with a fresh shoe every round (no burn) and no side bets, with
    ``changes``: the exact figures of one round are then the whole game's."""
    return variant(
        boundless(),
        title__key=key,
        shoe__decks=decks,
        shoe__reshuffle_every_round=True,
        shoe__burn_after_shuffle=False,
        dealer__hits_soft_17=hits_soft_17,
        side_bets=[],
        **changes,
    )


def unlimited_like(decks: int = 8) -> RuleSet:
    """Blackjack Unlimited's switches: no hole card (original bets only), S17, DAS except
    aces, split once, split aces one card, surrender half not against an ace, split offered
    only where the chart splits else Surrender 20%, even money."""
    return variant(
        boundless(),
        title__key="unlimited-like",
        shoe__decks=decks,
        dealer__hole_card="none",
        dealer__peek_up_values=[],
        payouts__blackjack_paid_at_once_up_values=[2, 3, 4, 5, 6, 7, 8, 9],
        surrender__up_values=[2, 3, 4, 5, 6, 7, 8, 9, 10],
        split__offered="basic_strategy_pairs",
        split__decline_refund="4/5",
        insurance__blackjack_offer="even_money",
        autoplay__policy="basic_strategy",
        fallbacks__insufficient_coins="chart_second_choice",
    )


def boo_bucks_like(
    decks: int = 6,
    hits_soft_17: bool = False,
    double_after_split: bool = True,
    split_aces_one_card: bool = True,
) -> RuleSet:
    """A Boo Bucks preset: reshuffled every round, peek on ace and ten, late surrender
    against any up card, even money."""
    return fresh_shoe_each_round(
        "boo-bucks-like",
        decks,
        hits_soft_17,
        double__after_split=double_after_split,
        split__split_aces_one_card=split_aces_one_card,
        surrender__up_values=EVERY_UP,
        insurance__blackjack_offer="even_money",
    )


def classic(
    decks: int,
    hits_soft_17: bool = False,
    double_after_split: bool = False,
    split: bool = True,
    surrender: bool = False,
    peek_up_values: tuple[int, ...] = (1, 10),
) -> RuleSet:
    """The rules of the published tables: peek (US), double any two, split once, split aces
    one card, blackjack 3:2, no surrender unless asked."""
    return fresh_shoe_each_round(
        "classic",
        decks,
        hits_soft_17,
        dealer__peek_up_values=list(peek_up_values),
        double__after_split=double_after_split,
        split__allowed=split,
        surrender__allowed=surrender,
    )


# Small shoes with three or four cards of a value, so that splits can be split again.
FOUR_EIGHTS = (1, 1, 1, 1, 1, 1, 1, 4, 1, 1, 1, 1, 1)
THREE_EIGHTS = (1, 1, 1, 1, 1, 1, 1, 3, 1, 1, 1, 1, 1)
THREE_ACES = (3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1)
THREE_TENS_OF_ONE_RANK = (1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 1, 1, 1)


def resplitting(base: RuleSet, max_hands: int = 4, resplit_aces: bool = False) -> RuleSet:
    """``base`` with pairs split again up to ``max_hands`` hands (aces too if asked)."""
    return variant(base, split__max_hands=max_hands, split__resplit_aces=resplit_aces)
