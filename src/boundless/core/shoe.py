"""The shoe: Fisher-Yates shuffle, cut card, reveal-and-burn and a SHA-256 commitment.

At each shuffle the order is committed to as ``sha256(salt_hex + ":" + cards)`` where ``cards``
is the concatenation of the two-letter card codes in dealing order (``"AS9DTH..."``). The salt
and the order are revealed when the shoe is finished, so anyone can check the cards afterwards.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from boundless.core.cards import Card, fresh_decks, parse_cards
from boundless.core.errors import InvalidCardError, ShoeExhaustedError
from boundless.core.random_source import RandomSource

SALT_BYTES = 16


def commitment_of(salt_hex: str, cards: Sequence[Card]) -> str:
    payload = salt_hex + ":" + "".join(str(card) for card in cards)
    return hashlib.sha256(payload.encode("ascii")).hexdigest()


def fisher_yates(cards: list[Card], source: RandomSource) -> None:
    """Shuffle in place: for i from the top down, swap i with a uniform j in 0..i."""
    for index in range(len(cards) - 1, 0, -1):
        other = source.randbelow(index + 1)
        cards[index], cards[other] = cards[other], cards[index]


@dataclass(frozen=True, slots=True)
class ShoeReveal:
    """What is published when a shoe is finished."""

    commitment: str
    salt_hex: str
    cards: tuple[Card, ...]

    def verify(self) -> bool:
        return commitment_of(self.salt_hex, self.cards) == self.commitment

    def to_json(self) -> dict[str, object]:
        return {
            "commitment": self.commitment,
            "salt": self.salt_hex,
            "cards": [str(card) for card in self.cards],
        }

    @classmethod
    def from_json(cls, data: object) -> ShoeReveal:
        if not isinstance(data, dict):
            raise InvalidCardError("a shoe reveal must be a JSON object")
        missing = [key for key in ("commitment", "salt", "cards") if key not in data]
        if missing:
            raise InvalidCardError(f"shoe reveal is missing {', '.join(missing)}")
        commitment, salt, cards = data["commitment"], data["salt"], data["cards"]
        if not isinstance(commitment, str) or not isinstance(salt, str):
            raise InvalidCardError("shoe reveal 'commitment' and 'salt' must be strings")
        if not isinstance(cards, list):
            raise InvalidCardError("shoe reveal 'cards' must be a list of card codes")
        return cls(commitment=commitment.lower(), salt_hex=salt.lower(), cards=parse_cards(cards))


@dataclass(frozen=True, slots=True)
class BurnRecord:
    """The card shown after a shuffle and the face-down cards burned because of it."""

    revealed: Card
    burned: tuple[Card, ...]


class Shoe:
    """An ordered stack of cards with a cut card and a draw position."""

    def __init__(self, cards: Sequence[Card], cut_index: int | None, salt_hex: str = "") -> None:
        self._cards = tuple(cards)
        if cut_index is not None and not 0 < cut_index <= len(self._cards):
            raise InvalidCardError(f"cut index {cut_index} is outside 1..{len(self._cards)}")
        self.cut_index = cut_index
        self.salt_hex = salt_hex
        self.commitment = commitment_of(salt_hex, self._cards)
        self.position = 0

    @classmethod
    def shuffled(cls, decks: int, penetration: float, source: RandomSource) -> Shoe:
        cards = fresh_decks(decks)
        fisher_yates(cards, source)
        cut_index = max(1, min(len(cards), round(len(cards) * penetration)))
        return cls(cards, cut_index, source.token_bytes(SALT_BYTES).hex())

    @classmethod
    def stacked(cls, cards: Sequence[Card]) -> Shoe:
        """A forced order with no cut card (replays and scenario files)."""
        return cls(cards, None)

    def __len__(self) -> int:
        return len(self._cards)

    @property
    def remaining(self) -> int:
        return len(self._cards) - self.position

    @property
    def cut_card_out(self) -> bool:
        """True once a card at or beyond the cut card has been drawn."""
        return self.cut_index is not None and self.position > self.cut_index

    def draw(self) -> Card:
        if self.position >= len(self._cards):
            raise ShoeExhaustedError(f"the shoe has no cards left after {len(self._cards)} cards")
        card = self._cards[self.position]
        self.position += 1
        return card

    def burn(self) -> BurnRecord:
        """Reveal the top card and burn as many more as its value (ace 1, tens 10)."""
        revealed = self.draw()
        burned = tuple(self.draw() for _ in range(revealed.value))
        return BurnRecord(revealed=revealed, burned=burned)

    def reveal(self) -> ShoeReveal:
        return ShoeReveal(commitment=self.commitment, salt_hex=self.salt_hex, cards=self._cards)

    def dealt(self) -> tuple[Card, ...]:
        return self._cards[: self.position]

    def undealt(self) -> tuple[Card, ...]:
        return self._cards[self.position :]
