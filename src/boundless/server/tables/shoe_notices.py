"""What a shuffle notice tells every watcher about the burn.

The card shown after a shuffle is public at once; the cards burned face down are not: a watcher
learns only how many there are. Their identities come with the shoe's reveal once the shoe is
finished (they are part of its card order, cards 2 to n+1), as every other undealt card does.
"""

from __future__ import annotations

from typing import Any

from boundless.core.shoe import BurnRecord


def public_burn(burn: BurnRecord | None) -> dict[str, Any] | None:
    if burn is None:
        return None
    return {"revealed": str(burn.revealed), "burned_count": len(burn.burned)}
