"""One table on the real engine for agents: the shoe cycle, the shared round, the cards seen.

:class:`AgentTable` is what every environment in this package drives. It adds nothing to the
rules: bets, insurance and decisions go through :class:`SharedRound`'s own calls, the shoe
through :class:`ShoeCycle` (cut card, burn, reshuffle), and an agent that does not answer is
left to the round's autoplay exactly as at a live table. What it adds is bookkeeping an agent
needs: who is asked what now, the cards seen since the shuffle, the shoe's penetration, each
player's net result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from boundless.core.arrays import IntArray
from boundless.core.cards import Card
from boundless.core.errors import RulesError, ShoeExhaustedError
from boundless.core.random_source import SeededSource
from boundless.core.round import DECISIONS, INSURANCE, Action, SharedRound
from boundless.core.round.autoplay import autoplay_choices
from boundless.core.round.checks import insurance_offer
from boundless.core.rules import RuleSet
from boundless.core.shoe_cycle import ShoeCycle
from boundless.core.strategy_chart import StrategyChart

ACTION_WORDS: tuple[str, ...] = (
    "hit",
    "stand",
    "double",
    "split",
    "surrender",
    "surrender20",
    "insurance",
    "even_money",
    "decline",
)
"""Every answer an agent can give in a round, in the order of the action indices."""
DECISION_WORDS = ACTION_WORDS[:6]  # the engine's Action codes 0..5, in that order
INSURANCE_WORDS = ("insurance", "even_money", "decline")
RANKS = 13
SPOT = 1
DEFAULT_BANKROLL_UNITS = 1_000_000


@dataclass(frozen=True, slots=True)
class Bet:
    """One player's bet for a round: the main amount and any side bets (minor units)."""

    main_amount: int
    side_amounts: Mapping[str, int] = field(default_factory=dict)
    every_side_bet: bool = False
    """Also stake each side bet the round offers at its minimum (those not named above)."""


