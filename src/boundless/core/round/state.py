"""The data of one round, in one public dataclass, with small read-only queries.

Everything a round knows lives here: the public cards, the hidden hole card, the position
columns, the path nodes, the payments. The rules that change it are plain functions of this
state (:mod:`.apply` applies an event, :mod:`.steps` plans a step, :mod:`.results` reads a
position's outcome); :class:`~boundless.core.round.round.SharedRound` and
:class:`~boundless.core.round.follower.FollowerRound` are the verify/can/do surfaces on top.
Code outside ``core/round`` reads a round through the queries below, never the numpy columns.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np

from boundless.core.cards import Card
from boundless.core.round import events as ev
from boundless.core.round.nodes import NodeTable
from boundless.core.round.paths import DecisionContext, PathState
from boundless.core.round.phases import BETTING, OVER, Phase
from boundless.core.round.positions import PositionBook
from boundless.core.round.settlement import DealerHand
from boundless.core.rules import RuleSet
from boundless.core.strategy_chart import StrategyChart


class PaymentStage(StrEnum):
    """When in the round coins are paid back (the ledger credits the early ones at once)."""

    SIDE_BETS_INITIAL = "side_bets_initial"
    EVEN_MONEY = "even_money"
    BLACKJACK_AT_ONCE = "blackjack_at_once"
    SURRENDER = "surrender"
    SIDE_BETS = "side_bets"
    SETTLEMENT = "settlement"
    CANCEL_REFUND = "cancel_refund"


FINAL_STAGES = frozenset({PaymentStage.SETTLEMENT, PaymentStage.CANCEL_REFUND})


@dataclass(slots=True)
class Payment:
    """Coins paid back to positions at one moment of the round (stakes included)."""

    stage: PaymentStage
    positions: np.ndarray
    amounts: np.ndarray


@dataclass(frozen=True, slots=True)
class ExtraStakes:
    """Doubles and splits one step executed: who added how much, and by which action."""

    spot: int
    step: int
    positions: np.ndarray
    amounts: np.ndarray
    actions: np.ndarray  # Action codes (DOUBLE or SPLIT)


@dataclass(eq=False)
class RoundState:
    """One round's data. Only :func:`boundless.core.round.apply.apply_event` changes it."""

    rules: RuleSet
    chart: StrategyChart | None = None
    round_in_shoe: int = 1
    offered_side_bets: tuple[str, ...] = ()
    phase: Phase = BETTING
    paused: bool = False
    events: list[ev.Event] = field(default_factory=list)
    book: PositionBook = field(init=False)
    nodes: NodeTable = field(default_factory=NodeTable)
    spot_cards: dict[int, tuple[Card, Card]] = field(default_factory=dict)
    step_cards: dict[int, list[Card]] = field(default_factory=dict)
    step_takers: dict[int, list[int]] = field(default_factory=dict)
    up_card: Card | None = None
    hidden_hole: Card | None = None  # known to the dealer; public once ``hole_revealed``
    dealer_cards: tuple[Card, ...] = ()
    hole_revealed: bool = False
    current_spot: int = 0
    step: int = 0
    payments: list[Payment] = field(default_factory=list)
    extra_stakes: list[ExtraStakes] = field(default_factory=list)
    side_patterns: dict[tuple[int, str], object] = field(default_factory=dict)
    wheel_results: dict[tuple[int, str], tuple[int, tuple[str, ...]]] = field(default_factory=dict)
    spot_positions: dict[int, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.book = PositionBook([bet.key for bet in self.rules.side_bets])

    # ---- the round as a whole ------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.phase in OVER

    @property
    def hole_card(self) -> Card | None:
        """The hole card once it is revealed, else ``None``."""
        return self.hidden_hole if self.hole_revealed else None

    @property
    def dealer_hand(self) -> DealerHand:
        return DealerHand(self.dealer_cards)

    def context(self) -> DecisionContext:
        """What decisions depend on besides the path: rules, up card, chart."""
        assert self.up_card is not None
        return DecisionContext(self.rules, self.up_card, self.chart)

    def available_side_bets(self) -> frozenset[str]:
        available = set()
        for key in self.offered_side_bets:
            bet = self.rules.side_bet(key)
            assert bet is not None
            if bet.max_round is None or self.round_in_shoe <= bet.max_round:
                available.add(key)
        return frozenset(available)

    def side_bet_rounds_left(self) -> dict[str, int | None]:
        """For each offered side bet: rounds it stays available in this shoe (None: always)."""
        left: dict[str, int | None] = {}
        for key in self.offered_side_bets:
            bet = self.rules.side_bet(key)
            assert bet is not None
            left[key] = (
                None if bet.max_round is None else max(0, bet.max_round - self.round_in_shoe + 1)
            )
        return left

    # ---- players -------------------------------------------------------------------------
    @property
    def player_ids(self) -> Sequence[str]:
        """Every player with a bet, in the order they first bet (index = player index)."""
        return self.book.player_ids

    def player_count(self) -> int:
        return len(self.book.player_ids)

    def has_player(self, player_id: str) -> bool:
        return self.book.player_index(player_id) is not None

    def player_free_coins(self, player_id: str) -> int | None:
        """The player's coins outside this round as the round counts them (None: no bet)."""
        index = self.book.player_index(player_id)
        return None if index is None else int(self.book.free[index])

    def position_on(self, player_id: str, spot: int) -> int | None:
        """The player's position on ``spot``, or None."""
        index = self.book.player_index(player_id)
        return None if index is None else self.book.position_of(index, spot)

    def positions_of(self, player_id: str) -> list[int]:
        index = self.book.player_index(player_id)
        return [] if index is None else self.book.positions_of_player(index)

    def players_of(self, positions: Iterable[int] | np.ndarray) -> list[str]:
        """The player id of each position, in order."""
        ids = self.book.player_ids
        indices = self.book.player[np.asarray(positions, dtype=np.int64)]
        return [ids[index] for index in indices.tolist()]

    def distinct_players_of(self, positions: Iterable[int] | np.ndarray) -> list[str]:
        """The players holding ``positions``, each once, in player order."""
        indices = np.unique(self.book.player[np.asarray(positions, dtype=np.int64)])
        return [self.book.player_ids[index] for index in indices.tolist()]

    def staked_by_player(self) -> np.ndarray:
        """Everything each player put in this round, by player index."""
        staked = np.zeros(self.player_count(), dtype=np.int64)
        np.add.at(staked, self.book.player, self.book.staked())
        return staked

    def paid_by_player(self, stages: Iterable[PaymentStage] | None = None) -> np.ndarray:
        """Coins paid back to each player so far, by player index (optionally some stages)."""
        paid = np.zeros(self.player_count(), dtype=np.int64)
        if stages is None:
            np.add.at(paid, self.book.player, self.book.paid)
            return paid
        wanted = frozenset(stages)
        for payment in self.payments:
            if payment.stage in wanted:
                np.add.at(paid, self.book.player[payment.positions], payment.amounts)
        return paid

    # ---- positions -----------------------------------------------------------------------
    def position_count(self) -> int:
        return len(self.book)

    def spot_of(self, position: int) -> int:
        return int(self.book.spot[position])

    def player_of(self, position: int) -> str:
        return self.book.player_ids[int(self.book.player[position])]

    def main_stake(self, position: int) -> int:
        return int(self.book.main[position])

    def free_coins(self, position: int) -> int:
        """The free coins of the position's player."""
        return int(self.book.free[self.book.player[position]])

    def main_stakes(self, positions: np.ndarray) -> np.ndarray:
        """The main bet of each position (a copy)."""
        return self.book.main[np.asarray(positions, dtype=np.int64)]  # indexing copies

    def free_coins_of(self, positions: np.ndarray) -> np.ndarray:
        """The free coins of each position's player (a copy)."""
        return self.book.free[self.book.player[np.asarray(positions, dtype=np.int64)]]

    def pending_action(self, position: int) -> int:
        """The action code the position chose at the open step (-1: none yet)."""
        return int(self.book.pending[position])

    def positions_on_spot(self, spot: int) -> np.ndarray:
        return np.flatnonzero(self.book.spot == spot)

    def path_of(self, position: int) -> PathState:
        return self.path_state(int(self.book.node[position]))

    def path_state(self, node: int) -> PathState:
        """The hands and history of path node ``node`` (as :meth:`path_nodes` numbers them)."""
        return self.nodes.states[node]

    def path_count(self) -> int:
        """How many distinct paths the round has made so far."""
        return len(self.nodes.states)

    def has_path(self, position: int) -> bool:
        """Whether the position has been dealt (it has a path of hands)."""
        return bool(self.book.node[position] >= 0)

    def path_nodes(self, positions: np.ndarray) -> np.ndarray:
        """The path node of each position (equal nodes: equal hands and histories)."""
        return self.book.node[np.asarray(positions, dtype=np.int64)]  # indexing copies

    def view_key(self, position: int, wheel_keys: Sequence[str]) -> tuple[object, ...]:
        """Everything a position's view depends on (equal keys: equal views).

        Free coins count up to twice the main bet, the most any legal-action or insurance
        check compares them with.
        """
        book = self.book
        main = int(book.main[position])
        free = int(book.free[book.player[position]])
        wheels = tuple(self.wheel_results.get((position, key)) for key in wheel_keys)
        return (
            int(book.spot[position]),
            int(book.node[position]),
            main,
            book.sides[position].tobytes(),
            int(book.insurance[position]),
            bool(book.even_money[position]),
            int(book.extra[position]),
            int(book.paid[position]),
            int(book.pending[position]),
            min(free, 2 * main),
            wheels,
        )

    # ---- money ---------------------------------------------------------------------------
    def staked(self) -> np.ndarray:
        return self.book.staked()

    def paid(self) -> np.ndarray:
        return self.book.paid
