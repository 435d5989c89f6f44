"""Environments for agents on the real engine (the optional extra ``.[agents]``).

``boundless/Blackjack-v0`` (Gymnasium, :mod:`.blackjack_env`) is registered when this package
is imported; the shared table for several agents is :mod:`.shared_table_env` (PettingZoo);
exact grading of decisions is :mod:`.grading`. See docs/agents.md.
"""

from __future__ import annotations

from contextlib import suppress

ENV_ID = "boundless/Blackjack-v0"


def register() -> None:
    """Register ``boundless/Blackjack-v0`` with Gymnasium (once)."""
    import gymnasium

    if ENV_ID not in gymnasium.registry:
        gymnasium.register(ENV_ID, entry_point="boundless.agents.blackjack_env:BlackjackEnv")


with suppress(ImportError):  # without the extra, the modules that need it fail on import
    register()

__all__ = ["ENV_ID", "register"]
