"""A table dealer rebuilt from any prefix of its round's public events deals the rest of the
round exactly as the first dealer did; a different shoe or position is refused, never dealt."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boundless.core.errors import EventLogError
from boundless.core.random_source import SeededSource
from boundless.core.round import events as ev
from boundless.core.round.dealer_rebuild import rebuild_dealer, same_event
from boundless.core.round.dealer_table import TableDealer
from boundless.core.round.follower import BetsReport, FollowerRound, StepReport
from boundless.core.round.phases import INSURANCE
from boundless.core.rules import RuleSet
from boundless.core.shoe import Shoe
from boundless.core.strategy_chart import StrategyChart
from boundless.titles import load_game

Game = tuple[RuleSet, StrategyChart | None]

GAMES = [load_game("boundless"), load_game("boo-bucks")]
"""One spot with the peek; three spots, insurance and side bets offered."""
RULES, CHART = GAMES[0]


def shoe(seed: int, position: int = 0, rules: RuleSet = RULES) -> Shoe:
    made = Shoe.shuffled(rules.shoe.decks, 0.75, SeededSource(seed))
    for _ in range(position):
        made.draw()
    return made


def follower_for(
    dealer: TableDealer, spots: list[int], chart: StrategyChart | None = CHART
) -> FollowerRound:
    follower = FollowerRound(dealer.rules, dealer.opened, chart=chart)
    table = dealer.rules.table
    if table.shared:  # players side by side on the table's spots
        bets = [(f"p{index}", min(spot, table.spots)) for index, spot in enumerate(spots)]
    else:  # a private table: one player on several of its spots
        bets = [("p", spot) for spot in sorted({min(spot, table.spots) for spot in spots})]
    for player, spot in bets:
        follower.place_bet(player, spot, 100, {}, free_amount=10_000)
    return follower


def play_on(
    dealer: TableDealer, follower: FollowerRound, log: list[ev.TableEvent]
) -> list[ev.TableEvent]:
    """Deal the round to its end (the follower autoplays), adding to ``log``."""
    while not dealer.done:
        if dealer.phase == INSURANCE:
            made = dealer.close_insurance()
        else:
            made = dealer.close_step([follower.step_report()])
        for event in made:
            follower.apply_public(event)
        log.extend(made)
    return log


def whole_round(
    seed: int, position: int, spots: list[int], game: Game = GAMES[0]
) -> tuple[list[ev.TableEvent], BetsReport]:
    rules, chart = game
    dealer = TableDealer(rules, cards=shoe(seed, position, rules))
    follower = follower_for(dealer, spots, chart)
    bets = follower.bets_report()
    log: list[ev.TableEvent] = [dealer.opened]
    for event in dealer.close_bets([bets]):
        follower.apply_public(event)
        log.append(event)
    return play_on(dealer, follower, log), bets


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game=st.sampled_from(GAMES),
    seed=st.integers(0, 2**16),
    position=st.integers(0, 40),
    spots=st.lists(st.integers(1, 3), min_size=1, max_size=4),
)
def test_a_dealer_rebuilt_from_any_prefix_deals_the_rest_alike(
    game: Game, seed: int, position: int, spots: list[int]
) -> None:
    rules, chart = game
    log, bets = whole_round(seed, position, spots, game)
    for cut in range(1, len(log) + 1):
        dealer = TableDealer(rules, cards=shoe(seed, position, rules))
        follower = follower_for(dealer, spots, chart)
        last_report: StepReport | None = None
        for event in log[1:cut]:
            if isinstance(event, ev.StepDealt):
                last_report = follower.step_report()
            follower.apply_public(event)
        rebuilt = rebuild_dealer(dealer, bets, log[:cut])
        again = list(log[:cut])
        if rebuilt.step_dealt is not None:
            assert last_report is not None and same_event(rebuilt.step_dealt, log[cut - 1])
            made = dealer.close_step([last_report])
            assert same_event(made[0], rebuilt.step_dealt)
            rebuilt.unlogged.extend(made[1:])
        for event in rebuilt.unlogged:
            follower.apply_public(event)
            again.append(event)
        play_on(dealer, follower, again)
        assert len(again) == len(log) and all(map(same_event, again, log)), cut


def test_another_position_in_the_shoe_is_refused() -> None:
    log, bets = whole_round(3, 10, [1, 2])
    with pytest.raises(EventLogError, match="another shoe or position"):
        rebuild_dealer(TableDealer(RULES, cards=shoe(3, 11)), bets, log)
    with pytest.raises(EventLogError, match="opening"):
        rebuild_dealer(TableDealer(RULES, cards=shoe(3, 10), round_in_shoe=2), bets, log)
