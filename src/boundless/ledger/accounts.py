"""Account names and the identifiers they are built from.

Every account has a literal, unique name: ``wallet:<player_id>``, ``in_play:<table_id>:<round_no>``,
``house``, ``house:<owner>`` (the house's result of one owner's bulk slice settlements: each
gateway settles into its own, so their settlements never wait on one hot row; of kind ``house``),
``issuance`` and ``receivable:<player_id>`` (the house's claim on a player after a void it could
not take back in full, ruling 38; of kind ``house``). The house's result is the sum of every
account of kind ``house``. Identifiers never contain
``:`` or ``*`` so names and idempotency keys split back unambiguously.
"""

from __future__ import annotations

import re
from enum import StrEnum

from boundless.ledger.errors import InvalidLedgerInputError

HOUSE_ACCOUNT = "house"
ISSUANCE_ACCOUNT = "issuance"

MAX_AMOUNT = 10**15
"""Largest single amount the ledger accepts, in minor units (keeps every sum inside 64 bits)."""

IDENTIFIER = re.compile(r"[A-Za-z0-9_.@-]{1,64}\Z")
_OWNER = re.compile(r"[A-Za-z0-9_.@-]{1,48}(?::[A-Za-z0-9_.@-]{1,48})?\Z")

DEFAULT_OWNER = "local"
"""The owner of every slice the single-process server (``boundless serve``) writes."""


class AccountKind(StrEnum):
    WALLET = "wallet"
    IN_PLAY = "in_play"
    HOUSE = "house"
    ISSUANCE = "issuance"


def check_identifier(what: str, value: object) -> str:
    """Return ``value`` if it is a valid table, player or position id, else raise."""
    if not isinstance(value, str) or IDENTIFIER.match(value) is None:
        raise InvalidLedgerInputError(
            f"{what} must be 1-64 characters of letters, digits, '_', '.', '@' or '-', "
            f"got {value!r}"
        )
    return value


def check_owner(owner: object) -> str:
    """An owner names the process that writes a slice: ``local``, ``gateway:<name>``..."""
    if not isinstance(owner, str) or _OWNER.match(owner) is None:
        raise InvalidLedgerInputError(
            "owner must be one or two parts of 1-48 letters, digits, '_', '.', '@' or '-', "
            f"joined by ':' (like 'gateway:g1'), got {owner!r}"
        )
    return owner


def check_round_no(round_no: object) -> int:
    if isinstance(round_no, bool) or not isinstance(round_no, int) or round_no < 0:
        raise InvalidLedgerInputError(f"round number must be an int >= 0, got {round_no!r}")
    return round_no


def check_amount(what: str, amount: object, *, allow_zero: bool = False) -> int:
    """Amounts are ``int`` minor units: never a float, a bool or a Decimal."""
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise InvalidLedgerInputError(f"{what} must be an int of minor units, got {amount!r}")
    lowest = 0 if allow_zero else 1
    if amount < lowest or amount > MAX_AMOUNT:
        bound = ">= 0" if allow_zero else "> 0"
        raise InvalidLedgerInputError(f"{what} must be {bound} and <= {MAX_AMOUNT}, got {amount}")
    return amount


def wallet_account(player_id: str) -> str:
    return f"{AccountKind.WALLET}:{check_identifier('player id', player_id)}"


def in_play_account(table_id: str, round_no: int) -> str:
    table_id = check_identifier("table id", table_id)
    return f"{AccountKind.IN_PLAY}:{table_id}:{check_round_no(round_no)}"


def slice_account(table_id: str, round_no: int, owner: str) -> str:
    """The in-play account of one owner's slice of a round."""
    return f"{in_play_account(table_id, round_no)}:{check_owner(owner)}"


def house_account(owner: str) -> str:
    """The house sub-account that ``owner``'s bulk slice settlements pay into or out of."""
    return f"{AccountKind.HOUSE}:{check_owner(owner)}"


def account_kind(name: str) -> AccountKind:
    """The kind of the account called ``name`` (by its prefix)."""
    if name == HOUSE_ACCOUNT:
        return AccountKind.HOUSE
    if name == ISSUANCE_ACCOUNT:
        return AccountKind.ISSUANCE
    prefix, _, _ = name.partition(":")
    if prefix == AccountKind.WALLET:
        return AccountKind.WALLET
    if prefix == AccountKind.IN_PLAY:
        return AccountKind.IN_PLAY
    if prefix in ("receivable", AccountKind.HOUSE):
        return AccountKind.HOUSE
    raise InvalidLedgerInputError(f"{name!r} is not a ledger account name")
