"""``boundless play``: the table driver, the bots and the terminal app.

The driver runs with a seeded shuffle and scripted deciders through shoe ends; the terminal app
runs with a Rich console writing to a string and a fake keyboard.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
import typer
from play_helpers import START, Keys, RandomPlayer, assert_said, play_app, play_title, text_console
from rich.console import Console
from typer.testing import CliRunner

from boundless.cli.bots import bot_lineup, bot_seats
from boundless.cli.play_input import parse_action, parse_amount
from boundless.cli.table_driver import TableDriver
from boundless.cli.table_events import (
    RoundReported,
    ShoeRetired,
    ShoeShuffled,
    StepTaken,
    TableEvent,
)
from boundless.cli.table_seats import (
    BetOffer,
    PlayerLeft,
    Seat,
    SeatView,
    SpotBet,
)
from boundless.core.bots import Policy
from boundless.core.money import format_amount
from boundless.core.random_source import SeededSource
from boundless.core.round import Action
from boundless.core.shoe import commitment_of
from boundless.titles import load_game


class ScriptedDecider(RandomPlayer):
    """A random player on spot 1 who may sit a round out, bet too much on purpose
    (``bad_bets_left``) or leave at a decision (``leave_at_decision``)."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed, side_chance=0.4, silent=0.1)
        self.bad_bets_left = 0
        self.leave_at_decision: int | None = None
        self.decisions = 0

    def bet(self, offer: BetOffer) -> Sequence[SpotBet]:
        if self.bad_bets_left:
            self.bad_bets_left -= 1
            return [SpotBet(offer.spots[0], offer.max_main_amount + offer.unit_amount)]
        roll = self.random.random()
        if roll < 0.1:
            return []
        main = 0 if roll < 0.2 else offer.unit_amount * self.random.randint(1, 30)
        return [self.spot_bet(offer, offer.spots[0], main)]

    def decide(self, view: SeatView) -> Action | None:
        self.decisions += 1
        if self.leave_at_decision is not None and self.decisions >= self.leave_at_decision:
            raise PlayerLeft
        return super().decide(view)


def _driver(
    seed: int,
    bots: int = 5,
    scripted: int = 2,
    observer: Callable[[TableEvent], None] | None = None,
) -> tuple[TableDriver, list[ScriptedDecider]]:
    rules, chart = load_game("boundless")
    deciders = [ScriptedDecider(seed * 100 + index) for index in range(scripted)]
    seats = [
        Seat(f"p{index}", f"Player {index}", decider, START, host=index == 0)
        for index, decider in enumerate(deciders)
    ]
    seats += bot_seats(bots, START)
    return TableDriver(rules, chart, SeededSource(seed), seats, observer), deciders


def _check_step_cards(driver: TableDriver, steps: list[StepTaken]) -> None:
    """Each position's k-th drawn card is the k-th step card; takers are exactly those positions."""
    round_ = driver.round
    assert round_ is not None
    by_name = {seat.player_id: seat.name for seat in driver.seats}
    for spot, step_cards in round_.step_cards.items():
        with_card = [step for step in steps if step.spot == spot and step.card is not None]
        assert [step.card for step in with_card] == step_cards
        assert [len(step.takers) for step in with_card] == round_.step_takers[spot]
        for player_id, name in by_name.items():
            for position in round_.positions_of(player_id):
                path = round_.path_of(position)
                drawn = [
                    card
                    for hand in path.hands
                    for card in hand.cards[2 if not hand.from_split else 1 :]
                ]
                assert drawn == step_cards[: path.cards_taken]
                took = [index for index, step in enumerate(with_card) if name in step.takers]
                assert took == list(range(path.cards_taken))


