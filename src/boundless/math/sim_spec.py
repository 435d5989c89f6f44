"""A title as the arrays the simulator's kernel plays: rule switches, chart, side-bet tables.

:func:`build_spec` is the Python wrapper's half of the simulator (CONVENTIONS: validation lives
here, kernels take arrays). Everything the kernel reads is derived from the rule set, the
title's strategy chart and the core side-bet evaluators, so the simulator never restates a
rule. The layouts (``IP_*``, ``FP_*``, ``CHART_*``) are defined beside the kernels in
:mod:`boundless.math.sim_kernels`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from boundless.core.rules import RuleSet
from boundless.core.strategy_chart import (
    CELL_MOVES,
    HARD_ROWS,
    PAIR_ROWS,
    SOFT_ROWS,
    UP_COLUMNS,
    StrategyChart,
)
from boundless.math.sim_kernels import (
    CHART_HARD,
    CHART_PAIRS,
    CHART_SOFT,
    DOUBLE,
    FP_BLACKJACK,
    FP_DECLINE,
    FP_SIZE,
    FP_SURRENDER,
    FP_WIN,
    HIT,
    IP_BURN,
    IP_CARDS,
    IP_CUT,
    IP_DOUBLE,
    IP_DOUBLE_AFTER_SPLIT,
    IP_DOUBLE_SPLIT_ACES,
    IP_H17,
    IP_ORIGINAL_BETS_ONLY,
    IP_PAIR_BY_RANK,
    IP_PEEK,
    IP_PEEK_MASK,
    IP_POLICY,
    IP_RESHUFFLE,
    IP_SIDES,
    IP_SIZE,
    IP_SPLIT,
    IP_SPLIT_ACES_ONE_CARD,
    IP_SPLIT_CHART_ONLY,
    IP_SPLIT_DECLINE,
    IP_SPOTS,
    IP_SURRENDER,
    IP_SURRENDER_MASK,
    POLICY_CHART,
    POLICY_HIT_TO_12,
    SPLIT,
    STAND,
    SURRENDER,
    SURRENDER20,
)
from boundless.math.sim_side_tables import SideTables, build_side_tables

Policy = Literal["basic", "autoplay"]
POLICIES: tuple[Policy, ...] = ("basic", "autoplay")

MOVE_CODES = {
    "hit": HIT,
    "stand": STAND,
    "double": DOUBLE,
    "split": SPLIT,
    "surrender": SURRENDER,
    "surrender20": SURRENDER20,
}
CELL_ORDER: tuple[str, ...] = tuple(CELL_MOVES)
NO_CELL = -1

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
Int8Array = npt.NDArray[np.int8]


@dataclass(frozen=True, slots=True)
class SimSpec:
    """Everything the kernel needs; picklable, so worker processes get it once."""

    title: str
    policy: Policy
    fresh_shoe: bool
    ip: IntArray
    fp: FloatArray
    chart: Int8Array  # [3, 22, 11]
    cell_moves: Int8Array  # [cells, 2]: first move, fall-back move (-1: none)
    sides: SideTables
    side_keys: tuple[str, ...]

    @property
    def spots(self) -> int:
        return int(self.ip[IP_SPOTS])


def _mask(values: tuple[int, ...]) -> int:
    return sum(1 << value for value in set(values))


def _ratio(numerator: int, denominator: int) -> float:
    return numerator / denominator


def chart_arrays(chart: StrategyChart | None) -> tuple[Int8Array, Int8Array]:
    """The chart as integer tables (all cells ``NO_CELL`` without a chart)."""
    table = np.full((3, 22, 11), NO_CELL, dtype=np.int8)
    if chart is not None:
        for index, (rows, cells) in enumerate(
            ((HARD_ROWS, chart.hard), (SOFT_ROWS, chart.soft), (PAIR_ROWS, chart.pairs))
        ):
            assert index == (CHART_HARD, CHART_SOFT, CHART_PAIRS)[index]
            for row in rows:
                for up in UP_COLUMNS:
                    table[index, row, up] = CELL_ORDER.index(cells[(row, up)])
    moves = np.full((len(CELL_ORDER), 2), -1, dtype=np.int8)
    for index, cell in enumerate(CELL_ORDER):
        for slot, move in enumerate(CELL_MOVES[cell]):
            moves[index, slot] = MOVE_CODES[move]
    return table, moves


def build_spec(
    rules: RuleSet,
    chart: StrategyChart | None,
    policy: Policy = "basic",
    *,
    spots: int | None = None,
    fresh_shoe: bool = False,
) -> SimSpec:
    """Validate the request and lay the title out for the kernel.

    ``spots``: occupied spots (default: all of the title's). ``fresh_shoe``: reshuffle before
    every round with no burn (the exact figures' fresh-shoe model) instead of the title's shoe.
    """
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {POLICIES}, got {policy!r}")
    spot_count = rules.table.spots if spots is None else spots
    if not 1 <= spot_count <= rules.table.spots:
        raise ValueError(f"spots must be 1..{rules.table.spots} for {rules.key!r}")
    kernel_policy = POLICY_CHART
    if policy == "autoplay" and rules.autoplay.policy == "hit_until_over_11":
        kernel_policy = POLICY_HIT_TO_12
    uses_chart = kernel_policy == POLICY_CHART or rules.split.offered == "basic_strategy_pairs"
    if uses_chart and chart is None:
        raise ValueError(f"title {rules.key!r}: policy {policy!r} needs the title's chart")
    shoe, dealer, split = rules.shoe, rules.dealer, rules.split
    cards = 52 * shoe.decks
    ip = np.zeros(IP_SIZE, dtype=np.int64)
    ip[IP_CARDS] = cards
    # The same cut index as core.shoe.Shoe.shuffled.
    ip[IP_CUT] = max(1, min(cards, round(cards * shoe.penetration)))
    ip[IP_BURN] = int(shoe.burn_after_shuffle and not fresh_shoe)
    ip[IP_RESHUFFLE] = int(shoe.reshuffle_every_round or fresh_shoe)
    ip[IP_SPOTS] = spot_count
    ip[IP_PEEK] = int(dealer.hole_card == "peek")
    ip[IP_PEEK_MASK] = _mask(dealer.peek_up_values)
    ip[IP_H17] = int(dealer.hits_soft_17)
    ip[IP_DOUBLE] = int(rules.double.allowed)
    ip[IP_DOUBLE_AFTER_SPLIT] = int(rules.double.after_split)
    ip[IP_DOUBLE_SPLIT_ACES] = int(rules.double.on_split_aces)
    ip[IP_SPLIT] = int(split.allowed)
    ip[IP_PAIR_BY_RANK] = int(split.pair_by == "rank")
    ip[IP_SPLIT_ACES_ONE_CARD] = int(split.split_aces_one_card)
    ip[IP_SPLIT_CHART_ONLY] = int(split.offered == "basic_strategy_pairs")
    ip[IP_SPLIT_DECLINE] = int(split.decline_refund is not None)
    ip[IP_SURRENDER] = int(rules.surrender.allowed)
    ip[IP_SURRENDER_MASK] = _mask(rules.surrender.up_values)
    ip[IP_POLICY] = kernel_policy
    ip[IP_ORIGINAL_BETS_ONLY] = int(dealer.hole_card == "none")
    ip[IP_SIDES] = len(rules.side_bets)
    fp = np.zeros(FP_SIZE, dtype=np.float64)
    fp[FP_BLACKJACK] = _ratio(rules.payouts.blackjack.win, rules.payouts.blackjack.per)
    fp[FP_WIN] = _ratio(rules.payouts.win.win, rules.payouts.win.per)
    fp[FP_SURRENDER] = _ratio(rules.surrender.refund.numerator, rules.surrender.refund.denominator)
    if split.decline_refund is not None:
        fp[FP_DECLINE] = _ratio(split.decline_refund.numerator, split.decline_refund.denominator)
    table, moves = chart_arrays(chart)
    return SimSpec(
        title=rules.key,
        policy=policy,
        fresh_shoe=fresh_shoe,
        ip=ip,
        fp=fp,
        chart=table,
        cell_moves=moves,
        sides=build_side_tables(rules),
        side_keys=tuple(bet.key for bet in rules.side_bets),
    )


__all__ = ["POLICIES", "Policy", "SimSpec", "build_spec", "chart_arrays"]
