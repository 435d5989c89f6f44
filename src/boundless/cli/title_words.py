"""The words a title's players read, from the same file the web client reads.

A title names its vocabulary (``rules.title.vocabulary``): the code always says bet, coins and
dealer, and a player at a Boundless table reads play, coins and facilitator, at a casino-style
table bet, chips and dealer. Every word is the web client's ``vocab.<vocabulary>.<word>``
string in ``web/i18n/en.json`` (the terms in :data:`WORDS`), defined in every language the
client speaks, so the terminal and the browser say the same.
Engine messages are written in the code's words; :func:`in_title_words` retells them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from boundless.cli.words import STRINGS, read_strings, side_bet_name
from boundless.core.rules import RuleSet

WORDS = (
    "bet", "bets", "coins", "dealer", "win", "loss", "push",
    "side_bet", "blackjack", "surrendered", "surrendered20", "even_money",
)  # fmt: skip


def strings_file() -> Path:
    return STRINGS


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """The words one vocabulary uses; ``outcomes`` maps a hand's outcome code to its word."""

    bet: str
    bets: str
    coins: str
    dealer: str
    side_bet: str
    outcomes: dict[str, str]
    side_win: str
    side_lose: str


@cache
def vocabulary(name: str) -> Vocabulary:
    strings = read_strings()
    word = {term: strings[f"vocab.{name}.{term}"] for term in WORDS}
    return Vocabulary(
        bet=word["bet"],
        bets=word["bets"],
        coins=word["coins"],
        dealer=word["dealer"],
        side_bet=word["side_bet"],
        outcomes={
            "blackjack": word["blackjack"],
            "win": word["win"],
            "lose": word["loss"],
            "push": word["push"],
            "surrender": word["surrendered"],
            "surrender20": word["surrendered20"],
            "even_money": word["even_money"],
        },
        side_win=word["win"],
        side_lose=word["loss"],
    )


def words_of(rules: RuleSet) -> Vocabulary:
    return vocabulary(rules.title.vocabulary)


def place_word(rules: RuleSet) -> str:
    """``seat`` at a private table (one player on several seats), else ``spot``."""
    return "spot" if rules.table.shared else "seat"


_PLAYER = re.compile(r"^player '[^']*'(?: spot (\d+))?:?\s*")


def in_title_words(message: str, rules: RuleSet) -> str:
    """An engine message in the title's words, addressed to the player it is about.

    ``player 'you' spot 3: bets of 50.00 exceed the 10.00 free coins`` at Boo Bucks reads
    ``seat 3: bets of 50.00 exceed the 10.00 free chips``.
    """
    words = words_of(rules)
    place = place_word(rules)
    match = _PLAYER.match(message)
    if match is not None:
        where = f"{place} {match.group(1)}: " if match.group(1) else ""
        message = where + message[match.end() :]
    said = {
        "side bets": f"{words.side_bet}s",
        "side bet": words.side_bet,
        "bets": words.bets,
        "bet": words.bet,
        "coins": words.coins,
        "dealer": words.dealer,
        "spots": f"{place}s",
        "spot": place,
    }
    message = _CODE_WORDS.sub(lambda found: said[found.group(0)], message)
    keys = {bet.key for bet in rules.side_bets}
    return _QUOTED.sub(
        lambda found: (
            side_bet_name(rules, found.group(1)) if found.group(1) in keys else found.group(0)
        ),
        message,
    )


_QUOTED = re.compile(r"'([a-z0-9_]+)'")


# Longest first, one pass: a word put in is never replaced again.
_CODE_WORDS = re.compile(r"\b(side bets|side bet|bets|bet|coins|dealer|spots|spot)\b")
