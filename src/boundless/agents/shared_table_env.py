"""Several agents at one shared table (PettingZoo AEC): the game of the documents.

Every agent sits on the table's first spot of a shared title (Boundless, Unlimited): the same
cards for all, each deciding alone for its own stake at each step. An episode is ``rounds``
rounds: each agent bets in turn (``9 + i`` bets ``bet_units[i]`` initial units), then the
table asks, one agent at a time, whoever it waits for (insurance or even money, then each
step's decision). ``None`` from an agent whose turn it is is no answer: the title's autoplay
plays its hand (insurance declined, the first bet size bet), as at a live table; so is an
illegal action. Rewards (net coins in initial units) come at each round's end; the shoe
carries on across episodes until ``reset(seed=...)``.

Observations are ``{"observation": <as Blackjack-v0's>, "action_mask": ...}``. With
``grade=True`` the infos carry the exact grade as Blackjack-v0's do: ``grade`` for the agent
whose turn it is, ``graded`` (the answer it gave last and its regret) and ``episode_regret``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from boundless.agents.blackjack_env import SEED_BOUND, load_rules
from boundless.agents.grading import Grade, grade_now
from boundless.agents.observation import observation_space, observe
from boundless.agents.table import ACTION_WORDS, AgentTable, Bet, autoplay_word
from boundless.agents.text import describe


class SharedTableEnv(AECEnv[str, dict[str, Any], int | None]):
    metadata = {  # noqa: RUF012 (PettingZoo's field)
        "name": "boundless_shared_table_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        title: str | None = None,
        rules: str | Path | None = None,
        *,
        players: int = 3,
        rounds: int = 1,
        bet_units: Sequence[int] = (1,),
        grade: bool = False,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.rules, self.chart = load_rules(title, rules)
        if players < 1 or rounds < 1:
            raise ValueError(f"players and rounds must be 1 or more, got {players}, {rounds}")
        unit = self.rules.limits.min_main_amount
        units = tuple(int(u) for u in bet_units)
        if not units or any(u <= 0 or u * unit > self.rules.limits.max_main_amount for u in units):
            most = self.rules.limits.max_main_amount // unit
            raise ValueError(f"bet_units must be 1..{most} initial units, got {list(units)}")
        self.possible_agents = [f"player_{index}" for index in range(players)]
        self.table = AgentTable(self.rules, self.chart, self.possible_agents)
        self.unit_amount = unit
        self.bet_units = units
        self.rounds = rounds
        self.grade = grade
        self._grades: dict[str, Grade | None] = {}
        self._graded: dict[str, Grade] = {}
        self._regrets: dict[str, float] = {}
        self.render_mode = render_mode
        self.action_words = ACTION_WORDS + tuple(f"bet_{u}" for u in units)
        inner = observation_space(self.table)
        mask = spaces.Box(0, 1, shape=(len(self.action_words),), dtype=np.int8)
        self.observation_spaces = {
            agent: spaces.Dict({"observation": inner, "action_mask": mask})
            for agent in self.possible_agents
        }
        self.action_spaces = {
            agent: spaces.Discrete(len(self.action_words)) for agent in self.possible_agents
        }
        self._bets: dict[str, Bet] = {}
        self._betting = True
        self._rounds_left = rounds
        self.np_random, _ = seeding.np_random(None)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # ---- the API -----------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        self.table.abandon()  # a reset in the middle of a round cancels it (stakes returned)
        if seed is not None or self.table.cycle.shoe is None:
            self.table.reseed(int(self.np_random.integers(SEED_BOUND)))
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._rounds_left = self.rounds
        self._grades = {}
        self._regrets = dict.fromkeys(self.agents, 0.0)
        self._start_betting()

    def observe(self, agent: str) -> dict[str, Any]:
        betting = self._betting and agent not in self._bets
        return {
            "observation": observe(self.table, agent, self._betting),
            "action_mask": self._mask(agent) if betting or not self._betting else self._none(),
        }

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        legal = action is not None and bool(self._mask(agent)[int(action)])
        if self._betting:
            index = int(action) - len(ACTION_WORDS) if legal and action is not None else 0
            self._bets[agent] = Bet(self.bet_units[index] * self.unit_amount)
            if len(self._bets) == len(self.agents):
                self._betting = False
                self.table.open_round(self._bets)
        else:
            word = self.action_words[int(action)] if legal and action is not None else None
            asked = self._grades.pop(agent, None)
            self._graded.pop(agent, None)
            if asked is not None:
                graded = asked.of(word or autoplay_word(self.table, agent))
                self._regrets[agent] += graded.regret or 0.0
                self._graded[agent] = graded
            self.table.answer(agent, word)
        self._next_turn()
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        agent = self.agent_selection
        return describe(self.table, agent, self._legal(agent))

    def close(self) -> None:
        return None

    # ---- turns -------------------------------------------------------------------------------
    def _start_betting(self) -> None:
        self._betting = True
        self._bets = {}
        self.agent_selection = self.agents[0]
        self._set_infos()

    def _next_turn(self) -> None:
        if self._betting:
            self.agent_selection = next(a for a in self.agents if a not in self._bets)
            self._set_infos()
            return
        asked = self.table.asked()
        if asked:
            self.agent_selection = asked[0]
            self._set_infos()
            return
        net = self.table.net_amounts()
        for agent in self.agents:
            self.rewards[agent] = net[agent] / self.unit_amount
        self._rounds_left -= 1
        if self._rounds_left > 0:
            self._start_betting()
            return
        self.terminations = dict.fromkeys(self.agents, True)
        self._set_infos()

    def _legal(self, agent: str) -> tuple[str, ...]:
        if self._betting:
            return () if agent in self._bets else self.action_words[len(ACTION_WORDS) :]
        return self.table.legal_words(agent) if agent in self.table.asked() else ()

    def _mask(self, agent: str) -> np.ndarray:
        legal = set(self._legal(agent))
        return np.array([word in legal for word in self.action_words], dtype=np.int8)

    def _none(self) -> np.ndarray:
        return np.zeros(len(self.action_words), dtype=np.int8)

    def _set_infos(self) -> None:
        for agent in self.agents:
            info: dict[str, Any] = {"legal_actions": list(self._legal(agent))}
            if self.grade:
                asked = (
                    not self._betting and agent == self.agent_selection and info["legal_actions"]
                )
                grade = grade_now(self.table, agent) if asked else None
                self._grades[agent] = grade
                graded = self._graded.get(agent)  # kept until the agent's next answer
                info["grade"] = None if grade is None else grade.to_json()
                info["graded"] = None if graded is None else graded.to_json()
                info["episode_regret"] = self._regrets.get(agent, 0.0)
            self.infos[agent] = info


def env(**kwargs: Any) -> SharedTableEnv:
    """PettingZoo's usual constructor name."""
    return SharedTableEnv(**kwargs)


__all__ = ["SharedTableEnv", "env"]
