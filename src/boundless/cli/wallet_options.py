"""The wallet options ``serve``, ``gateway`` and ``cluster`` share: which wallet the players'
coins move through (``--wallet internal|seamless``), the operator's wallet URL, the currency,
and the secret shared with the operator, read from ``$BOUNDLESS_WALLET_SECRET`` only (a command
line shows in ``ps``). The secret also signs the operator's ``/api/v1/operator/sessions``."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Annotated, Any

import typer

from boundless.cli.cli_errors import fail

if TYPE_CHECKING:
    from boundless.server.players.operator_sessions import OperatorLaunches

WALLETS = ("internal", "seamless")

WalletOption = Annotated[
    str,
    typer.Option(
        "--wallet",
        help="Where players' coins live: internal (our ledger) or seamless (the operator's "
        "wallet at --wallet-url; secret in $BOUNDLESS_WALLET_SECRET).",
    ),
]
WalletUrlOption = Annotated[
    str | None, typer.Option("--wallet-url", help="The operator's wallet API (seamless).")
]
CurrencyOption = Annotated[
    str, typer.Option("--currency", help="ISO currency of the operator's accounts.")
]
WalletPoolOption = Annotated[
    int,
    typer.Option(
        "--wallet-connections", min=1, max=4096, help="Calls in flight to the operator at most."
    ),
]


def wallet_choice(
    wallet: str, url: str | None, currency: str, connections: int = 128
) -> tuple[Any, OperatorLaunches | None]:
    """The wallet provider and the operator launches the options ask for, checked (a precise
    one-line error and exit 2 otherwise)."""
    from boundless.server.players.operator_sessions import OperatorLaunches
    from boundless.wallet import INTERNAL
    from boundless.wallet.signing import SECRET_VARIABLE, SecretError, secret_from_environment

    if wallet not in WALLETS:
        fail(f"--wallet {wallet!r}: choose one of {', '.join(WALLETS)}")
    if re.fullmatch(r"[A-Z]{3}", currency) is None:
        fail(f"--currency {currency!r}: give a three-letter ISO code such as EUR")
    secret: bytes | None = None
    if os.environ.get(SECRET_VARIABLE) or wallet == "seamless":
        try:
            secret = secret_from_environment()
        except SecretError as error:
            fail(str(error))
    launches = None if secret is None else OperatorLaunches(secret, currency)
    if wallet == "internal":
        if url:
            fail("--wallet-url is for --wallet seamless")
        return INTERNAL, launches
    if not url or re.match(r"https?://[^/\s]+", url) is None:
        fail("--wallet seamless needs --wallet-url http(s)://host[:port][/path]")
    from boundless.wallet.operator_client import ClientSettings
    from boundless.wallet.seamless import SeamlessWallets

    assert secret is not None
    settings = ClientSettings(url, secret, max_connections=connections)
    return SeamlessWallets(settings, currency=currency), launches


def wallet_arguments(wallet: str, url: str | None, currency: str) -> list[str]:
    """The same options for a child process (the secret travels in its environment)."""
    arguments = ["--wallet", wallet, "--currency", currency]
    return [*arguments, "--wallet-url", url] if url else arguments
