"""A split pair's hands when the rules allow resplits: how they come out, what they are worth.

Shared by :mod:`boundless.math.exact.reference` (fractions) and :mod:`boundless.math.exact.fast`
(floats), so the two cannot read the convention differently.

**The convention.** A split hand knows its own cards, the up card and the *split cards so
far*: the pair cards the split has put down when it is played, one per hand there is then.
The other hands' second and later cards are unseen to it, both for its decisions and for
the dealer's chances that settle it. The hands are dealt as a table deals them: the first
hand takes its second card; a pair card (while the rules allow another hand) splits it
again, the new hand waiting behind it; otherwise the hand is played out, then the next
waiting hand takes its second card. So the chance that a second card pairs, at *level* ``h``
(``h`` hands so far), is ``(pair cards in the shoe - h) / (cards - h)``, and a hand that
pairs at the last level is played like any two cards. A player who splits splits again
whenever the rules allow (a chart's pair cell is the same cell at every split).

**Kinds of hand.** ``(level, True)``: a hand at the last level (every second card);
``(level, False)``: a hand whose second card did not pair at that level. Each is valued
from the hand states of its level: the lone split card (``one``) and the pair it makes by
drawing another pair card (``pair``): a non-pair hand is ``(one - q * pair) / (1 - q)``.

**Dealer blackjack.** Where a dealer blackjack is settled apart (peeked, or original bets
only), the hand values are *blackjack-free parts* whose weight is the chance of no dealer
blackjack seen from the hand's own shoe. Each kind is reweighted to the chance seen from
the two dealt cards, so every hand is worth its value given no dealer blackjack times the
round's chance of none. Split once, the weight is exactly 1 and nothing changes.

**Second moment.** Two hands of one round are taken as independent given the dealer's final
outcome, whose chance is the mean of the two hands' chances at their start (a hand whose
second card did not pair starts from its two cards; split once: the chance at the start of
the split, the convention of the standard deviation).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Generic, TypeVar

from boundless.math.exact.params import GameParams

Number = TypeVar("Number", Fraction, float)
Kind = tuple[int, bool]  # (level, at the last level)


@dataclass(frozen=True, slots=True)
class SplitRound:
    """One way the second cards of a split can fall (as pair card or not)."""

    chance: Fraction
    hands: tuple[tuple[Kind, int], ...]  # how many hands of each kind
    draws: tuple[tuple[int, int], ...]  # second cards drawn at each level


@dataclass(frozen=True, slots=True)
class SplitShoe:
    """What a split of one pair sees of the shoe (the shoe without the up card)."""

    cards: int
    pair_cards: int  # cards that pair the split card, the two dealt ones included
    value_cards: int  # cards of the pair's value (more than pair_cards for tens by rank)
    most_hands: int
    blackjack_cards: int | None  # hole cards that complete a dealer blackjack settled apart
    blackjack_card_pairs: bool  # whether those are of the pair's value

    def pair_chance(self, level: int) -> Fraction:
        """Chance that a second card at ``level`` pairs the hand."""
        return Fraction(self.pair_cards - level, self.cards - level)

    def no_blackjack(self, gone: int) -> Fraction:
        """Chance of no dealer blackjack with ``gone`` pair cards out of the shoe."""
        if self.blackjack_cards is None:
            return Fraction(1)
        completing = self.blackjack_cards - (gone if self.blackjack_card_pairs else 0)
        return 1 - Fraction(completing, self.cards - gone)

    def kinds(self) -> list[Kind]:
        return [(level, level == self.most_hands) for level in range(2, self.most_hands + 1)]

    def coefficients(self, kind: Kind) -> tuple[Fraction, Fraction]:
        return _coefficients(self, kind)

    def _coefficients(self, kind: Kind) -> tuple[Fraction, Fraction]:
        """``(keep, scale)``: the kind is worth ``(one - keep * pair) * scale`` of its level's
        lone split card and pair; the scale includes the blackjack reweighting."""
        level, last = kind
        seen = self.no_blackjack(level)
        if last:
            return Fraction(0), self.no_blackjack(2) / seen if seen else Fraction(1)
        chance = self.pair_chance(level)
        if chance == 1:
            return Fraction(0), Fraction(0)  # no hand of this kind can occur
        seen = (seen - chance * self.no_blackjack(level + 1)) / (1 - chance)
        weight = self.no_blackjack(2) / seen if seen else Fraction(1)
        return chance, weight / (1 - chance)

    def flows(self) -> dict[int, tuple[Fraction, Fraction]]:
        """Per level: how often play reaches its lone split card (times the kind's
        reweighting), and the share of the pair-value draws from it that are played on
        rather than split again."""
        draws = expected_draws(self.rounds())
        result: dict[int, tuple[Fraction, Fraction]] = {}
        for kind in self.kinds():
            level, last = kind
            keep, scale = self.coefficients(kind)
            weight = scale if last else scale * (1 - keep)
            value_chance = Fraction(self.value_cards - level, self.cards - level)
            played_on = Fraction(1)
            if not last and value_chance:
                played_on = 1 - keep / value_chance
            result[level] = (draws.get(level, Fraction(0)) * weight, played_on)
        return result

    def rounds(self) -> tuple[SplitRound, ...]:
        """Every pattern of pair and non-pair second cards, with its chance."""
        return _rounds(self)

    def expected_hands(self) -> dict[Kind, Fraction]:
        return _expected_hands(self)

    def _rounds(self) -> tuple[SplitRound, ...]:
        found: list[SplitRound] = []

        def deal(level: int, waiting: int, chance: Fraction, hands: dict[Kind, int],
                 draws: dict[int, int]) -> None:  # fmt: skip
            if waiting == 0 or level == self.most_hands:
                done = dict(hands)
                if waiting:
                    done[(level, True)] = waiting
                    draws = {**draws, level: draws.get(level, 0) + waiting}
                found.append(SplitRound(chance, tuple(sorted(done.items())),
                                        tuple(sorted(draws.items()))))  # fmt: skip
                return
            pairs = self.pair_chance(level)
            drawn = {**draws, level: draws.get(level, 0) + 1}
            if pairs:
                deal(level + 1, waiting + 1, chance * pairs, hands, drawn)
            if pairs != 1:
                kind = (level, False)
                more = {**hands, kind: hands.get(kind, 0) + 1}
                deal(level, waiting - 1, chance * (1 - pairs), more, drawn)

        deal(2, 2, Fraction(1), {}, {})
        return tuple(found)


# The shoes are few and frozen: their structure is computed once per process.
_rounds = cache(SplitShoe._rounds)
_coefficients = cache(SplitShoe._coefficients)
_expected_hands = cache(lambda shoe: expected_hands(shoe.rounds()))


def expected_hands(rounds: Sequence[SplitRound]) -> dict[Kind, Fraction]:
    result: dict[Kind, Fraction] = {}
    for split_round in rounds:
        for kind, count in split_round.hands:
            result[kind] = result.get(kind, Fraction(0)) + split_round.chance * count
    return result


def expected_draws(rounds: Sequence[SplitRound]) -> dict[int, Fraction]:
    """Second cards drawn at each level, on average: how often play reaches that level's
    lone split card."""
    result: dict[int, Fraction] = {}
    for split_round in rounds:
        for level, count in split_round.draws:
            result[level] = result.get(level, Fraction(0)) + split_round.chance * count
    return result


@dataclass(frozen=True, slots=True)
class HandFigures(Generic[Number]):
    """Blackjack-free mean, mean square and mean by dealer outcome of one hand, with the
    dealer's outcome chances at its start."""

    mean: Number
    square: Number
    by_outcome: tuple[Number, ...]
    chances: tuple[Number, ...]


