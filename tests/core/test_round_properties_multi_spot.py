"""Hypothesis properties of the round for the multi-spot titles (issue 4).

Blackjack Unlimited: several players on random spots (one to three each), random insurance and
even-money answers, random legal decisions (Surrender 20% included) or silence (basic-strategy
autoplay), random pauses, sometimes a cancel. Boo Bucks: one player on random seats (the seat rule
decides which bets stand), a random pair of offered side-bet groups with random side bets
(Bonus Spin Xtreme on seats and on the dealer's hand, spun from a seeded source), insurance, even
money, decisions. The properties are those of ``test_round_properties.py`` for Boundless: cards
conserved, coins conserved and never negative, every legal sequence ends, the event log rebuilds
the same round, and views never show the hole card or an undealt card.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_round_properties import _cards_in, _decide, _play, _round_cards, _snapshot

from boundless.core.cards import Card, fresh_decks
from boundless.core.errors import RulesError
from boundless.core.random_source import SeededSource
from boundless.core.round import SharedRound
from boundless.core.round.views import player_view
from boundless.core.rules import RuleSet
from boundless.core.shoe import Shoe
from boundless.core.strategy_chart import StrategyChart
from boundless.titles import load_game

UNLIMITED = load_game("unlimited")
BOO_BUCKS_PRESETS = [
    load_game(key)
    for key in (
        "boo-bucks",
        "boo-bucks-h17",
        "boo-bucks-no-das",
        "boo-bucks-single-deck",
        "boo-bucks-split-aces-hit",
    )
]
PROPERTY_SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
Game = tuple[RuleSet, StrategyChart | None]


def _bet_unlimited(data: st.DataObject, round_: SharedRound) -> dict[str, int]:
    balances: dict[str, int] = {}
    for index in range(data.draw(st.integers(1, 5), label="players")):
        player = f"p{index}"
        balance = data.draw(st.sampled_from([100, 1000, 2500, 100_000]), label="balance")
        spots = data.draw(
            st.lists(st.integers(1, 3), min_size=1, max_size=3, unique=True), label="spots"
        )
        placed = False
        for spot in spots:
            main = data.draw(st.sampled_from([100, 500, 1000]), label="main")
            try:
                round_.place_bet(player, spot, main, {}, free_amount=None if placed else balance)
            except RulesError:
                continue
            placed = True
        if placed:
            balances[player] = balance
    if not balances:
        round_.place_bet("rich", 2, 100, {}, free_amount=1000)
        balances["rich"] = 1000
    return balances


def _bet_boo_bucks(data: st.DataObject, round_: SharedRound) -> dict[str, int]:
    balance = data.draw(st.sampled_from([300, 2000, 20_000, 1_000_000]), label="balance")
    available = sorted(round_.available_side_bets())
    placed = False
    for spot in (3, 2, 1):  # right to left: the seat rule looks at the seat to the right
        if not data.draw(st.booleans(), label=f"seat {spot}"):
            continue
        main = data.draw(st.sampled_from([0, 100, 500, 2000]), label="main")
        sides = {key: data.draw(st.sampled_from([0, 0, 100, 300]), label=key) for key in available}
        try:
            round_.place_bet("solo", spot, main, sides, free_amount=None if placed else balance)
        except RulesError:
            continue
        placed = True
    if not placed:
        round_.place_bet("solo", 3, 100, {}, free_amount=1000)
        balance = 1000
    return {"solo": balance}


def over_the_titles(test: Callable[..., None]) -> Callable[..., None]:
    """A property of (``data``, ``game``, ``seed``): Unlimited or a Boo Bucks preset, and a seed
    for the shoe and the wheels."""
    return PROPERTY_SETTINGS(given(st.data(), _games(), st.integers(0, 2**32))(test))  # type: ignore[no-any-return]


def _fresh_round(data: st.DataObject, game: Game, seed: int) -> tuple[SharedRound, dict[str, int]]:
    """:func:`_new_round` on a fresh eight-deck shoe shuffled from ``seed``."""
    return _new_round(data, game, Shoe.shuffled(8, 0.75, SeededSource(seed)), seed)


def _new_round(
    data: st.DataObject, game: Game, cards: Shoe, seed: int
) -> tuple[SharedRound, dict[str, int]]:
    rules, chart = game
    offered = None
    if rules.side_bet_offer.mode == "player_chooses":
        offered = data.draw(
            st.lists(
                st.sampled_from(sorted(rules.side_bet_groups())),
                min_size=rules.side_bet_offer.choose_count,
                max_size=rules.side_bet_offer.choose_count,
                unique=True,
            ),
            label="offer",
        )
    round_ = SharedRound(
        rules, chart=chart, cards=cards, offered_side_bets=offered, randomness=SeededSource(seed)
    )
    bettor = _bet_unlimited if rules.table.shared else _bet_boo_bucks
    return round_, bettor(data, round_)


def _games() -> st.SearchStrategy[Game]:
    return st.sampled_from([UNLIMITED, *BOO_BUCKS_PRESETS])


@over_the_titles
def test_cards_are_conserved_over_a_shoe(data: st.DataObject, game: Game, seed: int) -> None:
    shoe = Shoe.shuffled(1, 0.6, SeededSource(seed))
    taken: list[Card] = []
    rounds = 0
    while not shoe.cut_card_out and rounds < 3:
        rounds += 1
        before = shoe.position
        round_, _ = _new_round(data, game, shoe, seed)
        _play(data, round_)
        used = _round_cards(round_)
        assert used == list(shoe.dealt()[before:])
        taken += used
    assert Counter(taken) + Counter(shoe.undealt()) == Counter(fresh_decks(1))


@over_the_titles
def test_coins_are_conserved_and_never_negative(data: st.DataObject, game: Game, seed: int) -> None:
    round_, balances = _fresh_round(data, game, seed)
    _play(data, round_)
    staked, paid = round_.staked(), round_.paid()
    assert (round_.book.free >= 0).all()
    assert (paid >= 0).all()
    assert sum(int(payment.amounts.sum()) for payment in round_.payments) == int(paid.sum())
    if round_.phase == "cancelled":
        assert (paid == staked).all()
    for index, player in enumerate(round_.book.player_ids):
        mine = round_.book.player == index
        # Free coins are the balance, less what the round holds, plus what it paid back.
        free = int(round_.book.free[index])
        assert free == balances[player] - int(staked[mine].sum()) + int(paid[mine].sum())
        assert balances[player] - int(staked[mine].sum()) + int(paid[mine].sum()) >= 0
    if round_.phase == "settled" and not round_.rules.table.shared:
        # One player: the seat rule held for every bet that stood.
        seats = sorted(int(spot) for spot in round_.book.spot)
        total = {
            int(s): int(round_.book.main[p] + round_.book.sides[p].sum())
            for p, s in enumerate(round_.book.spot)
        }
        main = {int(s): int(round_.book.main[p]) for p, s in enumerate(round_.book.spot)}
        for left, right in itertools.pairwise(seats):
            assert main[left] <= 5 * total[right]


@over_the_titles
def test_every_legal_sequence_ends_settled_or_cancelled(
    data: st.DataObject, game: Game, seed: int
) -> None:
    round_, _ = _fresh_round(data, game, seed)
    _play(data, round_, cancel=False)
    assert round_.phase == "settled"
    assert np.all(round_.book.pending == -1)


@over_the_titles
def test_rebuilding_from_the_event_log_gives_the_same_round(
    data: st.DataObject, game: Game, seed: int
) -> None:
    round_, _ = _fresh_round(data, game, seed)
    _play(data, round_)
    rules, chart = game
    rebuilt = SharedRound.rebuild(rules, round_.events, chart)
    assert _snapshot(rebuilt) == _snapshot(round_)
    assert _extra(rebuilt) == _extra(round_)


def _extra(round_: SharedRound) -> dict[str, Any]:
    """What ``_snapshot`` leaves out and the multi-spot titles add: spots, wheels, payments."""
    return {
        "spot_cards": round_.spot_cards,
        "wheels": round_.wheel_results,
        "side_patterns": {key: repr(value) for key, value in round_.side_patterns.items()},
        "payments": [
            (payment.stage, payment.positions.tolist(), payment.amounts.tolist())
            for payment in round_.payments
        ],
    }


@over_the_titles
def test_views_never_show_the_hole_card_or_an_undealt_card(
    data: st.DataObject, game: Game, seed: int
) -> None:
    shoe = Shoe.shuffled(8, 0.75, SeededSource(seed))
    round_, _ = _new_round(data, game, shoe, seed)
    round_.deal()
    while not round_.over:
        for player in round_.book.player_ids:
            view = player_view(round_, player)
            shown = Counter(_cards_in(view))
            visible = Counter(shoe.dealt())
            if round_.hidden_hole is not None and not round_.hole_revealed:
                visible[round_.hidden_hole] -= 1
                assert len(view["dealer"]["cards"]) == 1
                assert view["dealer"]["hole_hidden"] is True
            if not round_.rules.table.shared:
                assert view["dealer"]["hole_hidden"] == (
                    round_.rules.dealer.hole_card == "peek" and not round_.hole_revealed
                )
            assert not (shown - visible), "a view shows a card not visible yet"
        if round_.phase == "insurance":
            round_.close_insurance()
            continue
        if round_.phase == "decisions":
            _decide(data, round_)
        round_.advance()
