"""Hypothesis properties of the shared round (issue 2, item 8).

Random tables: several players with random bets and side bets, random insurance answers,
random legal decisions or silence (autoplay), random pauses, sometimes a cancel.
"""

from __future__ import annotations

import contextlib
import functools
from collections import Counter
from typing import Any

import numpy as np
import pytest

# The golden rounds' helper (tests/core/golden), reached from this folder as a namespace package.
from golden.golden_helpers import unchanged
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boundless.core.cards import Card, fresh_decks
from boundless.core.errors import RulesError
from boundless.core.random_source import SeededSource
from boundless.core.round import SharedRound
from boundless.core.round.actions import Action
from boundless.core.round.views import player_view
from boundless.core.rules import RuleSet
from boundless.core.shoe import Shoe
from boundless.titles import load_game

RULES, CHART = load_game("boundless")
PROPERTY_SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _play_random_round(data: st.DataObject, shoe: Shoe, round_in_shoe: int = 1) -> SharedRound:
    round_ = SharedRound(RULES, chart=CHART, cards=shoe, round_in_shoe=round_in_shoe)
    round_.test_balances = {}  # type: ignore[attr-defined]
    players = data.draw(st.integers(1, 6), label="players")
    available = sorted(round_.available_side_bets())
    for index in range(players):
        balance = data.draw(st.sampled_from([0, 150, 1000, 2500, 100000]), label="balance")
        main = data.draw(st.sampled_from([0, 100, 500, 1000]), label="main")
        sides = {key: data.draw(st.sampled_from([0, 100, 300]), label=key) for key in available}
        if main + sum(sides.values()) == 0:
            main = 100
        try:
            round_.place_bet(f"p{index}", 1, main, sides, free_amount=balance)
        except RulesError:
            continue
        round_.test_balances[f"p{index}"] = balance  # type: ignore[attr-defined]
    if not len(round_.book):
        round_.place_bet("rich", 1, 100, {}, free_amount=1000)
        round_.test_balances["rich"] = 1000  # type: ignore[attr-defined]
    _play(data, round_, cancel_within=40)
    return round_


def _play(
    data: st.DataObject, round_: SharedRound, cancel: bool = True, cancel_within: int = 60
) -> None:
    """Deal and drive the round with random legal answers until it is over (or cancelled at a
    random move up to ``cancel_within``); the single-spot rounds are a case of the multi-spot."""
    round_.deal()
    cancel_at = data.draw(st.integers(0, cancel_within), label="cancel at") if cancel else 0
    moves = 0
    while not round_.over:
        moves += 1
        assert moves < 500, "a round must end"
        if moves == cancel_at:
            round_.cancel("test")
            break
        if data.draw(st.integers(0, 9), label="pause?") == 0:
            round_.pause("test")
            assert all(not round_.legal_actions(*key) for key in _keys(round_))
            round_.resume()
        if round_.phase == "insurance":
            for player, spot in _keys(round_):
                if data.draw(st.booleans(), label="insure"):
                    for take in (round_.take_even_money, round_.take_insurance):
                        with contextlib.suppress(RulesError):
                            take(player, spot)
        if round_.phase == "decisions":
            _decide(data, round_)
        round_.advance()


def _keys(round_: SharedRound, spot: int | None = None) -> list[tuple[str, int]]:
    """(player, spot) of every position, or of the positions on one spot."""
    book = round_.book
    return [
        (book.player_ids[int(book.player[position])], int(book.spot[position]))
        for position in range(len(book))
        if spot is None or int(book.spot[position]) == spot
    ]


def _decide(data: st.DataObject, round_: SharedRound) -> None:
    for player, spot in _keys(round_, round_.current_spot):
        legal = sorted(round_.legal_actions(player, spot))
        if legal and data.draw(st.booleans(), label="acts"):
            round_.decide(player, spot, choose_action(data, legal, round_.rules))


def choose_action(data: st.DataObject, legal: list[Action], rules: RuleSet) -> Action:
    """A random legal action. Where resplits are allowed, a legal split is taken half the time:
    a position reaches three or four hands only by splitting again and again."""
    resplits = rules.split.max_hands > 2
    if Action.SPLIT in legal and resplits and data.draw(st.booleans(), label="resplit"):
        return Action.SPLIT
    return data.draw(st.sampled_from(legal), label="action")


def _round_cards(round_: SharedRound) -> list[Card]:
    """Every card the round took from the shoe, in dealing order (hole card or not)."""
    spots = sorted(round_.spot_cards)
    cards: list[Card] = [round_.spot_cards[spot][0] for spot in spots]
    if round_.up_card is not None:
        cards.append(round_.up_card)
    cards += [round_.spot_cards[spot][1] for spot in spots]
    hole = round_.hidden_hole
    if hole is not None:
        cards.append(hole)
    for spot in spots:
        cards += round_.step_cards[spot]
    cards += list(round_.dealer_cards[2:] if hole is not None else round_.dealer_cards[1:])
    return cards


@PROPERTY_SETTINGS
@given(st.data(), st.integers(0, 2**32))
def test_cards_are_conserved_over_a_shoe(data: st.DataObject, seed: int) -> None:
    shoe = Shoe.shuffled(1, 0.5, SeededSource(seed))
    burn = shoe.burn()
    taken: list[Card] = [burn.revealed, *burn.burned]
    rounds = 0
    while not shoe.cut_card_out and shoe.remaining > 30 and rounds < 3:
        rounds += 1
        before = shoe.position
        round_ = _play_random_round(data, shoe, rounds)
        used = _round_cards(round_)
        assert used == list(shoe.dealt()[before:])
        taken += used
    assert Counter(taken) + Counter(shoe.undealt()) == Counter(fresh_decks(1))
    assert taken == list(shoe.dealt())


