"""Voiding part of a round (ruling 38): every movement reversed, and never refused for a wallet.

A void returns every stake and takes back what the round paid early (a side bet paid at the
deal, a split's step). A player may have spent that payment elsewhere before the void: the
wallet then gives back what it holds and the rest is booked to the player's **receivable**
account (``receivable:<player_id>``, an account of the house, kind ``house``), which goes below
zero by what the player owes. So a void never fails on a balance, never makes a wallet negative
and never creates a coin; ``check_books`` proves each receivable (see
:mod:`boundless.ledger.reconciliation`).
"""

from __future__ import annotations

from collections.abc import Sequence

from boundless.ledger.accounts import AccountKind, check_identifier
from boundless.ledger.posting import Plan
from boundless.ledger.repository import LedgerRepository

RECEIVABLE_PREFIX = "receivable"


def receivable_account(player_id: str) -> str:
    """The house's claim on one player: minus what voids could not take back from the wallet."""
    return f"{RECEIVABLE_PREFIX}:{check_identifier('player id', player_id)}"


def plan_void(
    repository: LedgerRepository, round_id: int, owners: Sequence[str], plan: Plan
) -> None:
    """Add to ``plan`` the reversal of every movement of these owners' slices of the round."""
    nets = repository.net_by_account(round_id, owners)
    owed = [account.id for account, net in nets if account.kind == AccountKind.WALLET and net > 0]
    # Read the balances of the wallets that give coins back under their row lock, so that a
    # concurrent stake elsewhere cannot make the take larger than the wallet.
    held = repository.lock_accounts(owed) if owed else {}
    for account, net in nets:
        if account.id not in held:
            plan.move(account.id, -net)
            continue
        taken = min(net, held[account.id].balance)
        plan.move(account.id, -taken)
        if net > taken:
            player_id = account.player_id or account.name.partition(":")[2]
            receivable = repository.ensure_account(
                receivable_account(player_id), AccountKind.HOUSE, player_id
            )
            plan.move(receivable.id, -(net - taken))


def takes_back(repository: LedgerRepository, round_id: int, owners: Sequence[str]) -> bool:
    """Whether voiding these slices takes coins out of a wallet (the round paid someone more
    than they staked). Recovery voids such slices last, once every refund is in the wallets."""
    return any(
        account.kind == AccountKind.WALLET and net > 0
        for account, net in repository.net_by_account(round_id, owners)
    )
