"""What one agent observes of the table, as arrays (the Gymnasium and PettingZoo spaces).

* ``phase``: 0 betting, 1 insurance (or even money) asked, 2 a decision asked, 3 round over;
* ``hands``: one row per hand of the player's spot (``split.max_hands`` rows): the hand's cards
  counted by value (ace 1 .. ten 10), its best total, 1 if soft, its stake in main bets;
* ``current_hand``: the row of the hand in play (the row count once all are finished);
* ``up_card``: the dealer's up card value (ace 1), 0 before the deal;
* ``seen``: cards seen since the shuffle, counted by value: earlier rounds, the burn's shown
  card, and this round's public cards (the hole card once revealed);
* ``penetration``: the share of the shoe dealt (burned cards included).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from boundless.agents.table import SPOT, AgentTable
from boundless.core.hands import hand_total
from boundless.core.round import DECISIONS, INSURANCE

VALUES = 10
HAND_COLUMNS = VALUES + 3  # value counts, total, soft, stake units
PHASE_BET, PHASE_INSURANCE, PHASE_DECISION, PHASE_OVER = 0, 1, 2, 3


def observation_space(table: AgentTable) -> spaces.Dict:
    rules = table.rules
    hands = rules.split.max_hands if rules.split.allowed else 1
    cards = 4 * rules.shoe.decks * 13
    return spaces.Dict(
        {
            "phase": spaces.Discrete(4),
            "hands": spaces.Box(0, cards, shape=(hands, HAND_COLUMNS), dtype=np.int64),
            "current_hand": spaces.Discrete(hands + 1),
            "up_card": spaces.Discrete(VALUES + 1),
            "seen": spaces.Box(0, cards, shape=(VALUES,), dtype=np.int64),
            "penetration": spaces.Box(0.0, 1.0, shape=(1,), dtype=np.float32),
        }
    )


def seen_by_value(table: AgentTable) -> np.ndarray:
    ranks = table.seen_ranks()
    values = np.zeros(VALUES, dtype=np.int64)
    values[:9] = ranks[:9]
    values[9] = ranks[9:].sum()
    return values


def observe(table: AgentTable, player: str, betting: bool) -> dict[str, Any]:
    rules = table.rules
    rows = rules.split.max_hands if rules.split.allowed else 1
    hands = np.zeros((rows, HAND_COLUMNS), dtype=np.int64)
    current = 0
    up = 0
    round_ = table.round
    if betting or round_ is None:
        phase = PHASE_BET
    elif round_.over:
        phase = PHASE_OVER
    elif table.question(player) is not None and round_.phase == INSURANCE:
        phase = PHASE_INSURANCE
    elif table.question(player) is not None and round_.phase == DECISIONS:
        phase = PHASE_DECISION
    else:
        phase = PHASE_OVER  # a player with no question left waits for the round's end
    if round_ is not None and not betting and round_.up_card is not None:
        up = round_.up_card.value
        position = round_.position_on(player, SPOT)
        if position is not None and round_.has_path(position):
            path = round_.path_of(position)
            current = min(path.current, rows)
            for row, hand in enumerate(path.hands[:rows]):
                for card in hand.cards:
                    hands[row, card.value - 1] += 1
                total, soft = hand_total(hand.cards)
                hands[row, VALUES] = total
                hands[row, VALUES + 1] = int(soft)
                hands[row, VALUES + 2] = hand.stake_units
    return {
        "phase": np.int64(phase),
        "hands": hands,
        "current_hand": np.int64(current),
        "up_card": np.int64(up),
        "seen": seen_by_value(table),
        "penetration": np.array([table.penetration], dtype=np.float32),
    }


__all__ = ["observation_space", "observe"]
