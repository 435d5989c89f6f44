"""Golden rounds of Blackjack Unlimited: three shared spots, the dealing order, steps spot by spot.

Unlimited document: "3 areas for players to wager ... one position for the dealer's hand",
"Each player can play between 1 and 3 hands", "an unlimited number of players ... playing the
same hands", the Hit-or-Stand sentence on a shared spot, "Beginning on the croupier's left ..."
(dealing), "Then each player gets a turn ... following the same order"; DECISIONS.md rule 17.
"""

from __future__ import annotations

import golden_helpers as golden
import pytest

from boundless.core.errors import InvalidBetError, PhaseError
from boundless.core.round import Action
from boundless.core.round.views import player_view


def test_three_spots_each_get_a_hand_and_the_dealer_has_one_position() -> None:
    round_, _ = golden.opened(golden.UNLIMITED, "2S 3S 4S 9H 5D 6D 7D TC", "a", ("b", 2), ("c", 3))
    assert round_.rules.table.spots == 3
    round_.deal()
    assert {spot: " ".join(map(str, cards)) for spot, cards in round_.spot_cards.items()} == {
        1: "2S 5D",
        2: "3S 6D",
        3: "4S 7D",
    }
    assert golden.dealer(round_) == "9H"
    golden.play(round_, {("a", 1): ["stand"], ("b", 2): ["stand"], ("c", 3): ["stand"]})
    assert golden.dealer(round_) == "9H TC"
    assert golden.hand(round_, "c", 3) == golden.Hand("4S 7D", 11, 1000, "lose", 0)


@pytest.mark.parametrize("spot", [0, 4, -1])
def test_a_bet_on_a_spot_outside_one_to_three_is_rejected(spot: int) -> None:
    round_, shoe = golden.opened(golden.UNLIMITED, "2S 3S 4S", "a")
    with golden.refused(round_, shoe, InvalidBetError, r"the table has spots 1\.\.3"):
        golden.bet(round_, "b", spot)


@pytest.mark.parametrize("spots", [(1,), (2,), (3,), (1, 3), (2, 3), (1, 2, 3)])
def test_a_player_may_play_one_two_or_three_spots(spots: tuple[int, ...]) -> None:
    round_, shoe = golden.new_round(golden.UNLIMITED, "2S 3S 4S 9H 5D 6D 7D TC TD TH")
    for spot in spots:
        golden.bet(round_, "p", spot, balance=None if spot != spots[0] else 100_000)
    round_.deal()
    assert shoe.position == 2 * len(spots) + 1  # two cards per occupied spot, one up card
    assert sorted(round_.spot_cards) == list(spots)
    assert [int(round_.book.spot[p]) for p in round_.positions_of("p")] == list(spots)
    golden.play(round_, {("p", spot): ["stand"] for spot in spots})
    assert round_.phase == "settled"


def test_a_second_bet_on_one_spot_is_rejected() -> None:
    round_, shoe = golden.opened(golden.UNLIMITED, "2S 3S 4S", ("p", 2))
    with golden.refused(round_, shoe, InvalidBetError, "already has a bet on this spot"):
        golden.bet(round_, "p", 2, balance=None)


def test_the_spots_per_player_limit_is_a_rule_set_number() -> None:
    rules = golden.variant(golden.UNLIMITED, table={"max_spots_per_player": 2})
    round_, shoe = golden.new_round(golden.UNLIMITED, "2S 3S 4S", rules=rules)
    golden.bet(round_, "p", 1)
    golden.bet(round_, "p", 3, balance=None)
    with golden.refused(round_, shoe, InvalidBetError, "at most 2 spot"):
        golden.bet(round_, "p", 2, balance=None)
    golden.bet(round_, "q", 2)  # another player may still take the spot


def test_any_number_of_players_share_the_cards_of_a_spot() -> None:
    # Spot 1: 9S TC = 19; spot 2: 5H 6C = 11; up 8D, dealer's second card TD: 18.
    round_, _ = golden.new_round(golden.UNLIMITED, "9S 5H 8D TC 6C TD")
    players_1 = [f"one-{index}" for index in range(150)]
    players_2 = [f"two-{index}" for index in range(80)]
    round_.place_bets(players_1, [1] * 150, [1000] * 150, None, [10_000] * 150)
    round_.place_bets(players_2, [2] * 80, [500] * 80, None, [10_000] * 80)
    round_.deal()
    for player in (players_1[0], players_1[-1], players_2[3]):
        view = player_view(round_, player)
        assert view["spots"] == {
            "1": {"cards": ["9S", "TC"], "step_cards": [], "step_takers": []},
            "2": {"cards": ["5H", "6C"], "step_cards": [], "step_takers": []},
        }
    decisions = {(player, 1): ["stand"] for player in players_1}
    decisions.update({(player, 2): ["stand"] for player in players_2})
    golden.play(round_, decisions)
    assert golden.dealer(round_) == "8D TD"
    assert {golden.hand(round_, player, 1) for player in players_1} == {
        golden.Hand("9S TC", 19, 1000, "win", 2000)
    }
    assert {golden.hand(round_, player, 2) for player in players_2} == {
        golden.Hand("5H 6C", 11, 500, "lose", 0)
    }
    # Everyone who decided alike holds one shared path: a handful of nodes, not 230.
    assert len(round_.nodes.states) < 10


