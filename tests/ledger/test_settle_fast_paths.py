"""The settlement's fast paths (a slice of 250,000 lines) say exactly what the generic ones say:
the same fingerprint, byte for byte, and the same precise error for every bad line."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boundless.ledger import InvalidLedgerInputError
from boundless.ledger.accounts import MAX_AMOUNT, check_amount, check_identifier
from boundless.ledger.keys import Category
from boundless.ledger.posting import JsonValue, fingerprint_of
from boundless.ledger.records import PlayerSettlement
from boundless.ledger.write_requests import (
    settle_fingerprint,
    settle_slice_request,
    settlement_lines,
)

_player = st.from_regex(r"[A-Za-z0-9_.@-]{1,64}", fullmatch=True)
_amount = st.integers(0, MAX_AMOUNT)


@given(st.lists(st.tuples(_player, _amount, _amount), unique_by=lambda line: line[0]))
def test_the_fast_settle_fingerprint_is_the_generic_one(
    raw: list[tuple[str, int, int]],
) -> None:
    lines = settlement_lines(raw)
    content: dict[str, JsonValue] = {"lines": [[ln.player_id, ln.staked, ln.paid] for ln in lines]}
    generic = fingerprint_of(Category.SETTLE, "settle", content)
    assert settle_fingerprint(lines) == generic
    assert settle_slice_request("t", 1, lines, "gateway:g1").fingerprint() == generic


def slow_check(raw: list[tuple[object, object, object]]) -> str | None:
    """The error the line-by-line checks give, in the same order (None: valid)."""
    seen: set[object] = set()
    try:
        for player, staked, paid in raw:
            check_identifier("player id", player)
            check_amount(f"stake of player {player!r}", staked, allow_zero=True)
            check_amount(f"payout to player {player!r}", paid, allow_zero=True)
            if player in seen:
                raise InvalidLedgerInputError(f"player {player!r} is listed twice")
            seen.add(player)
    except InvalidLedgerInputError as error:
        return str(error)
    return None


_bad_player = st.one_of(_player, st.sampled_from(["", "a b", "x" * 65, "é"]), st.integers(0, 3))
_bad_amount = st.one_of(_amount, st.sampled_from([-1, MAX_AMOUNT + 1, 1.5, True, "5"]), st.none())


@given(st.lists(st.tuples(_bad_player, _bad_amount, _bad_amount), max_size=6))
def test_settlement_lines_refuse_as_the_checks_do(raw: list[tuple[object, object, object]]) -> None:
    expected = slow_check(raw)
    if expected is None:
        lines = settlement_lines(raw)  # type: ignore[arg-type]
        assert [ln.player_id for ln in lines] == sorted(str(p) for p, _, _ in raw)
        return
    with pytest.raises(InvalidLedgerInputError) as caught:
        settlement_lines(raw)  # type: ignore[arg-type]
    assert str(caught.value) == expected


def test_a_settlement_line_object_is_checked_too() -> None:
    with pytest.raises(InvalidLedgerInputError, match="payout to player 'p1'"):
        settlement_lines([PlayerSettlement("p1", 5, -1)])
