"""Golden rounds of the Boo Bucks side bets, played through the round on stacked shoes.

Boo Bucks document, "SIDE BET": Trifecta, Jack A-Tack (both variants, the four-jack pays that wait
for the hole card), In Between (with the triple match), the "matches" table (Match the Dealer),
the "pairs" table (Hole Card Bonus), "ONLY THE HIGHEST ELIGIBLE WIN IS AWARDED"; DECISIONS.md rules
4, 28 and 30. Each case stakes 1.00 on seat 1 beside a 10.00 base wager; ``payout`` is what comes
back, stake included (``N:1`` returns 100 + N x 100).
"""

from __future__ import annotations

import golden_helpers as golden
import pytest

from boundless.core.rules import RuleSet
from boundless.core.side_bets import PENDING

STAKE = 100


def _round(
    key: str,
    player: str,
    up: str,
    hole: str = "7C",
    *,
    game: str = golden.BOO_BUCKS,
    rules: RuleSet | None = None,
) -> tuple[object, list[tuple[str, dict[str, int]]]]:
    """Deal the case, note the payments made with the deal, play the round out (stand)."""
    first, second = player.split()
    other = "trifecta" if key != "trifecta" else "in_between"
    round_, _ = golden.new_round(
        game, f"{first} {up} {second} {hole} TC TC TC TC", offered=(key, other), rules=rules
    )
    golden.bet(round_, "p", 1, sides={key: STAKE})
    round_.deal()
    at_deal = golden.paid_by_stage(round_)
    golden.play(round_, {("p", 1): ["stand"]})
    return round_, at_deal


def _check(key: str, player: str, up: str, pattern: str | None, payout: int, **kw: str) -> None:
    round_, at_deal = _round(key, player, up, **kw)
    outcome = "win" if pattern is not None else "lose"
    assert golden.side(round_, "p", 1, key) == (outcome, pattern, payout)  # type: ignore[arg-type]
    # Known from the first two cards and the up card: settled with the deal.
    assert at_deal == ([("side_bets_initial", {"p@1": payout})] if payout else [])


# What each bet pays on the first two cards and the up card ("P1 P2 UP"), known and paid with the
# deal: {bet: {pattern (None: the bet loses): (what comes back, [hands])}}.
AT_THE_DEAL: dict[str, dict[str | None, tuple[int, list[str]]]] = {
    # 5S 5S 5S is also trips and a flush: only the highest pays. K-A-2 is no straight.
    "trifecta": {
        "three_fives": (20_100, ["5S 5H 5D", "5S 5S 5S"]),
        "straight_flush": (3100, ["9H TH JH", "AD 2D 3D", "QC KC AC"]),
        "three_of_a_kind": (2100, ["7S 7H 7C"]),
        "straight": (1100, ["QS KH AD", "AS 2H 3D", "4S 2H 3D"]),
        "flush": (600, ["2H 9H KH"]),
        None: (0, ["KS AH 2D", "2S 4H 6D", "4S 4H 5D"]),
    },
    # A soft 20 is a 20, 21 is not; JD up is no one-eyed jack, so JH JH against it waits for
    # nothing.
    "jack_a_tack": {
        "any_20": (600, ["KS QH 9D", "TS TH 9D", "AS 9H 9D"]),
        "any_two_jacks": (2100, ["JD JC 9D"]),
        "two_suited_jacks": (5100, ["JD JD 9D"]),
        "any_two_one_eyed_jacks": (10_100, ["JH JS 9D"]),
        "suited_one_eyed_jacks": (20_100, ["JS JS 9D", "JH JH JD"]),
        None: (0, ["KS AH 9D", "KS 9H 9D", "JD 9C 9D"]),
    },
    # The ace ranks high (Q-A around K) and never low (A-3 around 2 loses); a card equal to
    # one end, a pair without the triple match, consecutive ranks and a card outside lose.
    "in_between": {
        "triple_match": (3100, ["7S 7H 7D"]),
        "spread_1": (1100, ["5S 7H 6D", "QS AH KD"]),
        "spread_2": (700, ["5S 8H 6D", "TS KH JD"]),
        "spread_3": (500, ["5S 9H 7D"]),
        "spread_over_3": (200, ["2S AH 7D"]),
        None: (0, ["AS 3H 2D", "2S KH AD", "5S 6H 5D", "7S 7H 8D", "5S 6H 9D", "9S 2H KD"]),
    },
    # Against 7D; 8D 9D: the same suit but another rank is no match.
    "match_the_dealer": {
        "two_suited_matches": (2300, ["7D 7D 7D"]),
        "suited_plus_unsuited": (1600, ["7D 7S 7D"]),
        "suited_match": (1200, ["7D 9C 7D"]),
        "two_unsuited_matches": (900, ["7S 7C 7D"]),
        "one_unsuited_match": (500, ["7S 9C 7D"]),
        None: (0, ["8S 9C 7D", "8D 9D 7D"]),
    },
    # Against 5D; KS QS: the same value but another rank is no pair.
    "hole_card_bonus": {
        "suited_pair": (1900, ["8S 8S 5D"]),
        "non_suited_pair": (1100, ["8S 8H 5D", "KS KD 5D"]),
        None: (0, ["KS QS 5D", "8S 9S 5D"]),
    },
}


