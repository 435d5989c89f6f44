"""The tree of distinct decision paths on each spot.

Node ids index :attr:`NodeTable.states`; a position stores only its node id. Children are keyed
by (parent, action, source, step), so equal decision histories share one node and the card
logic costs grow with the number of distinct paths, not with the number of players.
"""

from __future__ import annotations

import numpy as np

from boundless.core.cards import Card
from boundless.core.round.actions import Action, Source
from boundless.core.round.paths import PathState, apply_action, receive_card, takes_card
from boundless.core.rules import RuleSet

ChildKey = tuple[int, int, int, int]  # parent, action (-1: none), source, step


class NodeTable:
    def __init__(self) -> None:
        self.states: list[PathState] = []
        self.spots: list[int] = []
        self._children: dict[ChildKey, int] = {}
        self._active = np.zeros(16, dtype=np.bool_)

    def add(self, state: PathState, spot: int) -> int:
        node = len(self.states)
        self.states.append(state)
        self.spots.append(spot)
        if node >= len(self._active):
            grown = np.zeros(2 * len(self._active), dtype=np.bool_)
            grown[: len(self._active)] = self._active
            self._active = grown
        self._active[node] = not state.finished
        return node

    @property
    def active(self) -> np.ndarray:
        """``active[node]``: the path still needs a card or a decision."""
        return self._active[: len(self.states)]

    def planned_child(
        self, parent: int, action: Action | None, source: Source, step: int
    ) -> tuple[PathState, bool]:
        """The state after the decision (before the card) and whether it takes the card."""
        state = self.states[parent]
        after = state if action is None else apply_action(state, action, source, step)
        return after, takes_card(after, action)

    def child(
        self,
        parent: int,
        action: Action | None,
        source: Source,
        step: int,
        card: Card | None,
        rules: RuleSet,
    ) -> int:
        """Node id after the decision and, if the path takes it, the step card."""
        key = (parent, -1 if action is None else int(action), int(source), step)
        existing = self._children.get(key)
        if existing is not None:
            return existing
        after, takes = self.planned_child(parent, action, source, step)
        if takes:
            if card is None:
                raise AssertionError("a path that takes a card was given none")
            after = receive_card(after, card, rules)
        node = parent if after == self.states[parent] else self.add(after, self.spots[parent])
        self._children[key] = node
        return node
