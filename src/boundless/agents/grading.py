"""Exact values of every legal answer at a decision, on the shoe as it stands, and regret.

The values come from the exact analysis (:mod:`boundless.math.exact.fast`), run on the shoe
the player sees: the title's full shoe less every card seen since the shuffle, with the
player's own hand and the up card put back (the analysis removes them itself). So they are
composition-dependent: a decision late in the shoe is graded on the cards that are left.

What a value means, per initial unit (the main bet):

* **decisions** (hit, stand, double, split, surrender, surrender20): the expected net result
  of the hand in play when the move is made and the hand is then played optimally; given no
  dealer blackjack where the dealer has peeked, including it where the rules let one still
  come (no hole card: only the original bet is lost). A split hand is valued as one hand of
  the split, its other hands' split cards gone (``post-split`` play, docs/math.md);
* **insurance / even money** (decline is 0): the side wager's own expected result, insurance
  ``cost * ((1 + pays) * P(ten) - 1)``, even money ``1`` against the natural's
  ``blackjack_pays * (1 - P(ten))`` left alone (less it, so decline stays 0).

Not graded (the value is absent and the regret ``None``): a resplit of an already split hand
(the analysis values resplits only from the first split), and a shoe too small for the
analysis (``check_shoe``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from boundless.agents.table import SPOT, AgentTable
from boundless.core.cards import Card
from boundless.core.rules import RuleSet
from boundless.math.exact.fast import FIGURE_COLUMNS, FastAnalysis, HandTables, UpCard
from boundless.math.exact.params import (
    MOST_VALUE_ONE_ROUND_USES,
    GameParams,
    fraction_of,
    split_context,
)

VALUES = 10
TIE = 1e-9
"""Two values this close are the same move's worth (rounding in the recursions)."""


@dataclass(frozen=True, slots=True)
class Grade:
    """Each legal answer's exact value and, once one is taken, what it cost."""

    values: dict[str, float]
    best: str
    taken: str | None = None
    regret: float | None = None

    def of(self, taken: str) -> Grade:
        value = self.values.get(taken)
        regret = None if value is None else max(0.0, self.values[self.best] - value)
        return Grade(self.values, self.best, taken, regret)

    def to_json(self) -> dict[str, object]:
        return {
            "values": self.values,
            "best": self.best,
            "taken": self.taken,
            "regret": self.regret,
        }


def best_of(values: dict[str, float], order: Sequence[str]) -> str:
    """The highest value; an exact tie goes to the earlier word of ``order``."""
    best = ""
    for word in order:
        if word in values and (not best or values[word] > values[best] + TIE):
            best = word
    return best


CACHE_SIZE = 64
_TABLES: dict[tuple[int, tuple[int, ...], int], tuple[RuleSet, UpCard, HandTables]] = {}


def _tables(rules: RuleSet, ranks: tuple[int, ...], up: int) -> tuple[UpCard, HandTables]:
    """The analysis against ``up`` on the shoe ``ranks`` (kept: a hand's decisions share it)."""
    key = (id(rules), ranks, up)
    kept = _TABLES.get(key)
    if kept is not None and kept[0] is rules:
        return kept[1], kept[2]
    analysis = FastAnalysis(GameParams.from_rules(rules, ranks), rules.key)
    card = UpCard(analysis, up)
    card.compute_dealer()
    tables = card.evaluate(None)
    if len(_TABLES) >= CACHE_SIZE:
        _TABLES.pop(next(iter(_TABLES)))
    _TABLES[key] = (rules, card, tables)
    return card, tables


def shoe_worth(ranks: Sequence[int]) -> int:
    return sum(int(count) * min(rank, 10) for rank, count in enumerate(ranks, start=1))


