"""Shoes played through the real engine (ShoeCycle + SharedRound), recorded in the simulator's
record shape, so the kernel can be compared with the engine card for card.

One player sits on every spot with a main bet of one unit (100) and one unit on every side bet
that is offered and available. Boo Bucks offers two side-bet groups a round: the Bonus Spin
Xtreme group always (so both sides draw the same wheel numbers) and one other in turn.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from boundless.core.cards import Card
from boundless.core.random_source import SeededSource
from boundless.core.round.actions import Action
from boundless.core.round.round import SharedRound
from boundless.core.rules import RuleSet
from boundless.core.shoe import Shoe
from boundless.core.shoe_cycle import ShoeCycle
from boundless.core.side_bets import PENDING
from boundless.core.strategy_chart import StrategyChart
from boundless.math.simulation.reference import Hand, Policy, RoundRecord, WheelNumbers

UNIT = 100
PLAYER = "sim"
FREE = 10**12


def offer_for(rules: RuleSet, round_number: int) -> list[str] | None:
    if rules.side_bet_offer.mode != "player_chooses":
        return None
    groups = rules.side_bet_groups()
    wheel = [name for name, keys in groups.items() if any(_has_wheel(rules, key) for key in keys)]
    others = [name for name in groups if name not in wheel]
    chosen = wheel[:1] + others[round_number % len(others) : round_number % len(others) + 1]
    chosen += [group for group in others if group not in chosen]
    return chosen[: rules.side_bet_offer.choose_count]


def _has_wheel(rules: RuleSet, key: str) -> bool:
    bet = rules.side_bet(key)
    return bet is not None and bet.wheel is not None


def _chart_action(round_: SharedRound, position: int, chart: StrategyChart) -> Action:
    spot = int(round_.book.spot[position])
    legal = round_.legal_actions(PLAYER, spot)
    words = frozenset(action.word for action in legal)
    hand = round_.path_of(position).hand
    assert round_.up_card is not None
    pair_value = hand.cards[0].value if Action.SPLIT in legal else None
    move = chart.choose(hand.cards, round_.up_card.value, words, pair_value)
    if move in words:
        return Action.from_word(move)
    return Action.SURRENDER20 if Action.SURRENDER20 in legal else Action.STAND


def play_engine_round(
    round_: SharedRound, chart: StrategyChart | None, decide_by_chart: bool
) -> None:
    while not round_.over:
        if decide_by_chart and chart is not None:
            for position in round_.positions_awaiting_decision().tolist():
                action = _chart_action(round_, position, chart)
                round_.decide(PLAYER, int(round_.book.spot[position]), action)
        round_.advance()


def _side_payouts(round_: SharedRound, position: int, spot: int) -> dict[str, int]:
    """Each staked side bet's payout to the position, from the round's settled patterns."""
    paid: dict[str, int] = {}
    for column, key in enumerate(round_.book.side_keys):
        stake = int(round_.book.sides[position, column])
        if not stake:
            continue
        bet = round_.rules.side_bet(key)
        assert bet is not None
        pattern = round_.side_patterns.get((spot, key))
        assert pattern is not PENDING
        if bet.wheel is not None:
            amount = round_.wheel_results.get((position, key), (0, ()))[0] if pattern else 0
        elif pattern is None:
            amount = 0
        else:
            amount = bet.pays[str(pattern)].payout(stake)
        paid[key] = amount
    return paid


def _play_engine_round(
    rules: RuleSet,
    chart: StrategyChart | None,
    policy: Policy,
    shoe: Shoe,
    round_in_shoe: int,
    offered: list[str] | None,
    commitment: str | None,
    wheel: WheelNumbers,
) -> tuple[RoundRecord, dict[str, bool]]:
    """One round on every spot of ``shoe``: its record and which side bets were staked."""
    spots = list(range(1, rules.table.spots + 1))
    before = shoe.position
    round_ = SharedRound(
        rules,
        randomness=wheel,
        cards=shoe,
        chart=chart,
        shoe_commitment=commitment,
        offered_side_bets=offered,
        round_in_shoe=round_in_shoe,
    )
    available = sorted(round_.available_side_bets())
    round_.place_bets(
        [PLAYER] * len(spots),
        spots,
        [UNIT] * len(spots),
        {key: [UNIT] * len(spots) for key in available},
        [FREE] * len(spots),
    )
    play_engine_round(round_, chart, policy == "basic")
    staked = {key: key in available for key in (bet.key for bet in rules.side_bets)}
    return _record(round_, shoe.position - before, round_in_shoe), staked


def play_engine_shoe(
    rules: RuleSet,
    chart: StrategyChart | None,
    policy: Policy,
    seed: int,
    wheel_numbers: Sequence[int],
    round_offset: int = 0,
) -> tuple[list[int], list[RoundRecord], list[dict[str, bool]]]:
    """One shoe of the engine: (deck in dealing order, rounds, which side bets were staked)."""
    cycle = ShoeCycle(rules, SeededSource(seed))
    wheel = WheelNumbers(list(wheel_numbers))
    deck: list[int] = []
    records: list[RoundRecord] = []
    staked: list[dict[str, bool]] = []
    while True:
        start = cycle.start_round()
        shoe = cycle.shoe
        assert shoe is not None
        if start.shuffled is not None:
            deck = [int(card) for card in shoe.reveal().cards]
        offered = offer_for(rules, round_offset + len(records))
        record, bets = _play_engine_round(
            rules, chart, policy, shoe, start.round_in_shoe, offered, start.commitment, wheel
        )
        records.append(record)
        staked.append(bets)
        if cycle.end_round():
            return deck, records, staked


def play_engine_stacked_round(
    rules: RuleSet,
    chart: StrategyChart | None,
    deck: Sequence[int],
    wheel_numbers: Sequence[int],
    round_number: int,
) -> tuple[RoundRecord, dict[str, bool]]:
    """One round of the engine, chart decisions fed in, from a shoe stacked as ``deck``."""
    shoe = Shoe.stacked([Card(code) for code in deck])
    offered = offer_for(rules, round_number)
    wheel = WheelNumbers(list(wheel_numbers))
    return _play_engine_round(rules, chart, "basic", shoe, 1, offered, None, wheel)


def _record(round_: SharedRound, used: int, round_in_shoe: int) -> RoundRecord:
    book = round_.book
    hands: list[list[Hand]] = []
    main: list[float] = []
    side: dict[str, list[float] | None] = {key: [] for key in book.side_keys}
    paid = round_.paid()
    for position in range(len(book)):
        spot = int(book.spot[position])
        path = round_.path_of(position)
        hands.append([Hand(list(hand.cards), hand.stake_units, hand.status) for hand in path.hands])
        sides = _side_payouts(round_, position, spot)
        main_paid = int(paid[position]) - sum(sides.values())
        stake = int(book.main[position] + book.extra[position])
        main.append((main_paid - stake) / UNIT)
        for key in book.side_keys:
            values = side[key]
            assert values is not None
            values.append(sides[key] / UNIT if key in sides else np.nan)
    return RoundRecord(
        round_in_shoe=round_in_shoe,
        cards_used=used,
        hands=hands,
        dealer=list(round_.dealer_cards),
        main=main,
        side=side,
    )
