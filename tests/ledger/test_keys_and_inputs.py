"""Key helpers, account names and input validation (no database needed)."""

from __future__ import annotations

import pytest

from boundless.ledger import (
    InvalidLedgerInputError,
    grant_key,
    in_play_account,
    round_key,
    wallet_account,
)
from boundless.ledger.accounts import AccountKind, account_kind, check_amount
from boundless.ledger.keys import check_payout_kind, check_stake_kind


def test_round_key_is_table_round_position_kind() -> None:
    assert round_key("boundless-1", 42, "alice.0", "main") == "boundless-1:42:alice.0:main"
    assert round_key("t", 0, "p", "side:pair") == "t:0:p:side:pair"
    assert round_key("t", 7, "*", "settle") == "t:7:*:settle"


def test_grant_key_and_account_names() -> None:
    assert grant_key("alice", "signup") == "grant:alice:signup"
    assert wallet_account("alice") == "wallet:alice"
    assert in_play_account("boundless-1", 42) == "in_play:boundless-1:42"
    assert account_kind("wallet:alice") is AccountKind.WALLET
    assert account_kind("in_play:t:1") is AccountKind.IN_PLAY
    assert account_kind("house") is AccountKind.HOUSE
    assert account_kind("issuance") is AccountKind.ISSUANCE


@pytest.mark.parametrize("bad", ["", "a:b", "a*", "a b", "x" * 65, 5, None])
def test_identifiers_never_contain_separators(bad: object) -> None:
    with pytest.raises(InvalidLedgerInputError, match="table id"):
        round_key(bad, 1, "p", "main")  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [1.0, 0.5, True, 0, -1, 10**16, "100", None])
def test_amounts_are_positive_ints_never_floats(bad: object) -> None:
    with pytest.raises(InvalidLedgerInputError, match="stake"):
        check_amount("stake", bad)


def test_zero_amount_allowed_where_asked() -> None:
    assert check_amount("paid", 0, allow_zero=True) == 0


@pytest.mark.parametrize("kind", ["main", "double", "double:2", "split", "insurance", "side:pair"])
def test_stake_kinds(kind: str) -> None:
    assert check_stake_kind(kind) == kind


@pytest.mark.parametrize("kind", ["side", "payout", "Main", "main:", "bonus", "main:a:b"])
def test_bad_stake_kinds(kind: str) -> None:
    with pytest.raises(InvalidLedgerInputError):
        check_stake_kind(kind)


@pytest.mark.parametrize("kind", ["payout", "payout:insurance", "refund", "refund:surrender"])
def test_payout_kinds(kind: str) -> None:
    assert check_payout_kind(kind) == kind


def test_round_numbers_are_non_negative_ints() -> None:
    with pytest.raises(InvalidLedgerInputError, match="round number"):
        round_key("t", -1, "p", "main")
    with pytest.raises(InvalidLedgerInputError, match="round number"):
        round_key("t", True, "p", "main")
