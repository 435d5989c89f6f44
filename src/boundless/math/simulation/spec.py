"""A title as the arrays the simulator's kernel plays: rule switches, decisions, side bets.

:func:`build_spec` is the Python wrapper's half of the simulator (CONVENTIONS: validation lives
here, kernels take arrays). Everything the kernel reads is derived from the rule set, the
title's strategy chart and the core side-bet evaluators, so the simulator never restates a
rule. The layouts (``IP_*``, ``FP_*``, ``MV_*``) are defined beside the kernels in
:mod:`boundless.math.simulation.kernels`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from boundless.core.arrays import FloatArray, Int8Array, IntArray
from boundless.core.rules import RuleSet
from boundless.core.strategy_chart import StrategyChart
from boundless.math.simulation.kernels import (
    FP_BLACKJACK,
    FP_DECLINE,
    FP_SIZE,
    FP_SURRENDER,
    FP_WIN,
    IP_BURN,
    IP_CARDS,
    IP_CUT,
    IP_H17,
    IP_MAX_HANDS,
    IP_ORIGINAL_BETS_ONLY,
    IP_PAIR_BY_RANK,
    IP_PEEK,
    IP_PEEK_MASK,
    IP_RESHUFFLE,
    IP_RESPLIT_ACES,
    IP_SIDES,
    IP_SIZE,
    IP_SPLIT_ACES_ONE_CARD,
    IP_SPOTS,
    Game,
)
from boundless.math.simulation.policy import decision_tables
from boundless.math.simulation.reference import POLICIES, Policy
from boundless.math.simulation.side_tables import SideTables, build_side_tables


@dataclass(frozen=True, slots=True)
class SimSpec:
    """Everything the kernel needs; picklable, so worker processes get it once."""

    title: str
    policy: Policy
    fresh_shoe: bool
    ip: IntArray
    fp: FloatArray
    moves: Int8Array
    sides: SideTables
    side_keys: tuple[str, ...]

    @property
    def spots(self) -> int:
        return int(self.ip[IP_SPOTS])

    def game(self) -> Game:
        """The kernels' ``game`` argument."""
        return (self.ip, self.fp, self.moves, self.sides.kernel_arrays(), self.sides.max_round)


def _mask(values: tuple[int, ...]) -> int:
    return sum(1 << value for value in set(values))


def build_spec(
    rules: RuleSet,
    chart: StrategyChart | None,
    policy: Policy = "basic",
    *,
    spots: int | None = None,
    fresh_shoe: bool = False,
) -> SimSpec:
    """Validate the request and lay the title out for the kernel.

    ``policy``: ``basic`` plays the chart for every decision; ``autoplay`` plays the title's
    no-action policy (the chart again, or hit until over 11). ``spots``: occupied spots
    (default: all of the title's). ``fresh_shoe``: reshuffle before every round, no burn (the
    exact figures' model) instead of the title's shoe.
    """
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {POLICIES}, got {policy!r}")
    spot_count = rules.table.spots if spots is None else spots
    if not 1 <= spot_count <= rules.table.spots:
        raise ValueError(f"spots must be 1..{rules.table.spots} for {rules.key!r}")
    uses_chart = policy == "basic" or rules.autoplay.policy == "basic_strategy"
    if (uses_chart or rules.needs_strategy_chart) and chart is None:
        raise ValueError(f"title {rules.key!r}: policy {policy!r} needs the title's chart")
    shoe, dealer = rules.shoe, rules.dealer
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
    ip[IP_SPLIT_ACES_ONE_CARD] = int(rules.split.split_aces_one_card)
    ip[IP_ORIGINAL_BETS_ONLY] = int(dealer.hole_card == "none")
    ip[IP_SIDES] = len(rules.side_bets)
    ip[IP_MAX_HANDS] = rules.split.max_hands if rules.split.allowed else 2
    ip[IP_RESPLIT_ACES] = int(rules.split.resplit_aces)
    ip[IP_PAIR_BY_RANK] = int(rules.split.pair_by == "rank")
    fp = np.zeros(FP_SIZE, dtype=np.float64)
    fp[FP_BLACKJACK] = rules.payouts.blackjack.win / rules.payouts.blackjack.per
    fp[FP_WIN] = rules.payouts.win.win / rules.payouts.win.per
    refund = rules.surrender.refund
    fp[FP_SURRENDER] = refund.numerator / refund.denominator
    decline = rules.split.decline_refund
    if decline is not None:
        fp[FP_DECLINE] = decline.numerator / decline.denominator
    return SimSpec(
        title=rules.key,
        policy=policy,
        fresh_shoe=fresh_shoe,
        ip=ip,
        fp=fp,
        moves=decision_tables(rules, chart, policy),
        sides=build_side_tables(rules),
        side_keys=tuple(bet.key for bet in rules.side_bets),
    )


__all__ = ["POLICIES", "Policy", "SimSpec", "build_spec"]
