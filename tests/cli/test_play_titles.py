"""``boundless play`` for every shipped title: what the rule set says, nothing about its name.

A private table (``rules.table.shared`` false, Boo Bucks) has no bots; its player chooses the side
bets on offer before any bet (and may change them between rounds) and bets seat by seat, the
engine's seat-rule error asking for the seat again. A shared table of several spots (Unlimited)
lets the player pick spots, spreads the bots over them, and offers Surrender 20% where the title
does.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import pytest
from play_helpers import (
    START,
    Keys,
    RandomPlayer,
    assert_said,
    play_app,
    play_title,
    text_console,
)
from rich.console import Console
from typer.testing import CliRunner

from boundless.cli.bots import Bot, bot_lineup, bot_seats
from boundless.cli.play_input import parse_spots
from boundless.cli.table_driver import TableDriver
from boundless.cli.table_events import SideBetsOffered, TableEvent
from boundless.cli.table_seats import (
    BetOffer,
    Seat,
    SideBetChoice,
    SpotBet,
)
from boundless.core.bots import Policy
from boundless.core.random_source import SeededSource
from boundless.titles import load_game, shipped_title_keys

S20_MENU = "[bold]u[/bold]=surrender 20%"
TITLES = [key for key in shipped_title_keys() if key != "boundless"]


def _console() -> tuple[Console, io.StringIO]:
    return text_console(200)


def _run(
    title: str, keys: Keys, console: Console, *, seed: int, rounds: int | None, bots: int = 4
) -> TableDriver:
    return play_title(title, keys, console, seed=seed, rounds=rounds, bots=bots)


# ---- a private table: Boo Bucks ------------------------------------------------------------


def test_a_private_table_has_no_bots_and_the_player_chooses_the_side_bets() -> None:
    console, out = _console()
    keys = Keys(
        console,
        offer=["3 6", "1 5", ""],
        bet=["5", "1", "1", "0", "", "", "0", "", "", "", ""],
    )
    driver = _run("boo-bucks", keys, console, seed=4, rounds=3, bots=4)
    text = out.getvalue()
    assert [seat.player_id for seat in driver.seats] == ["you"]
    assert "A private table: you play alone, on up to 3 seat(s)" in text
    assert "At the table" not in text and "Bot " not in text
    assert "6 Bonus Spin Xtreme (on a seat or the dealer's hand)" in text
    offered = [line for line in text.splitlines() if line.startswith("Side bets on offer")]
    assert offered == [
        "Side bets on offer this round: In Between, Bonus Spin Xtreme,"
        " Bonus Spin Xtreme on the dealer's hand",
        "Side bets on offer this round: Trifecta, Hole Card Bonus",
        "Side bets on offer this round: Trifecta, Hole Card Bonus",  # Enter keeps the choice
    ]
    # seat 3 first (the seat rule looks right), with the chosen side bets and nothing else
    asked = [prompt for prompt in keys.prompts if " on seat " in prompt]
    assert asked[0].startswith("Main bet on seat 3")
    assert asked[1].startswith("In Between on seat 3 (1.00–50.00)")
    assert asked[2].startswith("Bonus Spin Xtreme on seat 3")
    assert asked[3].startswith("Bonus Spin Xtreme on the dealer's hand on seat 3")
    assert not any("Trifecta" in prompt for prompt in asked[:4])
    assert driver.rounds_played == 3
    assert driver.total_coins() == START


def test_the_side_bet_choice_is_asked_again_until_the_engine_accepts_it() -> None:
    console, out = _console()
    keys = Keys(console, offer=["1", "x", "9 1", "2 2", "2 4"])
    driver = _run("boo-bucks", keys, console, seed=2, rounds=1)
    text = out.getvalue()
    assert_said(
        text,
        "choose exactly 2 side bets to offer, got 1",
        "'x': type 2 numbers from the list",
        "'9 1': the numbers run from 1 to 6",
        "'2 2': choose 2 different side bets",
    )
    assert (
        "Side bets on offer this round: Jack A-Tack (with the dealer's cards), Match the Dealer"
        in text
    )
    assert driver.offered == ("jack_a_tack", "match_the_dealer")


def test_boo_bucks_seat_rule_error_asks_the_seat_again() -> None:
    console, out = _console()
    # seat 3: main 1.00, no side bets; seat 2: 10.00 is refused (over 5 x 1.00), then 5.00
    keys = Keys(console, bet=["1", "0", "0", "10", "5", "0", "0", "0"])
    driver = _run("boo-bucks", keys, console, seed=6, rounds=1)
    text = out.getvalue()
    assert "main bet 10.00 on seat 2 exceeds 5 times the 1.00 wagered on seat 3" in text
    assert text.count("Main bet on seat 2") == 2
    assert "you (seat 2): main bet 5.00" in text and "you (seat 3): main bet 1.00" in text
    assert driver.total_coins() == START


def test_boo_bucks_asks_the_seats_to_play_first_then_only_their_bets() -> None:
    console, out = _console()
    # Seats 1 and 3: seat 3's main and side bets (from the right: the seat rule), then seat 1's.
    keys = Keys(console, offer=["1 3"], spots=["3 1"], bet=["2", "0", "0", "1", "0", "0"])
    driver = _run("boo-bucks", keys, console, seed=4, rounds=1)
    asked = [prompt for prompt in keys.prompts if " on seat " in prompt or "to play" in prompt]
    assert asked[0].startswith("Seats to play (1 2 3; up to 3) [1 2 3]")
    assert [prompt.split(" (")[0] for prompt in asked[1:]] == [
        "Main bet on seat 3",
        "Trifecta on seat 3",
        "In Between on seat 3",
        "Main bet on seat 1",
        "Trifecta on seat 1",
        "In Between on seat 1",
    ]
    assert "you (seat 1): main bet 1.00" in out.getvalue()
    assert driver.total_coins() == START


@pytest.mark.parametrize("title", [key for key in TITLES if key.startswith("boo-bucks")])
def test_every_boo_bucks_preset_plays_with_the_same_screens(title: str) -> None:
    console, out = _console()
    driver = _run(title, Keys(console), console, seed=9, rounds=3)
    text = out.getvalue()
    assert "Seat 1 cards:" in text and "Dealer:" in text and "+ face down" in text
    assert "The shoe is reshuffled before every round." in text
    assert driver.cycle.shoe_number == 3  # a fresh shoe every round
    assert driver.total_coins() == START


# ---- a shared table of several spots: Unlimited ---------------------------------------------


def test_unlimited_table_plays_rounds_with_bots_on_the_spots_you_pick() -> None:
    console, out = _console()
    keys = Keys(console, spots=["1 3", "2"], bet=["", "", "", "b", ""])
    driver = _run("unlimited", keys, console, seed=5, rounds=3, bots=5)
    text = out.getvalue()
    assert "3 shared spots: play up to 3 of them" in text
    assert "side options only" not in text  # no side bets at this table: that bot is left out
    assert "you (spot 1): main bet 10.00" in text and "you (spot 3): main bet 10.00" in text
    assert "you (spot 2)" in text  # the third round
    for spot in (1, 2, 3):
        assert f"Spot {spot} cards:" in text
    assert "+ face down" not in text  # no hole card
    assert driver.rounds_played == 3
    assert driver.total_coins() == START * len(driver.seats)


def test_the_spot_choice_is_asked_again_until_it_is_usable() -> None:
    console, out = _console()
    keys = Keys(console, spots=["4", "1 1", "a", "1 2 3", "2"])
    rules = load_game("unlimited")[0]
    limited = rules.model_copy(
        update={"table": rules.table.model_copy(update={"max_spots_per_player": 2})}
    )
    play_title("unlimited", keys, console, seed=1, rounds=1, bots=0, rules=limited)
    text = out.getvalue()
    assert_said(
        text,
        "there is no spot 4: the table has spots 1 2 3",
        "'1 1' names a spot twice",
        "'a': type spot numbers",
        "a player may play at most 2 spots",
        "you (spot 2): main bet",
    )


def test_unlimited_shows_surrender_20_when_the_chart_splits_the_pair() -> None:
    for seed in range(200):
        console, out = _console()
        keys = Keys(console, spots=["1 2 3"])
        _run("unlimited", keys, console, seed=seed, rounds=1, bots=0)
        if any(S20_MENU in prompt for prompt in keys.prompts):
            break
    else:
        pytest.fail("no split offer in 200 seeded rounds")
    menus = [prompt for prompt in keys.prompts if S20_MENU in prompt]
    assert menus[0] == f"[bold]p[/bold]=split  {S20_MENU} > "
    assert "surrendered 20%" in out.getvalue()


def test_parse_spots() -> None:
    assert parse_spots("1 3") == [1, 3]
    assert parse_spots("1,3") == [1, 3]
    assert parse_spots("13") == [1, 3]
    for bad in ("", "x", "1 1"):
        with pytest.raises(ValueError):
            parse_spots(bad)


# ---- the driver with scripted players on every title ----------------------------------------


class ShuffledSpots(RandomPlayer):
    """Random bets on random spots, random side bets and offers, any legal action."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed, side_chance=0.5, silent=0.15)
        self.offers: list[tuple[str, ...]] = []

    def choose_side_bets(self, choice: SideBetChoice) -> Sequence[str]:
        picked = tuple(self.random.sample(sorted(choice.groups), choice.count))
        self.offers.append(picked)
        return picked

    def bet(self, offer: BetOffer) -> Sequence[SpotBet]:
        count = self.random.randint(1, offer.max_spots)
        spots = sorted(self.random.sample(list(offer.spots), count))
        return [
            self.spot_bet(offer, spot, offer.unit_amount * self.random.randint(0, 20))
            for spot in spots
        ]


