"""Exact value of splitting with resplits under a fixed split-hand strategy, from states that
know only how many pair cards are gone: the method of the public combinatorial analysers
(E. Farmer's, MGP's), which give it under CDZ- (:func:`unsplit_optimal_strategy`).

An analysis option beside :mod:`.split_exact` (which follows every card of every hand) and
the main analysis (whose split hands play a post-split optimal strategy, see
:mod:`.split_rounds`). Where no shoe can run out, the two exact options agree to rounding:
they value the same strategy by different routes, which is what the tests hold them to.

**Why pair-card states are enough.** A split's second cards fall as pair cards (a new hand,
while the rules allow one) or not; the *pattern* of the round is that sequence. The hit cards
drawn between them do not change the chance of the next second card (the share of pair cards
left is a martingale at any stopping time), so a pattern's chance is drawn as from an urn of
pair and non-pair cards. Given the pattern, each hand is worth what a hand of the pair card
and one more card is worth, played from the shoe without the up card, the pattern's pair
cards (one a hand) and ``b`` non-pair cards taken at random (the other hands' second cards
that did not pair). The other hands' later cards drop out for the same martingale reason. And
taking one random non-pair card out is taking one random card out (which changes nothing)
less the share of taking a pair card out:

    F(a, b) = (F(a, b - 1) - q F(a + 1, b - 1)) / (1 - q),  q = pair share of that shoe

so every hand's value comes from shoes with ``a`` pair cards out and nothing else.

**Running out.** On a shoe so small that the dealer can run out behind four hands, the
methods differ: here each hand is settled against a dealer drawing from the shoe without
only that hand's cards and the pattern's second cards, as Farmer's program does (his
published small-shoe figure is reproduced so; see docs/math.md), where :mod:`.split_exact`
removes the hands played before it too. Neither is a game a table could deal.

**Dealer blackjack.** Only up cards that cannot make one (2 to 9), or rules that count a
dealer's two-card 21 as any 21 (``no_dealer_blackjack=False``): a peeked hole card would make
a pattern's chance depend on which non-pair cards were drawn, which this method cannot see.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

import numpy as np

from boundless.math.exact.split_exact import (
    ExactSplitRules,
    Shoe,
    SplitStrategy,
    check_split,
)
from boundless.math.exact.split_exact_dealer import dealer_finals


def pattern_split_value(rules: ExactSplitRules, pair: int, strategy: SplitStrategy) -> float:
    """Expected result of splitting a pair of ``pair`` against ``rules.up`` (units of the
    first bet; every hand's bet counts, a double twice), every split hand playing
    ``strategy`` (a function of its cards, the pair card first)."""
    check_split(rules, pair)
    if rules.no_dealer_blackjack and rules.up in (1, 10):
        raise ValueError(
            "the pattern method does not condition on a peeked hole card: "
            "use exact_split_value for an ace or a ten up"
        )
    shoe = list(rules.shoe)
    shoe[rules.up - 1] -= 1
    most = rules.max_hands if pair != 1 or rules.resplit_aces else 2
    hands = _HandValues(rules, pair, strategy, tuple(shoe))
    total = 0.0
    for chance, kinds in _patterns(shoe[pair - 1], sum(shoe), most):
        non_pairs = kinds.count(NON_PAIR)
        for kind in kinds:
            total += chance * hands.value(len(kinds), non_pairs - (kind == NON_PAIR), kind)
    return total


NON_PAIR = "N"
ANY = "x"  # a second card at the last level: any card, a pair card included
PAIRED, PAIRED_NOT = True, False


def _patterns(pairs: int, cards: int, most: int) -> list[tuple[float, tuple[str, ...]]]:
    """Every way a split's second cards fall, with its chance: the first waiting hand takes
    a card; a pair card (while fewer than ``most`` hands are out) makes another hand waiting.
    ``pairs`` and ``cards`` count the shoe without the up card, the two pair cards in it."""
    out: list[tuple[float, tuple[str, ...]]] = []

    def deal(
        chance: float, hands: int, waiting: int, pairs_left: int, left: int, kinds: tuple[str, ...]
    ) -> None:
        if waiting == 0:
            out.append((chance, kinds))
            return
        if hands == most:
            deal(chance, hands, waiting - 1, pairs_left, left, (*kinds, ANY))
            return
        if left == 0:
            raise ValueError("the shoe runs out of cards before the split is dealt")
        if pairs_left:
            paired = chance * pairs_left / left
            deal(paired, hands + 1, waiting + 1, pairs_left - 1, left - 1, kinds)
        if left > pairs_left:
            share = (left - pairs_left) / left
            deal(chance * share, hands, waiting - 1, pairs_left, left - 1, (*kinds, NON_PAIR))

    deal(1.0, 2, 2, pairs - 2, cards - 2, ())
    return out


@dataclass
class _HandValues:
    """What one split hand is worth, by pair cards out (``a``), random non-pair cards out
    (``b``) and the kind of its second card."""

    rules: ExactSplitRules
    pair: int
    strategy: SplitStrategy
    shoe: Shoe  # without the up card, both pair cards in it
    stand_memo: dict[Shoe, list[float]] = field(default_factory=dict)
    actions: dict[tuple[int, ...], str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.one_card = self.pair == 1 and self.rules.split_aces_one_card
        self.pairs = self.shoe[self.pair - 1]
        self.cards = sum(self.shoe)
        self.removed = cache(self._removed)
        self.base = cache(self._base)

    def value(self, a: int, b: int, kind: str) -> float:
        """A hand of a round with ``a`` hands (so ``a`` pair cards out) and ``b`` other
        second cards that did not pair."""
        if kind == NON_PAIR:
            return self.removed(PAIRED_NOT, a, b)
        paired = (self.pairs - a) / (self.cards - a - b)  # its own second card is any card
        value = (1 - paired) * self.removed(PAIRED_NOT, a, b)
        return value + (paired * self.removed(PAIRED, a, b) if paired else 0.0)

    def _removed(self, second: bool, a: int, b: int) -> float:
        """:meth:`base` with ``b`` random non-pair cards out too: one random card out changes
        nothing, so one random non-pair card out is that less the share of a pair card out."""
        if b == 0:
            return self.base(second, a)
        pairs = self.pairs - a - second
        share = pairs / (self.cards - a - b)  # of the shoe the last of the ``b`` leaves
        less_pair = self.removed(second, a + 1, b - 1) if pairs else 0.0
        return (self.removed(second, a, b - 1) - share * less_pair) / (1 - share)

    def _base(self, second: bool, a: int) -> float:
        """A hand of the pair card and a second card that pairs it (``second``) or that does
        not (drawn at random from those), with ``a`` pair cards out of the shoe before it."""
        shoe = list(self.shoe)
        shoe[self.pair - 1] -= a
        if second:
            shoe[self.pair - 1] -= 1
            return self.play(tuple(shoe), (self.pair, self.pair), 1)
        unseen = sum(shoe) - shoe[self.pair - 1]
        value = 0.0
        for card, count in enumerate(shoe, start=1):
            if count and card != self.pair:
                value += count / unseen * self.play(_without(shoe, card), (self.pair, card), 1)
        return value

    def play(self, shoe: Shoe, cards: tuple[int, ...], bet: int) -> float:
        hard = sum(cards)
        if hard > 21:
            return -bet
        total = hard + 10 if 1 in cards and hard <= 11 else hard
        if total == 21 or bet == 2 or self.one_card:
            return bet * self.stand_values(shoe)[total]
        chosen = self.action(cards)
        if chosen == "stand":
            return bet * self.stand_values(shoe)[total]
        unseen = sum(shoe)
        if unseen == 0:
            raise ValueError("the shoe runs out of cards before the split is played out")
        bet_after = 2 if chosen == "double" else 1
        value = 0.0
        for card, count in enumerate(shoe, start=1):
            if count:
                drawn = (*cards, card)
                value += count / unseen * self.play(_without(shoe, card), drawn, bet_after)
        return value

    def action(self, cards: tuple[int, ...]) -> str:
        chosen = self.actions.get(cards)
        if chosen is None:
            chosen = self.strategy(cards)
            if chosen not in ("hit", "stand", "double") or (chosen == "double" and len(cards) != 2):
                raise ValueError(f"split hand {cards}: the strategy chose {chosen!r}")
            self.actions[cards] = chosen
        return chosen

    def stand_values(self, shoe: Shoe) -> list[float]:
        values = self.stand_memo.get(shoe)
        if values is None:
            values = stand_values(shoe, self.rules.up, self.rules.hits_soft_17)
            self.stand_memo[shoe] = values
        return values


def stand_values(shoe: Shoe, up: int, hits_soft_17: bool) -> list[float]:
    """A standing total's expected result (index: total 0..21) against a dealer drawing from
    ``shoe`` (hole card included; a dealer's two-card 21 counts as any 21)."""
    finals = dealer_finals(np.array(shoe, dtype=np.int64), up, hits_soft_17)
    bust = float(finals[5])
    values = []
    for total in range(22):
        above = sum(float(finals[dealer - 17]) for dealer in range(max(total + 1, 17), 22))
        below = sum(float(finals[dealer - 17]) for dealer in range(17, min(total, 22)))
        values.append(bust + below - above)
    return values


@dataclass(frozen=True, slots=True)
class UnsplitOptimalStrategy:
    """CDZ-: a split hand plays as the hand of the same cards would, unsplit, played
    optimally: the best of standing, hitting (then playing on optimally) and doubling (on two
    cards, where ``double_after_split``), from the shoe without the up card and those cards."""

    rules: ExactSplitRules
    double_after_split: bool = True
    memo: dict[tuple[int, ...], tuple[float, str]] = field(default_factory=dict, compare=False)

    def __call__(self, cards: tuple[int, ...]) -> str:
        return self.best(tuple(sorted(cards)))[1]

    def best(self, cards: tuple[int, ...]) -> tuple[float, str]:
        known = self.memo.get(cards)
        if known is not None:
            return known
        shoe = list(self.rules.shoe)
        shoe[self.rules.up - 1] -= 1
        for card in cards:
            shoe[card - 1] -= 1
        if min(shoe) < 0:
            raise ValueError(f"the shoe holds no hand {cards} beside an up card {self.rules.up}")
        stand = stand_values(tuple(shoe), self.rules.up, self.rules.hits_soft_17)
        choices = {"stand": stand[_total(cards)] if _total(cards) <= 21 else -1.0}
        unseen = sum(shoe)
        if unseen and _total(cards) < 21:
            hit = double = 0.0
            for card, count in enumerate(shoe, start=1):
                if count:
                    drawn = tuple(sorted((*cards, card)))
                    hit += count / unseen * (self.best(drawn)[0] if _total(drawn) <= 21 else -1.0)
                    after = _total(drawn)
                    if after <= 21:
                        shoe[card - 1] -= 1
                        value = stand_values(tuple(shoe), self.rules.up, self.rules.hits_soft_17)
                        shoe[card - 1] += 1
                        double += count / unseen * 2 * value[after]
                    else:
                        double -= count / unseen * 2
            choices["hit"] = hit
            if len(cards) == 2 and self.double_after_split:
                choices["double"] = double
        chosen = max(choices, key=choices.__getitem__)  # ties: stand, then hit
        self.memo[cards] = (choices[chosen], chosen)
        return self.memo[cards]


def _without(shoe: Sequence[int], card: int) -> Shoe:
    return (*shoe[: card - 1], shoe[card - 1] - 1, *shoe[card:])


def _total(cards: tuple[int, ...]) -> int:
    hard = sum(cards)
    return hard + 10 if 1 in cards and hard <= 11 else hard
