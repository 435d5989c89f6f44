"""Golden rounds: one shared deal for everyone and the step cards (DECISIONS.md rules 7-8).

Boundless document: "Introduction" (everyone plays their own hand in one shared game),
"Initial Distributing" (dealing order, initial scores shown), "Decision".
"""

from __future__ import annotations

import golden_helpers as golden
import pytest

from boundless.core.round import Action
from boundless.core.round.views import player_view


def test_dealing_order_player_up_player_hole() -> None:
    round_, shoe = golden.dealt(golden.BOUNDLESS, "2S 3H 4D 5C 9S")
    assert shoe.position == 4
    assert golden.hands(round_, "p")[0].cards == "2S 4D"
    assert str(round_.up_card) == "3H"
    assert round_.hole_card is None  # face down until the dealer plays
    round_.decide("p", 1, "stand")
    round_.run_to_end()
    assert golden.dealer(round_) == "3H 5C 9S"


def test_initial_scores_are_shown_and_the_hole_card_is_not() -> None:
    round_, _ = golden.dealt(golden.BOUNDLESS, "AS 9D 6H 8C")
    view = player_view(round_, "p")
    assert view["dealer"] == {"cards": ["9D"], "hole_hidden": True, "total": 9}
    (position,) = view["player"]["positions"]
    assert position["hands"][0]["cards"] == ["AS", "6H"]
    assert position["hands"][0]["total"] == 17
    assert "8C" not in repr(view)


def test_seated_players_are_offered_the_five_actions() -> None:
    round_, _ = golden.dealt(golden.BOUNDLESS, "8S 6D 8H TC")
    assert round_.legal_actions("p", 1) == frozenset(
        {Action.HIT, Action.STAND, Action.SURRENDER, Action.DOUBLE, Action.SPLIT}
    )


def test_every_player_gets_the_same_two_initial_cards() -> None:
    round_, _ = golden.opened(golden.BOUNDLESS, "9S 6D 2H TC 5C", "a", "b", "c")
    golden.seat(round_, "side-only", main=0, sides={"pair": 100})
    round_.deal()
    for player in ("a", "b", "c"):
        assert golden.hands(round_, player)[0].cards == "9S 2H"
    for player in ("a", "b", "c", "side-only"):
        assert player_view(round_, player)["spots"]["1"]["cards"] == ["9S", "2H"]


