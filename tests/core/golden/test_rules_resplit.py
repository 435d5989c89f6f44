"""Golden rounds with resplits (issue 12): ``split.max_hands`` up to 4 and ``split.resplit_aces``.

Rulings 12, 21 and 32 (docs/rulings.md): a hand made by a split whose two cards pair again may
split again while the position holds fewer than ``max_hands`` hands; split aces only with
``resplit_aces``, and with one card each a split ace that draws another ace may split again or
stand. The new hand goes right after the one it came from; every split costs one more main bet;
a shared step deals to resplit hands as to split hands (ruling 8).

The three scenario files in ``resplit_scenarios/`` are played by ``boundless replay --rules`` with
the operator example ``docs/examples/rules/boo-bucks-resplit.toml`` (Boo Bucks: six decks, the
dealer stands on soft 17 and peeks under an ace or a ten, doubles after splits, split aces one
card; here resplits to four hands, aces included). Their expected results were worked by hand:

*eights_resplit_to_four_hands*: 8S 8D against 6H (hole TC, 16). Step 1 split: hand 1 (8S) draws
8H. Step 2 split again: 8S | 8H | 8D, hand 1 draws 3C (11). Step 3 double: TD, 21 for 2,000.
Step 4 hand 2 (8H) draws its second card without a decision: 8C, a pair again. Step 5 split:
8S-3C-TD | 8H | 8C | 8D, the fourth hand; hand 2 draws 8S (16, no fifth hand). Step 6 stand:
hand 3 (8C) takes this step's card, 2D (10). Step 7 double: 9S, 19 for 2,000. Step 8 hand 4 (8D)
draws 8H (16). Step 9 stand. The dealer draws 2H: 18. Wins 21 and 19 (4,000 each), loses both
16s: staked 1,000 + 3 × 1,000 split + 2 × 1,000 doubled = 6,000, paid 8,000, balance 102,000.

*aces_resplit_to_three_hands*: AS AD against 9H (hole 7C). Step 1 split: hand 1 draws AH; an ace
on a split ace may split again, so the hand waits for a decision. Step 2 split: AS | AH | AD,
hand 1 draws KD (21, not a blackjack, stands: one card). Step 3 hand 2 draws 5C (16, stands).
Step 4 hand 3 draws AC: again a pair of aces with three hands; step 5 stand (soft 12). The
dealer draws 3S: 19. Wins 21 (2,000), loses 16 and 12: staked 3,000, paid 2,000.

*aces_resplit_to_four_hands*: the same start; hand 1 draws AH, splits, draws AC, splits again:
AS | AC | AH | AD. Hand 1 draws 2D (13), hand 2 draws AS: a pair of aces, but the seat holds
four hands, so it stands at once (12). Hand 3 draws 9C (20), hand 4 TH (21). The dealer draws 4D:
20. 13 and 12 lose, 20 pushes (1,000), 21 wins (2,000): staked 4,000, paid 3,000.
"""

from __future__ import annotations

import json
from pathlib import Path

import golden_helpers as golden
import pytest
from typer.testing import CliRunner

from boundless.cli.main import app
from boundless.cli.scenario_pack import differences
from boundless.core.errors import IllegalActionError, InsufficientCoinsError
from boundless.core.round import Action, SharedRound
from boundless.core.round.views import player_view
from boundless.core.rules import RuleSet
from boundless.titles import load_rule_file, shipped_title_keys

EXAMPLE = Path(__file__).parents[3] / "docs" / "examples" / "rules" / "boo-bucks-resplit.toml"
SCENARIOS = Path(__file__).parent / "resplit_scenarios"
INPUTS = sorted(p for p in SCENARIOS.glob("*.json") if not p.name.endswith(".expected.json"))
RESPLIT, _ = load_rule_file(EXAMPLE)
ACES_PLAYING_ON = [(True, "hit split stand"), (False, "hit stand")]  # no double on split aces
EIGHTS = "8S 6H 8D TC 8H 3C TD 8C 8S 2D 9S 8H 2H"  # the eights scenario's shoe


def _replay(*arguments: object) -> tuple[int, str, str]:
    outcome = CliRunner().invoke(app, ["replay", *map(str, arguments)])
    return outcome.exit_code, outcome.stdout, outcome.stderr


def _replay_with_rules(*paths: Path) -> tuple[int, str, str]:
    return _replay(*paths, "--rules", EXAMPLE)


def _step(round_: SharedRound, word: str | None = None, player: str = "p", spot: int = 1) -> None:
    """One step: the player's decision (if any), then the step closes."""
    if word is not None:
        round_.decide(player, spot, word)
    round_.close_step()