def kind_figures(
    shoe: SplitShoe,
    kind: Kind,
    one: HandFigures[Number],
    pair: HandFigures[Number] | None,
    convert: Callable[[Fraction], Number],
) -> HandFigures[Number]:
    """A kind's figures from its level's lone split card (``one``) and pair (``pair``, not
    needed at the last level)."""
    keep, scale = shoe.coefficients(kind)
    if not keep:
        if scale == 1:
            return one
        factor = convert(scale)
        parts = tuple(part * factor for part in one.by_outcome)
        return HandFigures(one.mean * factor, one.square * factor, parts, one.chances)
    assert pair is not None
    share, factor = convert(keep), convert(scale)
    rest = convert(1 / (1 - keep))
    return HandFigures(
        (one.mean - share * pair.mean) * factor,
        (one.square - share * pair.square) * factor,
        tuple(
            (part - share * other) * factor
            for part, other in zip(one.by_outcome, pair.by_outcome, strict=True)
        ),
        tuple(
            (chance - share * other) * rest
            for chance, other in zip(one.chances, pair.chances, strict=True)
        ),
    )


def _cross(first: HandFigures[Number], second: HandFigures[Number], same: bool) -> Number:
    """Mean product of two hands' results, independent given the dealer's outcome."""
    total = first.mean * 0
    for index, (one, other) in enumerate(zip(first.by_outcome, second.by_outcome, strict=True)):
        chance = first.chances[index]
        if not same:
            chance = (chance + second.chances[index]) / 2
        if chance:
            total += one * other / chance
    return total


