"""Reference analysis of a whole round, and the basic-strategy derivation, in exact fractions.

Plain and slow: use it on small shoes (see ``tests/math``); :mod:`boundless.math.exact.fast` does
the same for full shoes and is tested equal to this. The definitions are in
:mod:`boundless.math.exact` and ``docs/math.md``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from boundless.core.cards import Card
from boundless.core.rules import RuleSet
from boundless.core.strategy_chart import CELL_MOVES, StrategyChart
from boundless.math.exact.params import DEALER_BLACKJACK, GameParams, RoundFigures, split_context
from boundless.math.exact.reference_values import (
    HandValues,
    Moments,
    State,
    add_card,
    draws,
    hand_total,
    take,
)
from boundless.math.exact.split_rounds import HandFigures, split_flows, split_totals, split_value
from boundless.math.exact.strategy_cells import (
    CELL_ORDER,
    PAIR_CODES,
    TOTAL_CODES,
    Column,
    baseline_column,
    cell_of,
    chart_from_columns,
    column_of,
    move_for,
    says_split,
)

Hand = tuple[int, ...]
UP_VALUES = tuple(range(1, 11))
ROOT_TIE_ORDER = ("stand", "hit", "double", "split", "surrender", "surrender20")
MOST_ROUNDS = 30
ONE = Fraction(1)


@dataclass(frozen=True, slots=True)
class ReferenceResult:
    optimal: RoundFigures[Fraction]
    basic: RoundFigures[Fraction]
    chart: StrategyChart


def cards_of(hand: Hand) -> tuple[Card, ...]:
    """Representative cards for a hand of values (the chart reads values only)."""
    return tuple(Card.of(value, 0) for value in hand)


class ReferenceAnalysis:
    def __init__(self, params: GameParams, title_key: str = "reference") -> None:
        self.params = params
        self.title_key = title_key
        self.values = HandValues(params)
        self.shoe = self.values.shoe
        self.states = cache(self._states)

    # -- the deal ---------------------------------------------------------------------------

    def up_chances(self) -> list[tuple[int, Fraction]]:
        return draws(self.shoe)

    def deals(self, up: int) -> list[tuple[Hand, Fraction]]:
        """Every two-card hand (values, sorted) and its chance given the up card."""
        base = take(self.shoe, (up,))
        result: dict[Hand, Fraction] = defaultdict(Fraction)
        for first, chance_first in draws(base):
            for second, chance_second in draws(take(base, (first,))):
                result[tuple(sorted((first, second)))] += chance_first * chance_second
        return sorted(result.items())

    # -- the first decision -----------------------------------------------------------------

    def root_figures(
        self, up: int, hand: Hand, move: str, continuation: Callable[[State], Moments]
    ) -> tuple[Fraction, Fraction]:
        """Total mean and mean square of ``move`` as the first decision, blackjack included."""
        state = (up, 0, hand)
        blackjack = self.values.blackjack_chance(self.values.shoe_of(state), up)
        rule = self.params.dealer_blackjack_rule(up)
        if move in ("surrender", "surrender20"):
            refund = (
                self.params.surrender_refund if move == "surrender" else self.params.decline_refund
            )
            loss = 1 - refund
            if rule == "peeked":
                return -loss * (1 - blackjack) - blackjack, loss * loss * (
                    1 - blackjack
                ) + blackjack
            return -loss, loss * loss
        if move == "split":
            mean, square = self.split_moments(up, hand[0], continuation)
        else:
            moments = self.values.move_moments(state, move, continuation)
            mean, square = moments.mean, moments.square
        if rule in ("peeked", "original_bets_only"):
            return mean - blackjack, square + blackjack
        return mean, square

    def split_moments(
        self, up: int, pair: int, continuation: Callable[[State], Moments]
    ) -> tuple[Fraction, Fraction]:
        """Mean and mean square of the split's hands together (``split_rounds``)."""

        def figures(level: int, start: int) -> HandFigures[Fraction] | None:
            state: State = (up, split_context(pair, level - 1), (pair,) * (1 + start))
            if not self.values.feasible(state):
                return None
            chances = self.values.dealer_outcomes(self.values.shoe_of(state), up)
            moments = continuation(state)
            return HandFigures(moments.mean, moments.square, moments.by_outcome, chances)

        return split_totals(self.params, up, pair, figures, Fraction)

    def natural_figures(self, up: int, hand: Hand) -> tuple[Fraction, Fraction]:
        blackjack = self.values.blackjack_chance(self.values.shoe_of((up, 0, hand)), up)
        pays = self.params.blackjack_pays
        return pays * (1 - blackjack), pays * pays * (1 - blackjack)

    def up_figures(
        self,
        up: int,
        column: Column,
        choose: Callable[[Hand, frozenset[str], int | None], str],
        continuation: Callable[[State], Moments],
    ) -> tuple[Fraction, Fraction]:
        """Mean and mean square of the round given the up card."""
        mean, square = Fraction(0), Fraction(0)
        for hand, chance in self.deals(up):
            if hand == (1, 10):
                hand_mean, hand_square = self.natural_figures(up, hand)
                mean += chance * hand_mean
                square += chance * hand_square
                continue
            for share, pair in self.params.pair_cases(up, (hand[0], hand[1]), Fraction):
                allowed, pair_value = self.params.root_words(up, pair, column)
                move = choose(hand, allowed, pair_value)
                hand_mean, hand_square = self.root_figures(up, hand, move, continuation)
                mean += chance * share * hand_mean
                square += chance * share * hand_square
        return mean, square

    def round_figures(
        self,
        columns: dict[int, Column],
        choose_for: Callable[[int], Callable[[Hand, frozenset[str], int | None], str]],
        continuation_for: Callable[[int], Callable[[State], Moments]],
    ) -> RoundFigures[Fraction]:
        mean, square = Fraction(0), Fraction(0)
        for up, chance in self.up_chances():
            up_mean, up_square = self.up_figures(
                up, columns[up], choose_for(up), continuation_for(up)
            )
            mean += chance * up_mean
            square += chance * up_square
        return RoundFigures(mean, square)

    # -- the two strategies -------------------------------------------------------------------

    def optimal_choice(self, up: int) -> Callable[[Hand, frozenset[str], int | None], str]:
        def choose(hand: Hand, allowed: frozenset[str], pair: int | None) -> str:
            best_move, best_mean = "", Fraction(0)
            for move in ROOT_TIE_ORDER:
                if move not in allowed:
                    continue
                mean = self.root_figures(up, hand, move, self.values.optimal_moments)[0]
                if not best_move or mean > best_mean:
                    best_move, best_mean = move, mean
            return best_move

        return choose

    def chart_play(self, column: Column) -> Callable[[State], Moments]:
        """Moments of every state when play follows ``column`` (a fixed total-dependent rule)."""

        @cache
        def moments(state: State) -> Moments:
            allowed = self.values.moves(state)
            total, soft = hand_total(state[2])
            move = (
                allowed[0]
                if len(allowed) == 1
                else move_for(column[cell_of(total, soft)], allowed, total)
            )
            return self.values.move_moments(state, move, moments)

        return moments

    def chart_choice(
        self, chart: StrategyChart, up: int
    ) -> Callable[[Hand, frozenset[str], int | None], str]:
        def choose(hand: Hand, allowed: frozenset[str], pair: int | None) -> str:
            return chart.choose(cards_of(hand), up, allowed, pair)

        return choose

    def analyse(self) -> ReferenceResult:
        chart = self.derive_chart()
        columns = {up: column_of(chart, up) for up in UP_VALUES}
        optimal = self.round_figures(
            columns, self.optimal_choice, lambda up: self.values.optimal_moments
        )
        plays = {up: self.chart_play(columns[up]) for up in UP_VALUES}
        basic = self.round_figures(
            columns, lambda up: self.chart_choice(chart, up), plays.__getitem__
        )
        return ReferenceResult(optimal, basic, chart)

    # -- deriving the chart -------------------------------------------------------------------

    def derive_chart(self) -> StrategyChart:
        columns = {up: self.derive_column(up) for up in UP_VALUES}
        return chart_from_columns(self.title_key, columns)

    def derive_column(self, up: int) -> Column:
        """Improve the column cell by cell, weighting by how often play reaches each hand
        under the previous column, until it no longer changes."""
        column = baseline_column()
        if self.shoe[up - 1] == 0:
            return column
        seen = [column]
        for _ in range(MOST_ROUNDS):
            improved = self.improve_column(up, column)
            if improved == column:
                return column
            if improved in seen:
                cycle = seen[seen.index(improved) :]
                return max(cycle, key=lambda candidate: self.column_mean(up, candidate))
            seen.append(improved)
            column = improved
        raise RuntimeError(f"strategy derivation for up card {up} did not settle")

    def column_mean(self, up: int, column: Column) -> Fraction:
        chart = chart_from_columns(self.title_key, {up: column})
        return self.up_figures(up, column, self.chart_choice(chart, up), self.chart_play(column))[0]

    def _states(self, up: int) -> list[State]:
        """Every hand state play can reach against ``up``, lowest hard sum first."""
        found: set[State] = set()
        frontier: list[State] = []
        for hand, _ in self.deals(up):
            if hand != (1, 10):
                frontier.append((up, 0, hand))
        if self.params.split_allowed:
            for pair in UP_VALUES:
                if not self.values.feasible((up, 0, (pair, pair))):
                    continue
                for level in range(2, self.params.hands_limit(pair) + 1):
                    start: State = (up, split_context(pair, level - 1), (pair,))
                    if self.values.feasible(start):
                        frontier.append(start)
        while frontier:
            state = frontier.pop()
            if state in found:
                continue
            found.add(state)
            if "hit" not in self.values.moves(state) and len(state[2]) > 1:
                continue
            for _, _, child in self.values.children(state):
                if child is not None:
                    frontier.append(child)
        return sorted(found, key=lambda state: (sum(state[2]), len(state[2]), state))

    def routed_roots(
        self, up: int, column: Column
    ) -> list[tuple[Hand, Fraction, frozenset[str], str, bool]]:
        """Each first decision: hand, weight, legal words, the move, and whether the pair
        cell (not the hard/soft cell) decided it."""
        chart = chart_from_columns(self.title_key, {up: column})
        result: list[tuple[Hand, Fraction, frozenset[str], str, bool]] = []
        for hand, chance in self.deals(up):
            if hand == (1, 10):
                continue
            for share, pair in self.params.pair_cases(up, (hand[0], hand[1]), Fraction):
                allowed, pair_value = self.params.root_words(up, pair, column)
                move = chart.choose(cards_of(hand), up, allowed, pair_value)
                by_pair = pair_value is not None and any(
                    word in allowed for word in CELL_MOVES[column[("pair", pair_value)]]
                )
                result.append((hand, chance * share, allowed, move, by_pair))
        return result

    def reach(self, up: int, column: Column) -> dict[State, Fraction]:
        """How often each hard/soft cell decides at each state when play follows ``column``."""
        weights: dict[State, Fraction] = defaultdict(Fraction)
        arriving: dict[State, Fraction] = defaultdict(Fraction)
        played_on: dict[State, Fraction] = {}  # lone split cards: share of pair draws kept
        for hand, weight, _, move, by_pair in self.routed_roots(up, column):
            root: State = (up, 0, hand)
            if not by_pair:
                weights[root] += weight
            if move == "hit":
                for _, chance, child in self.values.children(root):
                    if child is not None:
                        arriving[child] += weight * chance
            elif move == "split":
                for level, (flow, kept) in split_flows(self.params, up, hand[0]).items():
                    start = (up, split_context(hand[0], level - 1), (hand[0],))
                    arriving[start] += flow * weight
                    played_on[start] = kept
        for state in self.states(up):
            flow = arriving.get(state, Fraction(0))
            if not flow:
                continue
            allowed = self.values.moves(state)
            total, soft = hand_total(state[2])
            if len(allowed) == 1:
                move = allowed[0]
            else:
                weights[state] += flow
                move = move_for(column[cell_of(total, soft)], allowed, total)
            if move == "hit":
                for value, chance, child in self.values.children(state):
                    if child is not None:
                        kept = played_on.get(state, ONE) if value == state[2][0] else ONE
                        arriving[child] += flow * chance * kept
        return weights

    def dealt_chance(self, state: State) -> Fraction:
        """Chance that the first cards dealt to the player are this unsplit hand."""
        up, _, hand = state
        base = take(self.shoe, (up,))
        chance = Fraction(1)
        left = sum(base)
        counts = list(base)
        for index, value in enumerate(hand):
            chance *= Fraction(counts[value - 1], left - index)
            counts[value - 1] -= 1
        arrangements = 1
        for index in range(1, len(hand) + 1):
            arrangements *= index
        for value in set(hand):
            for index in range(1, hand.count(value) + 1):
                arrangements //= index
        return chance * arrangements

    def improve_column(self, up: int, column: Column) -> Column:
        weights = self.reach(up, column)
        routed = {
            (up, 0, hand): allowed
            for hand, _, allowed, _, by_pair in self.routed_roots(up, column)
            if not by_pair
        }
        states = self.states(up)
        values: dict[State, Fraction] = {}
        improved: Column = {}
        members: dict[tuple[str, int], list[State]] = defaultdict(list)
        for state in states:
            if len(state[2]) > 1:
                members[cell_of(*hand_total(state[2]))].append(state)

        def mean_of(state: State, move: str) -> Fraction:
            if move == "surrender":
                return self.surrender_part(state, self.params.surrender_refund)
            if move == "stand":
                return self.values.stand_moments(state).mean
            parent = self.values.dealer_outcomes(self.values.shoe_of(state), up)
            total = Fraction(0)
            for value, chance, child in self.values.children(state):
                if child is None:
                    total += chance * self.values.bust_moments(state, value, parent).mean
                elif move == "double":
                    total += chance * self.values.stand_moments(child).mean
                else:
                    total += chance * values[child]
            return 2 * total if move == "double" else total

        for cell in CELL_ORDER:
            deciding: list[tuple[State, tuple[str, ...]]] = []
            for state in members.get(cell, []):
                is_root = state[1] == 0 and len(state[2]) == 2
                if is_root and state in routed:
                    deciding.append((state, tuple(sorted(routed[state]))))
                elif not is_root and len(self.values.moves(state)) > 1:
                    deciding.append((state, self.values.moves(state)))
            improved[cell] = self.best_code(up, cell, deciding, weights, mean_of)
            for state in members.get(cell, []):
                if state[1] == 0 and len(state[2]) == 2:
                    continue  # a first decision: nothing later depends on its value
                allowed = self.values.moves(state)
                total = hand_total(state[2])[0]
                move = allowed[0] if len(allowed) == 1 else move_for(improved[cell], allowed, total)
                values[state] = mean_of(state, move)
        for state in states:
            if len(state[2]) == 1:
                values[state] = mean_of(state, "hit")
        for pair in UP_VALUES:
            improved[("pair", pair)] = self.best_pair_code(up, pair, values, mean_of)
        return improved

    def split_value(self, up: int, pair: int, values: dict[State, Fraction]) -> Fraction:
        """The split's mean when its hands are worth ``values`` (the chart's play)."""

        def worth(level: int, start: int) -> Fraction:
            state = (up, split_context(pair, level - 1), (pair,) * (1 + start))
            return values.get(state, Fraction(0))

        return split_value(self.params, up, pair, worth, Fraction)

    def surrender_part(self, state: State, refund: Fraction) -> Fraction:
        """Surrender's mean on the blackjack-free scale the other first moves use."""
        up = state[0]
        blackjack = self.values.blackjack_chance(self.values.shoe_of(state), up)
        loss = 1 - refund
        rule = self.params.dealer_blackjack_rule(up)
        if rule == "peeked":
            return -loss * (1 - blackjack)
        if rule == "original_bets_only":
            return -loss + blackjack
        return -loss

    def best_code(
        self,
        up: int,
        cell: tuple[str, int],
        deciding: Sequence[tuple[State, tuple[str, ...]]],
        weights: dict[State, Fraction],
        mean_of: Callable[[State, str], Fraction],
    ) -> str:
        weighted = [
            (state, allowed, weights.get(state, Fraction(0))) for state, allowed in deciding
        ]
        if not any(weight for _, _, weight in weighted):
            weighted = [
                (state, allowed, self.dealt_chance(state))
                for state, allowed in deciding
                if not state[1]
            ]
        if not any(weight for _, _, weight in weighted):
            return baseline_column()[cell]
        best_code, best_score = "", (Fraction(0), Fraction(0))
        for code in self.candidate_codes(up, TOTAL_CODES):
            first = CELL_MOVES[code][0]
            primary, secondary = Fraction(0), Fraction(0)
            for state, allowed, weight in weighted:
                if not weight:
                    continue
                total = hand_total(state[2])[0]
                primary += weight * mean_of(state, move_for(code, allowed, total))
                rest = (
                    [move for move in allowed if move != first]
                    if len(CELL_MOVES[code]) > 1
                    else allowed
                )
                secondary += weight * mean_of(state, move_for(code, rest, total))
            if not best_code or (primary, secondary) > best_score:
                best_code, best_score = code, (primary, secondary)
        return best_code

    def candidate_codes(self, up: int, codes: Sequence[str]) -> list[str]:
        result = []
        for code in codes:
            moves = CELL_MOVES[code]
            if "double" in moves and not self.params.double_allowed:
                continue
            if "surrender" in moves and not self.params.can_surrender(up):
                continue
            if "split" in moves and not self.params.split_allowed:
                continue
            result.append(code)
        return result

    def best_pair_code(
        self,
        up: int,
        pair: int,
        values: dict[State, Fraction],
        mean_of: Callable[[State, str], Fraction],
    ) -> str:
        """The pair cell as if the pair may always be split: best first move, then the best
        fall-back."""
        state: State = (up, 0, (pair, pair))
        if not self.values.feasible(state):
            return baseline_column()[("pair", pair)]

        def root_mean(move: str) -> Fraction:
            if move == "split":
                return self.split_value(up, pair, values)
            return mean_of(state, move)

        best_code, best_score = "", (Fraction(0), Fraction(0))
        for code in self.candidate_codes(up, PAIR_CODES):
            moves = CELL_MOVES[code]
            score = (root_mean(moves[0]), root_mean(moves[-1]))
            if not best_code or score > best_score:
                best_code, best_score = code, score
        if self.params.split_only_where_chart_splits and says_split(best_code):
            # Basic strategy splits here, so the title offers Split or Surrender 20% only;
            # the chart's "surrender" on this pair then means Surrender 20%.
            decline = self.surrender_part(state, self.params.decline_refund)
            return "Rp" if decline > root_mean("split") else "P"
        return best_code


def reference_analysis(rules: RuleSet, shoe: Sequence[int] | None = None) -> ReferenceResult:
    """Exact optimal and basic-strategy figures and the derived chart (small shoes only)."""
    return ReferenceAnalysis(GameParams.from_rules(rules, shoe), rules.key).analyse()


__all__ = [
    "DEALER_BLACKJACK",
    "ReferenceAnalysis",
    "ReferenceResult",
    "RoundFigures",
    "add_card",
    "reference_analysis",
]
