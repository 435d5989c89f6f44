"""Fast exact analysis of full shoes: numba kernels, one pipeline per dealer up card.

The definitions are those of :mod:`boundless.math.exact.reference` (tested equal on small shoes).
Everything a dealer up card needs (its dealer table, its chart column, its figures) depends
on that up card alone, so the ten pipelines run on a small thread pool; the kernels release
the GIL. This module lays out arrays and assembles the first decision in Python.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

import numpy as np
import numpy.typing as npt

from boundless.core.arrays import FloatArray, IntArray
from boundless.core.cards import Card
from boundless.core.rules import RuleSet
from boundless.core.strategy_chart import CELL_MOVES, StrategyChart
from boundless.math.exact.fast_dealer import dealer_chances
from boundless.math.exact.fast_kernels import (
    DOUBLE_MEAN,
    MEAN,
    SQUARE,
    STAND_MEAN,
    TIE,
    dealt_chances,
    evaluate_hands,
    improve_cells,
    reach_weights,
    split_parts,
)
from boundless.math.exact.fast_tables import (
    HandSpace,
    dealer_trie,
    hand_space,
)
from boundless.math.exact.params import (
    OUTCOME_COUNT,
    GameParams,
    RoundFigures,
    context_others,
    context_pair,
    split_context,
)
from boundless.math.exact.split_cdz import exact_cdz_split_mean
from boundless.math.exact.split_rounds import HandFigures, split_flows, split_totals, split_value
from boundless.math.exact.strategy_cells import (
    CELL_ORDER,
    MOVE_CODES,
    PAIR_CODES,
    TOTAL_CODES,
    Column,
    baseline_column,
    chart_from_columns,
    column_of,
    says_split,
)

UP_VALUES = tuple(range(1, 11))
ROOT_TIE_ORDER = ("stand", "hit", "double", "split", "surrender", "surrender20")
MOST_ROUNDS = 30
SplitPlay = Literal["post-split", "cdz"]
"""How the optimal player decides a split hand: ``post-split`` for the shoe it sees (without
the up card, its own cards and the split cards so far); ``cdz`` (CDZ-, the public analysers'
convention) as the unsplit hand of its cards would, from the shoe without the up card and those
cards. Either way the hand is then worth its moves on its own shoe."""
SPLIT_PLAYS: tuple[SplitPlay, ...] = ("post-split", "cdz")
THREADS = 2
Hand = tuple[int, int]
Chooser = Callable[[Hand, frozenset[str], int | None], str]
TOTAL_FIRST = np.array([MOVE_CODES[CELL_MOVES[code][0]] for code in TOTAL_CODES], dtype=np.int64)
TOTAL_SECOND = np.array(
    [MOVE_CODES[CELL_MOVES[code][1]] if len(CELL_MOVES[code]) > 1 else -1 for code in TOTAL_CODES],
    dtype=np.int64,
)
BASELINE_CODES = np.array(
    [TOTAL_CODES.index(baseline_column()[cell]) for cell in CELL_ORDER], dtype=np.int64
)


Figures: TypeAlias = RoundFigures[float]


@dataclass(frozen=True)
class FastResult:
    optimal: Figures
    basic: Figures | None
    chart: StrategyChart | None


@dataclass
class HandTables:
    """Every state's figures for one up card and one way of playing.

    ``figures[context, hand, column]`` (columns as in :mod:`fast_kernels`); ``parts`` holds
    split hands' means split by dealer outcome.
    """

    figures: FloatArray
    # [context, start, outcome]: a split hand's mean by dealer outcome from its lone split
    # card (start 0) and from the pair that card makes (start 1)
    parts: FloatArray
    valid: npt.NDArray[np.bool_]
    moves: IntArray  # [context, hand]: the move taken there (HIT, STAND, DOUBLE)
    splits: dict[int, tuple[float, float]] = field(default_factory=dict)  # pair: split figures
    unsplit_decisions: bool = False  # optimal split hands decide as CDZ- (see ``SplitPlay``)

    def column(self, name: str) -> FloatArray:
        return self.figures[:, :, FIGURE_COLUMNS.index(name)]


FIGURE_COLUMNS = (
    "mean",
    "square",
    "stand_mean",
    "stand_square",
    "hit_mean",
    "hit_square",
    "double_mean",
    "double_square",
)


def column_arrays(column: Column) -> tuple[IntArray, IntArray]:
    """A column's hard/soft cells as move codes: ``first[soft, total]``, ``second[...]``."""
    first = np.full((2, 22), -1, dtype=np.int64)
    second = np.full((2, 22), -1, dtype=np.int64)
    for (kind, row), code in column.items():
        if kind == "pair":
            continue
        moves = CELL_MOVES[code]
        first[int(kind == "soft"), row] = MOVE_CODES[moves[0]]
        if len(moves) > 1:
            second[int(kind == "soft"), row] = MOVE_CODES[moves[1]]
    return first, second


