"""Key helpers, account names and input validation (no database needed)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boundless.ledger import (
    Category,
    InvalidLedgerInputError,
    grant_key,
    in_play_account,
    round_key,
    slice_account,
    slice_key,
    wallet_account,
)
from boundless.ledger.accounts import AccountKind, account_kind, check_amount, check_owner
from boundless.ledger.keys import check_payout_kind, check_stake_kind
from boundless.ledger.posting import JsonValue, canonical_json, fingerprint_of
from boundless.ledger.records import StakeOrder
from boundless.ledger.write_requests import stake_fingerprint, stake_request


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


_identifier = st.from_regex(r"\A[A-Za-z0-9_.@-]{1,64}\Z")
_json_scalar = st.one_of(st.text(max_size=20), st.integers(-(10**18), 10**18), st.none())


@given(st.dictionaries(st.text(max_size=10), st.one_of(_json_scalar, st.lists(_json_scalar))))
def test_canonical_json_is_json_dumps_byte_for_byte(content: dict[str, JsonValue]) -> None:
    assert canonical_json(content) == json.dumps(content, sort_keys=True, separators=(",", ":"))


@given(
    kind=st.sampled_from(["main", "double:2", "side:pair", "insurance"]),
    player=_identifier,
    amount=st.integers(1, 10**15),
    owner=st.sampled_from(["local", "gateway:g-1", "coordinator:t.1"]),
)
def test_the_fast_stake_fingerprint_is_the_generic_one(
    kind: str, player: str, amount: int, owner: str
) -> None:
    content: dict[str, JsonValue] = {"player": player, "amount": amount, "owner": owner}
    generic = fingerprint_of(Category.STAKE, kind, content)
    assert stake_fingerprint(kind, player, amount, owner) == generic
    request = stake_request("t", 1, StakeOrder(player, "p", kind, amount), owner)
    assert request.fingerprint() == generic


def test_owner_names() -> None:
    assert slice_key("t", 7, "gateway:g1", "settle") == "t:7:*gateway:g1:settle"
    assert slice_account("t", 7, "gateway:g1") == "in_play:t:7:gateway:g1"
    for bad in ("", "a:b:c", "gate way", "x" * 49, ":x", 7):
        with pytest.raises(InvalidLedgerInputError, match="owner must be"):
            check_owner(bad)
