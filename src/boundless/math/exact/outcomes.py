"""How the money moves: the chance of every net result of a round under the basic chart.

A round's net result per initial unit is a handful of values: -1, 0, +1 (times the win odds),
+-2 after a double, up to +-4 after a split with doubles (+-8 with four hands), the blackjack
payout, and minus the lost share of a surrender. Their chances are computed over the same
shoe, dealer tables and chart moves as :mod:`boundless.math.exact.main_game`, so the mean of
this distribution is the basic-strategy return of that module (to rounding, about 1e-15).

The chance of reaching each player state flows forward from the deal along the chart's moves
(the figures' recursions run the same states backward); each stand ends in the dealer's
outcome chances for the cards then out of the shoe. Split hands follow the convention of the
standard deviation: independent given the dealer's final outcome, a bust counted against the
dealer's chances before the busting card. Hands of different kinds (resplits,
:mod:`boundless.math.exact.split_rounds`) see slightly different chances of each outcome:
they share the outcome as far as their chances overlap (the largest common part, the smaller
of their chances) and are independent in what is left, so every hand keeps its own
distribution and the mean stays exact. Where the dealer's blackjack is settled apart (a peek,
or no hole card) it takes exactly the original bet, once per round.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from boundless.core.rules import RuleSet
from boundless.core.strategy_chart import StrategyChart
from boundless.math.exact.basic_strategy import derive_basic_strategy
from boundless.math.exact.fast import Deal, FastAnalysis, HandTables, UpCard, chart_chooser
from boundless.math.exact.fast_kernels import BLACKJACK, DOUBLE, HIT, OUTCOMES, STAND
from boundless.math.exact.params import GameParams, context_others, context_pair, split_context
from boundless.math.exact.split_rounds import Kind, SplitRound, split_shoes
from boundless.math.exact.strategy_cells import chart_from_columns, column_of

Distribution = dict[int, float]  # result in ticks (1/unit of a bet) -> chance
ByOutcome = list[Distribution]  # one split hand: [dealer outcome] -> result -> chance


@dataclass(frozen=True, slots=True)
class OutcomeDistribution:
    """Chance of each net result of a round per initial unit, under the basic chart."""

    title: str
    chances: dict[Fraction, float]  # sorted by result

    @property
    def total(self) -> float:
        return sum(self.chances.values())

    @property
    def mean(self) -> float:
        return sum(float(value) * chance for value, chance in self.chances.items())

    @property
    def win(self) -> float:
        return sum(chance for value, chance in self.chances.items() if value > 0)

    @property
    def push(self) -> float:
        return self.chances.get(Fraction(0), 0.0)

    @property
    def lose(self) -> float:
        return sum(chance for value, chance in self.chances.items() if value < 0)

    def to_json(self) -> dict[str, float]:
        return {result_label(value): chance for value, chance in self.chances.items()}


def result_label(value: Fraction) -> str:
    """``-1``, ``1.5``, ``-0.5``: the key of a result in ``--json``."""
    return str(value.numerator) if value.denominator == 1 else repr(float(value))


class _UpCardOutcomes:
    """The flow of chance over one up card's states, in the chart's moves."""

    def __init__(self, card: UpCard, tables: HandTables, unit: int) -> None:
        self.card = card
        self.space = card.space
        self.tables = tables
        self.win = int(card.params.win_pays * unit)
        self.unit = unit
        self.excluded = card.excluded
        self.all_bets = card.rule == "all_bets"
        self.split_hands: dict[tuple[int, int, Fraction], ByOutcome] = {}
        self.dealer_rows: list[list[float]] = card.by_removal.tolist()
        self.stand_results = {
            (total, stake): self._stand_results(total, stake)
            for total in range(4, 22)
            for stake in (1, 2)
        }

    def _dealer(self, hand: int, context: int) -> list[float]:
        space = self.space
        if context == 0:
            return self.dealer_rows[space.removal[hand]]
        pair, others = context_pair(context), context_others(context)
        return self.dealer_rows[space.removal_plus[others - 1, hand, pair - 1]]

    def _left(self, hand: int, context: int) -> np.ndarray:
        left: np.ndarray = self.card.base - self.space.counts[hand]
        if context > 0:
            left[context_pair(context) - 1] -= context_others(context)
        return left

    def _stand_results(self, total: int, stake: int) -> list[int | None]:
        """The result against each dealer outcome; ``None``: settled apart (a blackjack)."""
        results: list[int | None] = []
        lose = -stake * self.unit
        for outcome in range(5):
            dealer_total = 17 + outcome
            if total > dealer_total:
                results.append(self.win * stake)
            elif total == dealer_total:
                results.append(0)
            else:
                results.append(lose)
        results.append(self.win * stake)  # the dealer busts
        results.append(lose if self.all_bets else None)
        return results

    def end(self, out: ByOutcome, hand: int, context: int, stake: int, mass: float) -> None:
        dealer = self._dealer(hand, context)
        results = self.stand_results[int(self.space.total[hand]), stake]
        for outcome, result in enumerate(results):
            chance = dealer[outcome]
            if result is not None and chance:
                out[outcome][result] += mass * chance

    def _bust(self, out: ByOutcome, dealer: list[float], stake: int, mass: float) -> None:
        """A bust's chance (without the dealer blackjack settled apart), by the dealer's
        outcome chances before the busting card."""
        outcomes = range(BLACKJACK) if self.excluded else range(OUTCOMES)
        share = sum(dealer[outcome] for outcome in outcomes)
        lose = -stake * self.unit
        for outcome in outcomes:
            if dealer[outcome]:
                out[outcome][lose] += mass * dealer[outcome] / share

    def _bust_weight(self, left: np.ndarray, cards_left: int, value: int) -> float:
        card = self.card.blackjack_card
        if not self.excluded or card < 0:
            return 1.0
        completing = int(left[card]) - (1 if value == card else 0)
        return 1.0 - completing / (cards_left - 1) if cards_left > 1 else 1.0

    def draw(
        self,
        out: ByOutcome,
        flow: np.ndarray,
        hand: int,
        context: int,
        move: int,
        reach: float,
        pair_kept: float = 1.0,
    ) -> None:
        """Hit (into ``flow``) or double (ending at once) from ``hand``; ``pair_kept``
        scales the draws of the pair's value (a lone split card that splits again)."""
        left = self._left(hand, context)
        cards_left = int(left.sum())
        dealer = self._dealer(hand, context)
        stake = 2 if move == DOUBLE else 1
        for value in range(10):
            if left[value] <= 0:
                continue
            chance = reach * int(left[value]) / cards_left
            if value == context_pair(context) - 1:
                chance *= pair_kept
            after = int(self.space.child[hand, value])
            if after < 0:
                weight = self._bust_weight(left, cards_left, value)
                self._bust(out, dealer, stake, chance * weight)
            elif move == HIT:
                flow[after] += chance
            else:
                self.end(out, after, context, stake, chance)

    def play(self, out: ByOutcome, flow: np.ndarray, context: int) -> None:
        """Follow the chart from every state holding chance in ``flow`` (parents first)."""
        moves, valid = self.tables.moves, self.tables.valid
        for hand in range(len(flow) - 1, -1, -1):
            reach = float(flow[hand])
            if reach == 0.0 or not valid[context, hand]:
                continue
            move = int(moves[context, hand])
            if move == STAND:
                self.end(out, hand, context, 1, reach)
            else:
                self.draw(out, flow, hand, context, move, reach)

    def split_hand(self, pair: int, level: int, pair_kept: Fraction) -> ByOutcome:
        """A split hand of ``pair`` at ``level`` by dealer outcome, its pair-value draws
        scaled by ``pair_kept``."""
        key = (pair, level, pair_kept)
        if key not in self.split_hands:
            out: ByOutcome = [defaultdict(float) for _ in range(OUTCOMES)]
            flow = np.zeros(len(self.space.counts))
            context = split_context(pair, level - 1)
            lone = self.space.hand_index(pair)
            self.draw(out, flow, lone, context, HIT, 1.0, float(pair_kept))
            self.play(out, flow, context)
            self.split_hands[key] = out
        return self.split_hands[key]

    def split_round(self, pair: int) -> Distribution:
        """The split's hands together (see the module's docstring)."""
        result: Distribution = defaultdict(float)
        for share, shoe in split_shoes(self.card.params, self.card.up, pair):
            kinds: dict[Kind, ByOutcome] = {}
            for kind in shoe.kinds():
                keep, scale = shoe.coefficients(kind)
                value_chance = Fraction(shoe.value_cards - kind[0], shoe.cards - kind[0])
                kept = 1 - keep / value_chance if keep else Fraction(1)
                hand = self.split_hand(pair, kind[0], kept)
                factor = float(scale)
                kinds[kind] = [{r: c * factor for r, c in by.items()} for by in hand]
            for value, chance in split_distribution(shoe.rounds(), kinds).items():
                result[value] += float(share) * chance
        return result