def cards_of(hand: Sequence[int]) -> tuple[Card, ...]:
    """Representative cards for a hand of values (the chart reads values only)."""
    return tuple(Card.of(value, 0) for value in hand)


def chart_chooser(chart: StrategyChart, up: int) -> Chooser:
    """The engine's own lookup, :meth:`StrategyChart.choose`, at the first decision."""

    def choose(hand: Hand, allowed: frozenset[str], pair: int | None) -> str:
        return chart.choose(cards_of(hand), up, allowed, pair)

    return choose


@dataclass(frozen=True)
class DeriveWorkspace:
    """What one improvement pass leaves for the next: its codes and the chart's values."""

    chosen: IntArray
    value: FloatArray
    hit_value: FloatArray

    @classmethod
    def empty(cls, contexts: int, hands: int) -> DeriveWorkspace:
        return cls(
            np.full(len(CELL_ORDER), -1, dtype=np.int64),
            np.zeros((contexts, hands)),
            np.zeros((contexts, hands)),
        )


@dataclass(frozen=True)
class Deal:
    hand: Hand
    chance: float
    index: int
    blackjack: float  # chance the hole card then makes a dealer blackjack


class UpCard:
    """The analysis against one dealer up card."""

    def __init__(self, analysis: FastAnalysis, up: int) -> None:
        self.params = params = analysis.params
        self.space = analysis.space
        self.trie = analysis.trie
        self.up = up
        self.base = analysis.shoe.copy()
        self.base[up - 1] -= 1
        self.cards = int(self.base.sum())
        self.rule = params.dealer_blackjack_rule(up)
        self.excluded = self.rule in ("peeked", "original_bets_only")
        self.blackjack_card = {1: 9, 10: 0}.get(up, -1)
        self.contexts = params.contexts
        self.contexts_on = np.zeros(self.contexts, dtype=np.bool_)
        self.contexts_on[0] = True
        self.double_split = np.zeros(self.contexts, dtype=np.bool_)
        for context in range(1, self.contexts):
            pair, others = context_pair(context), context_others(context)
            self.contexts_on[context] = (
                params.split_allowed
                and self.base[pair - 1] >= max(2, others + 1)
                and others < params.hands_limit(pair)
            )
            self.double_split[context] = params.can_double_split_hand(pair)
        self.chances = np.zeros((OUTCOME_COUNT, len(self.space.removal_counts)))
        self.by_removal = self.chances.T
        self.deals = self._deals()

    def _deals(self) -> list[Deal]:
        deals = []
        for first in UP_VALUES:
            for second in range(first, 11):
                a = int(self.base[first - 1])
                b = int(self.base[second - 1]) - (first == second)
                if a > 0 and b > 0:
                    chance = a * b / (self.cards * (self.cards - 1)) * (1 if first == second else 2)
                    hand = (first, second)
                    deals.append(
                        Deal(
                            hand, chance, self.space.hand_index(*hand), self.blackjack_chance(hand)
                        )
                    )
        return deals

    def blackjack_chance(self, hand: Sequence[int]) -> float:
        if self.blackjack_card < 0:
            return 0.0
        left = int(self.base[self.blackjack_card]) - sum(
            1 for value in hand if value - 1 == self.blackjack_card
        )
        return left / (self.cards - len(hand))

    # -- kernels ----------------------------------------------------------------------------

    def compute_dealer(self) -> None:
        trie = self.trie
        dealer_chances(
            trie.value, trie.count, trie.depth, trie.outcome, trie.ways, trie.cards,
            trie.start[self.up - 1], trie.start[self.up], self.base,
            self.space.removal_counts, self.space.removal_size, trie.max_count,
            trie.max_cards, trie.max_depth, self.chances,
        )  # fmt: skip
        self.by_removal = np.ascontiguousarray(self.chances.T)

    def evaluate(self, column: Column | None, unsplit_decisions: bool = False) -> HandTables:
        """Figures of every state under optimal play (``None``) or the chart ``column``;
        ``unsplit_decisions``: optimal split hands decide as CDZ- (see ``SplitPlay``)."""
        space = self.space
        shape = (self.contexts, len(space.counts))
        tables = HandTables(
            figures=np.empty((*shape, len(FIGURE_COLUMNS))),
            parts=np.zeros((self.contexts, 2, OUTCOME_COUNT)),
            valid=np.zeros(shape, dtype=np.bool_),
            moves=np.zeros(shape, dtype=np.int64),
            unsplit_decisions=unsplit_decisions,
        )
        first, second = column_arrays(column or baseline_column())
        moves = tables.moves
        win = float(self.params.win_pays)
        all_bets = self.rule == "all_bets"
        evaluate_hands(
            space.counts, space.size, space.total, space.soft, space.child, space.removal,
            space.removal_plus, self.by_removal, self.base, win, self.blackjack_card,
            self.excluded, all_bets, self.contexts_on, self.params.double_allowed,
            self.double_split, self.params.split_aces_one_card, column is None,
            unsplit_decisions, first, second, tables.figures, moves, tables.valid,
        )  # fmt: skip
        split_parts(
            space.counts, space.size, space.total, space.child, space.removal_plus,
            self.by_removal, self.base, tables.valid, self.contexts_on, moves, win, all_bets,
            tables.parts,
        )  # fmt: skip
        return tables

    # -- the first decision -----------------------------------------------------------------

    def pair_cases(self, hand: Hand) -> list[tuple[float, int | None]]:
        return self.params.pair_cases(self.up, hand, float)

    def root_allowed(self, pair: int | None, column: Column) -> tuple[frozenset[str], int | None]:
        return self.params.root_words(self.up, pair, column)

    def surrender_total(self, deal: Deal, refund: float) -> tuple[float, float]:
        blackjack = deal.blackjack
        loss = 1.0 - refund
        if self.rule == "peeked":
            return -loss * (1 - blackjack) - blackjack, loss * loss * (1 - blackjack) + blackjack
        return -loss, loss * loss

    def surrender_part(self, deal: Deal) -> float:
        """Surrender's mean on the blackjack-free scale of the other first moves."""
        return self.refund_part(deal, float(self.params.surrender_refund))

    def refund_part(self, deal: Deal, refund: float) -> float:
        """Giving the hand up for ``refund``, on the blackjack-free scale of the other moves."""
        loss = 1.0 - refund
        if self.rule == "peeked":
            return -loss * (1 - deal.blackjack)
        if self.rule == "original_bets_only":
            return -loss + deal.blackjack
        return -loss

    def root_figures(self, deal: Deal, move: str, tables: HandTables) -> tuple[float, float]:
        """Total mean and mean square of ``move`` as the first decision."""
        if move == "surrender":
            return self.surrender_total(deal, float(self.params.surrender_refund))
        if move == "surrender20":
            return self.surrender_total(deal, float(self.params.decline_refund))
        if move == "split":
            mean, square = self.split_figures(deal.hand[0], tables)
        else:
            column = FIGURE_COLUMNS.index(f"{move}_mean")
            mean = float(tables.figures[0, deal.index, column])
            square = float(tables.figures[0, deal.index, column + 1])
        if self.excluded:
            return mean - deal.blackjack, square + deal.blackjack
        return mean, square

    def split_figures(self, pair: int, tables: HandTables) -> tuple[float, float]:
        """Mean and mean square of a split's hands together (``split_rounds``)."""
        if pair in tables.splits:
            return tables.splits[pair]
        lone, two = self.space.hand_index(pair), self.space.hand_index(pair, pair)

        def figures(level: int, start: int) -> HandFigures[float] | None:
            if level - 2 + start >= self.space.removal_plus.shape[0]:
                return None  # the pair at the last level: played on, never needed apart
            context = split_context(pair, level - 1)
            removal = self.space.removal_plus[level - 2 + start, lone, pair - 1]
            return HandFigures(
                float(tables.figures[context, two if start else lone, MEAN]),
                float(tables.figures[context, two if start else lone, SQUARE]),
                tuple(tables.parts[context, start].tolist()),
                tuple(self.chances[:, removal].tolist()),
            )

        mean, square = split_totals(self.params, self.up, pair, figures, float)
        exact = (
            exact_cdz_split_mean(self.params, self.up, pair) if tables.unsplit_decisions else None
        )
        if exact is not None:
            # the pattern method's exact CDZ- value; the mean square stays the levels' own
            mean = exact * (1 - self.blackjack_chance((pair, pair))) if self.excluded else exact
        tables.splits[pair] = (mean, square)
        return tables.splits[pair]

    def split_value(self, pair: int, value: FloatArray) -> float:
        """The split's mean when its hands' states are worth ``value`` (the chart's play)."""
        hands = (self.space.hand_index(pair), self.space.hand_index(pair, pair))

        def worth(level: int, start: int) -> float:
            return float(value[split_context(pair, level - 1), hands[start]])

        return split_value(self.params, self.up, pair, worth, float)

    def figures(self, column: Column, choose: Chooser, tables: HandTables) -> Figures:
        """Mean and mean square of the round given this up card."""
        mean = square = 0.0
        pays = float(self.params.blackjack_pays)
        for deal in self.deals:
            if deal.hand == (1, 10):
                mean += deal.chance * pays * (1 - deal.blackjack)
                square += deal.chance * pays * pays * (1 - deal.blackjack)
                continue
            for share, pair in self.pair_cases(deal.hand):
                allowed, pair_value = self.root_allowed(pair, column)
                move = choose(deal.hand, allowed, pair_value)
                hand_mean, hand_square = self.root_figures(deal, move, tables)
                mean += deal.chance * share * hand_mean
                square += deal.chance * share * hand_square
        return RoundFigures(mean, square)

    def optimal_chooser(self, tables: HandTables) -> Chooser:
        by_hand = {deal.hand: deal for deal in self.deals}

        def choose(hand: Hand, allowed: frozenset[str], pair: int | None) -> str:
            best_move, best_mean = "", 0.0
            for move in ROOT_TIE_ORDER:
                if move in allowed:
                    mean = self.root_figures(by_hand[hand], move, tables)[0]
                    if not best_move or mean > best_mean + TIE:
                        best_move, best_mean = move, mean
            return best_move

        return choose

    # -- deriving the column ----------------------------------------------------------------

    def derive_column(self, optimal: HandTables) -> Column:
        """Improve the column cell by cell, weighting by how often play reaches each hand
        under the previous column, until it no longer changes."""
        column = baseline_column()
        surrender = np.zeros(len(self.space.counts))
        for deal in self.deals:
            surrender[deal.index] = self.surrender_part(deal)
        dealt = np.zeros(len(self.space.counts))
        dealt_chances(self.space.counts, self.base, dealt)
        seen = [column]
        workspace = DeriveWorkspace.empty(self.contexts, len(self.space.counts))
        for _ in range(MOST_ROUNDS):
            improved = self.improve_column(column, optimal, surrender, dealt, workspace)
            if improved == column:
                return column
            if improved in seen:
                cycle = seen[seen.index(improved) :]
                return max(cycle, key=self.column_mean)
            seen.append(improved)
            column = improved
        raise RuntimeError(f"strategy derivation for up card {self.up} did not settle")

    def column_mean(self, column: Column) -> float:
        chart = chart_from_columns("derivation", {self.up: column})
        return self.figures(column, chart_chooser(chart, self.up), self.evaluate(column)).mean

    def improve_column(
        self,
        column: Column,
        optimal: HandTables,
        surrender: FloatArray,
        dealt: FloatArray,
        workspace: DeriveWorkspace,
    ) -> Column:
        space = self.space
        hands = len(space.counts)
        chart = chart_from_columns("derivation", {self.up: column})
        root_weight = np.zeros(hands)
        root_hit = np.zeros(hands)
        routed = np.zeros(hands, dtype=np.bool_)
        split_flow = np.zeros(self.contexts)
        played_on = np.ones(self.contexts)
        for deal in self.deals:
            if deal.hand == (1, 10):
                continue
            for share, pair in self.pair_cases(deal.hand):
                allowed, pair_value = self.root_allowed(pair, column)
                move = chart.choose(cards_of(deal.hand), self.up, allowed, pair_value)
                by_pair = pair_value is not None and any(
                    word in allowed for word in CELL_MOVES[column[("pair", pair_value)]]
                )
                reached = deal.chance * share
                if not by_pair:
                    root_weight[deal.index] += reached
                    routed[deal.index] = True
                if move == "hit":
                    root_hit[deal.index] += reached
                elif move == "split":
                    pair = deal.hand[0]
                    for level, (flow, kept) in split_flows(self.params, self.up, pair).items():
                        split_flow[split_context(pair, level - 1)] += float(flow) * reached
                        played_on[split_context(pair, level - 1)] = float(kept)
        first, second = column_arrays(column)
        weight = np.zeros((self.contexts, hands))
        column_space = (
            space.counts, space.size, space.total, space.soft, space.child, self.base,
            optimal.valid, self.contexts_on, self.double_split, self.params.split_aces_one_card,
        )  # fmt: skip
        reach_weights(
            column_space, first, second, root_weight, root_hit, split_flow, played_on, weight
        )
        allowed_codes = set(candidate_codes(self.params, self.up, TOTAL_CODES))
        code_allowed = np.array([code in allowed_codes for code in TOTAL_CODES], dtype=np.bool_)
        previous = workspace.chosen.copy()
        value, hit_value, chosen = workspace.value, workspace.hit_value, workspace.chosen
        improve_cells(
            column_space, space.group_start, space.group_members, optimal.figures, surrender,
            self.params.double_allowed, self.params.can_surrender(self.up), routed, weight,
            dealt, self.blackjack_card, self.excluded, TOTAL_FIRST, TOTAL_SECOND, code_allowed,
            BASELINE_CODES, previous, chosen, value, hit_value,
        )  # fmt: skip
        improved: Column = {
            cell: TOTAL_CODES[code] for cell, code in zip(CELL_ORDER, chosen, strict=True)
        }
        for pair in UP_VALUES:
            improved[("pair", pair)] = self.best_pair_code(
                pair, optimal, surrender, value, hit_value
            )
        return improved

    def best_pair_code(
        self,
        pair: int,
        optimal: HandTables,
        surrender: FloatArray,
        value: FloatArray,
        hit_value: FloatArray,
    ) -> str:
        """The pair cell as if the pair may always be split: best first move, then the best
        fall-back."""
        if self.base[pair - 1] < 2:
            return baseline_column()[("pair", pair)]
        index = self.space.hand_index(pair, pair)
        means = {
            "stand": float(optimal.figures[0, index, STAND_MEAN]),
            "hit": float(hit_value[0, index]),
            "double": float(optimal.figures[0, index, DOUBLE_MEAN]),
            "surrender": float(surrender[index]),
        }
        if self.params.split_allowed:
            means["split"] = self.split_value(pair, value)
        best_code, best_score = "", (0.0, 0.0)
        for code in candidate_codes(self.params, self.up, PAIR_CODES):
            moves = CELL_MOVES[code]
            primary, secondary = means[moves[0]], means[moves[-1]]
            if (
                not best_code
                or primary > best_score[0] + TIE
                or (abs(primary - best_score[0]) <= TIE and secondary > best_score[1] + TIE)
            ):
                best_code, best_score = code, (primary, secondary)
        if self.params.split_only_where_chart_splits and says_split(best_code):
            # Basic strategy splits here, so the title offers Split or Surrender 20% only;
            # the chart's "surrender" on this pair then means Surrender 20%.
            deal = next(deal for deal in self.deals if deal.hand == (pair, pair))
            decline = self.refund_part(deal, float(self.params.decline_refund))
            return "Rp" if decline > means["split"] + TIE else "P"
        return best_code