def _cards(round_: SharedRound, player: str = "p", spot: int = 1) -> list[str]:
    path = round_.path_of(round_.position(player, spot))
    return [" ".join(map(str, hand.cards)) for hand in path.hands]


def _example(cards: str, balance: int = 100_000) -> SharedRound:
    round_, _ = golden.dealt(golden.BOO_BUCKS, cards, rules=RESPLIT, balance=balance)
    return round_


# ---- the scenario files --------------------------------------------------------------------
def test_the_example_file_is_boo_bucks_with_resplits_to_four_hands() -> None:
    base = golden.variant(golden.BOO_BUCKS, split={"max_hands": 4, "resplit_aces": True})
    assert RESPLIT.key == "boo-bucks-resplit"
    assert RESPLIT.model_copy(update={"title": base.title}) == base


def test_the_worked_scenarios_replay_one_by_one_and_as_a_pack() -> None:
    for path in INPUTS:
        replayed = _replay_with_rules(path)
        wanted = json.loads(path.with_suffix(".expected.json").read_text())
        assert replayed[0] == 0 and differences(wanted, json.loads(replayed[1])) == [], path.name
    code, out, _ = _replay_with_rules(SCENARIOS)  # compares each with NAME.expected.json
    assert code == 0, out
    assert out.splitlines()[-1] == f"{len(INPUTS)} passed, 0 failed"


def test_a_resplit_scenario_needs_the_rule_file_that_defines_its_title() -> None:
    code, out, err = _replay(INPUTS[0])
    assert (code, out) == (2, "")
    assert "unknown title 'boo-bucks-resplit'" in err


# ---- one split where the title says so -------------------------------------------------------
@pytest.mark.parametrize("key", shipped_title_keys())
def test_every_shipped_title_still_splits_a_hand_once(key: str) -> None:
    rules = golden.variant(key)
    hole = "TC " if rules.dealer.hole_card == "peek" else ""
    round_, shoe = golden.dealt(key, f"8S 6H 8D {hole}8H 3C TD 2H 4S 5S")
    _step(round_, "split")
    assert _cards(round_) == ["8S 8H", "8D"]
    assert Action.SPLIT not in round_.legal_actions("p", 1)
    golden.assert_rejected(round_, shoe, "p", "split")


def test_a_fifth_hand_is_refused_and_changes_nothing() -> None:
    round_, shoe = golden.dealt(golden.BOO_BUCKS, EIGHTS, rules=RESPLIT)
    _step(round_, "split")
    _step(round_, "split")
    assert _cards(round_) == ["8S 3C", "8H", "8D"]  # the new hand comes right after hand 1
    _step(round_, "double")
    _step(round_)  # hand 2 draws its second card: 8C
    assert round_.legal_actions("p", 1) == {Action.HIT, Action.STAND, Action.DOUBLE, Action.SPLIT}
    _step(round_, "split")
    assert _cards(round_) == ["8S 3C TD", "8H 8S", "8C", "8D"]
    assert round_.legal_actions("p", 1) == {Action.HIT, Action.STAND, Action.DOUBLE}
    with pytest.raises(IllegalActionError, match="hand 2 8H-8S: split is not allowed now"):
        round_.decide("p", 1, "split")
    golden.assert_rejected(round_, shoe, "p", "split")


def test_split_aces_are_not_split_again_without_resplit_aces() -> None:
    rules = golden.variant(golden.BOO_BUCKS, split={"max_hands": 4})
    round_, _ = golden.dealt(golden.BOO_BUCKS, "AS 9H AD 7C AH 5C 3S", rules=rules)
    _step(round_, "split")
    # One card each and no resplit of aces: the ace on the ace stands at once (soft 12).
    path = round_.path_of(0)
    assert _cards(round_) == ["AS AH", "AD"] and path.current == 1
    assert round_.legal_actions("p", 1) == frozenset()
    golden.play(round_)
    assert _cards(round_) == ["AS AH", "AD 5C"]
    eights, _ = golden.dealt(golden.BOO_BUCKS, EIGHTS, rules=rules)
    _step(eights, "split")
    assert Action.SPLIT in eights.legal_actions("p", 1)  # other pairs still split again


def test_split_aces_with_one_card_each_may_only_stand_or_split_again() -> None:
    round_, shoe = golden.dealt(golden.BOO_BUCKS, "AS 9H AD 7C AH KD 5C AC 3S", rules=RESPLIT)
    _step(round_, "split")
    assert round_.legal_actions("p", 1) == {Action.STAND, Action.SPLIT}
    for word in ("hit", "double"):
        golden.assert_rejected(round_, shoe, "p", word)


