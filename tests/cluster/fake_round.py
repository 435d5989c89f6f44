"""A small stand-in round engine for the cluster's message path (not blackjack's rules).

Each spot gets two shared initial cards; at every step each position still playing on the spot
takes the step's card while its total is under its own threshold, and busts over 21; the dealer
draws to 17. It has what the protocol needs to be tested on its own: shared step cards that go
to every taker, a step plan that depends on the takers, and per-position results that come out
the same however the positions are spread over gateways.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import cast

from boundless.server.cluster.bus import JsonBody
from boundless.server.cluster.protocol import StepPlan, StepTotals

MAX_STEPS_PER_SPOT = 8


@dataclass(frozen=True)
class FakePosition:
    key: str
    spot: int
    threshold: int
    stake: int = 10


class FakeTable:
    """The coordinator's side: deals from a seeded deck."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)
        self._spots: list[int] = []
        self._steps_on_spot = 0
        self._step = 0
        self.cards_drawn = 0

    def _draw(self) -> int:
        self.cards_drawn += 1
        return self._rng.randint(1, 10)

    def deal(self, positions_by_spot: Mapping[int, int]) -> JsonBody:
        self._spots = sorted(spot for spot, count in positions_by_spot.items() if count)
        cards = {str(spot): [self._draw(), self._draw()] for spot in self._spots}
        return {"spot_cards": cards, "dealer_up": self._draw()}

    def next_step(self, last: StepTotals | None) -> StepPlan | None:
        if not self._spots:
            return None
        if last is None:
            spot = self._spots[0]
            self._steps_on_spot = 0
        elif last.playing and self._steps_on_spot < MAX_STEPS_PER_SPOT:
            spot = last.spot
        else:
            later = [s for s in self._spots if s > last.spot]
            if not later:
                return None
            spot, self._steps_on_spot = later[0], 0
        self._step += 1
        self._steps_on_spot += 1
        return StepPlan(step=self._step, spot=spot, body={})

    def card(self, plan: StepPlan, takers: int) -> JsonBody:
        return {"value": self._draw()} if takers else {}

    def play_dealer(self) -> JsonBody:
        cards = [self._draw()]
        while sum(cards) < 17:
            cards.append(self._draw())
        return {"dealer_cards": cards}


@dataclass
class _Hand:
    position: FakePosition
    total: int = 0
    done: bool = False
    taking: bool = False


@dataclass
class FakeSlice:
    """One gateway's positions; results land in ``results`` (shared across gateways by tests)."""

    positions: list[FakePosition]
    results: dict[str, tuple[int, int]]
    cancelled: list[str] = field(default_factory=list)
    settled: int = 0
    hands: dict[str, _Hand] = field(default_factory=dict)
    spot: int | None = None
    dealer_up: int = 0
    dealer_total: int = 0

    def close_bets(self) -> Mapping[int, int]:
        counts: dict[int, int] = {}
        for position in self.positions:
            counts[position.spot] = counts.get(position.spot, 0) + 1
        return counts

    def deal(self, body: JsonBody) -> None:
        spot_cards = cast(dict[str, list[int]], body["spot_cards"])
        for position in self.positions:
            self.hands[position.key] = _Hand(position, sum(spot_cards[str(position.spot)]))

    def open_step(self, plan: StepPlan) -> None:
        self.spot = plan.spot

    def all_decided(self, step: int) -> bool:
        return True  # bots decide at once

    def close_step(self, step: int) -> tuple[int, int]:
        takers = 0
        for hand in self.hands.values():
            hand.taking = False
            if hand.position.spot != self.spot or hand.done:
                continue
            if hand.total < hand.position.threshold:
                hand.taking = True
                takers += 1
            else:
                hand.done = True
        return takers, takers

    def apply_card(self, step: int, body: JsonBody) -> None:
        value = cast(int, body["value"])
        for hand in self.hands.values():
            if hand.taking:
                hand.total += value
                hand.taking = False
                hand.done = hand.total > 21

    def dealer_played(self, body: JsonBody) -> None:
        self.dealer_total = sum(cast(list[int], body["dealer_cards"]))

    def settle(self) -> JsonBody:
        self.settled += 1
        net_sum = 0
        for key, hand in self.hands.items():
            stake = hand.position.stake
            if hand.total > 21:
                net = -stake
            elif self.dealer_total > 21 or hand.total > self.dealer_total:
                net = stake
            elif hand.total == self.dealer_total:
                net = 0
            else:
                net = -stake
            self.results[key] = (hand.total, net)
            net_sum += net
        return {"net": net_sum, "positions": len(self.hands)}

    def cancel(self, reason: str) -> None:
        self.cancelled.append(reason)