@pytest.mark.parametrize(
    ("key", "player", "up", "pattern", "payout"),
    [
        (key, cards[:5], cards[6:], pattern, payout)
        for key, by_pattern in AT_THE_DEAL.items()
        for pattern, (payout, hands) in by_pattern.items()
        for cards in hands
    ],
)
def test_pays_known_at_the_deal_are_settled_with_it(
    key: str, player: str, up: str, pattern: str | None, payout: int
) -> None:
    _check(key, player, up, pattern, payout)


@pytest.mark.parametrize(
    ("player", "up", "hole", "pattern", "payout"),
    [
        ("JH JS", "JH", "JS", "any_four_one_eyed_jacks", 100_100),
        ("JH JH", "JH", "JH", "four_identical_one_eyed_jacks", 500_100),
        ("JS JS", "JS", "JH", "any_four_one_eyed_jacks", 100_100),
        ("JH JS", "JS", "9C", "any_two_one_eyed_jacks", 10_100),  # waited, then the two-jack pay
        ("JS JS", "JH", "JD", "suited_one_eyed_jacks", 20_100),
    ],
)
def test_jack_a_tack_four_jack_candidates_wait_for_the_hole_card(
    player: str, up: str, hole: str, pattern: str, payout: int
) -> None:
    first, second = player.split()
    round_, _ = golden.new_round(
        golden.BOO_BUCKS, f"{first} {up} {second} {hole} TC TC", offered=("jack_a_tack", "trifecta")
    )
    golden.bet(round_, "p", 1, sides={"jack_a_tack": STAKE})
    round_.deal()
    assert round_.side_patterns[(1, "jack_a_tack")] is PENDING
    assert golden.paid_by_stage(round_) == []
    assert golden.side(round_, "p", 1, "jack_a_tack") == (None, None, None)
    golden.play(round_, {("p", 1): ["stand"]})
    assert golden.side(round_, "p", 1, "jack_a_tack") == ("win", pattern, payout)
    # paid once the round is over and the hole card shown, before the main-game settlement
    assert golden.paid_by_stage(round_)[0] == ("side_bets", {"p@1": payout})