def _convolve(first: Distribution, second: Distribution) -> Distribution:
    result: Distribution = defaultdict(float)
    for one, chance in first.items():
        for other, other_chance in second.items():
            result[one + other] += chance * other_chance
    return result


# The dealer's outcomes from the player's best to worst: a bust, then 17 to 21, a blackjack.
OUTCOME_ORDER = (5, 0, 1, 2, 3, 4, 6)


def split_distribution(rounds: Sequence[SplitRound], kinds: dict[Kind, ByOutcome]) -> (
    Distribution
):  # fmt: skip
    """The sum of a split's hands over its rounds, each kind's hand given as its results by
    dealer outcome. Kinds whose outcome chances differ are coupled by rank: one uniform
    number picks every hand's outcome from its own chances, in ``OUTCOME_ORDER``, so they
    agree wherever those chances allow and every hand keeps its own distribution."""
    masses = {kind: [sum(by.values()) for by in hand] for kind, hand in kinds.items()}
    given = {
        kind: [{r: c / mass[o] for r, c in by.items()} if mass[o] > 0 else {}
               for o, by in enumerate(kinds[kind])]
        for kind, mass in masses.items()
    }  # fmt: skip
    edges: dict[Kind, list[float]] = {}
    for kind, mass in masses.items():
        running, edges[kind] = 0.0, []
        for outcome in OUTCOME_ORDER:
            running += mass[outcome]
            edges[kind].append(running)
    cuts = sorted({edge for kind_edges in edges.values() for edge in kind_edges})
    cuts = [cut for cut in cuts if cut <= min(kind_edges[-1] for kind_edges in edges.values())]
    result: Distribution = defaultdict(float)
    sums: dict[tuple[tuple[Kind, int], ...], Distribution] = {}
    low = 0.0
    for cut in cuts:
        if cut <= low:
            continue
        outcome_of = {kind: OUTCOME_ORDER[_first_above(kind_edges, low)]
                      for kind, kind_edges in edges.items()}  # fmt: skip
        for split_round in rounds:
            key = tuple((kind, outcome_of[kind]) for kind, n in split_round.hands for _ in range(n))
            if key not in sums:
                total: Distribution = {0: 1.0}
                for kind, outcome in key:
                    total = _convolve(total, given[kind][outcome])
                sums[key] = total
            weight = float(split_round.chance) * (cut - low)
            for value, share in sums[key].items():
                result[value] += weight * share
        low = cut
    return result


