"""Decision verbs, their codes in position arrays, and where a decision came from."""

from __future__ import annotations

from enum import IntEnum


class WordEnum(IntEnum):
    """An integer code (as position arrays hold it) whose word is its lower-cased name."""

    @property
    def word(self) -> str:
        return self.name.lower()


class Action(WordEnum):
    HIT = 0
    STAND = 1
    DOUBLE = 2
    SPLIT = 3
    SURRENDER = 4
    SURRENDER20 = 5

    @classmethod
    def from_word(cls, word: str) -> Action:
        try:
            return cls[word.strip().upper()]
        except (KeyError, AttributeError):
            known = ", ".join(action.word for action in cls)
            raise ValueError(f"unknown action {word!r} (known: {known})") from None


class Source(WordEnum):
    """Who made a decision: the player, the autoplay, or a rule that replaced the player's."""

    PLAYER = 0
    AUTOPLAY = 1
    FALLBACK = 2


NO_DECISION = -1