@pytest.mark.parametrize(
    ("resplit_aces", "options"), [(True, "hit split stand"), (False, "hit stand")]
)
def test_split_aces_that_play_on_split_again_only_with_resplit_aces(
    resplit_aces: bool, options: str
) -> None:
    rules = golden.variant(
        "boo-bucks-split-aces-hit", split={"max_hands": 3, "resplit_aces": resplit_aces}
    )
    round_, _ = golden.dealt("boo-bucks-split-aces-hit", "AS 9H AD 7C AH KD 5C", rules=rules)
    _step(round_, "split")
    assert sorted(action.word for action in round_.legal_actions("p", 1)) == options.split()


@pytest.mark.parametrize(
    ("key", "doubles"), [(golden.BOO_BUCKS, True), ("boo-bucks-no-das", False)]
)
def test_a_resplit_hand_doubles_where_split_hands_do(key: str, doubles: bool) -> None:
    rules = golden.variant(key, split={"max_hands": 3})
    round_, _ = golden.dealt(key, EIGHTS, rules=rules)
    _step(round_, "split")
    _step(round_, "split")
    assert _cards(round_) == ["8S 3C", "8H", "8D"]
    assert (Action.DOUBLE in round_.legal_actions("p", 1)) is doubles


def test_each_split_costs_one_main_bet_and_is_refused_without_the_coins() -> None:
    # 2,000 coins: the bet and one split; the resplit would need 1,000 more.
    round_, shoe = golden.dealt(golden.BOO_BUCKS, EIGHTS, rules=RESPLIT, balance=2000)
    _step(round_, "split")
    assert round_.staked()[0] == 2000 and round_.player_free_coins("p") == 0
    assert round_.legal_actions("p", 1) == {Action.HIT, Action.STAND}
    with pytest.raises(InsufficientCoinsError, match=r"split costs 10\.00, free coins are 0\.00"):
        round_.decide("p", 1, "split")
    golden.assert_rejected(round_, shoe, "p", "split")


# ---- autoplay and fall-backs ---------------------------------------------------------------
def test_the_chart_autoplay_resplits_as_the_worked_scenario_does() -> None:
    round_ = _example(EIGHTS)
    golden.play(round_)  # nobody decides: basic strategy splits eights and doubles 11 and 10
    assert golden.hands(round_, "p") == [
        golden.Hand("8S 3C TD", 21, 2000, "win", 4000),
        golden.Hand("8H 8S", 16, 1000, "lose", 0),
        golden.Hand("8C 2D 9S", 19, 2000, "win", 4000),
        golden.Hand("8D 8H", 16, 1000, "lose", 0),
    ]
    result = round_.path_of(0)
    assert all(move.source.word == "autoplay" for hand in result.hands for move in hand.moves)
    assert golden.net(round_, "p") == 2000


def test_a_resplit_whose_coins_are_gone_at_the_close_takes_the_charts_second_choice() -> None:
    round_ = _example(EIGHTS)
    _step(round_, "split")
    round_.decide("p", 1, "split")
    round_.set_free_coins(["p"], [0])  # spent at another table before the step closes
    round_.close_step()
    first = round_.path_of(0).hands[0]
    assert (first.moves[-1].action.word, first.moves[-1].source.word) == ("stand", "fallback")
    assert _cards(round_) == ["8S 8H", "8D 3C"]  # hand 2 took the step card
    assert round_.staked()[0] == 2000


# ---- a shared step --------------------------------------------------------------------------
def test_a_shared_step_deals_to_resplit_hands_as_to_split_hands() -> None:
    rules = golden.variant(golden.BOUNDLESS, split={"max_hands": 3})
    round_, _ = golden.new_round(golden.BOUNDLESS, "8S 5H 8D TC 8H 4C 8C 9C 7S", rules=rules)
    golden.seat(round_, "alice")
    golden.seat(round_, "bob")
    golden.play(round_, {"alice": ["split", "split", "stand", "stand", "stand"], "bob": ["hit"]})
    # Step 1: both take 8H (alice's hand 1, bob's 24). Step 2: alice splits 8S-8H again and
    # hand 1 takes 4C. Step 3: she stands, hand 2 (8H) takes 8C: a pair, but three hands is
    # the limit. Step 4: she stands, hand 3 takes 9C. Step 5: she stands; no card.
    assert golden.step_cards(round_) == ["8H", "4C", "8C", "9C"]
    assert round_.step_takers[1] == [2, 1, 1, 1]
    assert _cards(round_, "alice") == ["8S 4C", "8H 8C", "8D 9C"]
    assert round_.path_of(round_.position("alice", 1)).cards_taken == 4
    assert golden.dealer(round_) == "5H TC 7S"
    assert [hand.payout for hand in golden.hands(round_, "alice")] == [2000, 2000, 2000]
    assert golden.hands(round_, "bob") == [golden.Hand("8S 8D 8H", 24, 1000, "lose", 0)]


