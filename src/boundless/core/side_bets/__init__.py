"""Side-bet evaluators: pure functions from cards to the patterns they make.

Each kind lists its patterns; a title's pay table says which of them pay and how much,
and the highest-paying matched pattern is the one paid (DECISIONS.md rule 4).
"""

from boundless.core.side_bets.base import (
    PENDING,
    SIDE_BET_KINDS,
    SideBetKind,
    best_paying_pattern,
)

__all__ = ["PENDING", "SIDE_BET_KINDS", "SideBetKind", "best_paying_pattern"]

# Importing the modules registers their kinds.
from boundless.core.side_bets import boo_bucks_bets as _boo_bucks_bets  # noqa: F401
from boundless.core.side_bets import boundless_bets as _boundless_bets  # noqa: F401
