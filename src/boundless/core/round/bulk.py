"""Checks for the bulk operations (bots, load tests): whole batches, vectorised.

A batch is accepted whole or not at all; the first bad row is reported through the single
check, so its message is the same as for one call.
"""

from __future__ import annotations

import numpy as np

from boundless.core.errors import IllegalActionError, InsufficientCoinsError, UnknownPositionError
from boundless.core.round.actions import NO_DECISION, Action
from boundless.core.round.checks import verify_decision, verify_insurance
from boundless.core.round.paths import HandStatus, legal_actions
from boundless.core.round.state import RoundState


def verify_insurance_many(state: RoundState, positions: np.ndarray) -> None:
    """Every position must be eligible for insurance and its player able to pay."""
    book = state.book
    if len(positions) and (positions.min() < 0 or positions.max() >= len(book)):
        raise UnknownPositionError("a position index is out of range")
    if len(np.unique(positions)) != len(positions):
        raise IllegalActionError("a position takes insurance twice in one batch")
    eligible = (
        (book.main[positions] > 0) & (book.insurance[positions] == 0) & ~book.even_money[positions]
    )
    if state.rules.insurance.blackjack_offer == "even_money":
        naturals = np.array(
            [
                bool(path.hands) and path.hands[0].status == HandStatus.BLACKJACK
                for path in state.nodes.states
            ],
            dtype=np.bool_,
        )
        eligible &= ~naturals[book.node[positions]]
    if not eligible.all():
        bad = int(positions[np.flatnonzero(~eligible)[0]])
        verify_insurance(state, state.player_of(bad), state.spot_of(bad), even_money=False)
    cost = state.rules.insurance.cost
    need = np.zeros_like(book.free)
    np.add.at(need, book.player[positions], cost.of_array(book.main[positions]))
    short = np.flatnonzero(need > book.free)
    if len(short):
        raise InsufficientCoinsError(
            f"player {book.player_ids[int(short[0])]!r}: insurance exceeds free coins"
        )


def verify_decisions_many(state: RoundState, positions: np.ndarray, actions: np.ndarray) -> None:
    """Every decision must be legal now and affordable."""
    book, nodes = state.book, state.nodes
    if positions.min() < 0 or positions.max() >= len(book):
        raise UnknownPositionError("a position index is out of range")
    if len(np.unique(positions)) != len(positions):
        raise IllegalActionError("a position is decided twice in one batch")
    if actions.min() < 0 or actions.max() > max(Action):
        raise IllegalActionError("an action code is out of range")
    node_of = book.node[positions]
    context = state.context()
    unique_nodes, inverse = np.unique(node_of, return_inverse=True)
    table = np.zeros((len(nodes.states), len(Action)), dtype=np.bool_)
    for node in unique_nodes.tolist():
        for action in legal_actions(nodes.states[node], context):
            table[node, int(action)] = True
    ok = (
        table[node_of, actions]
        & (book.spot[positions] == state.current_spot)
        & (book.pending[positions] == NO_DECISION)
    )
    units_by_node = np.array(
        [
            1 if path.finished else path.hand.stake_units
            for path in (nodes.states[node] for node in unique_nodes.tolist())
        ],
        dtype=np.int64,
    )
    units = units_by_node[inverse.reshape(-1)]
    cost = np.where(actions == Action.DOUBLE, units, actions == Action.SPLIT)
    ok &= book.free[book.player[positions]] >= book.main[positions] * cost
    if not ok.all():
        bad = int(np.flatnonzero(~ok)[0])
        verify_decision(state, int(positions[bad]), Action(int(actions[bad])))
        raise IllegalActionError(f"position {int(positions[bad])}: decision not allowed")


def deciding_on_spot(state: RoundState, spot: int) -> tuple[np.ndarray, np.ndarray]:
    """Positions on ``spot``, and which of them hold a hand waiting for a decision."""
    on_spot = state.spot_positions.get(spot, np.zeros(0, dtype=np.int64))
    unique_nodes, inverse = np.unique(state.book.node[on_spot], return_inverse=True)
    deciding = np.array(
        [state.nodes.states[node].needs_decision for node in unique_nodes.tolist()],
        dtype=np.bool_,
    )
    return on_spot, deciding[inverse.reshape(-1)]


def awaiting_decision(state: RoundState) -> np.ndarray:
    """Positions on the open step whose hand waits for a decision (none given yet)."""
    on_spot, deciding = deciding_on_spot(state, state.current_spot)
    waiting = deciding & (state.book.pending[on_spot] == NO_DECISION)
    return np.asarray(on_spot[waiting], dtype=np.int64)