def test_bulk_splits_follow_the_hand_limit() -> None:
    rules = golden.variant(golden.BOUNDLESS, split={"max_hands": 3})
    round_, _ = golden.new_round(golden.BOUNDLESS, "8S 5H 8D TC 8H 8C 8S 9C 7S 2D 3D", rules=rules)
    for player in ("a", "b", "c"):
        golden.seat(round_, player)
    round_.deal()
    positions = round_.positions_awaiting_decision()
    round_.decide_many(positions, [int(Action.SPLIT)] * 3)
    round_.close_step()
    round_.decide_many(positions, [int(Action.SPLIT)] * 3)
    round_.close_step()  # every hand 1 is 8S-8C now, with three hands: no more splits
    with pytest.raises(IllegalActionError, match="split is not allowed now"):
        round_.decide_many(positions, [int(Action.SPLIT)] * 3)
    assert all(len(round_.path_of(p).hands) == 3 for p in positions.tolist())
    assert round_.pending_action(0) == -1


def test_a_view_shows_every_hand_and_the_one_in_play() -> None:
    round_ = _example(EIGHTS)
    for word in ("split", "split", "double", None, "split"):
        _step(round_, word)
    (position,) = player_view(round_, "p")["player"]["positions"]
    assert [hand["cards"] for hand in position["hands"]] == [
        ["8S", "3C", "TD"],
        ["8H", "8S"],
        ["8C"],
        ["8D"],
    ]
    assert position["current_hand"] == 1
    assert [hand["bet"] for hand in position["hands"]] == [2000, 1000, 1000, 1000]
    assert position["legal_actions"] == ["double", "hit", "stand"]


# ---- split only where the chart splits (Unlimited) -------------------------------------------
def _unlimited(cards: str, max_hands: int = 3) -> tuple[SharedRound, RuleSet]:
    rules = golden.variant(golden.UNLIMITED, split={"max_hands": max_hands})
    round_, _ = golden.dealt(golden.UNLIMITED, cards, rules=rules)
    return round_, rules


def test_a_resplit_pair_has_the_same_two_choices_and_surrender_20_refunds_that_hand() -> None:
    round_, _ = _unlimited("8S 6H 8D 8H 3C TD KS 2C")
    assert round_.legal_actions("p", 1) == {Action.SPLIT, Action.SURRENDER20}
    _step(round_, "split")
    assert round_.legal_actions("p", 1) == {Action.SPLIT, Action.SURRENDER20}
    _step(round_, "surrender20")  # hand 1 gives up 80%; hand 2 takes this step's card
    assert _cards(round_) == ["8S 8H", "8D 3C"]
    _step(round_, "double")
    golden.play(round_)
    assert golden.dealer(round_) == "6H KS 2C"
    assert golden.hands(round_, "p") == [
        golden.Hand("8S 8H", 16, 1000, "surrender20", 800),
        golden.Hand("8D 3C TD", 21, 2000, "win", 4000),
    ]
    assert golden.paid_by_stage(round_) == [
        ("surrender", {"p@1": 800}),
        ("settlement", {"p@1": 4000}),
    ]
    assert golden.net(round_, "p") == 1800


def test_no_hole_card_a_dealer_blackjack_takes_only_the_original_bet_of_resplit_hands() -> None:
    round_, _ = _unlimited("8S TH 8D 8H 2C 9D 5S TS AS")
    for word in ("split", "split", "double", None, "stand", "stand"):
        _step(round_, word)
    golden.play(round_)
    assert golden.dealer(round_) == "TH AS"
    # Hand 1 carries the original bet: of its doubled 2,000 only the double comes back.
    assert [(hand.cards, hand.bet, hand.payout) for hand in golden.hands(round_, "p")] == [
        ("8S 2C 9D", 2000, 1000),
        ("8H 5S", 1000, 1000),
        ("8D TS", 1000, 1000),
    ]
    assert golden.net(round_, "p") == -1000
