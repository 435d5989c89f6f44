"""The server's one shoe-reveal check: a stored shoe checked by the core's commitment."""

from __future__ import annotations

from boundless.core.cards import Card
from boundless.core.shoe import Shoe
from boundless.server.storage.models import Shoe as ShoeRow
from boundless.server.tables.shoes import public_reveal

CARDS = [Card.parse(code) for code in ("AS", "TD", "9H", "2C", "KS", "5D")]


def _row(shoe: Shoe, cards: str, finished: bool = True) -> ShoeRow:
    return ShoeRow(
        table_id="boundless-1",
        shoe_number=1,
        commitment=shoe.commitment,
        salt=shoe.salt_hex,
        cards=cards,
        finished=finished,
    )


def test_a_finished_shoe_verifies_and_a_changed_order_does_not() -> None:
    shoe = Shoe(CARDS, None, salt_hex="ab" * 16)
    stored = "".join(str(card) for card in CARDS)
    reveal = public_reveal(_row(shoe, stored))
    assert reveal is not None and reveal["verified"] is True
    assert reveal["cards"] == ["AS", "TD", "9H", "2C", "KS", "5D"]
    swapped = stored[2:4] + stored[:2] + stored[4:]
    tampered = public_reveal(_row(shoe, swapped))
    assert tampered is not None and tampered["verified"] is False
    assert public_reveal(_row(shoe, stored, finished=False)) is None  # secret until finished
    assert public_reveal(None) is None
