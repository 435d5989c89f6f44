"""Side bets as lookup tables for the simulator's kernel, built from the core evaluators.

Every table entry is what :func:`boundless.core.round.settlement.side_bet_pattern` (the
engine's own settlement function) answers for those cards, so the kernel cannot disagree with
the engine about a pattern. Four methods:

``PAIR_TABLE``
    Bets read from the player's two cards alone: ``table[c1*52 + c2]``, as below.
``TABLE``
    Bets read from the player's two cards and the up card: ``table[c1*2704 + c2*52 + up]`` is
    the paid pattern's index into ``pay`` (``-1``: no win). A bet that waits for the hole card
    (Jack A-Tack's four-jack pays) stores ``-2 - k`` and ``pend[k, hole]`` gives the pattern.
``BUST``
    Bust Bonus: ``bust_pay[n]`` pays a dealer bust of ``n`` cards (a dealer blackjack is no bust).
``WHEEL_SPOT`` / ``WHEEL_DEALER``
    Bonus Spin Xtreme: ``trig[c1*52 + c2]`` (player's cards) or ``trig[up*52 + hole]`` (dealer's
    first two cards) says whether the feature starts; the wheels are cumulative weights.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from boundless.core.arrays import FloatArray, Int8Array, IntArray
from boundless.core.cards import ALL_CARDS, Card
from boundless.core.round.settlement import side_bet_pattern
from boundless.core.rules import RuleSet, SideBetRules
from boundless.core.side_bets import PENDING, SIDE_BET_KINDS
from boundless.core.wheel import check_wheel, outer_outcomes
from boundless.math.simulation.kernels import (
    BUST,
    PAIR_TABLE,
    TABLE,
    WHEEL_DEALER,
    WHEEL_SPOT,
    SideArrays,
)

TRIPLES = 52 * 52 * 52
PAIRS = 52 * 52
MAX_BUST_COUNT = 23  # more dealer cards than any hand can hold
MAX_WEDGES = 32
MAX_PENDING = 126
MAX_INNER_WEIGHT = 2047  # the kernel draws an inner wedge as (k * weight) >> 53, k < 2**53
STAND_IN_PLAYER = (Card.parse("2C"), Card.parse("3C"))
STAND_IN_UP = Card.parse("2C")


@dataclass(frozen=True, slots=True)
class SideTables:
    kind: IntArray  # [n] method
    max_round: IntArray  # [n] last round of the shoe the bet is offered (0: every round)
    table: Int8Array  # [n, 52**3]
    pend: Int8Array  # [n, pending, 52]
    pay: FloatArray  # [n, 1 + patterns]: pay[1 + pattern index] per unit staked; pay[0] = 0
    trig: Int8Array  # [n, 52**2]
    bust_pay: FloatArray  # [n, MAX_BUST_COUNT + 1]
    inner_cum: IntArray  # [n, MAX_WEDGES] cumulative integer weights
    inner_total: IntArray  # [n]
    inner_count: IntArray  # [n]
    inner_pay: FloatArray  # [n, MAX_WEDGES] multiplier of the wager
    inner_power: Int8Array  # [n, MAX_WEDGES]
    outer_cum: FloatArray  # [n, MAX_WEDGES] cumulative probability (jackpots first)
    outer_pay: FloatArray  # [n, MAX_WEDGES] payout per unit of the wager
    outer_count: IntArray  # [n]
    patterns: tuple[tuple[str, ...], ...]  # pattern names of each bet, by index

    @property
    def count(self) -> int:
        return len(self.kind)

    def kernel_arrays(self) -> SideArrays:
        """The tables in the order :mod:`boundless.math.sim_round` reads them."""
        return (
            self.kind,
            self.table,
            self.pend,
            self.pay,
            self.trig,
            self.bust_pay,
            self.inner_cum,
            self.inner_total,
            self.inner_count,
            self.inner_pay,
            self.inner_power,
            self.outer_cum,
            self.outer_pay,
            self.outer_count,
        )


def _pay_multiple(bet: SideBetRules, pattern: str) -> float:
    odds = bet.pays[pattern]
    return 1.0 + odds.win / odds.per


_PATTERN_TABLES: dict[str, tuple[Int8Array, Int8Array]] = {}


def _pattern_table(bet: SideBetRules) -> tuple[Int8Array, Int8Array]:
    """Pattern index per (c1, c2, up), and the hole tables of pending entries (cached)."""
    key = bet.model_dump_json()
    if key not in _PATTERN_TABLES:
        _PATTERN_TABLES[key] = _build_pattern_table(bet)
    return _PATTERN_TABLES[key]


def _build_pattern_table(bet: SideBetRules) -> tuple[Int8Array, Int8Array]:
    names = list(bet.pays)
    table = np.empty(TRIPLES, dtype=np.int8)
    pending: list[list[int]] = []
    index = 0
    for first in ALL_CARDS:
        for second in ALL_CARDS:
            player = (first, second)
            for up in ALL_CARDS:
                pattern = side_bet_pattern(bet, player, up, None)
                if pattern is PENDING:
                    if len(pending) == MAX_PENDING:
                        raise ValueError(f"side bet {bet.key!r} waits for the hole too often")
                    table[index] = -2 - len(pending)
                    pending.append(_by_hole(bet, player, up, names))
                else:
                    table[index] = -1 if pattern is None else names.index(str(pattern))
                index += 1
    pend = np.full((max(1, len(pending)), 52), -1, dtype=np.int8)
    for row, codes in enumerate(pending):
        pend[row] = codes
    return table, pend


def _by_hole(bet: SideBetRules, player: Sequence[Card], up: Card, names: list[str]) -> list[int]:
    codes = []
    for hole in ALL_CARDS:
        pattern = side_bet_pattern(bet, player, up, (up, hole))
        if pattern is PENDING:
            raise ValueError(
                f"side bet {bet.key!r} ({bet.kind}) needs more than the dealer's first two "
                "cards; the simulator has no table method for it"
            )
        codes.append(-1 if pattern is None else names.index(str(pattern)))
    return codes


def _bust_pays(bet: SideBetRules) -> FloatArray:
    """Payout by the number of cards in a dealer bust, asked of the evaluator."""
    pays = np.zeros(MAX_BUST_COUNT + 1, dtype=np.float64)
    ten, six, two = Card.parse("TC"), Card.parse("6C"), Card.parse("2C")
    for count in range(3, MAX_BUST_COUNT + 1):
        hand = (ten, six, *([two] * (count - 3)), ten)
        pattern = side_bet_pattern(bet, STAND_IN_PLAYER, hand[0], hand)
        pays[count] = 0.0 if pattern is None else _pay_multiple(bet, str(pattern))
    standing = (ten, Card.parse("8C"))
    if side_bet_pattern(bet, STAND_IN_PLAYER, standing[0], standing) is not None:
        raise ValueError(f"side bet {bet.key!r}: expected no pay without a dealer bust")
    return pays


def _triggers(bet: SideBetRules) -> Int8Array:
    trig = np.zeros(PAIRS, dtype=np.int8)
    for first in ALL_CARDS:
        for second in ALL_CARDS:
            if bet.target == "spot":
                dealer = (STAND_IN_UP, Card.parse("3C"))
                hit = side_bet_pattern(bet, (first, second), STAND_IN_UP, dealer)
            else:
                hit = side_bet_pattern(bet, STAND_IN_PLAYER, first, (first, second))
            trig[first * 52 + second] = hit is not None
    return trig


def build_side_tables(rules: RuleSet) -> SideTables:
    """The tables of every side bet of ``rules``, in rule-set order."""
    bets = rules.side_bets
    n = len(bets)
    most_patterns = max([len(bet.pays) for bet in bets] + [1])
    kind = np.zeros(n, dtype=np.int64)
    max_round = np.array([bet.max_round or 0 for bet in bets], dtype=np.int64)
    table = np.full((n, TRIPLES), -1, dtype=np.int8)
    pays = np.zeros((n, 1 + most_patterns), dtype=np.float64)
    trig = np.zeros((n, PAIRS), dtype=np.int8)
    bust_pay = np.zeros((n, MAX_BUST_COUNT + 1), dtype=np.float64)
    inner_cum = np.zeros((n, MAX_WEDGES), dtype=np.int64)
    inner_total = np.zeros(n, dtype=np.int64)
    inner_count = np.zeros(n, dtype=np.int64)
    inner_pay = np.zeros((n, MAX_WEDGES), dtype=np.float64)
    inner_power = np.zeros((n, MAX_WEDGES), dtype=np.int8)
    outer_cum = np.ones((n, MAX_WEDGES), dtype=np.float64)
    outer_pay = np.zeros((n, MAX_WEDGES), dtype=np.float64)
    outer_count = np.zeros(n, dtype=np.int64)
    pend_rows: list[Int8Array] = []
    for row, bet in enumerate(bets):
        for slot, pattern in enumerate(bet.pays):
            pays[row, slot + 1] = _pay_multiple(bet, pattern)
        pend_rows.append(np.full((1, 52), -1, dtype=np.int8))
        if SIDE_BET_KINDS[bet.kind].uses_wheel:
            assert bet.wheel is not None
            check_wheel(bet.wheel)
            kind[row] = WHEEL_SPOT if bet.target == "spot" else WHEEL_DEALER
            trig[row] = _triggers(bet)
            inner = bet.wheel.inner
            if len(inner) > MAX_WEDGES or len(bet.wheel.outer) + len(bet.wheel.jackpots) > (
                MAX_WEDGES
            ):
                raise ValueError(f"side bet {bet.key!r}: more than {MAX_WEDGES} wheel outcomes")
            # Summed as Python ints: an int64 cumsum of huge weights wraps and passed the check.
            if sum(wedge.weight for wedge in inner) > MAX_INNER_WEIGHT:
                raise ValueError(f"side bet {bet.key!r}: inner weights above {MAX_INNER_WEIGHT}")
            weights = np.cumsum([wedge.weight for wedge in inner])
            inner_cum[row, : len(inner)] = weights
            inner_total[row] = weights[-1]
            inner_count[row] = len(inner)
            inner_pay[row, : len(inner)] = [wedge.multiplier or 0 for wedge in inner]
            inner_power[row, : len(inner)] = [wedge.power_up for wedge in inner]
            wager = bet.min_amount  # one unit each: the bet's minimum (jackpots scale with it)
            outcomes = outer_outcomes(bet.wheel, wager)
            running = Fraction(0)
            for slot, item in enumerate(outcomes):
                running += item.probability
                outer_cum[row, slot] = float(running)
                if item.jackpot is not None:
                    outer_pay[row, slot] = item.jackpot.amount / wager
                else:
                    assert item.wedge is not None
                    outer_pay[row, slot] = float(item.wedge.multiplier or 0)
            outer_count[row] = len(outcomes)
        elif bet.kind == "bust_bonus":
            kind[row] = BUST
            bust_pay[row] = _bust_pays(bet)
        else:
            kind[row] = TABLE
            table[row], pend_rows[row] = _pattern_table(bet)
            by_cards = table[row].reshape(PAIRS, 52)
            if (by_cards == by_cards[:, :1]).all():
                # The up card never matters: a 52 x 52 table stays in the first-level cache.
                kind[row] = PAIR_TABLE
                table[row, :PAIRS] = by_cards[:, 0]
    most_pending = max([len(rows) for rows in pend_rows] + [1])
    pend = np.full((n, most_pending, 52), -1, dtype=np.int8)
    for row, rows in enumerate(pend_rows):
        pend[row, : len(rows)] = rows
    return SideTables(
        kind=kind,
        max_round=max_round,
        table=table,
        pend=pend,
        pay=pays,
        trig=trig,
        bust_pay=bust_pay,
        inner_cum=inner_cum,
        inner_total=inner_total,
        inner_count=inner_count,
        inner_pay=inner_pay,
        inner_power=inner_power,
        outer_cum=outer_cum,
        outer_pay=outer_pay,
        outer_count=outer_count,
        patterns=tuple(tuple(bet.pays) for bet in bets),
    )