def test_driver_plays_through_shoe_ends_conserving_coins() -> None:
    events: list[TableEvent] = []
    steps: list[StepTaken] = []
    driver_box: list[TableDriver] = []

    def observe(event: TableEvent) -> None:
        events.append(event)
        if isinstance(event, StepTaken):
            steps.append(event)
        if isinstance(event, RoundReported):
            _check_step_cards(driver_box[0], steps)
            steps.clear()

    driver, deciders = _driver(seed=11, observer=observe)
    driver_box.append(driver)
    total = driver.total_coins()
    assert total == START * len(driver.seats)
    house = 0
    while len([e for e in events if isinstance(e, ShoeShuffled)]) < 3:
        report = driver.play_round()
        assert report is not None
        house += report.house_amount
        assert driver.total_coins() == total
        for seat in report.seats:
            assert seat.balance_after == seat.balance_before - seat.staked_amount + seat.paid_amount
    assert driver.house_result == house
    assert driver.rounds_played > 40
    shuffles = [e for e in events if isinstance(e, ShoeShuffled)]
    retired = [e for e in events if isinstance(e, ShoeRetired)]
    assert [e.shuffled.shoe_number for e in shuffles] == [1, 2, 3]
    assert [e.shoe_number for e in retired] == [1, 2]
    for shuffle, reveal in zip(shuffles, retired, strict=False):
        assert reveal.verified and reveal.reveal.verify()
        assert reveal.reveal.commitment == shuffle.shuffled.commitment
        assert (
            commitment_of(reveal.reveal.salt_hex, reveal.reveal.cards)
            == shuffle.shuffled.commitment
        )
        burn = shuffle.shuffled.burn
        assert burn is not None
        assert reveal.reveal.cards[0] == burn.revealed
        assert len(burn.burned) == burn.revealed.value
    # the round before each new shoe was reported as the shoe's last
    reports = [e.report for e in events if isinstance(e, RoundReported)]
    lasts = [r for r in reports if r.last_in_shoe]
    assert [r.shoe_number for r in lasts] == [1, 2]
    firsts = [r for r in reports if r.round_in_shoe == 1]
    assert [r.shoe_number for r in firsts] == [1, 2, 3]
    # the game's end retires the shoe in use, verifiably
    last_shoe = driver.close()
    assert last_shoe is not None and last_shoe.verify()
    assert not driver.open
    assert all(not decider.rejections for decider in deciders)


def test_side_options_close_by_round_and_are_not_offered() -> None:
    offers: list[BetOffer] = []

    class Recorder(ScriptedDecider):
        def bet(self, offer: BetOffer) -> Sequence[SpotBet]:
            offers.append(offer)
            return [SpotBet(1, offer.min_main_amount)]

    rules, chart = load_game("boundless")
    seats = [Seat("p", "P", Recorder(1), START, host=True)]
    driver = TableDriver(rules, chart, SeededSource(5), seats)
    for _ in range(46):
        driver.play_round()
        if driver.cycle.shoe_number > 1:
            break
    by_round = {offer.round_in_shoe: offer for offer in offers if offer.shoe_number == 1}
    assert {o.key: o.rounds_left for o in by_round[1].side_options} == {
        bet.key: bet.max_round for bet in rules.side_bets
    }
    pair = rules.side_bet("pair")
    assert pair is not None and pair.max_round is not None
    if pair.max_round + 1 in by_round:
        late = by_round[pair.max_round + 1]
        assert late.side_option("pair") is None
        assert "pair" in late.closed_side_options
        assert late.check([SpotBet(1, 100, {"pair": 100})]) is not None
    assert by_round[pair.max_round].side_option("pair") is not None
    assert by_round[pair.max_round].side_option("pair").rounds_left == 1  # type: ignore[union-attr]


def test_rejected_bets_are_reported_and_asked_again() -> None:
    driver, deciders = _driver(seed=3, bots=0, scripted=1)
    deciders[0].bad_bets_left = 1
    total = driver.total_coins()
    report = driver.play_round()
    assert len(deciders[0].rejections) == 1
    assert "outside the table limits" in deciders[0].rejections[0]
    assert report is None or driver.total_coins() == total


def test_player_leaving_mid_round_is_autoplayed_and_closes_the_table() -> None:
    driver, deciders = _driver(seed=8, bots=3, scripted=1)
    deciders[0].leave_at_decision = 1
    total = driver.total_coins()
    for _ in range(20):
        if not driver.open:
            break
        driver.play_round()
    assert not driver.open
    assert driver.total_coins() == total
    assert not driver.seat("p0").present
    with pytest.raises(RuntimeError):
        driver.play_round()


