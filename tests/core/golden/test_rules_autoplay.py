"""Golden rounds: the table finishes the hand of a player who does not act.

Boundless document: the note on disconnection / no action, "Disconnection Policy";
DECISIONS.md rules 13 and 16 (last sentence).
"""

from __future__ import annotations

import golden_helpers as golden
import pytest

from boundless.core.round.views import player_view


@pytest.mark.parametrize(
    ("cards", "expected", "steps"),
    [
        # 2S 3H = 5: hits 4C (9), 2D (11), 5S (16), then stands. Dealer 9D 8C = 17.
        ("2S 9D 3H 8C 4C 2D 5S 7H", golden.Hand("2S 3H 4C 2D 5S", 16, 1000, "lose", 0), 3),
        # 5S 4H = 9 hits an ace: the ace counts 11 (20), stand.
        ("5S 9D 4H 8C AC 7H", golden.Hand("5S 4H AC", 20, 1000, "win", 2000), 1),
        # 6S 5H = 11 hits an ace: 11 would bust, so it counts 1 (12), stand.
        ("6S 9D 5H 8C AC 7H", golden.Hand("6S 5H AC", 12, 1000, "lose", 0), 1),
        # AS 2H counts 13 (ace 11): over 11 already, stand at once.
        ("AS 9D 2H 8C 7H", golden.Hand("AS 2H", 13, 1000, "lose", 0), 0),
        # AS AH = 12: stand, never split.
        ("AS 9D AH 8C 7H", golden.Hand("AS AH", 12, 1000, "lose", 0), 0),
        # TS 2H = 12: stand.
        ("TS 9D 2H 8C 7H", golden.Hand("TS 2H", 12, 1000, "lose", 0), 0),
        # 5S 5H = 10: hits (never doubles or splits), 9C = 19.
        ("5S 9D 5H 8C 9C 7H", golden.Hand("5S 5H 9C", 19, 1000, "win", 2000), 1),
        # 6S 5H = 11 hits KC = 21 and stands by itself.
        ("6S 9D 5H 8C KC 7H", golden.Hand("6S 5H KC", 21, 1000, "win", 2000), 1),
    ],
    ids=["five", "ace-as-11", "ace-as-1", "soft-13", "two-aces", "twelve", "ten", "eleven-21"],
)
def test_no_action_hits_until_the_total_exceeds_eleven_then_stands(
    cards: str, expected: golden.Hand, steps: int
) -> None:
    round_, _ = golden.played(golden.BOUNDLESS, cards)  # no decision at all
    assert golden.hand(round_, "p") == expected
    assert len(golden.step_cards(round_)) == steps
    only = golden.result(round_, "p").hands[0]
    assert only.autoplayed
    assert all(source == "autoplay" for _, source, _ in only.decisions)


def test_autoplay_takes_over_after_the_players_own_decisions() -> None:
    # p hits once (2S 3H 4C = 9) and then stops answering: the autoplay hits 2D (11) and
    # 5S (16), then stands. Dealer 9D 8C = 17.
    round_, _ = golden.played(golden.BOUNDLESS, "2S 9D 3H 8C 4C 2D 5S 7H", "hit")
    assert golden.hand(round_, "p") == golden.Hand("2S 3H 4C 2D 5S", 16, 1000, "lose", 0)
    assert golden.result(round_, "p").hands[0].decisions == (
        ("hit", "player", 1),
        ("hit", "autoplay", 2),
        ("hit", "autoplay", 3),
        ("stand", "autoplay", 4),
    )


def test_autoplay_plays_out_split_hands() -> None:
    # p splits 4S 4H (hand 1 takes 5C = 9) and goes silent. Step 2: autoplay hits hand 1, TC
    # (19). Step 3: autoplay stands hand 1, hand 2 takes 7D (11). Step 4: hits 2C (13).
    # Step 5: stands. Dealer 9D 8C = 17.
    round_, _ = golden.played(golden.BOUNDLESS, "4S 9D 4H 8C 5C TC 7D 2C 8S", "split")
    assert golden.step_cards(round_) == ["5C", "TC", "7D", "2C"]
    assert golden.hands(round_, "p") == [
        golden.Hand("4S 5C TC", 19, 1000, "win", 2000),
        golden.Hand("4H 7D 2C", 13, 1000, "lose", 0),
    ]


def test_one_silent_player_among_active_ones_gets_the_cards_of_the_steps_it_hits() -> None:
    # Shared 2S 3H against 9D 8C. a: hits, hits, stands. b: silent (autoplay hits to > 11).
    # Step cards 4C, 2D, 5S: a takes 4C and 2D (11) then stands; b takes all three (16).
    round_, _ = golden.opened(golden.BOUNDLESS, "2S 9D 3H 8C 4C 2D 5S 7H", "a", "b")
    golden.play(
        round_, {"a": ["hit", "hit", "stand"], "b": [golden.SKIP, golden.SKIP, golden.SKIP]}
    )
    assert golden.hand(round_, "a") == golden.Hand("2S 3H 4C 2D", 11, 1000, "lose", 0)
    assert golden.hand(round_, "b") == golden.Hand("2S 3H 4C 2D 5S", 16, 1000, "lose", 0)
    assert not golden.result(round_, "a").hands[0].autoplayed
    assert golden.result(round_, "b").hands[0].autoplayed
    assert round_.step_takers[1] == [2, 2, 1]


def test_a_disconnected_players_round_settles_and_stays_in_the_play_record() -> None:
    # The player bet main + Pair and vanished: the round plays on, the coins are settled.
    round_, _ = golden.played(golden.BOUNDLESS, "8S 9D 8H 8C 3C 7H", sides={"pair": 100})
    assert round_.phase == "settled"
    view = player_view(round_, "p")
    (position,) = view["player"]["positions"]
    assert position["hands"][0]["cards"] == ["8S", "8H"]
    assert position["hands"][0]["outcome"] == "lose"
    assert position["hands"][0]["autoplayed"] is True
    assert position["side_bets"]["pair"]["payout"] == 600
    assert (position["staked"], position["paid"]) == (1100, 600)
    assert golden.dealer(round_) == "9D 8C"