def test_a_waiting_jack_a_tack_is_resolved_when_the_peek_shows_a_dealer_blackjack() -> None:
    # JH JS against JS with AS in the hole: the round ends at the peek; two one-eyed jacks pay.
    round_, _ = golden.new_round(
        golden.BOO_BUCKS, "JH JS JS AS", offered=("jack_a_tack", "trifecta")
    )
    golden.bet(round_, "p", 1, sides={"jack_a_tack": STAKE})
    golden.play(round_)
    assert golden.side(round_, "p", 1, "jack_a_tack") == ("win", "any_two_one_eyed_jacks", 10_100)
    assert golden.hand(round_, "p", 1) == golden.Hand("JH JS", 20, 1000, "lose", 0)


def test_jack_a_tack_player_only_variant_never_waits_and_has_no_four_jack_pays() -> None:
    rules = golden.with_side_bet(golden.BOO_BUCKS, "jack_a_tack", variant="player_only")
    round_, at_deal = _round("jack_a_tack", "JH JS", "JS", hole="JH", rules=rules)
    assert at_deal == [("side_bets_initial", {"p@1": 10_100})]
    assert golden.side(round_, "p", 1, "jack_a_tack") == ("win", "any_two_one_eyed_jacks", 10_100)  # type: ignore[arg-type]


def test_the_single_deck_preset_plays_the_player_only_variant() -> None:
    rules = golden.rules_of("boo-bucks-single-deck")
    jack = rules.side_bet("jack_a_tack")
    assert jack is not None and jack.variant == "player_only"
    assert "any_four_one_eyed_jacks" not in jack.pays
    _, at_deal = _round("jack_a_tack", "JH JS", "JD", game="boo-bucks-single-deck")
    assert at_deal == [("side_bets_initial", {"p@1": 10_100})]


def test_the_with_dealer_variant_pays_table_has_the_four_jack_lines() -> None:
    jack = golden.rules_of(golden.BOO_BUCKS).side_bet("jack_a_tack")
    assert jack is not None and jack.variant == "with_dealer"
    assert {name: str(odds) for name, odds in jack.pays.items()} == {
        "four_identical_one_eyed_jacks": "5000:1",
        "any_four_one_eyed_jacks": "1000:1",
        "suited_one_eyed_jacks": "200:1",
        "any_two_one_eyed_jacks": "100:1",
        "two_suited_jacks": "50:1",
        "any_two_jacks": "20:1",
        "any_20": "5:1",
    }


def test_side_bets_pay_on_each_seats_own_cards_whatever_the_main_hand_does() -> None:
    """Seat 1 (5S 6S) and seat 2 (8H 8D) against 7S, hole KH. Seat 1: Trifecta straight flush
    (5-6-7 of spades) beside a base wager that hits to 21; seat 2: In Between loses (8-8
    against 7) and so does the base wager, 16 against 17."""
    round_, _ = golden.new_round(
        golden.BOO_BUCKS, "5S 8H 7S 6S 8D KH TC", offered=("trifecta", "in_between")
    )
    golden.bet(round_, "p", 1, main=1000, sides={"trifecta": 100})
    golden.bet(round_, "p", 2, main=1000, sides={"in_between": 100, "trifecta": 100}, balance=None)
    golden.play(round_, {("p", 1): ["hit"], ("p", 2): ["stand"]})
    assert golden.hand(round_, "p", 1) == golden.Hand("5S 6S TC", 21, 1000, "win", 2000)
    assert golden.side(round_, "p", 1, "trifecta") == ("win", "straight_flush", 3100)
    assert golden.side(round_, "p", 2, "trifecta") == ("lose", None, 0)
    assert golden.side(round_, "p", 2, "in_between") == ("lose", None, 0)
    assert golden.hand(round_, "p", 2) == golden.Hand("8H 8D", 16, 1000, "lose", 0)


def test_only_the_highest_eligible_win_is_paid_once() -> None:
    round_, _ = _round("trifecta", "5S 5S", "5S")
    payments = [amounts for _, amounts in golden.paid_by_stage(round_)]  # type: ignore[arg-type]
    assert payments[0] == {"p@1": 20_100}
    assert sum(1 for amounts in payments if "p@1" in amounts) == 2  # the side bet, then the hand
