"""A coordinator and gateways on one bus, playing real rounds of a title on the core's
table dealer and follower rounds; and the same round in one shared round, for comparison."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from boundless.core.random_source import SeededSource
from boundless.core.round import events as ev
from boundless.core.round.dealer_table import TableDealer
from boundless.core.round.follower import FollowerRound
from boundless.core.round.phases import DEALER, DECISIONS, INSURANCE
from boundless.core.round.results import PositionResult, position_result
from boundless.core.round.round import SharedRound
from boundless.core.shoe import Shoe
from boundless.server.cluster import Bus, StoredEvent, in_sequence
from boundless.server.cluster.coordinator import Coordinator, CoordinatorTimers
from boundless.server.cluster.gateway import Gateway, SliceMaker
from boundless.server.cluster.slices import FollowerSlice, SliceSide
from boundless.titles import load_game

RULES, CHART = load_game("boundless")
FAST = CoordinatorTimers(
    betting_seconds=0.01,
    insurance_seconds=2.0,
    decision_seconds=2.0,
    report_seconds=5.0,
    settle_seconds=5.0,
    round_gap_seconds=0.0,
    lease_renew_seconds=0.1,
    standby_poll_seconds=0.05,
)
TABLE = "t1"
Bet = tuple[str, int]
"""A player and their main stake (spot 1, coins enough for every double and split)."""
FREE_COINS = 100_000


def shoe(seed: int) -> Shoe:
    return Shoe.shuffled(RULES.shoe.decks, 0.75, SeededSource(seed))


def dealer_maker(seed: int) -> Callable[[int], TableDealer]:
    return lambda round_number: TableDealer(RULES, cards=shoe(seed + round_number))


@dataclass
class ClusterRun:
    slices: dict[str, list[FollowerSlice]] = field(default_factory=dict)

    def slice_maker(self, name: str, bets: list[Bet]) -> SliceMaker:
        def new_slice(round_number: int, opened: ev.RoundOpened) -> SliceSide:
            follower = FollowerRound(RULES, opened, chart=CHART)
            for player, stake in bets:
                follower.place_bet(player, 1, stake, {}, free_amount=FREE_COINS)
            made = FollowerSlice(follower)
            self.slices.setdefault(name, []).append(made)
            return made

        return new_slice

    def results(self, round_index: int = 0) -> dict[str, tuple[PositionResult, int]]:
        out: dict[str, tuple[PositionResult, int]] = {}
        for slices in self.slices.values():
            follower = slices[round_index].follower
            for position in range(follower.position_count()):
                player = follower.player_of(position)
                out[player] = (
                    position_result(follower, position),
                    int(follower.final_payouts()[position]),
                )
        return out


def gateways_for(bus: Bus, run: ClusterRun, spread: dict[str, list[Bet]]) -> dict[str, Gateway]:
    return {
        name: Gateway(bus, TABLE, name, run.slice_maker(name, bets))
        for name, bets in spread.items()
    }


async def play(
    bus: Bus,
    spread: dict[str, list[Bet]],
    *,
    seed: int,
    rounds: int = 1,
    timers: CoordinatorTimers = FAST,
) -> ClusterRun:
    run = ClusterRun()
    coordinator = Coordinator(
        bus, TABLE, "c1", dealer_maker(seed), timers, gateways=frozenset(spread)
    )
    gateways = gateways_for(bus, run, spread)
    await asyncio.gather(
        coordinator.run(rounds=rounds), *(g.run(rounds=rounds) for g in gateways.values())
    )
    return run


def play_alone(bets: list[Bet], *, seed: int) -> dict[str, tuple[PositionResult, int]]:
    """The same round in one shared round: everyone autoplayed, the same shoe."""
    single = SharedRound(RULES, chart=CHART, cards=shoe(seed + 1))
    for player, stake in bets:
        single.place_bet(player, 1, stake, {}, free_amount=FREE_COINS)
    return finish_alone(single)


Choices = Callable[[SharedRound], None]


def finish_alone(
    single: SharedRound,
    insurance: Choices = lambda _: None,
    decisions: Choices = lambda _: None,
) -> dict[str, tuple[PositionResult, int]]:
    """Deal and play the shared round to its end; ``insurance`` and ``decisions`` make the
    players' choices while each window is open (the rest is autoplayed). Every position's
    result and payout."""
    single.deal()
    while not single.over:
        if single.phase == INSURANCE:
            insurance(single)
            single.close_insurance()
        elif single.phase == DECISIONS:
            decisions(single)
            single.close_step()
        elif single.phase == DEALER:
            single.play_dealer()
        else:
            single.settle()
    return {
        single.player_of(position): (
            position_result(single, position),
            int(single.final_payouts()[position]),
        )
        for position in range(single.position_count())
    }


async def log_of(bus: Bus, table: str = TABLE) -> list[StoredEvent]:
    """Every round event of the table so far, in order."""
    last = await bus.last_event_seq(table)
    out: list[StoredEvent] = []
    if not last:
        return out
    async for stored in in_sequence(bus.events(table, from_seq=1)):
        out.append(stored)
        if stored.seq >= last:
            break
    return out
