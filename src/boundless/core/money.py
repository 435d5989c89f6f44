"""Exact ratios for payouts and refunds; every amount is an ``int`` of minor units.

A payout that is not a whole unit is rounded down (DECISIONS.md rule 1).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema

_ODDS = re.compile(r"^\s*(\d+)\s*:\s*(\d+)\s*$")
_FRACTION = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


class TextValue:
    """A value that rule files and JSON write as text: pydantic validates it with ``parse``
    and serialises it with ``str``."""

    __slots__ = ()

    @classmethod
    def parse(cls, text: object) -> Any:
        raise NotImplementedError

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> Any:
        return core_schema.no_info_plain_validator_function(
            cls.parse, serialization=core_schema.plain_serializer_function_ser_schema(str)
        )


@dataclass(frozen=True, slots=True)
class Odds(TextValue):
    """``win:per`` odds, so a winning ``stake`` returns ``stake + floor(stake*win/per)``."""

    win: int
    per: int = 1

    @classmethod
    def parse(cls, text: object) -> Odds:
        if isinstance(text, Odds):
            return text
        if isinstance(text, bool) or not isinstance(text, (str, int)):
            raise ValueError(f"odds must be text like '3:2', got {text!r}")
        if isinstance(text, int):
            if text < 0:
                raise ValueError(f"odds must not be negative, got {text}")
            return cls(text, 1)
        match = _ODDS.match(text)
        if match is None:
            raise ValueError(f"odds must look like '3:2', got {text!r}")
        win, per = int(match.group(1)), int(match.group(2))
        if per == 0:
            raise ValueError(f"odds {text!r} divide by zero")
        return cls(win, per)

    def __lt__(self, other: Odds) -> bool:
        return self.win * other.per < other.win * self.per

    def __gt__(self, other: Odds) -> bool:
        return other < self

    def profit(self, stake_amount: int) -> int:
        return stake_amount * self.win // self.per

    def payout(self, stake_amount: int) -> int:
        """Stake plus winnings, rounded down to the unit."""
        return stake_amount + self.profit(stake_amount)

    def as_float(self) -> float:
        return self.win / self.per

    def __str__(self) -> str:
        return f"{self.win}:{self.per}"


@dataclass(frozen=True, slots=True)
class Ratio(TextValue):
    """A fraction of a stake such as ``1/2`` (surrender refund, insurance cost)."""

    numerator: int
    denominator: int

    @classmethod
    def parse(cls, text: object) -> Ratio:
        if isinstance(text, Ratio):
            return text
        if not isinstance(text, str):
            raise ValueError(f"a ratio must be text like '1/2', got {text!r}")
        match = _FRACTION.match(text)
        if match is None:
            raise ValueError(f"a ratio must look like '1/2', got {text!r}")
        numerator, denominator = int(match.group(1)), int(match.group(2))
        if denominator == 0 or numerator > denominator:
            raise ValueError(f"ratio {text!r} must lie between 0 and 1")
        return cls(numerator, denominator)

    def of(self, amount: int) -> int:
        """The ratio of ``amount``, rounded down to the unit."""
        return amount * self.numerator // self.denominator

    def of_array(self, amounts: Any) -> Any:
        """:meth:`of` for a numpy array of amounts."""
        return (amounts * self.numerator) // self.denominator

    def as_float(self) -> float:
        return self.numerator / self.denominator

    def __str__(self) -> str:
        return f"{self.numerator}/{self.denominator}"


def format_amount(amount: int, unit_digits: int = 2) -> str:
    """``123456`` → ``"1,234.56"`` (display only)."""
    sign = "-" if amount < 0 else ""
    whole, cents = divmod(abs(amount), 10**unit_digits)
    if unit_digits == 0:
        return f"{sign}{whole:,}"
    return f"{sign}{whole:,}.{cents:0{unit_digits}d}"
