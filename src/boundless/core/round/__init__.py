"""The shared round: public cards, per-position private play, settlement and views."""

from boundless.core.round.actions import Action, Source
from boundless.core.round.round import SharedRound

__all__ = ["Action", "SharedRound", "Source"]
