"""Checks on a batch of bets, vectorised; the first bad row is reported by player and spot."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import numpy as np

from boundless.core.errors import InsufficientCoinsError, InvalidBetError
from boundless.core.money import format_amount
from boundless.core.round.positions import PositionBook
from boundless.core.rules import RuleSet


def _first(mask: np.ndarray) -> int | None:
    hits = np.flatnonzero(mask)
    return int(hits[0]) if len(hits) else None


def verify_bets(
    rules: RuleSet,
    book: PositionBook,
    available_side_keys: frozenset[str],
    player_ids: Sequence[str],
    spots: np.ndarray,
    main: np.ndarray,
    sides: np.ndarray,
    free: np.ndarray,
) -> None:
    """Raise on the first row that breaks a rule; a batch is accepted whole or not at all."""

    def who(row: int) -> str:
        return f"player {player_ids[row]!r} spot {int(spots[row])}"

    limits = rules.limits
    bad = _first((spots < 1) | (spots > rules.table.spots))
    if bad is not None:
        raise InvalidBetError(f"{who(bad)}: the table has spots 1..{rules.table.spots}")
    bad = _first(main < 0)
    if bad is not None:
        raise InvalidBetError(f"{who(bad)}: a bet cannot be negative")
    placed = main > 0
    bad = _first(placed & ((main < limits.min_main_amount) | (main > limits.max_main_amount)))
    if bad is not None:
        raise InvalidBetError(
            f"{who(bad)}: main bet {format_amount(int(main[bad]))} is outside the table limits "
            f"{format_amount(limits.min_main_amount)}..{format_amount(limits.max_main_amount)}"
        )
    bad = _first(placed & (main % limits.unit_amount != 0))
    if bad is not None:
        raise InvalidBetError(
            f"{who(bad)}: main bet {int(main[bad])} is not a multiple of the table unit "
            f"{limits.unit_amount}"
        )
    for column, key in enumerate(book.side_keys):
        stakes = sides[:, column]
        bet = rules.side_bet(key)
        assert bet is not None
        bad = _first(stakes < 0)
        if bad is not None:
            raise InvalidBetError(f"{who(bad)}: side bet {key!r} cannot be negative")
        on = stakes > 0
        if key not in available_side_keys:
            bad = _first(on)
            if bad is not None:
                raise InvalidBetError(f"{who(bad)}: side bet {key!r} is not available this round")
            continue
        bad = _first(on & ((stakes < bet.min_amount) | (stakes > bet.max_amount)))
        if bad is not None:
            raise InvalidBetError(
                f"{who(bad)}: side bet {key!r} of {format_amount(int(stakes[bad]))} is outside "
                f"{format_amount(bet.min_amount)}..{format_amount(bet.max_amount)}"
            )
        bad = _first(on & (stakes % limits.unit_amount != 0))
        if bad is not None:
            raise InvalidBetError(
                f"{who(bad)}: side bet {key!r} is not a multiple of the unit {limits.unit_amount}"
            )
    totals = main + (sides.sum(axis=1) if book.side_keys else 0)
    bad = _first(totals <= 0)
    if bad is not None:
        raise InvalidBetError(f"{who(bad)}: a bet needs a main bet or at least one side bet")
    _verify_positions_and_coins(rules, book, player_ids, spots, main, totals, free, who)


def _verify_positions_and_coins(
    rules: RuleSet,
    book: PositionBook,
    player_ids: Sequence[str],
    spots: np.ndarray,
    main: np.ndarray,
    totals: np.ndarray,
    free: np.ndarray,
    who: object,
) -> None:
    assert callable(who)
    seen: dict[tuple[str, int], int] = {}
    per_player: dict[str, list[int]] = {}
    for row, (player_id, spot) in enumerate(zip(player_ids, spots.tolist(), strict=True)):
        index = book.player_index(player_id)
        key = (player_id, spot)
        if key in seen or (index is not None and book.position_of(index, spot) is not None):
            raise InvalidBetError(f"{who(row)}: this player already has a bet on this spot")
        seen[key] = row
        per_player.setdefault(player_id, []).append(row)
    for player_id, rows in per_player.items():
        index = book.player_index(player_id)
        existing = book.positions_of_player(index) if index is not None else []
        if len(existing) + len(rows) > rules.table.max_spots_per_player:
            raise InvalidBetError(
                f"{who(rows[0])}: a player may bet on at most "
                f"{rules.table.max_spots_per_player} spot(s)"
            )
        given = {int(free[row]) for row in rows}
        if len(given) != 1:
            raise InvalidBetError(f"{who(rows[0])}: rows of one player disagree on free coins")
        available = given.pop()
        if available < 0:
            if index is None:
                raise InsufficientCoinsError(f"{who(rows[0])}: free coins are unknown")
            available = int(book.free[index])
        needed = int(totals[rows].sum())
        if needed > available:
            raise InsufficientCoinsError(
                f"{who(rows[0])}: bets of {format_amount(needed)} exceed the "
                f"{format_amount(available)} free coins"
            )
        if rules.table.main_bet_max_multiple_of_right:
            _verify_seat_ratio(rules, book, index, existing, rows, spots, main, totals, who)


def _verify_seat_ratio(
    rules: RuleSet,
    book: PositionBook,
    index: int | None,
    existing: list[int],
    rows: list[int],
    spots: np.ndarray,
    main: np.ndarray,
    totals: np.ndarray,
    who: object,
) -> None:
    """A main bet may not exceed N times the total wager of the nearest occupied seat right of it."""
    assert callable(who)
    seats: dict[int, tuple[int, int, int | None]] = {}
    for position in existing:
        total = int(book.main[position] + book.sides[position].sum())
        seats[int(book.spot[position])] = (int(book.main[position]), total, None)
    for row in rows:
        seats[int(spots[row])] = (int(main[row]), int(totals[row]), row)
    multiple = rules.table.main_bet_max_multiple_of_right
    ordered = sorted(seats)
    for left, right in pairwise(ordered):
        left_main, _, row = seats[left]
        _, right_total, right_row = seats[right]
        if left_main > multiple * right_total:
            culprit = row if row is not None else right_row
            assert culprit is not None
            raise InvalidBetError(
                f"{who(culprit)}: main bet {format_amount(left_main)} on seat {left} exceeds "
                f"{multiple} times the {format_amount(right_total)} wagered on seat {right}"
            )
