"""A gateway's bots on a SQLite ledger over the in-memory bus: their wallets are read ahead of
each bet close (after the slice before was written), a bot bets only what its wallet holds as
written by the last settlement, and the settlement lines made from the book's columns are the
plain per-position sums."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from boundless.core.round import events as ev
from boundless.core.round.follower import FollowerRound
from boundless.ledger import LedgerService, check_books, make_engine, make_session_factory
from boundless.ledger.database import upgrade_database
from boundless.ledger.records import PlayerSettlement, StakeOrder
from boundless.server.cluster import MemoryBus
from boundless.server.cluster.bot_slice import BOT_STAKE, BotSlice, BotWallets
from boundless.server.cluster.coordinator import Coordinator
from boundless.server.cluster.gateway import Gateway
from boundless.server.cluster.ledger_slice import ClusterLedger, settlement_of, stake_orders
from boundless.server.cluster.slices import SliceSide
from tests.cluster.conftest import run
from tests.cluster.harness import CHART, FAST, RULES, TABLE, dealer_maker

BOTS = [f"bot-g1-{index}" for index in range(1, 13)]
SEED_FIRST_ROUND_LOST = 2


@pytest.fixture
def ledger(tmp_path: Path) -> ClusterLedger:
    url = f"sqlite:///{tmp_path / 'ledger.sqlite'}"
    upgrade_database(url)
    return ClusterLedger(make_session_factory(make_engine(url)), "g1")


def plain_settlement(follower: FollowerRound) -> tuple[list[StakeOrder], list[PlayerSettlement]]:
    """The reference: position by position, as the slice summed them before."""
    staked, owed = follower.staked(), follower.final_payouts()
    extras: list[StakeOrder] = []
    by_player: dict[str, list[int]] = {}
    for position in range(follower.position_count()):
        player = follower.player_of(position)
        extra = int(staked[position]) - follower.main_stake(position)
        if extra:
            spot = follower.spot_of(position)
            extras.append(StakeOrder(player, f"{player}@{spot}", "extra", extra))
        line = by_player.setdefault(player, [0, 0])
        line[0] += int(staked[position])
        line[1] += int(owed[position])
    return extras, [PlayerSettlement(p, s, paid) for p, (s, paid) in sorted(by_player.items())]


def play(ledger: ClusterLedger, grants: dict[str, int], rounds: int, seed: int) -> list[BotSlice]:
    """``rounds`` rounds of the bots alone (``grants``: each one's coins); their slices."""
    for bot, grant in grants.items():
        ledger.grant_once([bot], grant)
    made: list[BotSlice] = []

    async def body() -> None:
        wallets = BotWallets(ledger, BOTS)
        wallets.read_ahead()

        def new_slice(round_number: int, opened: ev.RoundOpened) -> SliceSide:
            # Each round's read was started before its opening: after the last slice's writes.
            assert wallets.reading_ahead
            bots = BotSlice(FollowerRound(RULES, opened, chart=CHART), ledger, TABLE, wallets)
            bots.round_no = round_number
            made.append(bots)
            return bots

        bus = MemoryBus()
        coordinator = Coordinator(
            bus, TABLE, "c1", dealer_maker(seed), FAST, gateways=frozenset({"g1"}), ledger=ledger
        )
        gateway = Gateway(bus, TABLE, "g1", new_slice)
        await asyncio.gather(coordinator.run(rounds=rounds), gateway.run(rounds=rounds))
        assert wallets.reads == rounds + 1  # one per bet close, and the next one's under way

    run(body())
    return made


def test_bots_bet_from_the_wallets_their_last_settlement_left(ledger: ClusterLedger) -> None:
    # One stake for half of them, two for the others: a first round lost (this shoe's) leaves
    # only the others a stake for the second.
    grants = {bot: BOT_STAKE * (1 + index % 2) for index, bot in enumerate(BOTS)}
    made = play(ledger, grants, rounds=2, seed=SEED_FIRST_ROUND_LOST)
    first, second = (bots.follower for bots in made)
    assert sorted(first.player_ids) == sorted(BOTS)
    left = {
        bot: grants[bot]
        + sum(int(first.final_payouts()[p] - first.staked()[p]) for p in first.positions_of(bot))
        for bot in BOTS
    }
    kept = {bot for bot, coins in left.items() if coins >= BOT_STAKE}
    assert 0 < len(kept) < len(BOTS)  # the shoe makes both kinds
    assert set(second.player_ids) == kept
    with ledger.sessions.begin() as session:
        assert check_books(session).ok
        wallets = LedgerService(session).wallet_balances(BOTS)
    for bot in BOTS:
        net = 0
        for bots in made:
            follower = bots.follower
            for position in follower.positions_of(bot):
                net += int(follower.final_payouts()[position]) - int(follower.staked()[position])
        assert wallets[bot] == grants[bot] + net


def test_stake_orders_and_settlement_lines_are_the_plain_sums(ledger: ClusterLedger) -> None:
    made = play(ledger, dict.fromkeys(BOTS, 100_000), rounds=4, seed=3)
    for bots in made:
        follower = bots.follower
        expected = [
            (follower.player_of(p), f"{follower.player_of(p)}@{follower.spot_of(p)}", "main", m)
            for p in range(follower.position_count())
            if (m := follower.main_stake(p))
        ]
        assert stake_orders(follower) == expected
        assert settlement_of(follower) == plain_settlement(follower)