def decision_values(
    rules: RuleSet,
    ranks: Sequence[int],
    up_card: Card,
    cards: Sequence[Card],
    split_hands: int,
    legal: Sequence[str],
) -> dict[str, float] | None:
    """Exact values of the ``legal`` moves for the hand ``cards`` against ``up_card``;
    ``split_hands``: how many other hands the split made (0 for an unsplit hand).

    ``ranks``: rank counts (ace..king) of the cards unseen by the player, plus the up card and
    the hand's own cards. None where the shoe is too small for the analysis."""
    pair = cards[0].value
    shoe = [int(count) for count in ranks]
    for _ in range(split_hands):
        shoe[cards[0].rank - 1] += 1  # the other split cards: the context removes them
    if shoe_worth(shoe) <= MOST_VALUE_ONE_ROUND_USES:
        return None
    card, tables = _tables(rules, tuple(shoe), up_card.value)
    values_left = np.array(card.base, dtype=np.int64)
    hand_values = [c.value for c in cards]
    for value in hand_values:
        values_left[value - 1] -= 1
    if split_hands:
        values_left[pair - 1] -= split_hands
    context = split_context(pair, split_hands) if split_hands else 0
    index = card.space.hand_index(*hand_values)
    blackjack = 0.0
    if card.blackjack_card >= 0 and values_left.sum() > 0:
        blackjack = float(values_left[card.blackjack_card]) / float(values_left.sum())
    row = tables.figures[context, index]
    values: dict[str, float] = {}

    def scaled(mean: float) -> float:
        """From the analysis's blackjack-free scale to the player's value at this point."""
        if card.rule == "peeked":
            return mean / (1.0 - blackjack)
        if card.rule == "original_bets_only":
            return mean - blackjack
        return mean

    for word in ("stand", "hit", "double"):
        if word in legal:
            values[word] = scaled(float(row[FIGURE_COLUMNS.index(f"{word}_mean")]))
    if "split" in legal and not split_hands:
        mean, _ = card.split_figures(pair, tables)
        values["split"] = scaled(mean)
    if "surrender" in legal:
        values["surrender"] = -(1.0 - float(fraction_of(rules.surrender.refund)))
    if "surrender20" in legal and rules.split.decline_refund is not None:
        values["surrender20"] = -(1.0 - float(fraction_of(rules.split.decline_refund)))
    return values


def insurance_values(
    rules: RuleSet, ranks: Sequence[int], hand: Sequence[Card], offer: str
) -> dict[str, float]:
    """Insurance or even money against ``decline`` (0), per initial unit; ``ranks`` as in
    :func:`decision_values` (the up ace and the hand among them)."""
    left = [int(count) for count in ranks]
    left[0] -= 1  # the up ace
    for card in hand:
        left[card.rank - 1] -= 1
    ten_chance = sum(left[9:]) / sum(left)
    if offer == "even_money":
        natural = float(fraction_of(rules.payouts.blackjack)) * (1.0 - ten_chance)
        return {"even_money": 1.0 - natural, "decline": 0.0}
    cost = float(fraction_of(rules.insurance.cost))
    pays = float(fraction_of(rules.insurance.pays))
    return {"insurance": cost * ((1.0 + pays) * ten_chance - 1.0), "decline": 0.0}


def grade_now(table: AgentTable, player: str) -> Grade | None:
    """The grade of ``player``'s question now (values and the best answer; nothing taken yet),
    or None where the analysis cannot say (see the module's notes)."""
    round_ = table.round
    asked = table.question(player)
    if round_ is None or asked is None or round_.up_card is None:
        return None
    legal = table.legal_words(player)
    path = round_.path_of(round_.position(player, SPOT))
    ranks = table.unseen_ranks_before_round()
    for card in table.public_cards():
        ranks[card.rank - 1] -= 1
    hand = path.hands[0] if asked != "decision" else path.hand
    for card in (round_.up_card, *hand.cards):
        ranks[card.rank - 1] += 1
    split_hands = len(path.hands) - 1 if hand.from_split else 0
    return grade_answer(
        table.rules, ranks.tolist(), round_.up_card, hand.cards, split_hands, asked, legal
    )


def grade_answer(
    rules: RuleSet,
    ranks: Sequence[int],
    up_card: Card,
    cards: Sequence[Card],
    split_hands: int,
    asked: str,
    legal: Sequence[str],
) -> Grade | None:
    """The grade of one question (``asked``: ``decision``, ``insurance`` or ``even_money``);
    ``ranks`` as :func:`decision_values` takes them."""
    if asked == "decision":
        values = decision_values(rules, ranks, up_card, cards, split_hands, legal)
        order: tuple[str, ...] = DECISION_ORDER
    else:
        values = insurance_values(rules, ranks, cards, asked)
        order = ("decline", asked)
    if not values:
        return None
    return Grade(values, best_of(values, order))


DECISION_ORDER = ("stand", "hit", "double", "split", "surrender", "surrender20")
"""Exact ties go to the earlier move, as in the analysis."""

__all__ = ["Grade", "best_of", "decision_values", "grade_now", "insurance_values"]
