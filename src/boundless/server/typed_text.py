"""The one rule for text a person types that others see: an operator's reason, a display name,
a private table's name. It is shown to players, kept in the database and written to logs on one
line, where a newline, a NUL or an escape could forge or hide lines and a bidirectional override
could make a name read as another. Refused: C0/C1 controls (NUL included), line and paragraph
separators and the bidirectional controls; spaces around the text are dropped.
"""

from __future__ import annotations

import unicodedata

from pydantic import AfterValidator

UNPRINTABLE_CATEGORIES = frozenset({"Cc", "Zl", "Zp"})
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f")


def one_printable_line(what: str, text: str) -> str:
    """``text`` without its surrounding spaces; ValueError naming the first character refused,
    or when nothing is left."""
    for character in text:
        if character in BIDI_CONTROLS or (
            unicodedata.category(character) in UNPRINTABLE_CATEGORIES and character not in " \t"
        ):
            code = f"U+{ord(character):04X}"
            raise ValueError(f"the {what} must be one line of printable text (it holds {code})")
    stripped = text.strip()
    if not stripped:
        raise ValueError(f"the {what} is blank")
    return stripped


def printable(what: str) -> AfterValidator:
    """The rule as a pydantic validator for ``Annotated[str, ..., printable("display name")]``."""
    return AfterValidator(lambda text: one_printable_line(what, text))
