"""A basic-strategy chart as data, and how the engine reads it.

The math package derives the chart for a rule set and writes it as ``<title>.chart.toml``
beside the title; the engine uses it for basic-strategy autoplay, for its second choices when
coins fall short, and (where a title says so) to decide which pairs may be split at all.

Cell codes (first choice, then the fall-back when the first is not allowed):

=====  ==============================
``H``  hit
``S``  stand
``Dh`` double, else hit
``Ds`` double, else stand
``P``  split (else: the pair's total in the hard/soft table)
``Rh`` surrender, else hit
``Rs`` surrender, else stand
``Rp`` surrender, else split
=====  ==============================

Columns are the dealer up card 2, 3, ..., 10, A.
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from boundless.core.cards import ACE, Card
from boundless.core.errors import InvalidRuleSetError
from boundless.core.hands import hand_total

Move = Literal["hit", "stand", "double", "split", "surrender", "surrender20"]
CELL_MOVES: dict[str, tuple[Move, ...]] = {
    "H": ("hit",),
    "S": ("stand",),
    "Dh": ("double", "hit"),
    "Ds": ("double", "stand"),
    "P": ("split",),
    "Rh": ("surrender", "hit"),
    "Rs": ("surrender", "stand"),
    "Rp": ("surrender", "split"),
}
UP_COLUMNS: tuple[int, ...] = (2, 3, 4, 5, 6, 7, 8, 9, 10, ACE)
HARD_ROWS = tuple(range(4, 22))
SOFT_ROWS = tuple(range(12, 22))
PAIR_ROWS = (ACE, 2, 3, 4, 5, 6, 7, 8, 9, 10)

Table = dict[tuple[int, int], str]


@dataclass(frozen=True, slots=True)
class StrategyChart:
    """``hard[(total, up)]``, ``soft[(total, up)]``, ``pairs[(card value, up)]`` → cell code."""

    title_key: str
    hard: Table
    soft: Table
    pairs: Table

    def pair_cell(self, pair_value: int, up_value: int) -> str:
        return self.pairs[(pair_value, up_value)]

    def says_split(self, pair_value: int, up_value: int) -> bool:
        return "split" in CELL_MOVES[self.pair_cell(pair_value, up_value)]

    def total_cell(self, cards: Sequence[Card], up_value: int) -> str:
        total, soft = hand_total(cards)
        if soft and total >= SOFT_ROWS[0]:
            return self.soft[(min(total, 21), up_value)]
        return self.hard[(max(HARD_ROWS[0], min(total, 21)), up_value)]

    def choose(
        self,
        cards: Sequence[Card],
        up_value: int,
        allowed: frozenset[str],
        pair_value: int | None,
    ) -> Move:
        """The chart's move for this hand: the first move in its cell that is ``allowed``.

        ``pair_value`` is given when the hand may be split (the pair table applies). A cell whose
        moves are all disallowed falls through to the hand's total, and finally to hit/stand.
        """
        cells: list[str] = []
        if pair_value is not None:
            cells.append(self.pair_cell(pair_value, up_value))
        cells.append(self.total_cell(cards, up_value))
        for cell in cells:
            for move in CELL_MOVES[cell]:
                if move in allowed:
                    return move
                if move == "surrender" and "surrender20" in allowed:
                    return "surrender20"
        total = hand_total(cards)[0]
        return "hit" if total < 17 and "hit" in allowed else "stand"


def _parse_table(data: object, rows: tuple[int, ...], name: str, source: str) -> Table:
    if not isinstance(data, dict):
        raise InvalidRuleSetError(f"{source}: [{name}] must be a table of rows")
    table: Table = {}
    for row in rows:
        line = data.get("A" if name == "pairs" and row == ACE else str(row))
        if not isinstance(line, str):
            raise InvalidRuleSetError(f"{source}: {name} row {row} is missing")
        cells = line.split()
        if len(cells) != len(UP_COLUMNS):
            raise InvalidRuleSetError(
                f"{source}: {name} row {row} has {len(cells)} cells, expected {len(UP_COLUMNS)}"
            )
        for up, cell in zip(UP_COLUMNS, cells, strict=True):
            if cell not in CELL_MOVES:
                raise InvalidRuleSetError(
                    f"{source}: {name} row {row} has unknown cell {cell!r} "
                    f"(known: {' '.join(CELL_MOVES)})"
                )
            table[(row, up)] = cell
    return table


def parse_strategy_chart(text: str, source: str = "chart") -> StrategyChart:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise InvalidRuleSetError(f"{source}: not valid TOML: {error}") from None
    title_key = data.get("title")
    if not isinstance(title_key, str):
        raise InvalidRuleSetError(f"{source}: 'title' must name the rule set")
    return StrategyChart(
        title_key=title_key,
        hard=_parse_table(data.get("hard"), HARD_ROWS, "hard", source),
        soft=_parse_table(data.get("soft"), SOFT_ROWS, "soft", source),
        pairs=_parse_table(data.get("pairs"), PAIR_ROWS, "pairs", source),
    )


def format_strategy_chart(chart: StrategyChart, header: str = "") -> str:
    """TOML text that :func:`parse_strategy_chart` reads back to an equal chart."""
    lines = [f"# {line}" for line in header.splitlines()]
    lines.append(f'title = "{chart.title_key}"')
    lines.append("# columns: dealer up card " + " ".join(map(str, UP_COLUMNS[:-1])) + " A")
    for name, rows, table in (
        ("hard", HARD_ROWS, chart.hard),
        ("soft", SOFT_ROWS, chart.soft),
        ("pairs", PAIR_ROWS, chart.pairs),
    ):
        lines.append(f"\n[{name}]")
        for row in rows:
            key = "A" if name == "pairs" and row == ACE else str(row)
            cells = " ".join(f"{table[(row, up)]:<2}" for up in UP_COLUMNS).rstrip()
            lines.append(f'"{key}" = "{cells}"')
    return "\n".join(lines) + "\n"