@pytest.mark.parametrize("title", TITLES)
def test_the_driver_plays_every_title_and_conserves_coins(title: str) -> None:
    rules, chart = load_game(title)
    events: list[TableEvent] = []
    player = ShuffledSpots(7)
    seats = [Seat("p", "P", player, START, host=True)]
    if rules.table.shared:
        seats += bot_seats(3, START, side_bets=bool(rules.side_bets))
    driver = TableDriver(rules, chart, SeededSource(3), seats, observer=events.append)
    total = driver.total_coins()
    for _ in range(25):
        driver.play_round()
        assert driver.total_coins() == total
    offers = [event for event in events if isinstance(event, SideBetsOffered)]
    if rules.side_bet_offer.mode == "player_chooses":
        assert len(offers) == driver.rounds_played
        assert [event.groups for event in offers] == player.offers[: len(offers)]
        assert len(set(player.offers)) > 1  # the choice changes between rounds
    else:
        assert offers == []
    # the engine turned down only bets the seat rule or a limit forbids, and asked again
    for message in player.rejections:
        assert "exceeds" in message or "outside" in message or "needs another wager" in message


def test_a_triggered_bonus_wheel_spins_from_the_tables_random_source() -> None:
    rules, chart = load_game("boo-bucks")

    class WheelPlayer(ShuffledSpots):
        def choose_side_bets(self, choice: SideBetChoice) -> Sequence[str]:
            return ("bonus_spin_xtreme", "trifecta")

        def bet(self, offer: BetOffer) -> Sequence[SpotBet]:
            sides = {"bonus_spin_xtreme": 100, "bonus_spin_xtreme_dealer": 100}
            return [SpotBet(spot, 100, sides) for spot in offer.spots]

    seats = [Seat("p", "P", WheelPlayer(1), START, host=True)]
    driver = TableDriver(rules, chart, SeededSource(8), seats)
    spun = []
    for _ in range(40):
        report = driver.play_round()
        assert report is not None
        spun += [
            side.wheel_labels
            for seat in report.seats
            for position in seat.positions
            for side in position.side_bets
            if side.wheel_labels
        ]
    assert spun, "no bonus wheel in 40 rounds of three seats"
    assert driver.total_coins() == START