@PROPERTY_SETTINGS
@given(st.data(), st.integers(0, 2**32))
def test_coins_are_conserved_and_never_negative(data: st.DataObject, seed: int) -> None:
    round_ = _play_random_round(data, Shoe.shuffled(8, 0.75, SeededSource(seed)))
    staked, paid = round_.staked(), round_.paid()
    assert (round_.book.free >= 0).all()
    assert (paid >= 0).all()
    payment_total = sum(int(payment.amounts.sum()) for payment in round_.payments)
    assert payment_total == int(paid.sum())
    house_result = int(staked.sum()) - int(paid.sum())
    assert int(staked.sum()) == int(paid.sum()) + house_result
    if round_.phase == "cancelled":
        assert (paid == staked).all()
    for index, player_id in enumerate(round_.book.player_ids):
        mine = round_.book.player == index
        balance = round_.test_balances[player_id]  # type: ignore[attr-defined]
        # Free coins are what the player had, less what the round holds, plus what it paid.
        free = int(round_.book.free[index])
        assert free == balance - int(staked[mine].sum()) + int(paid[mine].sum())
        assert balance - int(staked[mine].sum()) + int(paid[mine].sum()) >= 0


@PROPERTY_SETTINGS
@given(st.data(), st.integers(0, 2**32))
def test_rebuilding_from_the_event_log_gives_the_same_round(data: st.DataObject, seed: int) -> None:
    round_ = _play_random_round(data, Shoe.shuffled(8, 0.75, SeededSource(seed)))
    rebuilt = SharedRound.rebuild(RULES, round_.events, CHART)
    assert _snapshot(rebuilt) == _snapshot(round_)


def _snapshot(round_: SharedRound) -> dict[str, Any]:
    return {
        "phase": round_.phase,
        "dealer": round_.dealer_cards,
        "steps": round_.step_cards,
        "paths": [round_.path_of(p) for p in range(len(round_.book))],
        "staked": round_.staked().tolist(),
        "paid": round_.paid().tolist(),
        "free": round_.book.free.tolist(),
        "views": [player_view(round_, player) for player in round_.book.player_ids],
    }


@PROPERTY_SETTINGS
@given(st.data(), st.integers(0, 2**32))
def test_views_never_show_the_hole_card_or_undealt_cards(data: st.DataObject, seed: int) -> None:
    shoe = Shoe.shuffled(8, 0.75, SeededSource(seed))
    round_ = SharedRound(RULES, chart=CHART, cards=shoe)
    round_.place_bet("a", 1, 1000, {"pair": 100}, free_amount=10000)
    round_.place_bet("b", 1, 500, {}, free_amount=10000)
    round_.deal()
    while not round_.over:
        for player in ("a", "b"):
            view = player_view(round_, player)
            shown = _cards_in(view)
            dealt_so_far = Counter(shoe.dealt())
            if not round_.hole_revealed:
                dealt_so_far[round_.hidden_hole] -= 1  # type: ignore[index]
                assert len(view["dealer"]["cards"]) == 1
            assert not (Counter(shown) - dealt_so_far), "a view shows a card not visible yet"
        if round_.phase == "decisions":
            legal = sorted(round_.legal_actions("a", 1))
            if legal:
                round_.decide("a", 1, data.draw(st.sampled_from(legal)))
        round_.advance()


def _cards_in(view: Any) -> list[Card]:
    """Every distinct card slot a view shows: dealer, spot cards, step cards."""
    cards = [Card.parse(text) for text in view["dealer"]["cards"]]
    for spot in view["spots"].values():
        cards += [Card.parse(text) for text in spot["cards"] + spot["step_cards"]]
    return cards


@PROPERTY_SETTINGS
@given(st.data(), st.integers(0, 2**32))
def test_rejected_operations_change_nothing(data: st.DataObject, seed: int) -> None:
    round_ = SharedRound(RULES, chart=CHART, cards=Shoe.shuffled(8, 0.75, SeededSource(seed)))
    round_.place_bet("a", 1, 1000, {}, free_amount=1500)
    round_.deal()
    while not round_.over:
        attempt = data.draw(
            st.sampled_from(["hit", "stand", "double", "split", "surrender", "fly", "insurance"])
        )
        if attempt == "insurance":
            allowed = round_.can_take_insurance("a", 1)
            call = functools.partial(round_.take_insurance, "a", 1)
        else:
            allowed = round_.can_decide("a", 1, attempt)
            call = functools.partial(round_.decide, "a", 1, attempt)
        # can_x says what x does: a call it refuses raises and changes nothing.
        if allowed:
            call()
        else:
            with unchanged(round_), pytest.raises(RulesError):
                call()
        round_.advance()
    assert np.all(round_.paid() >= 0)


def test_path_queries_name_the_same_paths() -> None:
    round_ = SharedRound(RULES, chart=CHART, cards=Shoe.shuffled(8, 0.75, SeededSource(7)))
    for index, player in enumerate("abc"):
        round_.place_bet(player, 1, 1000 + 100 * index, {}, free_amount=5000)
    round_.deal()
    round_.decide("a", 1, "stand")
    round_.advance()
    positions = np.arange(round_.position_count())
    nodes = round_.path_nodes(positions)
    for position, node in zip(positions.tolist(), nodes.tolist(), strict=True):
        assert round_.path_state(node) == round_.path_of(position)
    assert round_.path_count() > int(nodes.max())
