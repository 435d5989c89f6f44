"""Who sits at a table and what they are asked: offers, views and the Decider protocol.

A decider (a person at a console, a bot, a script in a test) only sees its own seat: its bet
offer, its own hands, the dealer's up card and its legal actions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from boundless.core.cards import Card, parse_cards
from boundless.core.hands import hand_total
from boundless.core.round import Action


class PlayerLeft(Exception):
    """Raised by a decider whose player leaves the table (quit, end of input, Ctrl-C)."""


# ---- what deciders see and answer -----------------------------------------------------------
@dataclass(frozen=True, slots=True)
class SideOption:
    """A side bet open for betting this round."""

    key: str
    rounds_left: int | None  # rounds it stays available in this shoe, this one included
    min_amount: int
    max_amount: int


@dataclass(frozen=True, slots=True)
class SpotBet:
    """One player's stakes on one spot: the main bet (0 for side-only) and side bets."""

    spot: int
    main_amount: int
    side_amounts: Mapping[str, int] = field(default_factory=dict)

    @property
    def total_amount(self) -> int:
        return self.main_amount + sum(self.side_amounts.values())


@dataclass(frozen=True, slots=True)
class BetOffer:
    """What a player may bet this round; ``check`` asks the engine about a proposed bet."""

    player_id: str
    shoe_number: int
    round_in_shoe: int
    balance: int
    spots: tuple[int, ...]
    max_spots: int
    unit_amount: int
    min_main_amount: int
    max_main_amount: int
    side_options: tuple[SideOption, ...]
    closed_side_options: tuple[str, ...]
    check: Callable[[Sequence[SpotBet]], str | None]
    private: bool = False  # one player at the table, on any of its seats
    seat_rule_multiple: int = 0  # a main bet at most N x the total of the seat to its right

    def side_option(self, key: str) -> SideOption | None:
        return next((option for option in self.side_options if option.key == key), None)

    @property
    def spot_word(self) -> str:
        return "seat" if self.private else "spot"


@dataclass(frozen=True, slots=True)
class SideBetChoice:
    """Which side-bet groups to put on offer, asked while no bet is on the table.

    ``groups`` maps each offer group to its side-bet keys (a wheel group holds a seat key and a
    dealer key); ``current`` is the choice in force; ``check`` asks the engine about a choice.
    """

    player_id: str
    groups: Mapping[str, Sequence[str]]
    count: int
    current: tuple[str, ...]
    check: Callable[[Sequence[str]], str | None]


@dataclass(frozen=True, slots=True)
class InsuranceOffer:
    player_id: str
    spot: int
    kind: str  # "insurance" or "even_money"
    cost_amount: int  # 0 for even money: it is paid out of the main bet
    main_amount: int
    cards: tuple[Card, ...]
    up_card: Card
    free_amount: int


@dataclass(frozen=True, slots=True)
class SeatHand:
    """One of the player's hands as the core's player view shows it."""

    cards: tuple[Card, ...]
    total: int
    status: str
    bet_amount: int
    from_split: bool


@dataclass(frozen=True, slots=True)
class SeatView:
    """One position at a decision: only the player's own hands and the dealer's up card.

    Built by :meth:`from_player_view` from :func:`boundless.core.round.views.player_view`, the
    one function that decides what a player may see, for the terminal as for the server.
    """

    player_id: str
    spot: int
    step: int
    hand_index: int
    hands: tuple[SeatHand, ...]
    up_card: Card
    legal: frozenset[Action]
    main_amount: int
    free_amount: int

    @classmethod
    def from_player_view(cls, view: Mapping[str, Any], spot: int) -> SeatView:
        player = view["player"]
        position = next(item for item in player["positions"] if item["spot"] == spot)
        split = len(position["hands"]) > 1
        hands = tuple(
            SeatHand(
                cards=parse_cards(hand["cards"]),
                total=int(hand["total"]),
                status=str(hand["status"]),
                bet_amount=int(hand["bet"]),
                from_split=split,
            )
            for hand in position["hands"]
        )
        return cls(
            player_id=str(player["id"]),
            spot=spot,
            step=int(view["step"]),
            hand_index=int(position["current_hand"]),
            hands=hands,
            up_card=parse_cards(view["dealer"]["cards"][:1])[0],
            legal=frozenset(Action.from_word(word) for word in position["legal_actions"]),
            main_amount=int(position["main"]),
            free_amount=int(player["free_coins"]),
        )

    @property
    def hand(self) -> SeatHand:
        return self.hands[self.hand_index]

    @property
    def cards(self) -> tuple[Card, ...]:
        return self.hand.cards

    @property
    def total(self) -> int:
        return self.hand.total

    @property
    def soft(self) -> bool:
        return hand_total(self.hand.cards)[1]


class Decider(Protocol):
    """Whoever plays a seat: a person at a console, a bot, a script in a test.

    Any method may raise :class:`PlayerLeft`; the seat then leaves the table and its open
    hands are finished by the title's autoplay rule.
    """

    def bet(self, offer: BetOffer) -> Sequence[SpotBet]:
        """The bets for this round; an empty sequence sits the round out."""
        ...

    def insurance(self, offer: InsuranceOffer) -> bool:
        """Whether to take the insurance (or even money) offered."""
        ...

    def choose_side_bets(self, choice: SideBetChoice) -> Sequence[str]:
        """The side-bet groups to offer this round (asked of the host where the player chooses).

        Deciders without this method keep the choice in force.
        """
        ...

    def decide(self, view: SeatView) -> Action | None:
        """The action for the hand in play; ``None`` leaves it to the title's autoplay."""
        ...

    def rejected(self, message: str) -> None:
        """The engine refused the last answer (the message says why); it will be asked again."""
        ...


@dataclass(slots=True)
class Seat:
    player_id: str
    name: str
    decider: Decider
    balance: int
    host: bool = False
    present: bool = True
    connected: bool = True  # False after leaving mid-round: the autoplay finishes its hands
