"""Reference recursions in exact fractions: the dealer's outcomes and a hand's values.

Plain and slow on purpose: the fast kernels in :mod:`boundless.math.exact.fast_kernels` are tested
equal to this on small shoes. Every value here is a *blackjack-free part*: the expectation of
the hand's net result times the indicator that the dealer has no blackjack (for the
``peeked`` and ``original_bets_only`` rules), or the full expectation (``all_bets`` and up
cards that cannot make one). The round-level code adds the dealer-blackjack part.

A *state* is ``(up, context, hand)``: the dealer's up card value, the hand's context (0 for
an unsplit hand; for a split hand its pair and how many other split cards it knows of, see
:func:`boundless.math.exact.params.split_context`) and the hand's card values, sorted. A
split hand's shoe lacks those other split cards as well, and nothing else of the other
hands: that is the split convention (see :mod:`boundless.math.exact.split_rounds`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from boundless.math.exact.params import (
    BUST,
    DEALER_BLACKJACK,
    OUTCOME_COUNT,
    OUTCOME_TOTALS,
    GameParams,
    context_others,
    context_pair,
)

Shoe = tuple[int, ...]
Hand = tuple[int, ...]
State = tuple[int, int, Hand]
MOVES = ("stand", "hit", "double")


def hand_total(hand: Hand) -> tuple[int, bool]:
    """Best total and whether an ace counts 11 in it."""
    hard = sum(hand)
    if hard <= 11 and 1 in hand:
        return hard + 10, True
    return hard, False


def take(shoe: Shoe, cards: Hand) -> Shoe:
    counts = list(shoe)
    for value in cards:
        counts[value - 1] -= 1
    return tuple(counts)


def add_card(hand: Hand, value: int) -> Hand:
    return tuple(sorted((*hand, value)))


def draws(shoe: Shoe) -> list[tuple[int, Fraction]]:
    """Each card value with its chance to come next from ``shoe``."""
    total = sum(shoe)
    return [(value, Fraction(count, total)) for value, count in enumerate(shoe, 1) if count]


def settle(total: int, outcome: int, win_pays: Fraction) -> Fraction:
    """Net result per unit of a standing ``total`` against a dealer outcome (not blackjack)."""
    if outcome == BUST or total > OUTCOME_TOTALS[outcome]:
        return win_pays
    return Fraction(0) if total == OUTCOME_TOTALS[outcome] else Fraction(-1)


@dataclass(frozen=True, slots=True)
class Moments:
    """Blackjack-free parts of a hand's net result: mean, mean square, and the mean split by
    the dealer's final outcome (used only for the two split hands' cross term)."""

    mean: Fraction
    square: Fraction
    by_outcome: tuple[Fraction, ...]

    def scaled(self, factor: int) -> Moments:
        return Moments(
            self.mean * factor,
            self.square * factor * factor,
            tuple(part * factor for part in self.by_outcome),
        )


class HandValues:
    """Exact values of every hand state for one parameter set and shoe."""

    def __init__(self, params: GameParams) -> None:
        self.params = params
        self.shoe: Shoe = params.value_counts
        self.dealer_outcomes = cache(self._dealer_outcomes)
        self._dealer_from = cache(self._dealer_from_uncached)
        self.optimal_moments = cache(self._optimal_moments)
        self.stand_moments = cache(self._stand_moments)

    # -- the dealer -------------------------------------------------------------------------

    def _dealer_outcomes(self, shoe: Shoe, up: int) -> tuple[Fraction, ...]:
        """Chances of the seven outcomes when hole card and draws come from ``shoe``."""
        return self._dealer_from(shoe, up, up == 1, 1)

    def _dealer_from_uncached(
        self, shoe: Shoe, hard: int, has_ace: bool, cards: int
    ) -> tuple[Fraction, ...]:
        total = hard + 10 if has_ace and hard <= 11 else hard
        soft = total != hard
        outcome = None
        if cards == 2 and total == 21:
            outcome = DEALER_BLACKJACK
        elif total > 21:
            outcome = BUST
        elif total >= 17 and not (self.params.dealer_hits_soft_17 and soft and total == 17):
            outcome = total - 17
        if outcome is not None:
            return tuple(Fraction(int(index == outcome)) for index in range(OUTCOME_COUNT))
        result = [Fraction(0)] * OUTCOME_COUNT
        for value, chance in draws(shoe):
            after = self._dealer_from(
                take(shoe, (value,)), hard + value, has_ace or value == 1, cards + 1
            )
            for index in range(OUTCOME_COUNT):
                result[index] += chance * after[index]
        return tuple(result)

    def blackjack_chance(self, shoe: Shoe, up: int) -> Fraction:
        """Chance that the hole card, drawn from ``shoe``, completes a dealer blackjack."""
        if up not in (1, 10):
            return Fraction(0)
        completing = 10 if up == 1 else 1
        return Fraction(shoe[completing - 1], sum(shoe))

    # -- states -----------------------------------------------------------------------------

    def shoe_of(self, state: State) -> Shoe:
        up, context, hand = state
        others = (context_pair(context),) * context_others(context)
        return take(self.shoe, (up, *hand, *others))

    def feasible(self, state: State) -> bool:
        return min(self.shoe_of(state)) >= 0

    def moves(self, state: State) -> tuple[str, ...]:
        """Moves allowed at a state that is not the round's first decision."""
        _, context, hand = state
        pair = context_pair(context)
        total = hand_total(hand)[0]
        if len(hand) == 1:
            return ("hit",)
        if total >= 21:
            return ("stand",)
        if pair == 1 and self.params.split_aces_one_card:
            return ("stand",)
        if pair and len(hand) == 2 and self.params.can_double_split_hand(pair):
            return MOVES
        return ("stand", "hit")

    def children(self, state: State) -> list[tuple[int, Fraction, State | None]]:
        """Each next card: its value, its chance, and the state it leads to (``None``: bust)."""
        up, context, hand = state
        result: list[tuple[int, Fraction, State | None]] = []
        for value, chance in draws(self.shoe_of(state)):
            after = add_card(hand, value)
            result.append((value, chance, (up, context, after) if sum(after) <= 21 else None))
        return result

    def bust_moments(
        self, state: State, value: int, parent_outcomes: tuple[Fraction, ...]
    ) -> Moments:
        """A hand that busts with ``value`` drawn at ``state``: the unit is lost.

        Its split by dealer outcome uses the dealer's chances before the busting card (an
        approximation, used only in the split hands' cross term).
        """
        up = state[0]
        if self.params.dealer_blackjack_rule(up) in ("peeked", "original_bets_only"):
            weight = 1 - self.blackjack_chance(take(self.shoe_of(state), (value,)), up)
            parts = tuple(
                Fraction(0) if index == DEALER_BLACKJACK else -chance
                for index, chance in enumerate(parent_outcomes)
            )
        else:
            weight = Fraction(1)
            parts = tuple(-chance for chance in parent_outcomes)
        return Moments(-weight, weight, parts)

    def _stand_moments(self, state: State) -> Moments:
        up = state[0]
        chances = self.dealer_outcomes(self.shoe_of(state), up)
        total = hand_total(state[2])[0]
        parts = [Fraction(0)] * OUTCOME_COUNT
        square = Fraction(0)
        for outcome in range(DEALER_BLACKJACK):
            result = settle(total, outcome, self.params.win_pays)
            parts[outcome] = chances[outcome] * result
            square += chances[outcome] * result * result
        if self.params.dealer_blackjack_rule(up) == "all_bets":
            parts[DEALER_BLACKJACK] = -chances[DEALER_BLACKJACK]
            square += chances[DEALER_BLACKJACK]
        return Moments(sum(parts, Fraction(0)), square, tuple(parts))

    def move_moments(
        self, state: State, move: str, continuation: Callable[[State], Moments]
    ) -> Moments:
        """Moments of ``move`` at ``state``; after a hit, play goes on by ``continuation``."""
        if move == "stand":
            return self.stand_moments(state)
        parent = self.dealer_outcomes(self.shoe_of(state), state[0])
        mean, square = Fraction(0), Fraction(0)
        parts = [Fraction(0)] * OUTCOME_COUNT
        for value, chance, child in self.children(state):
            if child is None:
                after = self.bust_moments(state, value, parent)
            elif move == "double":
                after = self.stand_moments(child)
            else:
                after = continuation(child)
            mean += chance * after.mean
            square += chance * after.square
            for index in range(OUTCOME_COUNT):
                parts[index] += chance * after.by_outcome[index]
        result = Moments(mean, square, tuple(parts))
        return result.scaled(2) if move == "double" else result

    # -- the optimal (composition-dependent) play --------------------------------------------

    def _optimal_moments(self, state: State) -> Moments:
        """Best mean over the allowed moves (ties: stand, then hit, then double)."""
        best: Moments | None = None
        for move in self.moves(state):
            moments = self.move_moments(state, move, self.optimal_moments)
            if best is None or moments.mean > best.mean:
                best = moments
        assert best is not None
        return best
