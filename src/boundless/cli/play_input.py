"""What the player types at ``boundless play``: amounts, actions, spot lists and one-line bets.

Pure parsing; every ``ValueError`` carries a message for the player.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from boundless.core.round import Action

UNIT_DIGITS = 2

ACTION_KEYS: dict[Action, str] = {
    Action.HIT: "h",
    Action.STAND: "s",
    Action.DOUBLE: "d",
    Action.SPLIT: "p",
    Action.SURRENDER: "r",
    Action.SURRENDER20: "u",
}
ACTION_NAMES: dict[Action, str] = {
    Action.HIT: "hit",
    Action.STAND: "stand",
    Action.DOUBLE: "double down",
    Action.SPLIT: "split",
    Action.SURRENDER: "surrender",
    Action.SURRENDER20: "surrender 20%",
}
_ACTION_WORDS: dict[str, Action] = {
    **{key: action for action, key in ACTION_KEYS.items()},
    **{action.word: action for action in Action},
    **{name.replace(" ", ""): action for action, name in ACTION_NAMES.items()},
    "dd": Action.DOUBLE,
}


def parse_amount(text: str, unit_digits: int = UNIT_DIGITS) -> int:
    """``"12.50"`` → ``1250``; raises ``ValueError`` with a message for the player."""
    cleaned = text.strip().replace(",", "").replace("_", "")
    not_a_number = f"{text.strip()!r} is not an amount: type a number like 10 or 12.50"
    try:
        value = Decimal(cleaned)
    except InvalidOperation:
        raise ValueError(not_a_number) from None
    if not value.is_finite():
        raise ValueError(not_a_number)
    if value < 0:
        raise ValueError("an amount cannot be negative")
    scaled = value.scaleb(unit_digits)
    if scaled != scaled.to_integral_value():
        raise ValueError(f"{text.strip()!r} has more than {unit_digits} decimal places")
    return int(scaled)


def parse_action(text: str) -> Action | None:
    return _ACTION_WORDS.get(text.strip().lower().replace(" ", "").replace("-", ""))


def parse_numbers(text: str) -> list[int]:
    """``"1 3"``, ``"1,3"`` or ``"13"`` → ``[1, 3]``; ``ValueError`` when not numbers."""
    cleaned = text.replace(",", " ").split()
    digits = cleaned if len(cleaned) > 1 else list(cleaned[0]) if cleaned else []
    if not digits or not all(item.isdigit() for item in digits):
        raise ValueError(f"{text.strip()!r} is not a list of numbers")
    return [int(item) for item in digits]


def parse_spots(text: str) -> list[int]:
    """Spot numbers as :func:`parse_numbers` reads them, each at most once."""
    try:
        spots = parse_numbers(text)
    except ValueError:
        raise ValueError(f"{text.strip()!r}: type spot numbers such as 1 or 1 3") from None
    if len(set(spots)) != len(spots):
        raise ValueError(f"{text.strip()!r} names a spot twice")
    return spots