def test_a_hit_card_does_not_count_for_players_who_stood_on_the_same_spot() -> None:
    """The document's example: on spot 1 (9S 7D = 16 against 6H) a hits and b stands.

    The croupier deals the card for the hit (TC), which busts a and does not count for b.
    Spot 2's player c hits and gets the next card (2D), spot 2's own step card. The dealer then
    takes TD (16) and 8C: 24, bust, so b's 16 wins and a's bust still loses.
    """
    round_, shoe = golden.opened(golden.UNLIMITED, "9S 5H 6H 7D 4C TC 2D TD 8C", "a", "b", ("c", 2))
    golden.play(round_, {("a", 1): ["hit"], ("b", 1): ["stand"], ("c", 2): ["hit", "stand"]})
    assert golden.step_cards(round_, 1) == ["TC"]
    assert round_.step_takers[1] == [1]
    assert golden.step_cards(round_, 2) == ["2D"]
    assert golden.drawn(round_, "a", 1) == ["TC"]
    assert golden.drawn(round_, "b", 1) == []
    assert golden.drawn(round_, "c", 2) == ["2D"]
    assert golden.dealer(round_) == "6H TD 8C"
    assert shoe.position == 9
    assert golden.hand(round_, "a", 1) == golden.Hand("9S 7D TC", 26, 1000, "lose", 0)
    assert golden.hand(round_, "b", 1) == golden.Hand("9S 7D", 16, 1000, "win", 2000)
    assert golden.hand(round_, "c", 2) == golden.Hand("5H 4C 2D", 11, 1000, "win", 2000)


def test_dealing_order_first_cards_left_to_right_then_the_up_card_then_second_cards() -> None:
    """Spots 1 and 3 are occupied, 2 is empty: 2S to spot 1, 3H to spot 3, 9D up, 4C to spot 1,
    5S to spot 3. No hole card: the dealer's second card (TC) comes after spot 3's step card 6H.
    """
    round_, shoe = golden.opened(golden.UNLIMITED, "2S 3H 9D 4C 5S 6H TC", "p")
    golden.bet(round_, "p", 3, balance=None)
    round_.deal()
    assert shoe.position == 5
    assert [str(card) for card in round_.spot_cards[1]] == ["2S", "4C"]
    assert [str(card) for card in round_.spot_cards[3]] == ["3H", "5S"]
    assert 2 not in round_.spot_cards
    assert golden.dealer(round_) == "9D"
    assert round_.hole_card is None
    golden.play(round_, {("p", 1): ["stand"], ("p", 3): ["hit", "stand"]})
    assert golden.step_cards(round_, 3) == ["6H"]
    assert golden.dealer(round_) == "9D TC"
    assert shoe.position == 7
    assert golden.result(round_, "p", 3).hands[0].total == 14


def test_spots_are_played_one_after_another_each_in_steps() -> None:
    """a plays spots 1 and 2, b spot 2. Spot 1 (2S 4D = 6 against 8H) takes 7C and 2C and stands
    at 15; only then does spot 2 (3S 5D = 8) open, where a takes TC and b stands. Dealer 8H 9S.
    """
    round_, shoe = golden.opened(golden.UNLIMITED, "2S 3S 8H 4D 5D 7C 2C TC 9S", "a")
    golden.bet(round_, "a", 2, balance=None)
    golden.bet(round_, "b", 2)
    round_.deal()
    assert (round_.phase, round_.current_spot, round_.step) == ("decisions", 1, 1)
    assert round_.legal_actions("b", 2) == frozenset()
    assert round_.legal_actions("a", 2) == frozenset()
    with golden.refused(round_, shoe, PhaseError, "decisions are for spot 1 now"):
        round_.decide("b", 2, "stand")
    round_.decide("a", 1, "hit")
    round_.close_step()
    round_.decide("a", 1, "hit")
    round_.close_step()
    assert (round_.current_spot, round_.step) == (1, 3)
    round_.decide("a", 1, "stand")
    round_.close_step()
    assert (round_.current_spot, round_.step) == (2, 1)
    assert Action.HIT in round_.legal_actions("b", 2)
    golden.play(round_, {("a", 2): ["hit", "stand"], ("b", 2): ["stand"]})
    assert golden.step_cards(round_, 1) == ["7C", "2C"]
    assert golden.step_cards(round_, 2) == ["TC"]
    assert golden.dealer(round_) == "8H 9S"
    assert golden.hand(round_, "a", 1) == golden.Hand("2S 4D 7C 2C", 15, 1000, "lose", 0)
    assert golden.hand(round_, "a", 2) == golden.Hand("3S 5D TC", 18, 1000, "win", 2000)
    assert golden.hand(round_, "b", 2) == golden.Hand("3S 5D", 8, 1000, "lose", 0)


def test_a_spot_whose_hands_need_no_decision_is_passed_over() -> None:
    # Spot 1 is a blackjack (AS KD, paid at once against 7H): play opens on spot 2.
    round_, _ = golden.opened(golden.UNLIMITED, "AS 9H 7H KD 7C TC", "a", ("b", 2))
    round_.deal()
    assert (round_.current_spot, round_.step) == (2, 1)
    golden.play(round_, {("b", 2): ["stand"]})
    assert golden.dealer(round_) == "7H TC"


def test_a_players_view_shows_the_spots_cards_and_only_the_players_own_bets() -> None:
    round_, _ = golden.new_round(golden.UNLIMITED, "9S 5H 8D TC 6C TD")
    golden.bet(round_, "a", 1, main=3000)
    golden.bet(round_, "b", 2, main=4400)
    round_.deal()
    view = player_view(round_, "a")
    assert [position["spot"] for position in view["player"]["positions"]] == [1]
    assert view["player"]["positions"][0]["main"] == 3000
    assert "4400" not in repr(view["player"])
    assert sorted(view["spots"]) == ["1", "2"]
    assert view["dealer"] == {"cards": ["8D"], "hole_hidden": False, "total": 8}
