"""Planning one decision step on one spot, vectorised over the positions on it.

The plan says, for every position still in play, which action executes (its own decision,
the autoplay's, or a coin fall-back), what extra stake that costs, and which distinct
(path, action, source) groups result. Work per position is array arithmetic; work per
distinct path is Python.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from boundless.core.round.actions import NO_DECISION, Action, Source
from boundless.core.round.autoplay import autoplay_choices, fallback_for_player
from boundless.core.round.paths import extra_stake_units
from boundless.core.round.state import RoundState


@dataclass(frozen=True, slots=True)
class StepPlan:
    positions: np.ndarray
    actions: np.ndarray
    sources: np.ndarray
    extra: np.ndarray
    groups: list[tuple[int, Action | None, Source]]
    group_of: np.ndarray
    takes_card: bool
    takers: int
    deciding: int
    undecided: int


def plan_step(state: RoundState, spot: int, step: int) -> StepPlan:
    book, nodes = state.book, state.nodes
    context = state.context()
    on_spot = state.spot_positions.get(spot, np.zeros(0, dtype=np.int64))
    node_of = book.node[on_spot]
    in_play = nodes.active[node_of]
    positions = on_spot[in_play]
    node_of = node_of[in_play]
    actions = book.pending[positions].copy()
    sources = np.full(len(positions), int(Source.PLAYER), dtype=np.int64)
    unique_nodes, inverse = np.unique(node_of, return_inverse=True)
    states = [nodes.states[node] for node in unique_nodes.tolist()]
    deciding_by_node = np.array([state.needs_decision for state in states], dtype=np.bool_)
    deciding = deciding_by_node[inverse] if len(states) else np.zeros(0, dtype=np.bool_)
    undecided = deciding & (actions == NO_DECISION)
    main = book.main[positions]
    free = book.free[book.player[positions]]

    def cost_units(choice_by_node: np.ndarray) -> np.ndarray:
        units = np.array(
            [
                extra_stake_units(state, Action(int(choice))) if state.needs_decision else 0
                for state, choice in zip(states, choice_by_node.tolist(), strict=True)
            ],
            dtype=np.int64,
        )
        return units[inverse]

    if undecided.any():
        rich = np.full(len(states), int(Action.STAND), dtype=np.int64)
        poor = rich.copy()
        for index, path in enumerate(states):
            if path.needs_decision:
                with_coins, without_coins = autoplay_choices(path, context)
                rich[index], poor[index] = int(with_coins), int(without_coins)
        affordable = free >= main * cost_units(rich)
        chosen = np.where(affordable, rich[inverse], poor[inverse])
        actions[undecided] = chosen[undecided]
        sources[undecided] = int(Source.AUTOPLAY)

    costly = (actions == int(Action.DOUBLE)) | (actions == int(Action.SPLIT))
    if costly.any():
        units_double = cost_units(np.full(len(states), int(Action.DOUBLE), dtype=np.int64))
        units = np.where(actions == int(Action.DOUBLE), units_double, 1)
        short = costly & (free < main * units) & (sources == int(Source.PLAYER))
        if short.any():
            fallback = np.array(
                [
                    int(fallback_for_player(state, context)) if state.needs_decision else -1
                    for state in states
                ],
                dtype=np.int64,
            )
            actions[short] = fallback[inverse][short]
            sources[short] = int(Source.FALLBACK)
            costly = (actions == int(Action.DOUBLE)) | (actions == int(Action.SPLIT))
    extra = np.zeros(len(positions), dtype=np.int64)
    if costly.any():
        units_double = cost_units(np.full(len(states), int(Action.DOUBLE), dtype=np.int64))
        units = np.where(actions == int(Action.DOUBLE), units_double, 1)
        extra = np.where(costly, main * units, 0)

    keys = (node_of * 8 + (actions + 1)) * 3 + sources
    unique_keys, group_of = np.unique(keys, return_inverse=True)
    groups: list[tuple[int, Action | None, Source]] = []
    group_takes = np.zeros(len(unique_keys), dtype=np.bool_)
    for index, key in enumerate(unique_keys.tolist()):
        rest, source = divmod(key, 3)
        node, action_code = divmod(rest, 8)
        action = None if action_code == 0 else Action(action_code - 1)
        groups.append((node, action, Source(source)))
        group_takes[index] = nodes.planned_child(node, action, Source(source), step)[1]
    takers = int(group_takes[group_of.reshape(-1)].sum()) if len(unique_keys) else 0
    return StepPlan(
        positions=positions,
        actions=actions,
        sources=sources,
        extra=extra,
        groups=groups,
        group_of=group_of.reshape(-1),
        takes_card=takers > 0,
        takers=takers,
        deciding=int(deciding.sum()),
        undecided=int(undecided.sum()),
    )