def test_bots_decide_differently_so_takers_differ() -> None:
    steps: list[StepTaken] = []

    def observe(event: TableEvent) -> None:
        if isinstance(event, StepTaken):
            steps.append(event)

    driver, _ = _driver(seed=21, bots=5, scripted=0, observer=observe)
    driver.seats[0].host = True
    for _ in range(30):
        driver.play_round()
    partial = [step for step in steps if step.card is not None and 0 < len(step.takers) < 4]
    assert partial, "some step card should go to some bots and not others"
    actions = {(move.name, move.action) for step in steps for move in step.moves}
    assert {action for _, action in actions} >= {"hit", "stand", "double"}
    sources = {move.source for step in steps for move in step.moves}
    assert {"player", "autoplay"} <= sources
    assert len({spec.policy for spec in bot_lineup(len(Policy))}) == len(Policy) >= 3


def test_broke_players_leave_and_host_broke_closes() -> None:
    rules, chart = load_game("boundless")
    seats = [Seat("p", "P", ScriptedDecider(2), 50, host=True)]  # below the 1.00 minimum
    driver = TableDriver(rules, chart, SeededSource(1), seats)
    assert driver.play_round() is None
    assert not driver.open


# ---- parsing --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "amount"), [("10", 1000), ("12.5", 1250), ("1,000.00", 100000), ("0", 0)]
)
def test_parse_amount(text: str, amount: int) -> None:
    assert parse_amount(text) == amount


@pytest.mark.parametrize("text", ["abc", "1.234", "-5", "nan", "1e"])
def test_parse_amount_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        parse_amount(text)


def test_parse_action_words() -> None:
    assert parse_action("h") == Action.HIT
    assert parse_action("Double Down") == Action.DOUBLE
    assert parse_action("split") == Action.SPLIT
    assert parse_action("zz") is None


# ---- the terminal app --------------------------------------------------------------------------


def _console() -> tuple[Console, io.StringIO]:
    return text_console(130)


def _run(
    keyboard: Keys, console: Console, *, seed: int, bots: int = 4, rounds: int | None = None
) -> TableDriver:
    return play_title("boundless", keyboard, console, seed=seed, bots=bots, rounds=rounds)


def test_console_game_reprompts_on_bad_input() -> None:
    console, out = _console()
    keyboard = Keys(
        console,
        bet=["abc", "5000", "10", "", "", "", "200", "1"],
        decide=["x", "u", "s"],
        insurance=["maybe", "n"],
    )
    driver = _run(keyboard, console, seed=4, rounds=4)
    text = out.getvalue()
    # bad amounts, then the engine's own limit messages
    assert_said(
        text,
        "'abc' is not an amount",
        "main play 5,000.00 is outside the table limits 1.00..1,000.00",
        "side option Poker Trio of 200.00 is outside 1.00..100.00",
        # an unknown action, then an action this title never allows, then a legal one
        "unknown action 'x'; choose hit (h), stand (s)",
        "surrender 20% is not allowed now; allowed: hit (h), stand (s)",
    )
    assert text.count("Enter = same play (main 10.00 + Poker Trio 1.00)") == 3
    # the table: shuffle, burn, side options with rounds left, cards, bots, steps, dealer
    assert "Commitment (SHA-256): " in text and "Burn: the facilitator reveals" in text
    assert "Pair: 40 rounds left" in text and "Poker Trio (1.00–100.00, 45 rounds left)" in text
    assert "Shared cards:" in text and "Facilitator:" in text
    assert all(f"Bot {name}" in text for name in ("Ana", "Ben", "Cleo", "Dan"))
    assert "step 1:" in text and "→" in text
    assert "deduction" in text or "reward" in text
    # the end: the shoe in use is revealed and checked, the balance printed
    assert "✓ matches the commitment" in text
    assert driver.rounds_played == 4
    assert f"Final coins: {format_amount(driver.seat('you').balance)}" in text
    assert driver.total_coins() == START * len(driver.seats)
    assert "chips" not in text and "dealer" not in text.lower()