class AgentTable:
    """A table of ``players`` on one spot (a shared table: all of them play its cards)."""

    def __init__(
        self,
        rules: RuleSet,
        chart: StrategyChart | None,
        players: Sequence[str],
        seed: int = 0,
        bankroll_amount: int | None = None,
    ) -> None:
        if not players or len(set(players)) != len(players):
            raise ValueError("an agent table needs one or more distinct player ids")
        if len(players) > 1 and not rules.table.shared:
            raise ValueError(
                f"title {rules.key!r} is not a shared table: one player only (table.shared)"
            )
        self.rules = rules
        self.chart = chart
        self.players = tuple(players)
        self.bankroll_amount = (
            bankroll_amount
            if bankroll_amount is not None
            else DEFAULT_BANKROLL_UNITS * rules.limits.unit_amount
        )
        self.round: SharedRound | None = None
        self._answered: set[str] = set()
        self._answered_at: tuple[str, int, int] = ("", 0, 0)
        self._legal_round: SharedRound | None = None
        self._legal_stamp = 0
        self._legal_of: dict[str, frozenset[Action]] = {}
        self.reseed(seed)

    # ---- the shoe ----------------------------------------------------------------------------
    def reseed(self, seed: int) -> None:
        """Start over from a new shoe drawn from ``seed`` (same seed, same cards)."""
        self._source = SeededSource(seed)
        self.cycle = ShoeCycle(self.rules, self._source)
        self.shoe_number = 0
        self._seen_before = np.zeros(RANKS, dtype=np.int64)
        self.round = None

    @property
    def penetration(self) -> float:
        """Share of the shoe dealt so far (burned cards included); 0 before the first shuffle."""
        shoe = self.cycle.shoe
        return 0.0 if shoe is None else shoe.position / len(shoe)

    def public_cards(self) -> list[Card]:
        """This round's cards everyone has seen so far (the hole card once revealed)."""
        round_ = self.round
        if round_ is None:
            return []
        cards: list[Card] = []
        for first, second in round_.spot_cards.values():
            cards += [first, second]
        for drawn in round_.step_cards.values():
            cards += drawn
        dealer = list(round_.dealer_cards)
        cards += dealer if round_.hole_revealed else dealer[:1]
        return cards

    def seen_ranks(self) -> IntArray:
        """Cards seen since the shuffle by rank (ace..king): earlier rounds, the burn's shown
        card, and this round's public cards."""
        seen = self._seen_before.copy()
        if self.round is not None and not self.round.over:  # a finished round is counted in
            for card in self.public_cards():
                seen[card.rank - 1] += 1
        return seen

    def unseen_ranks_before_round(self) -> IntArray:
        """Rank counts of the shoe as a player saw it when this round was dealt: the full shoe
        less the cards seen in earlier rounds (what the exact analysis is given)."""
        full = np.full(RANKS, 4 * self.rules.shoe.decks, dtype=np.int64)
        before = self._seen_before.copy()
        if self.round is not None and self.round.over:
            for card in self.public_cards():
                before[card.rank - 1] -= 1
        return full - before

    # ---- a round -----------------------------------------------------------------------------
    def open_round(self, bets: Mapping[str, Bet]) -> None:
        """Shuffle if due, take the bets, deal, and run the table to the first question."""
        if self.round is not None and not self.round.over:
            raise RuntimeError("the round in progress is not over")
        unknown = [player for player in bets if player not in self.players]
        if unknown:
            raise ValueError(f"unknown player(s) {unknown}; the table has {list(self.players)}")
        start = self.cycle.start_round()
        if start.shuffled is not None:
            self.shoe_number = start.shoe_number
            self._seen_before[:] = 0
            if start.shuffled.burn is not None:
                self._seen_before[start.shuffled.burn.revealed.rank - 1] += 1
        assert self.cycle.shoe is not None
        round_ = SharedRound(
            self.rules,
            round_in_shoe=start.round_in_shoe,
            chart=self.chart,
            cards=self.cycle.shoe,
            shoe_commitment=start.commitment,
            randomness=self._source,
        )
        self.round = round_
        self._answered = set()
        try:
            for player, bet in bets.items():
                sides = dict(bet.side_amounts)
                if bet.every_side_bet:
                    for key in sorted(round_.available_side_bets()):
                        side = self.rules.side_bet(key)
                        assert side is not None
                        sides.setdefault(key, side.min_amount)
                round_.place_bet(player, SPOT, bet.main_amount, sides, self.bankroll_amount)
        except RulesError:
            round_.cancel("a bet was refused")
            self._finish(voided=True)
            raise
        if not len(round_.book):
            round_.cancel("nobody bet")
            self._finish(voided=True)
            return
        self._run()

    def abandon(self) -> None:
        """Cancel the round in progress, if any (every stake comes back; its public cards stay
        seen): what a reset in the middle of an episode does."""
        round_ = self.round
        if round_ is not None and not round_.over:
            round_.cancel("abandoned by the agent")
            self._finish(voided=False)

    def asked(self) -> list[str]:
        """The players the table waits for now, in seat order (empty when the round is over)."""
        round_ = self.round
        if round_ is None or round_.over:
            return []
        self._forget_stale_answers()
        return [
            player
            for player in self.players
            if player not in self._answered and self._question(player) is not None
        ]

    def question(self, player: str) -> str | None:
        """``"insurance"``, ``"even_money"``, ``"decision"`` or None: what ``player`` is asked."""
        if player in self._answered:
            return None
        return self._question(player)

    def _question(self, player: str) -> str | None:
        round_ = self.round
        if round_ is None or not round_.has_player(player):
            return None
        if round_.phase == INSURANCE:
            return insurance_offer(round_, player, SPOT)
        if round_.phase == DECISIONS and self._legal_actions(player):
            return "decision"
        return None

    def _legal_actions(self, player: str) -> frozenset[Action]:
        """The round's legal actions for ``player``, asked once per round state (every change
        of a round appends one event to its log)."""
        round_ = self.round
        assert round_ is not None
        if self._legal_round is not round_ or self._legal_stamp != len(round_.events):
            self._legal_round, self._legal_stamp = round_, len(round_.events)
            self._legal_of = {}
        if player not in self._legal_of:
            self._legal_of[player] = round_.legal_actions(player, SPOT)
        return self._legal_of[player]

    def legal_words(self, player: str) -> tuple[str, ...]:
        """The answers the engine accepts from ``player`` now, in :data:`ACTION_WORDS` order."""
        asked = self.question(player)
        if asked is None:
            return ()
        if asked != "decision":
            return (asked, "decline")
        legal = self._legal_actions(player)
        return tuple(word for word in DECISION_WORDS if Action.from_word(word) in legal)

    def answer(self, player: str, word: str | None) -> None:
        """``player``'s answer (None: leave it to the table's autoplay, or decline insurance);
        the table then runs on to the next question or the round's end."""
        round_ = self.round
        asked = self.question(player)
        if round_ is None or asked is None:
            raise RulesError(f"player {player!r} is not asked anything now")
        if word is not None and word not in self.legal_words(player):
            legal = ", ".join(self.legal_words(player))
            raise RulesError(f"player {player!r}: {word!r} is not legal now (legal: {legal})")
        if word == "insurance":
            round_.take_insurance(player, SPOT)
        elif word == "even_money":
            round_.take_even_money(player, SPOT)
        elif word is not None and word != "decline":
            round_.decide(player, SPOT, word)
        self._answered.add(player)
        self._run()

    def _forget_stale_answers(self) -> None:
        """Answers count for one window or step; a new step asks everyone again."""
        round_ = self.round
        assert round_ is not None
        now = (str(round_.phase), round_.current_spot, round_.step)
        if now != self._answered_at:
            self._answered_at = now
            self._answered = set()

    def _run(self) -> None:
        """Advance the table while nobody is asked anything."""
        round_ = self.round
        assert round_ is not None
        try:
            while not round_.over and not self.asked():
                round_.advance()  # close a window or step (autoplay for the silent), dealer, settle
        except ShoeExhaustedError:
            round_.cancel("the shoe ran out of cards; every stake is returned")
            self._finish(voided=True)
            return
        if round_.over:
            self._finish(voided=False)

    def _finish(self, voided: bool) -> None:
        round_ = self.round
        assert round_ is not None
        if not voided:
            for card in self.public_cards():
                self._seen_before[card.rank - 1] += 1
        self.cycle.end_round(voided_by_exhaustion=voided)

    def net_amounts(self) -> dict[str, int]:
        """Each player's coins won (+) or lost (-) in this round so far (stakes out, pay in)."""
        round_ = self.round
        if round_ is None:
            return {player: 0 for player in self.players}
        staked, paid = round_.staked_by_player(), round_.paid_by_player()
        net = {player: 0 for player in self.players}
        for index, player in enumerate(round_.player_ids):
            net[player] = int(paid[index]) - int(staked[index])
        return net

    @property
    def over(self) -> bool:
        return self.round is None or self.round.over


def autoplay_word(table: AgentTable, player: str) -> str:
    """What the table does for ``player`` if they give no answer now."""
    round_ = table.round
    asked = table.question(player)
    if round_ is None or asked is None:
        raise RulesError(f"player {player!r} is not asked anything now")
    if asked != "decision":
        return "decline"
    position = round_.position(player, SPOT)
    rich, poor = autoplay_choices(round_.path_of(position), round_.context())
    return (rich if Action(rich) in round_.legal_actions(player, SPOT) else poor).word


__all__ = [
    "ACTION_WORDS",
    "DECISION_WORDS",
    "INSURANCE_WORDS",
    "AgentTable",
    "Bet",
    "autoplay_word",
]
