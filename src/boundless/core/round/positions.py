"""Per-player and per-position numbers kept as growable numpy columns.

A position is one player's stake on one spot. Everything the round needs per position is a
number here, so work per position stays arithmetic on arrays however many players there are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from boundless.core.round.actions import NO_DECISION

Array = npt.NDArray[Any]
MAX_SPOTS = 8


class Column:
    """An append-only numpy array with amortised O(1) growth."""

    def __init__(self, dtype: Any, width: int = 0, fill: int = 0) -> None:
        self._shape_tail = (width,) if width else ()
        self._fill = fill
        self._data: Array = np.full((16, *self._shape_tail), fill, dtype=dtype)
        self._size = 0

    def __len__(self) -> int:
        return self._size

    @property
    def view(self) -> Array:
        return self._data[: self._size]

    def extend(self, values: Array) -> None:
        needed = self._size + len(values)
        if needed > len(self._data):
            capacity = max(needed, 2 * len(self._data))
            grown = np.full((capacity, *self._shape_tail), self._fill, dtype=self._data.dtype)
            grown[: self._size] = self._data[: self._size]
            self._data = grown
        self._data[self._size : needed] = values
        self._size = needed


class ColumnView:
    """A read-only attribute that reads as the live view of the book's column of the same
    name: ``book.main`` is ``book._main.view``."""

    def __init__(self, doc: str | None = None) -> None:
        self.__doc__ = doc
        self._column = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self._column = f"_{name}"

    def __get__(self, book: object, owner: type | None = None) -> Array:
        column: Column = getattr(book, self._column)
        return column.view

    def __set__(self, book: object, value: object) -> None:
        raise AttributeError(f"{self._column[1:]} is read-only")


class PositionBook:
    def __init__(self, side_keys: Sequence[str]) -> None:
        self.side_keys = tuple(side_keys)
        self.player_ids: list[str] = []
        self._player_index: dict[str, int] = {}
        self._factorized: tuple[Sequence[str], tuple[Array, Array, list[str]]] | None = None
        self._free = Column(np.int64)
        self._position_of = Column(np.int64, width=MAX_SPOTS, fill=-1)
        self._player = Column(np.int64)
        self._spot = Column(np.int64)
        self._main = Column(np.int64)
        self._sides = Column(np.int64, width=max(1, len(self.side_keys)))
        self._node = Column(np.int64)
        self._insurance = Column(np.int64)
        self._even_money = Column(np.bool_)
        self._pending = Column(np.int64, fill=NO_DECISION)
        self._extra = Column(np.int64)
        self._paid = Column(np.int64)

    # ---- players -------------------------------------------------------------------------
    def player_index(self, player_id: str) -> int | None:
        return self._player_index.get(player_id)

    def factorize(self, player_ids: Sequence[str]) -> tuple[Array, Array, list[str]]:
        """Per row: a batch-local player code, and each code's index here (-1: new player).

        Returns ``(codes, known_index_by_code, ids_by_code)``. The last answer is kept for the
        same sequence object, so checking a batch and then applying it reads the ids once.
        """
        cached = self._factorized
        if cached is not None and cached[0] is player_ids:
            return cached[1]
        result = self._factorize(player_ids)
        self._factorized = (player_ids, result)
        return result

    def _factorize(self, player_ids: Sequence[str]) -> tuple[Array, Array, list[str]]:
        local = dict(zip(player_ids, range(len(player_ids)), strict=True))
        if len(local) == len(player_ids):
            codes = np.arange(len(player_ids), dtype=np.int64)  # the usual case: no repeats
        else:
            local = {}
            codes = np.fromiter(
                (local.setdefault(player_id, len(local)) for player_id in player_ids),
                dtype=np.int64,
                count=len(player_ids),
            )
        ids = list(local)
        lookup = self._player_index.get
        known = np.fromiter((lookup(player_id, -1) for player_id in ids), np.int64, len(ids))
        return codes, known, ids

    def ensure_players(self, player_ids: Sequence[str]) -> Array:
        """Indices of the players, registering the new ones with zero free coins."""
        codes, known, ids = self.factorize(player_ids)
        self._factorized = None  # registering players changes what is known
        known = known.copy()
        fresh = np.flatnonzero(known < 0)
        if len(fresh):
            start = len(self.player_ids)
            fresh_ids = [ids[code] for code in fresh.tolist()]
            self._player_index.update(zip(fresh_ids, range(start, start + len(fresh)), strict=True))
            self.player_ids.extend(fresh_ids)
            known[fresh] = np.arange(start, start + len(fresh))
            self._free.extend(np.zeros(len(fresh), dtype=np.int64))
            self._position_of.extend(np.full((len(fresh), MAX_SPOTS), -1, dtype=np.int64))
        return known[codes]

    free = ColumnView()

    # ---- positions -----------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._player)

    def position_of(self, player_index: int, spot: int) -> int | None:
        if not 0 <= spot < MAX_SPOTS:
            return None
        position = int(self._position_of.view[player_index, spot])
        return None if position < 0 else position

    def positions_of_player(self, player_index: int) -> list[int]:
        row = self._position_of.view[player_index]
        return [int(position) for position in row[row >= 0]]

    def position_table(self) -> Array:
        """``table[player_index, spot]``: the position index, or -1."""
        return self._position_of.view

    def add_positions(
        self,
        players: Array,
        spots: Array,
        main_amounts: Array,
        side_amounts: Array,
        nodes: Array,
    ) -> None:
        start = len(self)
        count = len(players)
        self._position_of.view[players, spots] = np.arange(start, start + count)
        zeros = np.zeros(count, dtype=np.int64)
        self._player.extend(players)
        self._spot.extend(spots)
        self._main.extend(main_amounts)
        self._sides.extend(side_amounts)
        self._node.extend(nodes)
        self._insurance.extend(zeros)
        self._even_money.extend(np.zeros(count, dtype=np.bool_))
        self._pending.extend(np.full(count, NO_DECISION, dtype=np.int64))
        self._extra.extend(zeros)
        self._paid.extend(zeros)

    player = ColumnView()
    spot = ColumnView()
    main = ColumnView()
    sides = ColumnView()
    node = ColumnView()
    insurance = ColumnView()
    even_money = ColumnView()
    pending = ColumnView()
    extra = ColumnView("Coins added after the bet: doubles and splits.")
    paid = ColumnView("Coins paid back to each position so far, stakes included.")

    def staked(self) -> Array:
        """Everything each position has put in: main, side bets, insurance, doubles, splits."""
        side_total = self.sides.sum(axis=1) if self.side_keys else 0
        return self.main + side_total + self.insurance + self.extra

    def staked_of(self, position: int) -> int:
        return int(
            self.main[position]
            + self.sides[position].sum()
            + self.insurance[position]
            + self.extra[position]
        )
