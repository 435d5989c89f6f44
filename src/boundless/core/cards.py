"""Cards as small integers: ``code = (rank - 1) * 4 + suit``.

Ranks run 1 (ace) to 13 (king); suits are spades, hearts, diamonds, clubs in that order.
An ``int`` subclass keeps cards cheap to store in tuples and numpy arrays.
"""

from __future__ import annotations

from collections.abc import Iterable

from boundless.core.errors import InvalidCardError

RANK_LETTERS = "A23456789TJQK"
SUIT_LETTERS = "SHDC"
SUIT_SYMBOLS = "♠♥♦♣"
RED_SUITS = frozenset({1, 2})
ACE = 1
TEN_VALUE = 10


class Card(int):
    """One playing card. ``Card.parse("TH")``, ``str(card) == "TH"``."""

    __slots__ = ()

    def __new__(cls, code: int) -> Card:
        if not 0 <= code < 52:
            raise InvalidCardError(f"card code {code} is outside 0..51")
        return super().__new__(cls, code)

    @classmethod
    def of(cls, rank: int, suit: int) -> Card:
        if not 1 <= rank <= 13:
            raise InvalidCardError(f"rank {rank} is outside 1..13")
        if not 0 <= suit <= 3:
            raise InvalidCardError(f"suit {suit} is outside 0..3")
        return cls((rank - 1) * 4 + suit)

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``AS``, ``TH``, ``10H`` (case-insensitive)."""
        if not isinstance(text, str):
            raise InvalidCardError(f"card must be text like 'AS', got {text!r}")
        cleaned = text.strip().upper()
        if cleaned.startswith("10"):
            cleaned = "T" + cleaned[2:]
        if len(cleaned) != 2:
            raise InvalidCardError(f"card {text!r} is not rank+suit such as 'AS' or '10H'")
        rank_letter, suit_letter = cleaned[0], cleaned[1]
        if rank_letter not in RANK_LETTERS:
            raise InvalidCardError(f"card {text!r} has unknown rank {rank_letter!r}")
        if suit_letter not in SUIT_LETTERS:
            raise InvalidCardError(f"card {text!r} has unknown suit {suit_letter!r}")
        return cls.of(RANK_LETTERS.index(rank_letter) + 1, SUIT_LETTERS.index(suit_letter))

    @property
    def rank(self) -> int:
        return int(self) // 4 + 1

    @property
    def suit(self) -> int:
        return int(self) % 4

    @property
    def value(self) -> int:
        """Blackjack value with the ace as 1."""
        return min(self.rank, TEN_VALUE)

    @property
    def is_red(self) -> bool:
        return self.suit in RED_SUITS

    @property
    def rank_letter(self) -> str:
        return RANK_LETTERS[self.rank - 1]

    @property
    def suit_letter(self) -> str:
        return SUIT_LETTERS[self.suit]

    def __str__(self) -> str:
        return self.rank_letter + self.suit_letter

    def __repr__(self) -> str:
        return f"Card('{self}')"

    def pretty(self) -> str:
        rank = "10" if self.rank == 10 else self.rank_letter
        return rank + SUIT_SYMBOLS[self.suit]


ALL_CARDS: tuple[Card, ...] = tuple(Card(code) for code in range(52))


def parse_cards(texts: Iterable[str]) -> tuple[Card, ...]:
    return tuple(Card.parse(text) for text in texts)


def fresh_decks(decks: int) -> list[Card]:
    """``decks`` complete 52-card decks in a fixed, unshuffled order."""
    if decks < 1:
        raise InvalidCardError(f"a shoe needs at least one deck, got {decks}")
    return [card for _ in range(decks) for card in ALL_CARDS]
