"""Decision verbs, their codes in position arrays, and where a decision came from."""

from __future__ import annotations

from enum import IntEnum


class Action(IntEnum):
    HIT = 0
    STAND = 1
    DOUBLE = 2
    SPLIT = 3
    SURRENDER = 4
    SURRENDER20 = 5

    @property
    def word(self) -> str:
        return self.name.lower()

    @classmethod
    def from_word(cls, word: str) -> Action:
        try:
            return cls[word.strip().upper()]
        except (KeyError, AttributeError):
            known = ", ".join(action.word for action in cls)
            raise ValueError(f"unknown action {word!r} (known: {known})") from None


class Source(IntEnum):
    """Who made a decision: the player, the autoplay, or a rule that replaced the player's."""

    PLAYER = 0
    AUTOPLAY = 1
    FALLBACK = 2

    @property
    def word(self) -> str:
        return self.name.lower()


NO_DECISION = -1
