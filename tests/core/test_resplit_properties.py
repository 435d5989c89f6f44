"""Hypothesis properties of rounds with resplits (issue 12): up to four hands per position.

The rule sets are the shipped titles with ``split.max_hands`` raised and the operator example
(``resplit_games.py``), dealt from shoes rich in eights and aces so that pairs come again after
a split. The properties are the shared round's (coins conserved, every sequence ends, the log
rebuilds the same round, no hand beyond the limit, one main bet per hand plus the doubles) and
the follower round's: positions spread at random over one to four followers end exactly as in
one shared round.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from resplit_games import RESPLIT_GAMES, Game, resplit_variant
from test_follower_round import (
    Split,
    _play_both,
    _shared,
    assert_followers_match,
    check_followers_end_as_the_shared_round,
)
from test_round_properties import _play, _snapshot
from test_round_properties_multi_spot import _extra

from boundless.core.cards import parse_cards
from boundless.core.round import SharedRound
from boundless.core.round import events as ev
from boundless.core.round.paths import PathState
from boundless.core.shoe import Shoe

AUTOPLAY_STEPS = "8H 8C 3S 8D TD 8S 2C 9H"  # the step cards of the autoplay round below
RESPLIT_SETTINGS = settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _games() -> st.SearchStrategy[Game]:
    return st.sampled_from(RESPLIT_GAMES)


def _round(data: st.DataObject, game: Game, seed: int) -> tuple[SharedRound, dict[str, int]]:
    """A round of random bets on a pair-rich shoe, and each player's coins before betting."""
    round_ = _shared(data, game, seed)
    balances: dict[str, int] = {}
    for placed in round_.events:
        if isinstance(placed, ev.BetsPlaced):
            for player, free in zip(placed.player_ids, placed.free_amounts.tolist(), strict=True):
                if free >= 0:
                    balances.setdefault(player, free)
    return round_, balances


def _paths(round_: SharedRound) -> list[PathState]:
    return [round_.path_of(p) for p in range(round_.position_count()) if round_.has_path(p)]


@RESPLIT_SETTINGS
@given(st.data(), _games(), st.integers(0, 2**32))
def test_coins_hand_limits_and_the_log_hold_with_resplits(
    data: st.DataObject, game: Game, seed: int
) -> None:
    round_, balances = _round(data, game, seed)
    _play(data, round_)
    assert round_.phase in ("settled", "cancelled") and np.all(round_.book.pending == -1)
    staked, paid = round_.staked(), round_.paid()
    assert (round_.book.free >= 0).all() and (paid >= 0).all()
    if round_.phase == "cancelled":
        assert (paid == staked).all()
    for index, player in enumerate(round_.book.player_ids):
        mine = round_.book.player == index
        left = balances[player] - int(staked[mine].sum()) + int(paid[mine].sum())
        assert int(round_.book.free[index]) == left
    rules, chart = game
    event(f"most hands of a position: {max((len(p.hands) for p in _paths(round_)), default=0)}")
    for position in range(round_.position_count()):
        path = round_.path_of(position)
        assert len(path.hands) <= rules.split.max_hands
        # Every split added one main bet and every double the hand's stake: nothing else.
        assert path.stake_units == len(path.hands) + sum(hand.doubled for hand in path.hands)
        main = int(round_.book.main[position])
        assert int(round_.book.extra[position]) == main * max(0, path.stake_units - 1)
        if not rules.split.resplit_aces:
            assert sum(hand.split_aces for hand in path.hands) <= 2
    rebuilt = SharedRound.rebuild(rules, round_.events, chart)
    assert _snapshot(rebuilt) == _snapshot(round_)
    assert _extra(rebuilt) == _extra(round_)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), _games(), st.integers(0, 2**32), st.integers(1, 4), st.booleans())
def test_followers_with_resplits_end_exactly_as_the_shared_round(
    data: st.DataObject, game: Game, seed: int, followers: int, operator: bool
) -> None:
    check_followers_end_as_the_shared_round(data, game, seed, followers, operator)


class Silent:
    """Answers ``_play_both``'s draws so that nobody acts: every hand is autoplayed."""

    def draw(self, strategy: object, label: str) -> Any:
        return {"insure": False, "restart?": 1, "acts": False}[label]


def test_autoplay_resplits_to_four_hands_the_same_over_two_followers() -> None:
    # Basic strategy splits eights against a 6 (Unlimited offers split or Surrender 20%): the
    # autoplay takes p0 and p1 to four hands; p2 has no coins to split and gives the pair up;
    # p3 can pay one split, then gives up both hands as the coins run out.
    game = resplit_variant("unlimited", max_hands=4)
    rules, chart = game
    cards = parse_cards(f"8S 6H 8D {AUTOPLAY_STEPS} 8H 5D 4C TS 7S".split())
    single = SharedRound(rules, chart=chart, cards=Shoe.stacked(cards))
    for index, free in enumerate((100_000, 100_000, 1000, 2000)):
        single.place_bet(f"p{index}", 1, 1000, {}, free_amount=free)
    split = Split(game, single, 0, {"p0": 0, "p1": 1, "p2": 0, "p3": 1}, Shoe.stacked(cards))
    _play_both(Silent(), single, split)  # type: ignore[arg-type]
    assert_followers_match(single, split)
    paths = [single.path_of(single.position(f"p{index}", 1)) for index in range(4)]
    assert [len(path.hands) for path in paths] == [4, 4, 1, 2]
    assert [" ".join(map(str, hand.cards)) for hand in paths[0].hands] == [
        "8S 3S 8D",
        "8C TD",
        "8H 8S",
        "8D 2C 9H",
    ]
    assert [str(card) for card in single.step_cards[1]] == AUTOPLAY_STEPS.split()
    assert single.step_takers[1] == [3, 3, 2, 2, 2, 2, 2, 2]
    assert single.paid().tolist()[2:] == [800, 1600]