def test_bots_spread_over_the_spots_and_skip_side_bets_only_without_side_bets() -> None:
    assert Policy.SIDE_BETS in {spec.policy for spec in bot_lineup(5)}
    assert Policy.SIDE_BETS not in {spec.policy for spec in bot_lineup(5, side_bets=False)}
    rules, chart = load_game("unlimited")
    seats = [Seat("h", "H", ShuffledSpots(2), START, host=True), *bot_seats(6, START, False)]
    driver = TableDriver(rules, chart, SeededSource(1), seats)
    report = driver.play_round()
    assert report is not None
    by_bot = {
        seat.player_id: sorted(position.spot for position in seat.positions)
        for seat in report.seats
        if seat.player_id.startswith("bot-")
    }
    assert {spot for spots in by_bot.values() for spot in spots} == {1, 2, 3}
    doubler = next(
        seat
        for seat in seats
        if isinstance(seat.decider, Bot) and seat.decider.policy is Policy.DOUBLER
    )
    assert len(by_bot[doubler.player_id]) == 2  # this bot plays two spots


def test_play_command_runs_a_private_title_from_typed_input() -> None:
    keys = "2 3\n1\n\n\n0\n\n\n0\n\n\n" + "s\n" * 10 + "q\n"
    result = CliRunner().invoke(
        play_app(),
        ["play", "--title", "boo-bucks-single-deck", "--seed", "4", "--rounds", "1"],
        input=keys,
    )
    assert result.exit_code == 0, result.output
    assert (
        "Side bets on offer this round: Jack A-Tack (your two cards), In Between" in result.output
    )
    assert "shuffle of 52 cards" in result.output
    assert "Final chips:" in result.output


def test_leaving_at_the_side_bet_choice_ends_the_game_before_any_bet() -> None:
    console, out = _console()
    keys = Keys(console, end_after=0)
    driver = _run("boo-bucks", keys, console, seed=1, rounds=None)
    assert keys.prompts[0].startswith("Choose 2 side bets to offer")
    assert driver.rounds_played == 0 and not driver.open
    assert "Final chips: 1,000.00" in out.getvalue()
