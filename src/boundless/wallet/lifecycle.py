"""Starting and stopping a wallet provider that has a life of its own.

The ``internal`` wallet has none. The ``seamless`` one delivers pending credits and rollbacks in
the background from ``start(sessions)`` until ``close()``. A provider that wraps another (player
protection's) passes both on by having them too; one without them needs nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy.orm import Session, sessionmaker


def start_wallets(
    wallets: Any, sessions: sessionmaker[Session], owners: Sequence[str] | None = None
) -> None:
    """``owners``: the ledger owners this process writes for (a gateway's slices), whose
    unfinished calls of a previous life it recovers; ``None``: every owner (``serve``)."""
    start = getattr(wallets, "start", None)
    if callable(start) and owners is None:
        start(sessions)
    elif callable(start):
        start(sessions, owners)


def close_wallets(wallets: Any) -> None:
    close = getattr(wallets, "close", None)
    if callable(close):
        close()
