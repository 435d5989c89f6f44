"""Chart cells as the math sees them: codes, rows, the order cells are decided in.

Shared by the reference and the fast derivation so both read a chart cell the way
:meth:`boundless.core.strategy_chart.StrategyChart.choose` does.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from boundless.core.strategy_chart import CELL_MOVES, HARD_ROWS, PAIR_ROWS, SOFT_ROWS, StrategyChart

CellKey = tuple[str, int]  # ("hard", total) / ("soft", total) / ("pair", card value)
Column = dict[CellKey, str]  # one dealer up card's cells

TOTAL_CODES = ("H", "S", "Dh", "Ds", "Rh", "Rs")
PAIR_CODES = ("H", "S", "Dh", "Ds", "Rh", "Rs", "P", "Rp")
# Decided top-down: a hit only ever leads to a cell decided earlier in this order.
CELL_ORDER: tuple[CellKey, ...] = (
    *(("hard", total) for total in range(21, 11, -1)),
    *(("soft", total) for total in range(21, 11, -1)),
    *(("hard", total) for total in range(11, 3, -1)),
)
MOVE_CODES = {"hit": 0, "stand": 1, "double": 2, "split": 3, "surrender": 4}


def cell_of(total: int, soft: bool) -> CellKey:
    """The chart row for a hand total, as ``StrategyChart.total_cell`` reads it."""
    if soft and total >= SOFT_ROWS[0]:
        return ("soft", min(total, 21))
    return ("hard", max(HARD_ROWS[0], min(total, 21)))


def move_for(code: str, allowed: Iterable[str], total: int) -> str:
    """The first move of ``code`` that is allowed; else hit below 17, else stand."""
    allowed_set = set(allowed)
    for move in CELL_MOVES[code]:
        if move in allowed_set:
            return move
    return "hit" if total < 17 and "hit" in allowed_set else "stand"


def baseline_column() -> Column:
    """Where the derivation starts: hit hard 16 / soft 17 or less, no doubles or splits."""
    column: Column = {}
    for total in HARD_ROWS:
        column[("hard", total)] = "H" if total <= 16 else "S"
    for total in SOFT_ROWS:
        column[("soft", total)] = "H" if total <= 17 else "S"
    for value in PAIR_ROWS:
        column[("pair", value)] = column[cell_of(12 if value == 1 else 2 * value, value == 1)]
    return column


def chart_from_columns(title_key: str, columns: Mapping[int, Column]) -> StrategyChart:
    """Assemble a chart from one column per up card value (1 = ace)."""
    hard: dict[tuple[int, int], str] = {}
    soft: dict[tuple[int, int], str] = {}
    pairs: dict[tuple[int, int], str] = {}
    for up, column in columns.items():
        for (kind, row), code in column.items():
            table = {"hard": hard, "soft": soft, "pair": pairs}[kind]
            table[(row, up)] = code
    return StrategyChart(title_key=title_key, hard=hard, soft=soft, pairs=pairs)


def column_of(chart: StrategyChart, up: int) -> Column:
    column: Column = {}
    for total in HARD_ROWS:
        column[("hard", total)] = chart.hard[(total, up)]
    for total in SOFT_ROWS:
        column[("soft", total)] = chart.soft[(total, up)]
    for value in PAIR_ROWS:
        column[("pair", value)] = chart.pairs[(value, up)]
    return column


def says_split(code: str) -> bool:
    return "split" in CELL_MOVES[code]
