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
from boundless.agents.observation import observation_space, observe
from boundless.agents.table import ACTION_WORDS, AgentTable, Bet, autoplay_word
from boundless.core.errors import InvalidRuleSetError
from boundless.core.rules import RuleSet
from boundless.core.strategy_chart import StrategyChart
from boundless.math.strategy import with_chart
from boundless.titles import load_game, load_rule_file

PLAYER = "agent"
SEED_BOUND = 2**63


def load_rules(title: str | None, rules: str | Path | None) -> tuple[RuleSet, StrategyChart | None]:
    """A shipped title or a rule file (its chart derived where the rules need one)."""
    if rules is not None and title is not None:
        raise InvalidRuleSetError("give a title or a rule file, not both")
    if rules is not None:
        loaded, chart = load_rule_file(Path(rules))
        return loaded, with_chart(loaded, chart)
    return load_game(title or "boundless")


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
        self._betting = True
        self._episode_regret = 0.0
        self._grade: Grade | None = None
        self._legal: tuple[str, ...] | None = None

    # ---- the API -----------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
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
