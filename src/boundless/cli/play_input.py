"""What the player types at ``boundless play``: amounts, actions, spot lists and one-line bets.

Pure parsing; every ``ValueError`` carries a message for the player.
"""

from __future__ import annotations

from collections.abc import Sequence
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


def _squash(text: str) -> str:
    return text.lower().replace("_", "").replace("-", "").replace(" ", "")


def side_bet_key(word: str, keys: Sequence[str]) -> str:
    """The side-bet key ``word`` names: the key itself, or the start of only one key."""
    wanted = _squash(word)
    exact = [key for key in keys if _squash(key) == wanted]
    if exact:
        return exact[0]
    starts = [key for key in keys if _squash(key).startswith(wanted)]
    if len(starts) == 1:
        return starts[0]
    if not starts:
        raise ValueError(f"{word!r} is not a side bet open now")
    raise ValueError(f"{word!r} could be {' or '.join(starts)}: type more of the name")


def parse_bet_line(text: str, side_keys: Sequence[str]) -> tuple[int, dict[str, int]]:
    """``"10 pair 1 bust 2.50"`` → ``(1000, {"pair": 100, "bust_bonus": 250})``.

    The first amount is the main bet; each side bet is its name (or the start of it) and an
    amount, ``name amount`` or ``name=amount``. A line of one amount is a main bet alone.
    """
    tokens = text.replace("=", " ").replace(",", " ").split()
    if not tokens:
        raise ValueError("type an amount")
    main = parse_amount(tokens[0])
    sides: dict[str, int] = {}
    rest = tokens[1:]
    if len(rest) % 2:
        raise ValueError(f"{rest[-1]!r} needs an amount after it, e.g. {rest[-1]} 1")
    for name, amount in zip(rest[::2], rest[1::2], strict=True):
        key = side_bet_key(name, side_keys)
        if key in sides:
            raise ValueError(f"{name!r} is named twice")
        sides[key] = parse_amount(amount)
    return main, sides
