"""What the ledger returns: frozen records, detached from the database session."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple, overload

from boundless.ledger.keys import Category


class PostedEntry(NamedTuple):
    """One leg of a posted transaction (a named tuple: a settlement's record holds one per
    paid player)."""

    account: str
    amount: int


@dataclass(frozen=True, slots=True)
class PostedTransaction:
    """One balanced transaction. ``replayed`` is true when this call found it already written."""

    id: int
    key: str
    category: Category
    kind: str
    description: str
    table_id: str | None
    round_no: int | None
    player_id: str | None
    position: str | None
    created_at: datetime
    entries: tuple[PostedEntry, ...]
    replayed: bool = False
    owner: str | None = None
    """The owner of the slice this transaction belongs to (None: a grant, a round-wide cancel)."""

    def amount_for(self, account: str) -> int:
        """Net amount this transaction moved into ``account`` (negative when out of it)."""
        return sum(entry.amount for entry in self.entries if entry.account == account)


@dataclass(frozen=True, slots=True)
class GrantOrder:
    """One grant in a batch for ``grant_many``."""

    player_id: str
    amount: int
    key: str


@dataclass(frozen=True, slots=True)
class StakeOrder:
    """One bet in a batch for ``stake_many``."""

    player_id: str
    position: str
    kind: str
    amount: int


class PlayerSettlement(NamedTuple):
    """One player's line in a bulk settlement: what they staked in the round and what they get.
    A named tuple, not a dataclass: a slice's settlement makes hundreds of thousands of them,
    and a tuple is made in half the time and sorts without a key function."""

    player_id: str
    staked: int
    paid: int

    @property
    def net(self) -> int:
        return self.paid - self.staked


@dataclass(frozen=True, slots=True)
class StatementLine:
    entry_id: int
    transaction_id: int
    key: str
    category: Category
    kind: str
    table_id: str | None
    round_no: int | None
    position: str | None
    amount: int
    balance_after: int
    created_at: datetime


@dataclass(frozen=True, slots=True)
class StatementPage:
    """Newest first. Pass ``next_before`` as ``before_entry_id`` for the next (older) page."""

    player_id: str
    balance: int
    lines: tuple[StatementLine, ...]
    next_before: int | None


@dataclass(frozen=True, slots=True)
class RoundInfo:
    table_id: str
    round_no: int
    status: str
    in_play_balance: int
    """What the round's slices hold in play."""
    owner: str | None = None
    """Who opened it with ``open_round`` (a coordinator); None when a stake created it."""


@dataclass(frozen=True, slots=True)
class SliceInfo:
    """One owner's slice of a round: ``open``, ``settled`` or ``cancelled``."""

    table_id: str
    round_no: int
    owner: str
    status: str
    in_play_balance: int


class PostedBatch(Sequence[PostedTransaction]):
    """The transactions of a batch write (``stake_many``, ``grant_many``), one per item in the
    caller's order. Each record is made when first read: the server and the gateways only need
    the batch written, and 100,000 records cost more than the SQL that wrote them."""

    __slots__ = ("_keys", "_made", "_make")

    def __init__(self, keys: list[str], make: Callable[[str], PostedTransaction]) -> None:
        self._keys, self._make = keys, make
        self._made: dict[str, PostedTransaction] = {}

    def __len__(self) -> int:
        return len(self._keys)

    @overload
    def __getitem__(self, index: int) -> PostedTransaction: ...

    @overload
    def __getitem__(self, index: slice) -> list[PostedTransaction]: ...

    def __getitem__(self, index: int | slice) -> PostedTransaction | list[PostedTransaction]:
        if isinstance(index, slice):
            return [self._one(key) for key in self._keys[index]]
        return self._one(self._keys[index])

    def _one(self, key: str) -> PostedTransaction:
        made = self._made.get(key)
        if made is None:
            made = self._made[key] = self._make(key)
        return made

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PostedBatch | list | tuple):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PostedBatch({len(self)} transactions)"