def test_step_cards_go_to_exactly_the_players_who_took_a_card_at_that_step() -> None:
    """Nine players, one shared deal (8S 8H against 6D, hole TC), different decisions.

    step 1 card 3C: b hit, c split (hand 1's 2nd card), d split (same), e double, g hit
    step 2 card 2D: c stands on hand 1 -> hand 2 takes 2D as its 2nd card, d hits hand 1,
                    g hits (21: stands by itself)
    step 3 card 5S: c hits hand 2, d stands on hand 1 -> hand 2 takes 5S
    step 4 card 9H: d doubles hand 2 (c stands: no card)
    a stands at once, f surrenders, i never answers (autoplay stands on 16), s bets Pair only.
    The dealer then draws the next card, 2C: 6D TC 2C = 18.
    """
    round_, shoe = golden.opened(golden.BOUNDLESS, "8S 6D 8H TC 3C 2D 5S 9H 2C KS", *"abcdefgi")
    golden.seat(round_, "s", main=0, sides={"pair": 100})
    round_.deal()
    script = {
        "a": ["stand"],
        "b": ["hit", "stand"],
        "c": ["split", "stand", "hit", "stand"],
        "d": ["split", "hit", "stand", "double"],
        "e": ["double"],
        "f": ["surrender"],
        "g": ["hit", "hit"],
    }
    while round_.phase == "decisions":
        for player, queue in script.items():
            if queue and round_.path_of(round_.position(player, 1)).needs_decision:
                round_.decide(player, 1, queue.pop(0))
        round_.close_step()
    assert golden.step_cards(round_) == ["3C", "2D", "5S", "9H"]
    assert round_.step_takers[1] == [5, 3, 2, 1]  # how many positions took each card
    assert shoe.position == 8  # four initial cards, four step cards: no card for nobody
    round_.run_to_end()
    assert golden.dealer(round_) == "6D TC 2C"

    assert golden.drawn(round_, "a") == []
    assert golden.drawn(round_, "b") == ["3C"]
    assert golden.drawn(round_, "c") == ["3C", "2D", "5S"]
    assert golden.drawn(round_, "d") == ["3C", "2D", "5S", "9H"]
    assert golden.drawn(round_, "e") == ["3C"]
    assert golden.drawn(round_, "f") == []
    assert golden.drawn(round_, "g") == ["3C", "2D"]
    assert golden.drawn(round_, "i") == []
    # A player's k-th drawn card is the k-th step card.
    for player in "abcdefgi":
        cards = golden.drawn(round_, player)
        assert cards == golden.step_cards(round_)[: len(cards)], player

    assert golden.hand(round_, "a") == golden.Hand("8S 8H", 16, 1000, "lose", 0)
    assert golden.hand(round_, "b") == golden.Hand("8S 8H 3C", 19, 1000, "win", 2000)
    assert golden.hands(round_, "c") == [
        golden.Hand("8S 3C", 11, 1000, "lose", 0),
        golden.Hand("8H 2D 5S", 15, 1000, "lose", 0),
    ]
    assert golden.hands(round_, "d") == [
        golden.Hand("8S 3C 2D", 13, 1000, "lose", 0),
        golden.Hand("8H 5S 9H", 22, 2000, "lose", 0),
    ]
    assert golden.hand(round_, "e") == golden.Hand("8S 8H 3C", 19, 2000, "win", 4000)
    assert golden.hand(round_, "f") == golden.Hand("8S 8H", 16, 1000, "surrender", 500)
    assert golden.hand(round_, "g") == golden.Hand("8S 8H 3C 2D", 21, 1000, "win", 2000)
    assert golden.hand(round_, "i") == golden.Hand("8S 8H", 16, 1000, "lose", 0)
    assert golden.result(round_, "i").hands[0].autoplayed
    assert golden.hands(round_, "s") == []

    nets = {player: golden.net(round_, player) for player in "abcdefgis"}
    assert nets == {
        "a": -1000,
        "b": 1000,
        "c": -2000,
        "d": -3000,
        "e": 2000,
        "f": -500,
        "g": 1000,
        "i": -1000,
        "s": 500,  # mixed pair 8S 8H, 5:1
    }
    assert golden.staked(round_, "d") == 3000


def test_standing_on_split_hand_one_gives_that_steps_card_to_hand_two() -> None:
    # One player: split 9S 9H (step 1: hand 1 takes 2C = 11), stands on 11 at step 2, so hand 2
    # takes the step 2 card TD as its second card (19) in that same step.
    round_, shoe = golden.decided(golden.BOUNDLESS, "9S 7D 9H TC 2C TD 3S", "split", "stand")
    assert golden.step_cards(round_) == ["2C", "TD"]
    assert golden.hands(round_, "p")[1].cards == "9H TD"
    assert round_.path_of(round_.position("p", 1)).current == 1
    round_.decide("p", 1, "stand")
    round_.run_to_end()
    assert golden.hands(round_, "p") == [
        golden.Hand("9S 2C", 11, 1000, "lose", 0),
        golden.Hand("9H TD", 19, 1000, "win", 2000),
    ]
    assert shoe.position == 6


def test_split_aces_second_hand_and_a_hitting_player_share_the_next_step_card() -> None:
    # a splits aces: hand 1 takes step 1 card 5C (soft 16, stands: one card); at step 2
    # hand 2 takes 9D with no decision, the same card that b's second hit takes.
    # b: AS AH 5C = soft 17, then 9D = hard 16. Dealer 7D TC = 17.
    round_, _ = golden.opened(golden.BOUNDLESS, "AS 7D AH TC 5C 9D 4S", "a", "b")
    golden.play(round_, {"a": ["split"], "b": ["hit", "hit", "stand"]})
    assert golden.step_cards(round_) == ["5C", "9D"]
    assert golden.hands(round_, "a") == [
        golden.Hand("AS 5C", 16, 1000, "lose", 0),
        golden.Hand("AH 9D", 20, 1000, "win", 2000),
    ]
    assert golden.hand(round_, "b") == golden.Hand("AS AH 5C 9D", 16, 1000, "lose", 0)
    assert round_.step_takers[1] == [2, 2]


