"""Recorded play of one stacked shoe by the kernel, in the reference's record shapes.

Tests use it to put the kernel beside the plain reference
(:mod:`boundless.math.simulation.reference`) and beside the engine (``SharedRound``) on
identical shoes, card for card.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from boundless.core.cards import Card
from boundless.core.round.paths import HandStatus
from boundless.math.simulation.kernels import (
    MAX_CARDS,
    MAX_HANDS,
    R_BURNED,
    R_FIELDS,
    R_HANDS,
    R_ROUND,
    R_USED,
    R_VOID,
    UNAVAILABLE,
    play_shoe,
)
from boundless.math.simulation.reference import Hand, RoundRecord
from boundless.math.simulation.rng import seed_state
from boundless.math.simulation.runner import work_arrays
from boundless.math.simulation.spec import SimSpec

# The kernel's status codes (``kernels.DECIDING`` ... ``kernels.NATURAL``, 0 to 5), in order.
STATUS_NAMES = (
    HandStatus.DECIDING,
    HandStatus.STOOD,
    HandStatus.BUST,
    HandStatus.SURRENDERED,
    HandStatus.SURRENDERED20,
    HandStatus.BLACKJACK,
)


def record_shoe(
    spec: SimSpec,
    deck: Sequence[int],
    wheel_numbers: Sequence[int] = (),
    max_rounds: int = 200,
    seed: int = 0,
) -> tuple[int, list[RoundRecord]]:
    """Play ``deck`` (dealing order) as one shoe of the title; returns (cards burned, rounds).

    ``wheel_numbers`` are 53-bit numbers for the wheels; when they run out, a generator seeded
    with ``seed`` goes on.
    """
    spots, bets = spec.spots, spec.sides.count
    rec_cards = np.full((max_rounds, spots, MAX_HANDS, MAX_CARDS), -1, dtype=np.int8)
    rec_hand = np.zeros((max_rounds, spots, MAX_HANDS, 3), dtype=np.int64)
    rec_dealer = np.full((max_rounds, MAX_CARDS), -1, dtype=np.int8)
    rec_round = np.zeros((max_rounds, R_FIELDS), dtype=np.int64)
    rec_main = np.zeros((max_rounds, spots), dtype=np.float64)
    rec_side = np.zeros((max_rounds, bets, spots), dtype=np.float64)
    rng = seed_state(np.random.SeedSequence(seed))
    played = play_shoe(
        spec.game(),
        np.asarray(deck, dtype=np.int8).copy(),
        np.asarray(wheel_numbers, dtype=np.uint64),
        rng,
        work_arrays(spec),
        rec_cards,
        rec_hand,
        rec_dealer,
        rec_round,
        rec_main,
        rec_side,
    )
    rounds = []
    for index in range(played):
        hands: list[list[Hand]] = []
        for spot in range(spots):
            spot_hands = []
            count = sum(1 for slot in range(MAX_HANDS) if rec_hand[index, spot, slot, 0] > 0)
            for slot in range(count):
                size, status, units = (int(x) for x in rec_hand[index, spot, slot])
                cards = [Card(int(code)) for code in rec_cards[index, spot, slot, :size]]
                spot_hands.append(Hand(cards, units=units, status=STATUS_NAMES[status]))
            hands.append(spot_hands)
        side: dict[str, list[float] | None] = {}
        for row, key in enumerate(spec.side_keys):
            values = [float(value) for value in rec_side[index, row]]
            side[key] = None if values[0] == UNAVAILABLE else values
        rounds.append(
            RoundRecord(
                round_in_shoe=int(rec_round[index, R_ROUND]),
                cards_used=int(rec_round[index, R_USED]),
                hands=hands,
                dealer=[Card(int(code)) for code in rec_dealer[index] if code >= 0],
                main=[float(value) for value in rec_main[index]],
                side=side,
                void=bool(rec_round[index, R_VOID]),
            )
        )
    assert all(rec_round[index, R_HANDS] > 0 for index in range(played))
    burned = int(rec_round[0, R_BURNED]) if played else 0
    return burned, rounds
