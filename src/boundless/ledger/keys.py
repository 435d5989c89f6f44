"""Transaction kinds and idempotency keys.

A key is ``<table_id>:<round_no>:<position>:<kind>``; a write for a whole slice (settle, close,
cancel) uses the position ``*<owner>``, a whole-round cancellation the position ``*``. Grants use
``grant:<player_id>:<reason>``. The same key always means the same write: repeating it moves
nothing, reusing it for different content is an error.
"""

from __future__ import annotations

import functools
import re
from enum import StrEnum

from boundless.ledger.accounts import check_identifier, check_owner, check_round_no
from boundless.ledger.errors import InvalidLedgerInputError

ROUND_SCOPE = "*"
"""The position part of the key for a write that concerns the whole round."""

MAX_KEY_LENGTH = 240


class Category(StrEnum):
    """What a transaction does, whatever its detailed kind."""

    GRANT = "grant"  # issuance -> wallet
    STAKE = "stake"  # wallet -> in-play
    PAYOUT = "payout"  # in-play -> wallet
    SETTLE = "settle"  # in-play -> wallets, difference with the house
    CLOSE = "close"  # in-play remainder <-> house; the round is closed
    CANCEL = "cancel"  # reverses every movement of the round
    HAND_BACK = "hand_back"  # wallets -> issuance: coins credited back to an operator's wallet


STAKE_KINDS = frozenset({"main", "double", "split", "insurance", "side"})
"""``side`` needs a suffix naming the side bet (``side:pair``); the others may take one (a hand
number, ``double:2``) so that the same position can stake the same kind more than once."""

PAYOUT_KINDS = frozenset({"payout", "refund"})
"""``payout`` / ``refund`` with an optional suffix: ``payout:insurance``, ``refund:surrender``."""

_KIND = re.compile(r"^([a-z_]+)(?::([A-Za-z0-9_.-]{1,32}))?$")


@functools.lru_cache(maxsize=1024)
def _split_kind_cached(kind: str) -> tuple[str, str | None] | None:
    match = _KIND.match(kind)
    return None if match is None else (match.group(1), match.group(2))


def _split_kind(kind: object) -> tuple[str, str | None]:
    """A batch repeats a handful of kinds thousands of times: parsed once each."""
    parsed = _split_kind_cached(kind) if isinstance(kind, str) else None
    if parsed is None:
        raise InvalidLedgerInputError(f"kind must look like 'main' or 'side:pair', got {kind!r}")
    return parsed


def check_stake_kind(kind: object) -> str:
    return _check_stake_kind(kind) if isinstance(kind, str) else _check_stake_kind_now(kind)


@functools.lru_cache(maxsize=1024)
def _check_stake_kind(kind: str) -> str:
    return _check_stake_kind_now(kind)


def _check_stake_kind_now(kind: object) -> str:
    base, suffix = _split_kind(kind)
    if base not in STAKE_KINDS:
        raise InvalidLedgerInputError(
            f"stake kind must be one of {sorted(STAKE_KINDS)} (with ':<name>' for side bets), "
            f"got {kind!r}"
        )
    if base == "side" and suffix is None:
        raise InvalidLedgerInputError(
            f"a side bet kind names its bet, like 'side:pair'; got {kind!r}"
        )
    assert isinstance(kind, str)
    return kind


def check_payout_kind(kind: object) -> str:
    base, _ = _split_kind(kind)
    if base not in PAYOUT_KINDS:
        raise InvalidLedgerInputError(
            f"payout kind must be 'payout' or 'refund', optionally with ':<name>', got {kind!r}"
        )
    assert isinstance(kind, str)
    return kind


def round_key(table_id: str, round_no: int, position: str, kind: str) -> str:
    """The idempotency key of a write for ``(table, round, position, kind)``."""
    check_identifier("table id", table_id)
    check_round_no(round_no)
    if not isinstance(position, str) or not position.startswith(ROUND_SCOPE):
        check_identifier("position", position)
    elif position != ROUND_SCOPE:
        check_owner(position[len(ROUND_SCOPE) :])
    _split_kind(kind)
    return f"{table_id}:{round_no}:{position}:{kind}"


def slice_key(table_id: str, round_no: int, owner: str, kind: str) -> str:
    """The key of a write for one owner's whole slice: ``t1:42:*gateway:g1:settle``."""
    return round_key(table_id, round_no, f"{ROUND_SCOPE}{check_owner(owner)}", kind)


def grant_key(player_id: str, reason: str) -> str:
    """The idempotency key of a grant, e.g. ``grant_key("p1", "signup")`` -> ``grant:p1:signup``."""
    check_identifier("player id", player_id)
    check_identifier("grant reason", reason)
    return f"grant:{player_id}:{reason}"


def check_key(key: object) -> str:
    if not isinstance(key, str) or not key or len(key) > MAX_KEY_LENGTH or not key.isprintable():
        raise InvalidLedgerInputError(
            f"an idempotency key is printable text of 1-{MAX_KEY_LENGTH} characters, got {key!r}"
        )
    return key