def test_no_card_is_drawn_for_a_step_in_which_nobody_takes_one() -> None:
    round_, shoe = golden.opened(golden.BOUNDLESS, "TS 9D 8H 7C 4C", "a", "b")
    golden.play(round_, {"a": ["stand"], "b": [golden.SKIP]})  # b's autoplay stands on 18
    assert golden.step_cards(round_) == []
    assert golden.dealer(round_) == "9D 7C 4C"  # the dealer's draw is the fifth card
    assert shoe.position == 5


def test_positions_with_the_same_decisions_share_one_path() -> None:
    round_, _ = golden.boundless_round("TS 9D 2H 8C 3C 4D 5S")
    for number in range(50):
        golden.seat(round_, f"hit-{number}")
        golden.seat(round_, f"stand-{number}")
    script = {f"hit-{n}": ["hit", "stand"] for n in range(50)}
    script |= {f"stand-{n}": ["stand"] for n in range(50)}
    golden.play(round_, script)
    hitters = {int(round_.book.node[round_.position(f"hit-{n}", 1)]) for n in range(50)}
    standers = {int(round_.book.node[round_.position(f"stand-{n}", 1)]) for n in range(50)}
    assert len(hitters) == 1 and len(standers) == 1 and hitters != standers
    assert golden.hand(round_, "hit-7") == golden.Hand("TS 2H 3C", 15, 1000, "lose", 0)
    assert golden.hand(round_, "stand-7") == golden.Hand("TS 2H", 12, 1000, "lose", 0)


def test_a_step_with_only_a_card_to_give_needs_no_decision() -> None:
    round_, _ = golden.dealt(golden.BOUNDLESS, "AS 9D AH TC 5C 2D 7S")
    assert round_.needs_decisions
    assert round_.undecided_count() == 1
    round_.decide("p", 1, "split")
    assert round_.undecided_count() == 0
    round_.close_step()
    assert not round_.needs_decisions  # hand 2 waits for its card, not for a decision
    assert round_.undecided_count() == 0
    round_.close_step()
    assert round_.phase == "dealer"


@pytest.mark.parametrize(
    ("cards", "steps", "expected", "dealer_cards"),
    [
        # Split 8S 8H: hand 1 takes 5C (13), hits KC (23, bust); hand 2 takes the next step
        # card 3D without a decision (11), then stands. Dealer 6D TC draws 9S = 25.
        pytest.param(
            "8S 6D 8H TC 5C KC 3D 9S 7H",
            ["5C", "KC", "3D"],
            [
                golden.Hand("8S 5C KC", 23, 1000, "lose", 0),
                golden.Hand("8H 3D", 11, 1000, "win", 2000),
            ],
            "6D TC 9S",
            id="hand-1-busts",
        ),
        # Hand 1 8S 3C (11) hits KC = 21 and stands by itself; hand 2 takes 9D at the next
        # step. Dealer 6D TC draws 2S = 18.
        pytest.param(
            "8S 6D 8H TC 3C KC 9D 2S",
            ["3C", "KC", "9D"],
            [
                golden.Hand("8S 3C KC", 21, 1000, "win", 2000),
                golden.Hand("8H 9D", 17, 1000, "lose", 0),
            ],
            "6D TC 2S",
            id="hand-1-hits-21",
        ),
    ],
)
def test_a_split_hand_one_that_ends_on_a_hit_passes_the_next_step_card_to_hand_two(
    cards: str, steps: list[str], expected: list[golden.Hand], dealer_cards: str
) -> None:
    round_, _ = golden.played(golden.BOUNDLESS, cards, "split", "hit", "stand")
    assert golden.step_cards(round_) == steps
    assert golden.hands(round_, "p") == expected
    assert golden.dealer(round_) == dealer_cards
