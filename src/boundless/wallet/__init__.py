"""The wallet layer: the port the server moves players' coins through, and its adapters.

See :mod:`boundless.wallet.port` for the contract. ``internal`` (the default) keeps the coins in
our own ledger.
"""

from boundless.wallet.internal import INTERNAL, InternalWallet, InternalWallets, wallet_amounts
from boundless.wallet.lifecycle import close_wallets, start_wallets
from boundless.wallet.port import (
    BetDebit,
    Wallet,
    WalletError,
    WalletProvider,
    WalletRefusal,
    WalletUnavailableError,
    WalletWrapper,
)

__all__ = [
    "INTERNAL",
    "BetDebit",
    "InternalWallet",
    "InternalWallets",
    "Wallet",
    "WalletError",
    "WalletProvider",
    "WalletRefusal",
    "WalletUnavailableError",
    "WalletWrapper",
    "close_wallets",
    "start_wallets",
    "wallet_amounts",
]
