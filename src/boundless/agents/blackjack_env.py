"""``boundless/Blackjack-v0``: one player, one spot, the real shoe and rules of any title.

An episode is one round, from the bet to the settlement; the shoe carries on from one episode
to the next (cut card, burn, reshuffle as at a table) until ``reset(seed=...)`` starts a new
shoe sequence. Actions are indices into :data:`ACTION_WORDS` (the nine answers of a round),
then one action per bet size: ``9 + i`` bets ``bet_units[i]`` initial units. Without betting
the one bet size is one unit, so the first step of each episode is that bet. The legal actions
at every step are ``info["action_mask"]``, exactly the engine's. An illegal action is taken as
no answer (the title's autoplay plays the hand, insurance is declined, the first bet size is
bet) unless ``illegal_action="raise"``.

The reward is the round's net result in initial units (the title's minimum main bet), paid at
the round's end: side bets included when they are on.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from boundless.agents.grading import Grade, grade_now
from boundless.agents.kernel_table import KernelTable
from boundless.agents.observation import observation_space, observe
from boundless.agents.rule_loading import load_rules
from boundless.agents.table import ACTION_WORDS, AgentTable, Bet, autoplay_word
from boundless.agents.vector_env import covered
from boundless.core.errors import InvalidRuleSetError

PLAYER = "agent"
SEED_BOUND = 2**63


class BlackjackEnv(gym.Env[dict[str, Any], np.int64]):
    metadata = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012 (Gymnasium's field)

    def __init__(
        self,
        title: str | None = None,
        rules: str | Path | None = None,
        *,
        betting: bool = False,
        bet_units: Sequence[int] = (1, 2, 4, 8),
        side_bets: bool = False,
        grade: bool = False,
        illegal_action: str = "autoplay",
        render_mode: str | None = None,
        path: str = "auto",
    ) -> None:
        self.rules, self.chart = load_rules(title, rules)
        units = tuple(int(unit) for unit in bet_units) if betting else (1,)
        unit = self.rules.limits.min_main_amount
        if not units or any(u <= 0 or u * unit > self.rules.limits.max_main_amount for u in units):
            most = self.rules.limits.max_main_amount // unit
            raise ValueError(f"bet_units must be 1..{most} initial units, got {list(units)}")
        self.bet_units = units
        self.unit_amount = unit
        self.side_bets = side_bets
        self.grade = grade
        if illegal_action not in ("autoplay", "raise"):
            raise ValueError(
                f"illegal_action must be 'autoplay' or 'raise', got {illegal_action!r}"
            )
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.table = AgentTable(self.rules, self.chart, (PLAYER,))
        self.action_words = ACTION_WORDS + tuple(f"bet_{u}" for u in units)
        self.action_space = spaces.Discrete(len(self.action_words))
        self.observation_space = observation_space(self.table)
        self.path = self._choose_path(path)
        self.kernel: KernelTable | None = None
        if self.path == "kernel":
            hands_space = self.observation_space["hands"]
            assert isinstance(hands_space, spaces.Box)
            self.kernel = KernelTable(self.rules, hands_space.shape[0])
        self._mask = np.zeros(len(self.action_words), dtype=np.int8)  # the kernel path's
        self._words_of: dict[bytes, tuple[str, ...]] = {}  # mask -> its words, as met
        self._over = False
        self._betting = True
        self._episode_regret = 0.0
        self._grade: Grade | None = None
        self._legal: tuple[str, ...] | None = None
        self._seeded = False

    # ---- the API -----------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        if self.kernel is not None:
            return self._kernel_reset(seed)
        self.table.abandon()  # a reset in the middle of a round cancels it (stakes returned)
        if seed is not None or self.table.cycle.shoe is None:
            self.table.reseed(int(self.np_random.integers(SEED_BOUND)))
        self._betting = True
        self._episode_regret = 0.0
        self._grade = None
        self._legal = None
        return self._observation(), self._info()

    def step(
        self, action: np.int64 | int
    ) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        if self.kernel is not None:
            return self._kernel_step(int(action))
        index = int(action)
        mask = self.action_mask()
        legal = bool(0 <= index < len(mask) and mask[index])
        if not legal and self.illegal_action == "raise":
            words = ", ".join(self.legal_words())
            word = self.action_words[index] if 0 <= index < len(mask) else str(index)
            raise ValueError(f"action {index} ({word}) is not legal now (legal: {words})")
        graded: Grade | None = None
        if self._betting:
            units = self.bet_units[index - len(ACTION_WORDS)] if legal else self.bet_units[0]
            self._bet(units)
            self._legal = None
        else:
            # An illegal action is no answer: the table's autoplay plays the hand (insurance
            # is declined), as for a player who lets the timer run out.
            answer = self.action_words[index] if legal else None
            if self._grade is not None:
                taken = answer or autoplay_word(self.table, PLAYER)
                graded = self._grade.of(taken)
                self._episode_regret += graded.regret or 0.0
            self.table.answer(PLAYER, answer)
        self._legal = None
        terminated = self.table.over
        reward = 0.0
        if terminated:
            reward = self.table.net_amounts()[PLAYER] / self.unit_amount
        info = self._info(graded)
        return self._observation(), reward, terminated, False, info

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        from boundless.agents.text import describe

        return describe(self.table, PLAYER, self.legal_words())

    # ---- the kernel path ---------------------------------------------------------------------
    def _choose_path(self, path: str) -> str:
        """``auto`` takes the kernel where the rules and options allow it, else the engine."""
        if path not in ("auto", "engine", "kernel"):
            raise ValueError(f"path must be 'auto', 'engine' or 'kernel', got {path!r}")
        if path == "engine":
            return path
        why = covered(self.rules)
        if why is None and self.bet_units != (1,):
            why = "it bets one unit a round (betting=False)"
        if why is None and self.side_bets:
            why = "it plays the main bet only (side_bets=False)"
        if why is None and self.grade:
            why = "grading needs the engine's round (grade=False)"
        if why is None and self.render_mode is not None:
            why = "rendering reads the engine's round (render_mode=None)"
        if why is None:
            return "kernel"
        if path == "kernel":
            raise InvalidRuleSetError(f"the kernel path cannot play this configuration: {why}")
        return "engine"

    def _kernel_reset(self, seed: int | None) -> tuple[dict[str, Any], dict[str, Any]]:
        kernel = self.kernel
        assert kernel is not None
        if seed is not None or not self._seeded:
            kernel.reseed(int(self.np_random.integers(SEED_BOUND)))
            self._seeded = True
        else:
            kernel.abandon()  # a reset in the middle of a round cancels it (stake returned)
        self._betting = True
        self._over = False
        kernel.observe(True, False)
        return self._kernel_observation(), self._kernel_info(None)

    def _kernel_step(self, index: int) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        kernel = self.kernel
        assert kernel is not None
        mask = self._mask
        if self.illegal_action == "raise" and not (0 <= index < len(mask) and mask[index]):
            words = ", ".join(self.legal_words())
            word = self.action_words[index] if 0 <= index < len(mask) else str(index)
            raise ValueError(f"action {index} ({word}) is not legal now (legal: {words})")
        reward, terminated = kernel.step(index)  # the kernel plays an illegal one as autoplay
        self._betting = False
        self._over = terminated
        net = round(reward * self.unit_amount) if terminated else None
        return self._kernel_observation(), reward, terminated, False, self._kernel_info(net)

    def _kernel_observation(self) -> dict[str, Any]:
        kernel = self.kernel
        assert kernel is not None
        head = kernel.head
        return {
            "phase": np.int64(head[0]),
            "hands": kernel.hands.copy(),
            "current_hand": np.int64(head[1]),
            "up_card": np.int64(head[2]),
            "seen": kernel.seen[0].copy(),
            "penetration": np.array([kernel.penetration], dtype=np.float32),
        }

    def _kernel_info(self, net: int | None) -> dict[str, Any]:
        kernel = self.kernel
        assert kernel is not None
        mask = self._mask
        if self._over:
            mask[:] = 0  # the round is over: nothing is asked until the next reset
        else:
            mask[:] = kernel.masks[0]
        key = mask.tobytes()
        words = self._words_of.get(key)
        if words is None:  # a handful of masks ever occur: their words are kept
            words = self._words_of[key] = tuple(
                self.action_words[i] for i in np.flatnonzero(mask).tolist()
            )
        self._legal = words
        info: dict[str, Any] = {
            "action_mask": mask.copy(),
            "legal_actions": list(words),
            "penetration": kernel.penetration,
        }
        if net is not None:
            info["net_amount"] = net
        return info

    # ---- helpers -----------------------------------------------------------------------------
    def _bet(self, units: int) -> None:
        self._betting = False
        bet = Bet(units * self.unit_amount, every_side_bet=self.side_bets)
        self.table.open_round({PLAYER: bet})

    def legal_words(self) -> tuple[str, ...]:
        if self._legal is None:  # asked once per state: the round only changes in a step
            betting = self.action_words[len(ACTION_WORDS) :]
            self._legal = betting if self._betting else self.table.legal_words(PLAYER)
        return self._legal

    def action_mask(self) -> np.ndarray:
        legal = set(self.legal_words())
        return np.array([word in legal for word in self.action_words], dtype=np.int8)

    def _observation(self) -> dict[str, Any]:
        return observe(self.table, PLAYER, self._betting)

    def _info(self, graded: Grade | None = None) -> dict[str, Any]:
        info: dict[str, Any] = {
            "action_mask": self.action_mask(),
            "legal_actions": list(self.legal_words()),
            "penetration": self.table.penetration,
        }
        if self.table.over and not self._betting:
            info["net_amount"] = self.table.net_amounts()[PLAYER]
        if self.grade:
            self._grade = None if self._betting else grade_now(self.table, PLAYER)
            info["grade"] = None if self._grade is None else self._grade.to_json()
            info["graded"] = None if graded is None else graded.to_json()
            info["episode_regret"] = self._episode_regret
        return info


__all__ = ["BlackjackEnv", "load_rules"]
