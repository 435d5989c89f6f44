"""The wallet port: the one door through which the server moves a player's coins.

The server never calls the ledger to move a player's coins and never names an adapter; it asks a
:class:`WalletProvider` for the :class:`Wallet` of the database transaction it is in (and of the
ledger owner it writes for: ``None`` writes whole rounds, ``boundless serve``; a name writes that
owner's slice of shared rounds, a cluster gateway) and calls the wallet. Reads of the game's own
record (round transactions, statements, reconciliation) stay with the ledger.

Every method runs inside the caller's database transaction (the caller commits; a raised error
rolls everything of the transaction back). Amounts are ``int`` minor units.

Debits (coins leaving a player's wallet for a round):

- :meth:`Wallet.debit_bets` takes a betting window's batch of bets. Each :class:`BetDebit` is
  all or nothing; the answer lists, per bet in order, ``None`` (staked) or the refusal, a
  :class:`WalletRefusal` (``insufficient_coins``, an operator's reason, or a wrapper's such as
  ``limit_reached``), which reaches the player as that error code. A refused bet stakes nothing.
- :meth:`Wallet.debit` takes the stakes of one call during the round (insurance; one step's
  doubles and splits): all of them, or it raises the refusal and stakes none.
- :meth:`Wallet.spendable` says how many coins each player may still add to the round now; the
  table calls it before a step with doubles or splits executes, and the round's rules fall back
  (a double becomes a hit, a split is not made...) for any player it says is short, exactly as
  for missing coins. ``Wallet.checks_every_extra`` says which players to ask about: ``False``
  only those the round itself may overstate (short by its count, or betting at another table
  too), ``True`` every player with a pending double or split.

Credits (coins coming back): :meth:`Wallet.credit_early` (what the round paid during play: a
blackjack paid at once, a surrender), :meth:`Wallet.settle` (the round's end; ``paid`` 0 is a
loss; ``early`` what ``credit_early`` paid), :meth:`Wallet.cancel` (reverses every stake this
owner holds in the round, exactly once).

A wrapper adapter (``LimitedWallet(inner)``, on the :class:`WalletWrapper` base that passes
every call through) implements the same protocol and refuses a debit
before the inner wallet sees it: it returns or raises a :class:`WalletRefusal` with its own code,
and lowers :meth:`Wallet.spendable` (with ``checks_every_extra = True``) so that doubles and
splits past a limit fall back before the step executes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from sqlalchemy.orm import Session

from boundless.ledger.records import PlayerSettlement, StakeOrder


class WalletError(ValueError):
    """Base of the wallet's own refusals; ``code`` is what the player or operator sees."""

    code = "wallet_error"


class WalletRefusal(WalletError):
    """A debit the wallet refuses (nothing is staked): ``code`` names why, ``detail`` says it
    in a sentence. Adapters and wrappers pick the code (``limit_reached``, an operator's
    ``insufficient_funds``...)."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


class WalletUnavailableError(WalletError):
    """The wallet could not answer (an operator's wallet timed out or failed): nothing moved."""

    code = "wallet_unavailable"


@dataclass(frozen=True, slots=True)
class BetDebit:
    """One bet of a betting window: the player's stakes on every spot they bet, all or none."""

    player_id: str
    bet_id: str
    orders: tuple[StakeOrder, ...]

    @property
    def total(self) -> int:
        return sum(order.amount for order in self.orders)


class Wallet(Protocol):
    """The players' coins as seen from one database transaction (see the module docstring)."""

    checks_every_extra: bool

    def balances(self, player_ids: Sequence[str]) -> dict[str, int]:
        """Each known player's balance (a player with no wallet is absent)."""
        ...

    def spendable(self, player_ids: Sequence[str]) -> dict[str, int]:
        """Coins each player may still put into a round now (at most their balance)."""
        ...

    def debit_bets(
        self, table_id: str, round_no: int, bets: Sequence[BetDebit]
    ) -> list[Exception | None]:
        """Stake each bet whole or refuse it: per bet, ``None`` or its refusal."""
        ...

    def debit(self, table_id: str, round_no: int, orders: Sequence[StakeOrder]) -> None:
        """Stake all of ``orders`` (insurance, a step's doubles and splits) or raise."""
        ...

    def credit_early(
        self, table_id: str, round_no: int, step: int, credits: dict[str, int]
    ) -> None:
        """Pay what the round paid during play before ``step`` (keyed by step: once each)."""
        ...

    def settle(
        self,
        table_id: str,
        round_no: int,
        owed: Sequence[PlayerSettlement],
        early: dict[str, int],
    ) -> None:
        """End the round (this owner's slice of it): each player's ``paid`` to their wallet.
        ``owed`` lists every player who staked (``paid`` 0: a loss) less what
        :meth:`credit_early` already paid them this round, which ``early`` holds."""
        ...

    def cancel(self, table_id: str, round_no: int) -> dict[str, int]:
        """Reverse this owner's stakes in the round once (a second call moves nothing): what
        moved back into each wallet (stakes less what the round paid early)."""
        ...


class WalletWrapper:
    """A wallet in front of another: every call goes to ``inner`` unless a subclass overrides
    it (``LimitedWallet`` overrides the debits and ``spendable``). ``checks_every_extra`` is
    True: a wrapper that refuses debits must be asked about every pending double or split."""

    checks_every_extra = True

    def __init__(self, inner: Wallet) -> None:
        self.inner = inner

    def balances(self, player_ids: Sequence[str]) -> dict[str, int]:
        return self.inner.balances(player_ids)

    def spendable(self, player_ids: Sequence[str]) -> dict[str, int]:
        return self.inner.spendable(player_ids)

    def debit_bets(
        self, table_id: str, round_no: int, bets: Sequence[BetDebit]
    ) -> list[Exception | None]:
        return self.inner.debit_bets(table_id, round_no, bets)

    def debit(self, table_id: str, round_no: int, orders: Sequence[StakeOrder]) -> None:
        self.inner.debit(table_id, round_no, orders)

    def credit_early(
        self, table_id: str, round_no: int, step: int, credits: dict[str, int]
    ) -> None:
        self.inner.credit_early(table_id, round_no, step, credits)

    def settle(
        self,
        table_id: str,
        round_no: int,
        owed: Sequence[PlayerSettlement],
        early: dict[str, int],
    ) -> None:
        self.inner.settle(table_id, round_no, owed, early)

    def cancel(self, table_id: str, round_no: int) -> dict[str, int]:
        return self.inner.cancel(table_id, round_no)


class WalletProvider(Protocol):
    """Makes the :class:`Wallet` of one database transaction, for one ledger owner."""

    name: str

    def __call__(self, session: Session, slice_owner: str | None = None) -> Wallet: ...