def split_figures(
    rounds: Sequence[SplitRound],
    kinds: Mapping[Kind, HandFigures[Number]],
    convert: Callable[[Fraction], Number],
) -> tuple[Number, Number]:
    """Mean and mean square of the split's hands together (blackjack-free parts)."""
    mean = square = next(iter(kinds.values())).mean * 0
    cross: dict[tuple[Kind, Kind], Number] = {}
    for split_round in rounds:
        round_mean = round_square = mean * 0
        for kind, count in split_round.hands:
            figures = kinds[kind]
            round_mean += count * figures.mean
            round_square += count * figures.square
            for other, other_count in split_round.hands:
                pairs = count * (other_count - (other == kind))
                if pairs:
                    key = (kind, other)
                    if key not in cross:
                        cross[key] = _cross(figures, kinds[other], kind == other)
                    round_square += pairs * cross[key]
        chance = convert(split_round.chance)
        mean += chance * round_mean
        square += chance * round_square
    return mean, square


def split_mean(
    shoe: SplitShoe,
    one: Mapping[int, Number],
    pair: Mapping[int, Number],
    convert: Callable[[Fraction], Number],
) -> Number:
    """The split's mean from each level's lone split card and pair means."""
    total = next(iter(one.values())) * 0
    for kind, count in shoe.expected_hands().items():
        keep, scale = shoe.coefficients(kind)
        value = one[kind[0]] if not keep else (one[kind[0]] - convert(keep) * pair[kind[0]])
        total += convert(count) * (value if scale == 1 else value * convert(scale))
    return total


def split_shoe(params: GameParams, up: int, pair: int, pair_cards: int) -> SplitShoe:
    """The shoe a split of ``pair`` against ``up`` sees, ``pair_cards`` of its cards pairing."""
    values = list(params.value_counts)
    values[up - 1] -= 1
    completing = {1: 10, 10: 1}.get(up)
    settled_apart = params.dealer_blackjack_rule(up) in ("peeked", "original_bets_only")
    return SplitShoe(
        cards=sum(values),
        pair_cards=pair_cards,
        value_cards=values[pair - 1],
        most_hands=min(params.hands_limit(pair), pair_cards),
        blackjack_cards=values[completing - 1] if completing and settled_apart else None,
        blackjack_card_pairs=completing == pair,
    )


@cache
def split_shoes(params: GameParams, up: int, pair: int) -> tuple[tuple[Fraction, SplitShoe], ...]:
    """The shoes a dealt pair may see, each with its share (one unless tens pair by rank)."""
    return tuple(
        (share, split_shoe(params, up, pair, count)) for share, count in params.pair_cards(up, pair)
    )


def split_totals(
    params: GameParams,
    up: int,
    pair: int,
    figures: Callable[[int, int], HandFigures[Number] | None],
    convert: Callable[[Fraction], Number],
) -> tuple[Number, Number]:
    """Mean and mean square of a split's hands together, from ``figures(level, start)``: the
    level's lone split card (start 0) and the pair it makes (start 1, ``None`` where the
    level never needs it)."""
    mean = square = convert(Fraction(0))
    for share, shoe in split_shoes(params, up, pair):
        kinds = {}
        for kind in shoe.kinds():
            one = figures(kind[0], 0)
            assert one is not None
            kinds[kind] = kind_figures(shoe, kind, one, figures(kind[0], 1), convert)
        kinds_mean, kinds_square = split_figures(shoe.rounds(), kinds, convert)
        mean += convert(share) * kinds_mean
        square += convert(share) * kinds_square
    return mean, square


def split_value(
    params: GameParams,
    up: int,
    pair: int,
    value: Callable[[int, int], Number],
    convert: Callable[[Fraction], Number],
) -> Number:
    """A split's mean when ``value(level, start)`` is what each level's lone split card
    (start 0) and pair (start 1) are worth."""
    total = convert(Fraction(0))
    for share, shoe in split_shoes(params, up, pair):
        levels = range(2, shoe.most_hands + 1)
        one = {level: value(level, 0) for level in levels}
        pairs = {level: value(level, 1) for level in levels}
        total += convert(share) * split_mean(shoe, one, pairs, convert)
    return total


def split_flows(params: GameParams, up: int, pair: int) -> dict[int, tuple[Fraction, Fraction]]:
    """:meth:`SplitShoe.flows` over the shoes a dealt pair may see."""
    flows: dict[int, tuple[Fraction, Fraction]] = {}
    for share, shoe in split_shoes(params, up, pair):
        for level, (flow, played_on) in shoe.flows().items():
            total, kept = flows.get(level, (Fraction(0), Fraction(0)))
            flows[level] = (total + share * flow, kept + share * flow * played_on)
    return {
        level: (flow, kept / flow if flow else Fraction(1)) for level, (flow, kept) in flows.items()
    }


__all__ = [
    "HandFigures",
    "Kind",
    "SplitRound",
    "SplitShoe",
    "expected_draws",
    "expected_hands",
    "kind_figures",
    "split_figures",
    "split_flows",
    "split_mean",
    "split_shoe",
    "split_shoes",
    "split_totals",
    "split_value",
]
