"""Checks on a batch of bets, vectorised; the first bad row is reported by player and spot."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import pairwise

import numpy as np

from boundless.core.errors import InsufficientCoinsError, InvalidBetError
from boundless.core.money import format_amount
from boundless.core.round.positions import MAX_SPOTS, PositionBook
from boundless.core.rules import RuleSet


def _first(mask: np.ndarray) -> int | None:
    hits = np.flatnonzero(mask)
    return int(hits[0]) if len(hits) else None


def _verify_range_and_unit(
    stakes: np.ndarray,
    on: np.ndarray,
    low_high_unit: tuple[int, int, int],
    who: Callable[[int], str],
    name: str,
    outside: str,
    off_unit: str,
) -> None:
    """The first staked row outside ``low..high`` or off the unit. The two wordings are
    ``str.format`` templates over ``name``, ``amount`` / ``raw`` (the stake), ``low``, ``high``
    and ``unit``."""
    low, high, unit = low_high_unit
    bad = _first(on & ((stakes < low) | (stakes > high)))
    if bad is not None:
        amount, low_text, high_text = (format_amount(x) for x in (int(stakes[bad]), low, high))
        message = outside.format(name=name, amount=amount, low=low_text, high=high_text)
        raise InvalidBetError(f"{who(bad)}: {message}")
    bad = _first(on & (stakes % unit != 0))
    if bad is not None:
        message = off_unit.format(name=name, raw=int(stakes[bad]), unit=unit)
        raise InvalidBetError(f"{who(bad)}: {message}")


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
    _verify_range_and_unit(
        main,
        placed,
        (limits.min_main_amount, limits.max_main_amount, limits.unit_amount),
        who,
        "main bet",
        "{name} {amount} is outside the table limits {low}..{high}",
        "{name} {raw} is not a multiple of the table unit {unit}",
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
        _verify_range_and_unit(
            stakes,
            on,
            (bet.min_amount, bet.max_amount, limits.unit_amount),
            who,
            f"side bet {key!r}",
            "{name} of {amount} is outside {low}..{high}",
            "{name} is not a multiple of the unit {unit}",
        )
    totals = main + (sides.sum(axis=1) if book.side_keys else 0)
    for column, key in enumerate(book.side_keys):
        bet = rules.side_bet(key)
        if bet is not None and bet.target == "dealer":
            # A bet on the dealer's hand rides along with another wager on the same seat.
            bad = _first((sides[:, column] > 0) & (totals == sides[:, column]))
            if bad is not None:
                raise InvalidBetError(
                    f"{who(bad)}: side bet {key!r} on the dealer's hand needs another wager "
                    "on this seat"
                )
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
    codes, known, ids = book.factorize(player_ids)
    spot_keys = codes * MAX_SPOTS + spots
    unique_keys, counts = np.unique(spot_keys, return_counts=True)
    if (counts > 1).any():
        row = int(np.flatnonzero(spot_keys == unique_keys[np.argmax(counts > 1)])[1])
        raise InvalidBetError(f"{who(row)}: this player already has a bet on this spot")
    existing_rows = np.flatnonzero(known[codes] >= 0)
    table = book.position_table()
    if len(existing_rows):
        taken = table[known[codes[existing_rows]], spots[existing_rows]] >= 0
        if taken.any():
            row = int(existing_rows[np.argmax(taken)])
            raise InvalidBetError(f"{who(row)}: this player already has a bet on this spot")
    if not rules.table.shared:
        seated = {book.player_ids[int(index)] for index in np.unique(book.player)}
        strangers = [row for row, player_id in enumerate(player_ids) if player_id not in seated]
        if len(seated | {player_ids[row] for row in strangers}) > 1:
            row = strangers[0] if seated else int(np.argmax(codes != codes[0]))
            raise InvalidBetError(f"{who(row)}: this private table is already another player's")
    spots_held = np.bincount(codes, minlength=len(ids))
    known_rows = known >= 0
    spots_held[known_rows] += (table[known[known_rows]] >= 0).sum(axis=1)
    over = spots_held > rules.table.max_spots_per_player
    if over.any():
        row = int(np.argmax(codes == int(np.argmax(over))))
        raise InvalidBetError(
            f"{who(row)}: a player may bet on at most {rules.table.max_spots_per_player} spot(s)"
        )
    low = np.full(len(ids), np.iinfo(np.int64).max, dtype=np.int64)
    high = np.full(len(ids), np.iinfo(np.int64).min, dtype=np.int64)
    np.minimum.at(low, codes, free)
    np.maximum.at(high, codes, free)
    if (low != high).any():
        row = int(np.argmax(codes == int(np.argmax(low != high))))
        raise InvalidBetError(f"{who(row)}: rows of one player disagree on free coins")
    available = low.copy()
    unknown_free = available < 0
    if (unknown_free & ~known_rows).any():
        row = int(np.argmax(codes == int(np.argmax(unknown_free & ~known_rows))))
        raise InsufficientCoinsError(f"{who(row)}: free coins are unknown for a new player")
    use_book = unknown_free & known_rows
    available[use_book] = book.free[known[use_book]]
    needed = np.zeros(len(ids), dtype=np.int64)
    np.add.at(needed, codes, totals)
    short = needed > available
    if short.any():
        code = int(np.argmax(short))
        row = int(np.argmax(codes == code))
        raise InsufficientCoinsError(
            f"{who(row)}: bets of {format_amount(int(needed[code]))} exceed the "
            f"{format_amount(int(available[code]))} free coins"
        )
    if rules.table.main_bet_max_multiple_of_right:
        for code in range(len(ids)):
            index = int(known[code]) if known[code] >= 0 else None
            existing = book.positions_of_player(index) if index is not None else []
            rows = np.flatnonzero(codes == code).tolist()
            _verify_seat_ratio(rules, book, existing, rows, spots, main, totals, who)


def _verify_seat_ratio(
    rules: RuleSet,
    book: PositionBook,
    existing: list[int],
    rows: list[int],
    spots: np.ndarray,
    main: np.ndarray,
    totals: np.ndarray,
    who: object,
) -> None:
    """Main bet at most N times the total wager of the nearest occupied seat to its right."""
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
        left_main, _, left_row = seats[left]
        _, right_total, right_row = seats[right]
        if left_main > multiple * right_total:
            culprit = left_row if left_row is not None else right_row
            assert culprit is not None
            raise InvalidBetError(
                f"{who(culprit)}: main bet {format_amount(left_main)} on seat {left} exceeds "
                f"{multiple} times the {format_amount(right_total)} wagered on seat {right}"
            )