def test_console_insurance_prompt_reprompts() -> None:
    for seed in range(40):
        console, out = _console()
        keyboard = Keys(console, insurance=["maybe", "y"])
        driver = _run(keyboard, console, seed=seed, bots=1, rounds=8)
        if any("[y/N]" in prompt for prompt in keyboard.prompts):
            break
    else:
        pytest.fail("no insurance offered in 40 seeded games")
    text = out.getvalue()
    assert "'maybe': answer y or n" in text
    assert re.search(
        r"Insure your hand \S+ \S+ \((soft )?\d+\)\? It costs 5\.00 and pays 2:1", text
    )
    assert "Insurance: you (5.00)" in text
    assert driver.total_coins() == START * len(driver.seats)


@pytest.mark.parametrize("ending", ["q", "ctrl-d", "ctrl-c"])
def test_console_quit_mid_round_finishes_the_hand_and_prints_the_balance(ending: str) -> None:
    console, out = _console()
    # prompts 1-5 are the main bet and four side options; the 6th is the first decision
    keyboard = Keys(console, end_after=5, end_with=ending)
    driver = _run(keyboard, console, seed=4)
    text = out.getvalue()
    assert "You left the table; the autoplay rule finishes the hand(s) in play." in text
    assert driver.rounds_played == 1
    assert f"Final coins: {format_amount(driver.seat('you').balance)}" in text
    assert driver.total_coins() == START * len(driver.seats)
    assert not driver.open


def test_console_game_runs_through_a_shoe_end() -> None:
    console, out = _console()
    keyboard = Keys(console, bet=["5", "", "", "", ""])
    driver = _run(keyboard, console, seed=9, bots=3, rounds=70)
    text = out.getvalue()
    assert driver.cycle.shoe_number >= 2
    assert "The cut card is out" in text
    assert "Shoe 2: new shuffle" in text
    assert text.count("✓ matches the commitment") >= 2  # shoe 1 at its end, shoe 2 at exit
    assert "Pair: 1 round left" in text and "Closed until the next shoe: Pair" in text
    assert driver.total_coins() == START * len(driver.seats)


def test_casino_vocabulary_comes_from_the_rule_set() -> None:
    rules = load_game("boundless")[0]
    casino = rules.model_copy(
        update={"title": rules.title.model_copy(update={"vocabulary": "casino"})}
    )
    console, out = _console()
    play_title("boundless", Keys(console), console, seed=4, bots=2, rounds=2, rules=casino)
    text = out.getvalue()
    assert "Dealer:" in text and "Main bet" in text and "Final chips:" in text
    assert "facilitator" not in text.lower() and "coins" not in text


def test_play_command_with_typed_input(tmp_path: Path) -> None:
    keys = "abc\n10\n\n\n\n\nx\ns\ns\ns\nn\nq\n"
    result = CliRunner().invoke(
        play_app(),
        ["play", "--seed", "4", "--bots", "3", "--rounds", "2", "--reveal-dir", str(tmp_path)],
        input=keys,
    )
    assert result.exit_code == 0, result.output
    assert "'abc' is not an amount" in result.output
    assert "Final coins:" in result.output
    saved = list(tmp_path.glob("shoe-1-*.json"))
    assert len(saved) == 1
    check = CliRunner().invoke(_app_with_verify(), ["verify-shoe", str(saved[0])])
    assert check.exit_code == 0 and check.output.startswith("ok: 416 cards")


def _app_with_verify() -> typer.Typer:
    from boundless.cli import replay_commands

    app = typer.Typer()
    replay_commands.register(app)
    return app


def test_play_command_ctrl_d_at_first_prompt_and_unknown_title() -> None:
    result = CliRunner().invoke(play_app(), ["play", "--seed", "1"], input="")
    assert result.exit_code == 0, result.output
    assert "Final coins: 1,000.00" in result.output
    bad = CliRunner().invoke(play_app(), ["play", "--title", "no-such-title"])
    assert bad.exit_code == 2
