"""Two baseline agents for ``boundless/Blackjack-v0``: basic strategy and the exact optimum.

* :class:`BasicStrategyAgent` plays the title's basic-strategy chart (the engine's own lookup,
  :meth:`StrategyChart.choose`), declines insurance and even money, bets one unit;
* :class:`OptimalAgent` plays the best answer of the exact grade (``grade=True``): the
  composition-dependent optimum on the shoe as it stands, so its regret is zero.
"""

from __future__ import annotations

from typing import Any

from boundless.agents.blackjack_env import PLAYER, BlackjackEnv
from boundless.agents.table import SPOT
from boundless.core.errors import InvalidRuleSetError
from boundless.math.strategy import with_chart


class BasicStrategyAgent:
    def __init__(self, env: BlackjackEnv) -> None:
        chart = with_chart(env.rules, env.chart, always=True)
        if chart is None:  # with_chart(always=True) derives one; kept for the type checker
            raise InvalidRuleSetError(f"no basic-strategy chart for {env.rules.key!r}")
        self.env = env
        self.chart = chart

    def act(self, info: dict[str, Any]) -> int:
        env = self.env
        legal = info["legal_actions"]
        words = env.action_words
        if not legal:
            raise ValueError("nothing is asked now")
        if legal[0].startswith("bet_"):
            return words.index(legal[0])
        if "decline" in legal:
            return words.index("decline")
        round_ = env.table.round
        assert round_ is not None and round_.up_card is not None
        path = round_.path_of(round_.position(PLAYER, SPOT))
        hand = path.hand
        pair = hand.cards[0].value if "split" in legal else None
        move = self.chart.choose(hand.cards, round_.up_card.value, frozenset(legal), pair)
        if move not in legal:  # only split or surrender20 offered and the chart said neither
            move = "surrender20" if "surrender20" in legal else "stand"
        return words.index(move)


class OptimalAgent:
    def __init__(self, env: BlackjackEnv) -> None:
        if not env.grade:
            raise ValueError("the optimal agent reads the exact grade: make the env grade=True")
        self.env = env
        self.fallback = BasicStrategyAgent(env)

    def act(self, info: dict[str, Any]) -> int:
        grade = info.get("grade")
        if grade is None:  # a bet, or a point the analysis cannot grade (docs/agents.md)
            return self.fallback.act(info)
        return self.env.action_words.index(grade["best"])


__all__ = ["BasicStrategyAgent", "OptimalAgent"]
