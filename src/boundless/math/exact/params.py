"""What the main-game math reads from a rule set, as plain numbers.

Both the reference implementation (:mod:`boundless.math.exact.reference`) and the fast one
(:mod:`boundless.math.exact.fast`) start from :class:`GameParams`, so they cannot read a switch
differently. Card values run 1 (ace) to 10; value counts are indexed ``value - 1``.

The dealer's final result is one of seven outcomes, in this order: a total of 17, 18, 19,
20 or 21, a bust, or a dealer blackjack (the hole card makes a natural).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Generic, Literal, TypeVar

from boundless.core.money import Odds, Ratio
from boundless.core.rules import RuleSet
from boundless.core.strategy_chart import CELL_MOVES

OUTCOME_TOTALS = (17, 18, 19, 20, 21)
BUST = 5
DEALER_BLACKJACK = 6
OUTCOME_COUNT = 7

RANKS = 13
VALUES = 10
# Cards one hand's recursion can take from the shoe at most, counted by hard value: a hand of
# at most 30 (20 plus a busting ten), the other split cards it knows of (three at most, 30)
# and a dealer hand of at most 26. A shoe worth more than this can never run out inside
# the recursions (nor inside a round split once).
MOST_VALUE_ONE_ROUND_USES = 86

DealerBlackjackRule = Literal["impossible", "peeked", "original_bets_only", "all_bets"]
Number = TypeVar("Number", Fraction, float)


@dataclass(frozen=True, slots=True)
class RoundFigures(Generic[Number]):
    """Mean and mean square of a round's net result per initial unit (fractions in the
    reference, floats in the fast analysis)."""

    mean: Number
    square: Number

    @property
    def variance(self) -> Number:
        return self.square - self.mean * self.mean


def fraction_of(ratio: Odds | Ratio) -> Fraction:
    if isinstance(ratio, Odds):
        return Fraction(ratio.win, ratio.per)
    return Fraction(ratio.numerator, ratio.denominator)


def value_of_rank(rank: int) -> int:
    return min(rank, 10)


def standard_shoe(decks: int) -> tuple[int, ...]:
    """Rank counts (ace, 2, ..., king) of ``decks`` complete decks."""
    return (4 * decks,) * RANKS


def value_counts_of(rank_counts: Sequence[int]) -> tuple[int, ...]:
    values = [0] * VALUES
    for rank, count in enumerate(rank_counts, start=1):
        values[value_of_rank(rank) - 1] += count
    return tuple(values)


def check_shoe(rank_counts: Sequence[int]) -> tuple[int, ...]:
    counts = tuple(int(count) for count in rank_counts)
    if len(counts) != RANKS:
        raise ValueError(f"a shoe is 13 rank counts (ace to king), got {len(counts)}")
    if any(count < 0 for count in counts):
        raise ValueError(f"shoe counts must not be negative: {counts}")
    worth = sum(count * value_of_rank(rank) for rank, count in enumerate(counts, start=1))
    if worth <= MOST_VALUE_ONE_ROUND_USES:
        raise ValueError(
            f"shoe {counts} is worth {worth} points; the exact analysis needs more than "
            f"{MOST_VALUE_ONE_ROUND_USES} so that no round can exhaust it"
        )
    return counts


@dataclass(frozen=True, slots=True)
class GameParams:
    """Every main-game switch the math needs, read once from a :class:`RuleSet`."""

    rank_counts: tuple[int, ...]
    dealer_hits_soft_17: bool
    hole_card: bool
    peek_up_values: frozenset[int]
    blackjack_pays: Fraction
    win_pays: Fraction
    double_allowed: bool
    double_after_split: bool
    double_on_split_aces: bool
    split_allowed: bool
    max_hands: int
    resplit_aces: bool
    split_aces_one_card: bool
    pair_by_rank: bool
    split_only_where_chart_splits: bool
    decline_refund: Fraction
    surrender_allowed: bool
    surrender_refund: Fraction
    surrender_up_values: frozenset[int]

    @classmethod
    def from_rules(cls, rules: RuleSet, shoe: Sequence[int] | None = None) -> GameParams:
        """Read ``rules``; ``shoe`` (13 rank counts) replaces the title's full shoe."""
        rank_counts = check_shoe(standard_shoe(rules.shoe.decks) if shoe is None else shoe)
        split = rules.split
        decline = split.decline_refund
        return cls(
            rank_counts=rank_counts,
            dealer_hits_soft_17=rules.dealer.hits_soft_17,
            hole_card=rules.dealer.hole_card == "peek",
            peek_up_values=frozenset(rules.dealer.peek_up_values),
            blackjack_pays=fraction_of(rules.payouts.blackjack),
            win_pays=fraction_of(rules.payouts.win),
            double_allowed=rules.double.allowed,
            double_after_split=rules.double.allowed and rules.double.after_split,
            double_on_split_aces=rules.double.allowed and rules.double.on_split_aces,
            split_allowed=split.allowed,
            max_hands=split.max_hands if split.allowed else 2,
            resplit_aces=split.resplit_aces,
            split_aces_one_card=split.split_aces_one_card,
            pair_by_rank=split.pair_by == "rank",
            split_only_where_chart_splits=split.offered == "basic_strategy_pairs",
            decline_refund=Fraction(0) if decline is None else fraction_of(decline),
            surrender_allowed=rules.surrender.allowed,
            surrender_refund=fraction_of(rules.surrender.refund),
            surrender_up_values=frozenset(rules.surrender.up_values),
        )

    @property
    def value_counts(self) -> tuple[int, ...]:
        return value_counts_of(self.rank_counts)

    def dealer_blackjack_rule(self, up: int) -> DealerBlackjackRule:
        """How a dealer blackjack behind up card ``up`` is settled.

        ``peeked``: the dealer checks first, so play only happens without one; the player
        loses the original bet. ``original_bets_only``: no hole card; the player plays not
        knowing, and a dealer blackjack takes only the original bet (doubles and splits are
        returned). ``all_bets``: a hole card that is not checked; every bet on the table loses.
        """
        if up not in (1, 10):
            return "impossible"
        if not self.hole_card:
            return "original_bets_only"
        return "peeked" if up in self.peek_up_values else "all_bets"

    def can_surrender(self, up: int) -> bool:
        return self.surrender_allowed and up in self.surrender_up_values

    def can_double_split_hand(self, pair: int) -> bool:
        if pair == 1:
            return self.double_on_split_aces and not self.split_aces_one_card
        return self.double_after_split

    def pair_cases(
        self, up: int, hand: tuple[int, int], convert: Callable[[Fraction], Number]
    ) -> list[tuple[Number, int | None]]:
        """Shares of a two-card hand that may be split (with the pair value) and that may not
        (a ten-ten of two ranks where pairs go by rank)."""
        if hand[0] != hand[1] or not self.split_allowed:
            return [(convert(Fraction(1)), None)]
        if hand[0] == 10 and self.pair_by_rank:
            share = convert(self.same_rank_share(up))
            return [(share, 10), (1 - share, None)]
        return [(convert(Fraction(1)), hand[0])]

    def root_words(
        self, up: int, pair: int | None, column: Mapping[tuple[str, int], str]
    ) -> tuple[frozenset[str], int | None]:
        """The engine's legal words at the first decision, and the pair value it passes
        (``column``: the chart's cells against ``up``, read where splits follow the chart)."""
        moves = {"hit", "stand"}
        if self.double_allowed:
            moves.add("double")
        if self.can_surrender(up):
            moves.add("surrender")
        if pair is None:
            return frozenset(moves), None
        if self.split_only_where_chart_splits:
            if "split" in CELL_MOVES[column[("pair", pair)]]:
                return frozenset({"split", "surrender20"}), pair
            return frozenset(moves), None
        return frozenset(moves | {"split"}), pair

    def hands_limit(self, pair: int) -> int:
        """How many hands a split of ``pair`` can end in (aces resplit only by switch)."""
        return self.max_hands if pair != 1 or self.resplit_aces else 2

    @property
    def contexts(self) -> int:
        """How many hand contexts the recursions use (see :func:`split_context`)."""
        return 1 + VALUES * (self.max_hands - 1)

    def same_rank_share(self, up: int) -> Fraction:
        """Share of ten-value pairs that are one rank, given a dealer up card of value ``up``.

        Only matters for ``split.pair_by = "rank"``: a 10-J is not a pair there.
        """
        tens = list(self.rank_counts[9:])
        if up != 10:
            total = sum(tens)
            if total < 2:
                return Fraction(0)
            return Fraction(sum(n * (n - 1) for n in tens), total * (total - 1))
        weight_sum, share_sum = Fraction(0), Fraction(0)
        for index, count in enumerate(tens):
            if count == 0:
                continue
            left = [n - (1 if other == index else 0) for other, n in enumerate(tens)]
            total = sum(left)
            if total < 2:
                continue
            weight_sum += count
            share_sum += count * Fraction(sum(n * (n - 1) for n in left), total * (total - 1))
        return share_sum / weight_sum if weight_sum else Fraction(0)

    def pair_cards(self, up: int, pair: int) -> list[tuple[Fraction, int]]:
        """How many cards of the shoe (without the up card) would pair a dealt ``pair``:
        each possible count with its share of the dealt pairs.

        One count (the pair value's) unless pairs go by rank, where a pair of tens is a pair
        of one rank and only that rank's cards resplit it.
        """
        values = list(self.value_counts)
        values[up - 1] -= 1
        if pair != 10 or not self.pair_by_rank:
            return [(Fraction(1), values[pair - 1])]
        tens = list(self.rank_counts[9:])
        up_ranks = [(Fraction(1), tens)]
        if up == 10:
            total = sum(tens)
            up_ranks = [
                (Fraction(count, total), [n - (other == index) for other, n in enumerate(tens)])
                for index, count in enumerate(tens)
                if count
            ]
        shares: dict[int, Fraction] = {}
        for chance, left in up_ranks:
            for count in left:
                if count >= 2:
                    shares[count] = shares.get(count, Fraction(0)) + chance * count * (count - 1)
        total_share = sum(shares.values(), Fraction(0))
        return [(share / total_share, count) for count, share in sorted(shares.items())]


def split_context(pair: int, others: int) -> int:
    """The context of a split hand of ``pair`` that knows of ``others`` more pair cards gone
    (the other hands' split cards). Context 0 is an unsplit hand; split once, the context of
    a pair is its value."""
    return 1 + (others - 1) * VALUES + (pair - 1)


def context_pair(context: int) -> int:
    return 0 if context == 0 else (context - 1) % VALUES + 1


def context_others(context: int) -> int:
    return 0 if context == 0 else (context - 1) // VALUES + 1
