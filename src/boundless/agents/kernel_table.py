"""One table of the numba kernel behind ``boundless/Blackjack-v0`` (the fast path).

Holds the kernel's arrays for K=1 and steps them with :func:`vector_kernels.step_tables`;
shuffles as :class:`AgentTable` does (``Shoe.shuffled``'s steps over ``SeededSource(seed)``),
so the two paths deal the same cards for the same seed. ``vector_kernels.step_one`` plays a step
and writes the observation ``observation.observe`` gives into preallocated arrays.
"""

from __future__ import annotations

import numpy as np

from boundless.agents import vector_kernels as vk
from boundless.agents.observation import HAND_COLUMNS, VALUES
from boundless.agents.vector_env import rule_array
from boundless.core.cards import fresh_decks
from boundless.core.random_source import SeededSource
from boundless.core.rules import RuleSet
from boundless.core.shoe import SALT_BYTES, fisher_yates


class KernelTable:
    """The kernel's state for one table, stepped one action at a time."""

    def __init__(self, rules: RuleSet, rows: int) -> None:
        self.rules = rules
        self.params = rule_array(rules)
        self.cards = int(self.params[vk.CARDS])
        ints = np.int64
        self.shoe = np.zeros((1, self.cards), dtype=ints)
        self.pos = np.zeros(1, dtype=ints)
        self.seen = np.zeros((1, VALUES), dtype=ints)
        self.hc = np.zeros((1, vk.HANDS, vk.CARDS_PER_HAND), dtype=ints)
        self.hn, self.st, self.units, self.fs, self.sa, self.mv, self.dbl = (
            np.zeros((1, vk.HANDS), dtype=ints) for _ in range(7)
        )
        self.nh, self.cur, self.dn, self.ins, self.paid, self.staked, self.phase = (
            np.zeros(1, dtype=ints) for _ in range(7)
        )
        self.dc = np.zeros((1, vk.DEALER_CARDS), dtype=ints)
        self.must_shuffle = np.ones(1, dtype=ints)
        self.rewards = np.zeros(1, dtype=np.float64)
        self.dones = np.zeros(1, dtype=ints)
        self.masks = np.zeros((1, vk.ACTIONS), dtype=ints)
        self.action = np.zeros(1, dtype=ints)
        self.hands = np.zeros((rows, HAND_COLUMNS), dtype=ints)
        self.head = np.zeros(3, dtype=ints)  # phase, current hand, up card
        self._source = SeededSource(0)
        self.shuffled = False  # no shoe yet since the last reseed (penetration 0)

    def reseed(self, seed: int) -> None:
        """A new shoe sequence from ``seed``, as ``AgentTable.reseed``."""
        self._source = SeededSource(seed)
        self.shuffled = False
        self.pos[0] = 0
        self.seen[0] = 0
        self.phase[0] = vk.BETTING
        self.must_shuffle[0] = 1
        self._refresh_mask()

    def abandon(self) -> None:
        """Cancel the round in progress (its public cards stay seen, the stake comes back)."""
        if self.phase[0] != vk.BETTING:
            self.phase[0] = vk.BETTING
            p = self.params
            if self.pos[0] > p[vk.CUT] or p[vk.EVERY_ROUND] == 1:
                self.must_shuffle[0] = 1
        self._refresh_mask()

    def step(self, action: int) -> tuple[float, bool]:
        """One action (an illegal one is no answer); the reward and whether the round ended.
        The observation after it is in ``hands`` and ``head``."""
        if self.must_shuffle[0] == 1 and self.phase[0] == vk.BETTING:
            self._new_shoe()
        self.action[0] = action
        vk.step_one(
            self.action, self.shoe, self.pos, self.seen, self.hc, self.hn, self.nh, self.cur,
            self.st, self.units, self.fs, self.sa, self.mv, self.dbl, self.dc, self.dn,
            self.ins, self.paid, self.staked, self.phase, self.must_shuffle, self.params,
            self.rewards, self.dones, self.masks, self.hands, self.head,
        )  # fmt: skip
        return float(self.rewards[0]), bool(self.dones[0])

    def observe(self, betting: bool, over: bool) -> None:
        vk.observe_one(
            betting, over, self.phase, self.hc, self.hn, self.nh, self.cur, self.units,
            self.dc, self.hands, self.head,
        )  # fmt: skip

    @property
    def penetration(self) -> float:
        return float(self.pos[0]) / self.cards if self.shuffled else 0.0

    def _refresh_mask(self) -> None:
        vk.legal_row(
            0, self.phase, self.hc, self.hn, self.nh, self.cur, self.fs, self.sa, self.mv,
            self.dc, self.params, self.masks[0],
        )  # fmt: skip

    def _new_shoe(self) -> None:
        """``Shoe.shuffled``'s own steps on the same source, less the commitment (a hash of the
        whole order that this path never reveals: a third of a hand's time); the burn as
        ``Shoe.burn``. The equality test holds this to the engine's shoes."""
        cards = fresh_decks(self.rules.shoe.decks)
        fisher_yates(cards, self._source)
        self._source.token_bytes(SALT_BYTES)  # the salt: the source moves on as the engine's
        self.shoe[0] = cards
        self.seen[0] = 0
        self.pos[0] = 0
        if self.rules.shoe.burn_after_shuffle:
            shown = cards[0].value
            self.seen[0, shown - 1] += 1
            self.pos[0] = 1 + shown  # the shown card, then as many face down as its value
        self.must_shuffle[0] = 0
        self.shuffled = True


__all__ = ["KernelTable"]