def _first_above(edges: Sequence[float], point: float) -> int:
    """The first index whose cumulative chance lies above ``point``."""
    for index, edge in enumerate(edges):
        if edge > point:
            return index
    return len(edges) - 1


def _refund_result(card: UpCard, deal: Deal, refund: Fraction, unit: int) -> Distribution:
    """Giving the hand up for ``refund`` (as ``UpCard.surrender_total``)."""
    given_up = int(-(1 - refund) * unit)
    if card.rule == "peeked":
        return {given_up: 1 - deal.blackjack, -unit: deal.blackjack}
    return {given_up: 1.0}


def _unit(params: GameParams) -> int:
    """Ticks per bet: every result is a whole number of them."""
    odds = (params.win_pays, params.blackjack_pays, params.surrender_refund, params.decline_refund)
    return math.lcm(*(value.denominator for value in odds))


def _up_card_distribution(card: UpCard, chart: StrategyChart, unit: int) -> Distribution:
    column = column_of(chart, card.up)
    choose = chart_chooser(chart_from_columns(chart.title_key, {card.up: column}), card.up)
    tables = card.evaluate(column)
    flows = _UpCardOutcomes(card, tables, unit)
    params = card.params
    played: ByOutcome = [defaultdict(float) for _ in range(OUTCOMES)]
    flow = np.zeros(len(card.space.counts))
    result: Distribution = defaultdict(float)
    for deal in card.deals:
        if deal.hand == (1, 10):
            result[int(params.blackjack_pays * unit)] += deal.chance * (1 - deal.blackjack)
            result[0] += deal.chance * deal.blackjack
            continue
        for share, pair in card.pair_cases(deal.hand):
            allowed, pair_value = card.root_allowed(pair, column)
            move = choose(deal.hand, allowed, pair_value)
            reach = deal.chance * share
            parts: Distribution | None = None
            if move == "surrender":
                parts = _refund_result(card, deal, params.surrender_refund, unit)
            elif move == "surrender20":
                parts = _refund_result(card, deal, params.decline_refund, unit)
            elif move == "split":
                parts = flows.split_round(deal.hand[0])
            elif move == "stand":
                flows.end(played, deal.index, 0, 1, reach)
            else:
                code = HIT if move == "hit" else DOUBLE
                flows.draw(played, flow, deal.index, 0, code, reach)
            for value, chance in (parts or {}).items():
                result[value] += reach * chance
            if card.excluded and not move.startswith("surrender"):
                result[-unit] += reach * deal.blackjack
    flows.play(played, flow, 0)
    for by_result in played:
        for value, chance in by_result.items():
            result[value] += chance
    return result


def outcome_distribution(
    rules: RuleSet, chart: StrategyChart | None = None, *, shoe: Sequence[int] | None = None
) -> OutcomeDistribution:
    """The chance of every net result of a round of ``rules`` played by ``chart`` (derived
    unless given, as :func:`analyse_main_game` derives it)."""
    chart = chart or derive_basic_strategy(rules, shoe=shoe)
    params = GameParams.from_rules(rules, shoe)
    analysis = FastAnalysis(params, rules.key)
    unit = _unit(params)
    total = float(analysis.shoe.sum())
    chances: Distribution = defaultdict(float)
    for up in range(1, 11):
        count = int(analysis.shoe[up - 1])
        if count == 0:
            continue
        card = UpCard(analysis, up)
        card.compute_dealer()
        for ticks, chance in _up_card_distribution(card, chart, unit).items():
            chances[ticks] += count / total * chance
    ordered = {Fraction(ticks, unit): chances[ticks] for ticks in sorted(chances) if chances[ticks]}
    return OutcomeDistribution(rules.key, ordered)