def candidate_codes(params: GameParams, up: int, codes: Sequence[str]) -> list[str]:
    """The cell codes whose moves the rules allow somewhere against ``up``."""
    result = []
    for code in codes:
        moves = CELL_MOVES[code]
        if "double" in moves and not params.double_allowed:
            continue
        if "surrender" in moves and not params.can_surrender(up):
            continue
        if "split" in moves and not params.split_allowed:
            continue
        result.append(code)
    return result


@dataclass(frozen=True)
class UpCardResult:
    up: int
    column: Column
    optimal: Figures
    basic: Figures | None


class FastAnalysis:
    def __init__(
        self, params: GameParams, title_key: str = "analysis", split_play: SplitPlay = "post-split"
    ) -> None:
        if split_play not in SPLIT_PLAYS:
            raise ValueError(f"split play must be one of {SPLIT_PLAYS}, got {split_play!r}")
        self.params = params
        self.title_key = title_key
        self.split_play = split_play
        self.space: HandSpace = hand_space(params.max_hands - 1)
        self.trie = dealer_trie(params.dealer_hits_soft_17)
        self.shoe = np.array(params.value_counts, dtype=np.int64)

    def first_move_values(self, up: int, hand: Hand) -> dict[str, float]:
        """Each first move's mean for ``hand`` against ``up``; given no dealer blackjack
        where the dealer peeks, else including it."""
        card = UpCard(self, up)
        card.compute_dealer()
        tables = self.optimal_tables(card)
        deal = next(deal for deal in card.deals if deal.hand == hand)
        moves = ["stand", "hit"]
        if self.params.double_allowed:
            moves.append("double")
        if hand[0] == hand[1] and self.params.split_allowed:
            moves.append("split")
        if self.params.can_surrender(up):
            moves.append("surrender")
        values = {}
        for move in moves:
            mean = card.root_figures(deal, move, tables)[0]
            if card.rule == "peeked":
                mean = (mean + deal.blackjack) / (1 - deal.blackjack)
            values[move] = mean
        return values

    def optimal_tables(self, card: UpCard, post_split: HandTables | None = None) -> HandTables:
        """The optimal player's tables under this analysis's split play (``post-split``: the
        post-split tables when already computed)."""
        if self.split_play == "cdz":
            return card.evaluate(None, unsplit_decisions=True)
        return post_split or card.evaluate(None)

    def analyse_up(self, up: int, chart: StrategyChart | None, want_basic: bool) -> UpCardResult:
        card = UpCard(self, up)
        card.compute_dealer()
        # The chart is derived from post-split tables whatever the split play: a basic
        # strategy does not depend on how the optimal player decides split hands.
        optimal_tables = card.evaluate(None)
        needs_column = want_basic or self.params.split_only_where_chart_splits
        if chart is not None:
            column = column_of(chart, up)
        elif needs_column:
            column = card.derive_column(optimal_tables)
        else:
            column = baseline_column()
        played = self.optimal_tables(card, optimal_tables)
        optimal = card.figures(column, card.optimal_chooser(played), played)
        basic = None
        if want_basic:
            column_chart = chart_from_columns(self.title_key, {up: column})
            basic = card.figures(column, chart_chooser(column_chart, up), card.evaluate(column))
        return UpCardResult(up, column, optimal, basic)

    def analyse(
        self, chart: StrategyChart | None = None, want_basic: bool = True, threads: int = THREADS
    ) -> FastResult:
        """Optimal figures, and (``want_basic``) the basic-strategy chart and its figures.

        ``chart`` replaces the derived chart (its figures are then those of that chart).
        """
        ups = [up for up in UP_VALUES if self.shoe[up - 1] > 0]
        with ThreadPoolExecutor(max_workers=threads) as pool:
            results = list(pool.map(lambda up: self.analyse_up(up, chart, want_basic), ups))
        total = float(self.shoe.sum())
        optimal_mean = optimal_square = basic_mean = basic_square = 0.0
        columns = {up: baseline_column() for up in UP_VALUES}
        for result in results:
            chance = float(self.shoe[result.up - 1]) / total
            columns[result.up] = result.column
            optimal_mean += chance * result.optimal.mean
            optimal_square += chance * result.optimal.square
            if result.basic is not None:
                basic_mean += chance * result.basic.mean
                basic_square += chance * result.basic.square
        if not want_basic:
            return FastResult(RoundFigures(optimal_mean, optimal_square), None, None)
        derived = chart or chart_from_columns(self.title_key, columns)
        return FastResult(
            RoundFigures(optimal_mean, optimal_square),
            RoundFigures(basic_mean, basic_square),
            derived,
        )


def fast_analysis(
    rules: RuleSet, shoe: Sequence[int] | None = None, chart: StrategyChart | None = None
) -> FastResult:
    return FastAnalysis(GameParams.from_rules(rules, shoe), rules.key).analyse(chart)
