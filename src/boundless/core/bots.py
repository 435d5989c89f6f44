"""Bot players' policies: what each kind of bot bets and decides, from what a player sees.

One module for every interface: the terminal table, the live server's bots and the benchmarks
each turn what they show a player into a :class:`HandSight` and ask :func:`decide`. A bot sees
only its own hand, the dealer's up card and its legal actions; ``None`` leaves the hand to the
title's autoplay rule.

The doubler doubles 9-11 and soft 13-18 (A2-A7) on its first two cards: a soft hand cannot
bust on one card, so an aggressive player doubles it; it splits every pair it may.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from boundless.core.cards import Card
from boundless.core.hands import hand_total
from boundless.core.round.actions import Action

BOT_NAMES = ("Ana", "Ben", "Cleo", "Dan", "Eve", "Finn", "Gus", "Hana", "Ivo", "Jun")
BASE_BET_IN_MINIMUMS = 10
"""Bots bet this many table minimums on the main bet (times the policy's multiple)."""


class Policy(StrEnum):
    HIT_TO_17 = "hit_to_17"
    AUTOPLAY = "autoplay"
    DOUBLER = "doubler"
    SIDE_BETS = "side_bets"
    CAUTIOUS = "cautious"


@dataclass(frozen=True, slots=True)
class Traits:
    label: str
    main_multiple: int = 1
    """The main bet in multiples of ``BASE_BET_IN_MINIMUMS`` table minimums (0: side bets only)."""
    spots_wanted: int = 1
    insures: bool = False
    """Takes insurance (and even money) whenever offered."""


TRAITS: dict[Policy, Traits] = {
    Policy.HIT_TO_17: Traits("hits to 17"),
    Policy.AUTOPLAY: Traits("autoplay rule"),
    Policy.DOUBLER: Traits("doubles & splits", main_multiple=2, spots_wanted=2, insures=True),
    Policy.SIDE_BETS: Traits("side options only", main_multiple=0),
    Policy.CAUTIOUS: Traits("cautious"),
}


@dataclass(frozen=True, slots=True)
class HandSight:
    """What a bot sees of the hand in play."""

    cards: tuple[Card, ...]
    up_card: Card | None
    legal: frozenset[Action]

    @property
    def total(self) -> int:
        return hand_total(self.cards)[0]

    @property
    def soft(self) -> bool:
        return hand_total(self.cards)[1]

    @property
    def up_value(self) -> int:
        """The dealer's up card with the ace as 1 (0 when not shown)."""
        return 0 if self.up_card is None else self.up_card.value


def decide(policy: Policy, sight: HandSight) -> Action | None:
    """The bot's action for the hand in play, if legal; ``None`` leaves it to autoplay."""
    legal, total = sight.legal, sight.total
    if policy is Policy.AUTOPLAY:
        return None
    if policy is Policy.DOUBLER:
        if Action.SPLIT in legal:
            return Action.SPLIT
        good_double = 9 <= total <= 11 or (sight.soft and 13 <= total <= 18)
        if Action.DOUBLE in legal and len(sight.cards) == 2 and good_double:
            return Action.DOUBLE
        choice = Action.HIT if total < 15 else Action.STAND
    elif policy is Policy.CAUTIOUS:
        if Action.SURRENDER in legal and total in (15, 16) and sight.up_value in (9, 10):
            return Action.SURRENDER
        choice = Action.HIT if total < 12 else Action.STAND
    else:
        choice = Action.HIT if total < 17 else Action.STAND
    return choice if choice in legal else None


def lineup(count: int, side_bets: bool = True) -> list[tuple[str, Policy]]:
    """``count`` bots cycling through the policies, each with its own name. Without side bets
    at the table the side-bets-only policy would never play: it is left out."""
    policies = [policy for policy in Policy if side_bets or policy is not Policy.SIDE_BETS]
    return [(bot_name(index), policies[index % len(policies)]) for index in range(count)]


def bot_name(index: int) -> str:
    """Ana, Ben, ... Jun, then Ana 2, Ben 2, ..."""
    base = BOT_NAMES[index % len(BOT_NAMES)]
    return base if index < len(BOT_NAMES) else f"{base} {index // len(BOT_NAMES) + 1}"


def parse_sight(cards: Sequence[str], up_card: str | None, legal: Sequence[str]) -> HandSight:
    """A sight from the protocol's words: card codes and action words."""
    return HandSight(
        tuple(Card.parse(code) for code in cards),
        None if not up_card else Card.parse(up_card),
        frozenset(Action.from_word(word) for word in legal),
    )
