"""Exact value of splitting with resplits under a fixed split-hand strategy, from states that
know only how many pair cards are gone: the method of the public combinatorial analysers
(E. Farmer's, MGP's), which give it under CDZ- (:class:`UnsplitOptimalStrategy`).

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

**Dealer blackjack.** With ``no_dealer_blackjack`` (the dealer peeks under an ace or a ten, as
in Nairn's tables) the value is given no dealer blackjack: it is summed over the hole cards that
do not make one, each weighted by its chance beside the up card and the pair, with that hole
card out of the shoe and known to the dealer (the player's cards are then plain draws from the
rest, so the method holds as it is). Without it, as in :mod:`.split_exact`, a dealer's
two-card 21 counts as any other 21.
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
    standing_values,
)
from boundless.math.exact.split_exact_dealer import dealer_finals, dealer_finals_with_hole


def pattern_split_value(rules: ExactSplitRules, pair: int, strategy: SplitStrategy) -> float:
    """Expected result of splitting a pair of ``pair`` against ``rules.up`` (units of the
    first bet; every hand's bet counts, a double twice), every split hand playing
    ``strategy`` (a function of its cards, the pair card first)."""
    check_split(rules, pair)
    shoe = list(rules.shoe)
    shoe[rules.up - 1] -= 1
    beside_pair = list(shoe)
    beside_pair[pair - 1] -= 2
    total = 0.0
    for hole, weight in hole_cards(rules, beside_pair):
        total += weight * _pattern_value(rules, pair, strategy, _beside_hole(shoe, hole), hole)
    return total


def hole_cards(rules: ExactSplitRules, unseen: Sequence[int]) -> list[tuple[int, float]]:
    """Each hole card the value is summed over, with its chance given the ``unseen`` cards:
    under a peek, every card that does not make a blackjack (known to the dealer); otherwise
    one unknown card (0), which the dealer draws."""
    if not (rules.no_dealer_blackjack and rules.up in (1, 10)):
        return [(0, 1.0)]
    blackjack = 11 - rules.up
    others = sum(unseen) - unseen[blackjack - 1]
    if others == 0:
        raise ValueError("every card left makes a dealer blackjack")
    return [
        (hole, count / others)
        for hole, count in enumerate(unseen, start=1)
        if count and hole != blackjack
    ]


def _pattern_value(
    rules: ExactSplitRules, pair: int, strategy: SplitStrategy, shoe: Shoe, hole: int
) -> float:
    most = rules.max_hands if pair != 1 or rules.resplit_aces else 2
    hands = _HandValues(rules, pair, strategy, shoe, hole)
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
    shoe: Shoe  # without the up card (and a known hole card), both pair cards in it
    hole: int  # the dealer's hole card where it is known, else 0
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
        total = _total(cards)
        if total > 21:
            return -bet
        settled = total == 21 or bet == 2 or self.one_card
        chosen = "stand" if settled else self.action(cards)
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
            values = stand_values(shoe, self.rules.up, self.rules.hits_soft_17, self.hole)
            self.stand_memo[shoe] = values
        return values


def stand_values(shoe: Shoe, up: int, hits_soft_17: bool, hole: int = 0) -> list[float]:
    """A standing total's expected result (index: total 0..21) against a dealer drawing from
    ``shoe``: the hole card too when ``hole`` is 0 (a two-card 21 then counts as any 21)."""
    counts = np.array(shoe, dtype=np.int64)
    if hole:
        finals = dealer_finals_with_hole(counts, up, hole, hits_soft_17)
    else:
        finals = dealer_finals(counts, up, hits_soft_17)
    return standing_values([float(chance) for chance in finals])


@dataclass(frozen=True, slots=True)
class UnsplitOptimalStrategy:
    """CDZ-: a split hand plays as the hand of the same cards would, unsplit, played
    optimally: the best of standing, hitting (then playing on optimally) and doubling (on two
    cards, where ``double_after_split``), from the shoe without the up card and those cards
    (given no dealer blackjack where the dealer peeks)."""

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
        total = _total(cards)
        choices = {"stand": self._stand(shoe, total)}
        if total < 21:
            hit = double = 0.0
            for card, chance in self._draws(shoe):
                drawn = tuple(sorted((*cards, card)))
                after = _total(drawn)
                hit += chance * (self.best(drawn)[0] if after <= 21 else -1.0)
                double += (
                    chance * 2 * (self._stand(_without(shoe, card), after) if after <= 21 else -1.0)
                )
            choices["hit"] = hit
            if len(cards) == 2 and self.double_after_split:
                choices["double"] = double
        chosen = max(choices, key=choices.__getitem__)  # ties: stand, then hit
        self.memo[cards] = (choices[chosen], chosen)
        return self.memo[cards]

    def _stand(self, shoe: Sequence[int], total: int) -> float:
        rules = self.rules
        return sum(
            weight
            * stand_values(_beside_hole(shoe, hole), rules.up, rules.hits_soft_17, hole)[total]
            for hole, weight in hole_cards(rules, shoe)
        )

    def _draws(self, shoe: Sequence[int]) -> list[tuple[int, float]]:
        """Each next card's chance (given no dealer blackjack where the dealer peeks)."""
        chances = [0.0] * 10
        for hole, weight in hole_cards(self.rules, shoe):
            rest = _beside_hole(shoe, hole)
            unseen = sum(rest)
            if unseen == 0:
                raise ValueError("the shoe runs out of cards before the hand is played out")
            for card, count in enumerate(rest, start=1):
                chances[card - 1] += weight * count / unseen
        return [(card, chance) for card, chance in enumerate(chances, start=1) if chance]


def _without(shoe: Sequence[int], card: int) -> Shoe:
    return (*shoe[: card - 1], shoe[card - 1] - 1, *shoe[card:])


def _beside_hole(shoe: Sequence[int], hole: int) -> Shoe:
    """The cards the player draws from: without the hole card where the dealer's is known."""
    return _without(shoe, hole) if hole else tuple(shoe)


def _total(cards: tuple[int, ...]) -> int:
    hard = sum(cards)
    return hard + 10 if 1 in cards and hard <= 11 else hard
