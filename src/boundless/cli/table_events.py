"""What a table reports as it plays: small immutable records for screens, tests and logs."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from boundless.core.cards import Card
from boundless.core.round.paths import HandState
from boundless.core.round.results import PositionResult
from boundless.core.round.settlement import DealerHand
from boundless.core.shoe import ShoeReveal
from boundless.core.shoe_cycle import Shuffled


@dataclass(frozen=True, slots=True)
class ShoeRetired:
    shoe_number: int
    reveal: ShoeReveal
    verified: bool


@dataclass(frozen=True, slots=True)
class ShoeShuffled:
    shuffled: Shuffled
    cards_left: int


@dataclass(frozen=True, slots=True)
class RoundStarted:
    shoe_number: int
    round_in_shoe: int
    commitment: str
    side_bet_rounds_left: Mapping[str, int | None]
    available_side_bets: frozenset[str]
    cards_left: int


@dataclass(frozen=True, slots=True)
class SideBetsOffered:
    """The side-bet groups the host put on offer for the round, and the keys they open."""

    groups: tuple[str, ...]
    keys: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PlacedBet:
    player_id: str
    name: str
    spot: int
    main_amount: int
    side_amounts: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class BetsTaken:
    bets: tuple[PlacedBet, ...]
    sitting_out: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class HandsDealt:
    spot_cards: Mapping[int, tuple[Card, Card]]
    up_card: Card
    hole_card_dealt: bool  # a face-down card (revealed at the peek or the dealer's turn)


@dataclass(frozen=True, slots=True)
class InsuranceAnswered:
    taken: tuple[tuple[str, str, int], ...]  # (name, "insurance" / "even_money", cost)
    declined: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class StepMove:
    name: str
    hand_index: int
    hand_count: int
    action: str
    source: str  # "player", "autoplay" or "fallback"


@dataclass(frozen=True, slots=True)
class StepTaken:
    """One closed step: the card drawn (if anyone took one) and who took it."""

    spot: int
    step: int
    card: Card | None
    takers: tuple[str, ...]
    moves: tuple[StepMove, ...]
    hands: Mapping[str, tuple[HandState, ...]]  # every seated player's hands on the spot, by id


@dataclass(frozen=True, slots=True)
class DealerPlayed:
    hand: DealerHand  # its cards, total, blackjack and bust, as the core settles them
    ended_at_peek: bool  # dealer blackjack found at the peek: no decisions were played


@dataclass(frozen=True, slots=True)
class SeatResult:
    player_id: str
    name: str
    positions: tuple[PositionResult, ...]
    staked_amount: int
    paid_amount: int
    balance_before: int
    balance_after: int

    @property
    def net_amount(self) -> int:
        return self.paid_amount - self.staked_amount


@dataclass(frozen=True, slots=True)
class RoundReport:
    shoe_number: int
    round_in_shoe: int
    dealer_cards: tuple[Card, ...]
    seats: tuple[SeatResult, ...]
    house_amount: int  # staked - paid over every position this round
    last_in_shoe: bool
    cancelled: str | None = None  # the reason, for a voided round


@dataclass(frozen=True, slots=True)
class RoundReported:
    report: RoundReport


@dataclass(frozen=True, slots=True)
class RoundVoided:
    round_in_shoe: int
    reason: str


@dataclass(frozen=True, slots=True)
class SeatLeft:
    name: str
    reason: str  # "quit" or "out_of_coins"
    mid_round: bool  # True: the title's autoplay rule finishes the open hands


TableEvent = (
    ShoeRetired
    | ShoeShuffled
    | RoundStarted
    | SideBetsOffered
    | BetsTaken
    | HandsDealt
    | InsuranceAnswered
    | StepTaken
    | DealerPlayed
    | RoundReported
    | RoundVoided
    | SeatLeft
)
Observer = Callable[[TableEvent], None]
