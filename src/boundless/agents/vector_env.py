"""K independent one-player tables stepped together in numba, for training speed.

Same game as ``boundless/Blackjack-v0`` without betting (one unit a round, no side bets) for
the rule sets :func:`covered` accepts: a peek game or a no-hole-card one, value or rank
pairs, resplits up to ``split.max_hands``, split aces one card (or not), doubles (after
splits, on split aces as the switches say), late surrender, insurance and even money, the
cut card, the burn, reshuffles, and the ``hit_until_over_11`` autoplay for an illegal action.
Coins are never short.

Actions: ``(K,)`` indices into :data:`ACTION_WORDS` plus ``9`` = bet (each round starts with
it, as in Blackjack-v0). Each ``step`` returns observations ``(K, 17)`` (see
:func:`vector_kernels.observe_tables`), rewards ``(K,)`` in initial units at a round's end,
``terminated`` at a round's end (the next action of that table is its next bet) and
``info["action_mask"]`` ``(K, 10)``.

``shuffle="engine"`` draws each table's shoes exactly as the engine does
(``Shoe.shuffled`` over ``SeededSource(seeds[k])``, as :class:`AgentTable` with that seed):
what the equality tests use. ``shuffle="fast"`` shuffles inside the kernel (numba's
generator): the training speed.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from boundless.agents import vector_kernels as vk
from boundless.agents.rule_loading import load_rules
from boundless.agents.table import ACTION_WORDS
from boundless.core.arrays import IntArray
from boundless.core.errors import InvalidRuleSetError
from boundless.core.random_source import SeededSource
from boundless.core.rules import RuleSet
from boundless.core.shoe import Shoe

VECTOR_ACTION_WORDS = (*ACTION_WORDS, "bet_1")


def covered(rules: RuleSet) -> str | None:
    """Why the vector environment cannot play ``rules``, or None when it can."""
    if rules.split.offered != "any_pair" or rules.split.decline_refund is not None:
        return "it offers every pair a split (split.offered = 'any_pair', no decline refund)"
    if rules.payouts.blackjack_paid_at_once_up_values:
        return "it pays blackjacks at settlement (no payouts.blackjack_paid_at_once_up_values)"
    if rules.autoplay.policy != "hit_until_over_11":
        return "its autoplay is hit_until_over_11 (autoplay.policy)"
    if rules.split.max_hands > vk.HANDS:
        return f"it holds at most {vk.HANDS} hands"
    return None


def rule_array(rules: RuleSet) -> IntArray:
    cards = 52 * rules.shoe.decks
    p = np.zeros(vk.PARAMS, dtype=np.int64)
    p[vk.HITS_SOFT_17] = rules.dealer.hits_soft_17
    p[vk.BJ_WIN], p[vk.BJ_PER] = rules.payouts.blackjack.win, rules.payouts.blackjack.per
    p[vk.WIN_WIN], p[vk.WIN_PER] = rules.payouts.win.win, rules.payouts.win.per
    p[vk.DOUBLE] = rules.double.allowed
    p[vk.DAS] = rules.double.after_split
    p[vk.DOUBLE_SPLIT_ACES] = rules.double.on_split_aces
    p[vk.SPLIT] = rules.split.allowed
    p[vk.MAX_HANDS] = rules.split.max_hands
    p[vk.RESPLIT_ACES] = rules.split.resplit_aces
    p[vk.ACES_ONE_CARD] = rules.split.split_aces_one_card
    p[vk.PAIR_BY_RANK] = rules.split.pair_by == "rank"
    p[vk.SURRENDER] = rules.surrender.allowed
    p[vk.SUR_NUM] = rules.surrender.refund.numerator
    p[vk.SUR_DEN] = rules.surrender.refund.denominator
    p[vk.SUR_UP_MASK] = sum(1 << value for value in rules.surrender.up_values)
    p[vk.INSURANCE] = rules.insurance.offered
    p[vk.INS_NUM], p[vk.INS_DEN] = rules.insurance.cost.numerator, rules.insurance.cost.denominator
    p[vk.INS_WIN], p[vk.INS_PER] = rules.insurance.pays.win, rules.insurance.pays.per
    p[vk.EVEN_MONEY] = rules.insurance.blackjack_offer == "even_money"
    p[vk.BURN] = rules.shoe.burn_after_shuffle
    p[vk.EVERY_ROUND] = rules.shoe.reshuffle_every_round
    p[vk.CUT] = max(1, min(cards, round(cards * rules.shoe.penetration)))  # as Shoe.shuffled
    p[vk.CARDS] = cards
    p[vk.BET] = rules.limits.min_main_amount
    p[vk.PEEK_MASK] = sum(1 << value for value in rules.dealer.peek_up_values)
    p[vk.NO_HOLE] = rules.dealer.hole_card == "none"
    return p


class VectorBlackjack:
    def __init__(
        self,
        num_envs: int,
        title: str | None = None,
        rules: str | Path | None = None,
        *,
        shuffle: str = "fast",
    ) -> None:
        self.rules, _ = load_rules(title, rules)
        reason = covered(self.rules)
        if reason is not None:
            raise InvalidRuleSetError(
                f"the vector environment cannot play {self.rules.key!r}: {reason}"
            )
        if num_envs < 1:
            raise ValueError(f"num_envs must be 1 or more, got {num_envs}")
        if shuffle not in ("fast", "engine"):
            raise ValueError(f"shuffle is 'fast' or 'engine', not {shuffle!r}")
        self.num_envs = k = num_envs
        self.shuffle = shuffle
        self.params = rule_array(self.rules)
        cards = int(self.params[vk.CARDS])
        ints = np.int64
        self.shoe = np.zeros((k, cards), dtype=ints)
        self.pos = np.zeros(k, dtype=ints)
        self.seen = np.zeros((k, 10), dtype=ints)
        self.hc = np.zeros((k, vk.HANDS, vk.CARDS_PER_HAND), dtype=ints)
        self.hand_arrays = {
            name: np.zeros((k, vk.HANDS), dtype=ints)
            for name in ("hn", "st", "units", "fs", "sa", "mv", "dbl")
        }
        self.nh = np.zeros(k, dtype=ints)
        self.cur = np.zeros(k, dtype=ints)
        self.dc = np.zeros((k, vk.DEALER_CARDS), dtype=ints)
        self.dn = np.zeros(k, dtype=ints)
        self.ins = np.zeros(k, dtype=ints)
        self.paid = np.zeros(k, dtype=ints)
        self.staked = np.zeros(k, dtype=ints)
        self.phase = np.zeros(k, dtype=ints)
        self.must_shuffle = np.ones(k, dtype=ints)
        self.rewards = np.zeros(k, dtype=np.float64)
        self.dones = np.zeros(k, dtype=ints)
        self.masks = np.zeros((k, vk.ACTIONS), dtype=ints)
        self.obs = np.zeros((k, vk.OBS), dtype=ints)
        self._sources: list[SeededSource] = []

    # ---- the API -----------------------------------------------------------------------------
    def reset(self, seed: int | Sequence[int] = 0) -> tuple[IntArray, dict[str, Any]]:
        """New shoes for every table: ``seed`` (one per table, or a base: table k gets
        ``seed + k``)."""
        seeds = [seed + k for k in range(self.num_envs)] if isinstance(seed, int) else list(seed)
        if len(seeds) != self.num_envs:
            raise ValueError(f"give one seed per table ({self.num_envs}), got {len(seeds)}")
        self.phase[:] = vk.BETTING
        self.must_shuffle[:] = 1
        self._sources = [SeededSource(int(s)) for s in seeds]
        if self.shuffle == "fast":
            vk.seed_numba(int(seeds[0]) % (2**32))
        return self._observe(), {"action_mask": self._masks()}

    def step(
        self, actions: IntArray
    ) -> tuple[IntArray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        chosen = np.ascontiguousarray(actions, dtype=np.int64)
        if chosen.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {chosen.shape}")
        if self.shuffle == "engine":
            self._engine_shoes()  # at the next bet, as the engine's shoe cycle shuffles
        a = self.hand_arrays
        vk.step_tables(
            chosen, self.shoe, self.pos, self.seen, self.hc, a["hn"], self.nh, self.cur,
            a["st"], a["units"], a["fs"], a["sa"], a["mv"], a["dbl"], self.dc, self.dn,
            self.ins, self.paid, self.staked, self.phase, self.must_shuffle, self.params,
            self.shuffle == "fast", self.rewards, self.dones, self.masks,
        )  # fmt: skip
        terminated = self.dones.astype(np.bool_)
        truncated = np.zeros(self.num_envs, dtype=np.bool_)
        return (
            self._observe(),
            self.rewards.copy(),
            terminated,
            truncated,
            {"action_mask": self.masks.copy()},
        )

    @property
    def penetration(self) -> np.ndarray:
        return self.pos / float(self.params[vk.CARDS])

    # ---- helpers -----------------------------------------------------------------------------
    def _engine_shoes(self) -> None:
        """The engine's own shuffle (and burn) for every table that needs a new shoe."""
        shoe_rules = self.rules.shoe
        due = (self.must_shuffle == 1) & (self.phase == vk.BETTING)
        for k in np.flatnonzero(due).tolist():
            shoe = Shoe.shuffled(shoe_rules.decks, shoe_rules.penetration, self._sources[k])
            self.seen[k] = 0
            if shoe_rules.burn_after_shuffle:
                burn = shoe.burn()
                self.seen[k, burn.revealed.value - 1] += 1
            self.shoe[k] = [int(card) for card in (*shoe.dealt(), *shoe.undealt())]
            self.pos[k] = shoe.position
            self.must_shuffle[k] = 0

    def _masks(self) -> IntArray:
        row = np.zeros(vk.ACTIONS, dtype=np.int64)
        a = self.hand_arrays
        for k in range(self.num_envs):
            vk.legal_row(
                k, self.phase, self.hc, a["hn"], self.nh, self.cur, a["fs"], a["sa"], a["mv"],
                self.dc, self.params, row,
            )  # fmt: skip
            self.masks[k] = row
        return self.masks.copy()

    def _observe(self) -> IntArray:
        vk.observe_tables(
            self.phase, self.hc, self.hand_arrays["hn"], self.nh, self.cur, self.dc, self.seen,
            self.obs,
        )  # fmt: skip
        return self.obs.copy()


__all__ = ["VECTOR_ACTION_WORDS", "VectorBlackjack", "covered", "rule_array"]
