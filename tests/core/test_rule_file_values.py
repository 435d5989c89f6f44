"""What a rule file may hold: each value of its own TOML type, numbers the engine can pay, files
written by any editor, and ``extends`` chains however their paths are spelled."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from boundless.core.errors import InvalidRuleSetError
from boundless.core.scenario import run_scenario
from boundless.titles import load_game, load_rule_file

TITLES = Path(__file__).resolve().parents[2] / "src" / "boundless" / "titles"


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _refused(folder: Path, text: str) -> str:
    with pytest.raises(InvalidRuleSetError) as raised:
        load_rule_file(_write(folder, "f.toml", text))
    message = str(raised.value)
    assert message.startswith(str(folder)) and "\n" not in message  # the file, one line
    return message


@pytest.mark.parametrize(
    ("section", "line", "words"),
    [
        ("split", "max_hands = true", "split.max_hands: Input should be a valid integer"),
        ("split", "max_hands = 3.0", "split.max_hands: Input should be a valid integer"),
        ("split", 'max_hands = "3"', "split.max_hands: Input should be a valid integer"),
        ("shoe", "decks = true", "shoe.decks: Input should be a valid integer"),
        ("split", "resplit_aces = 1", "split.resplit_aces: Input should be a valid boolean"),
        ("table", 'shared = "yes"', "table.shared: Input should be a valid boolean"),
        ("shoe", 'penetration = "0.5"', "shoe.penetration: Input should be a valid number"),
        ("dealer", "peek_up_values = [true]", "dealer.peek_up_values.0: Input should be a valid"),
    ],
)
def test_a_value_of_another_type_is_refused_not_converted(
    tmp_path: Path, section: str, line: str, words: str
) -> None:
    text = f'extends = "boundless"\n[{section}]\n{line}\n'
    assert words in _refused(tmp_path, text)


def test_a_whole_number_stands_for_a_decimal_one(tmp_path: Path) -> None:
    path = _write(tmp_path, "f.toml", 'extends = "boundless"\n[timers]\nbetting_seconds = 20\n')
    assert load_rule_file(path)[0].timers.betting_seconds == 20.0


ENGINE = "could pay more than the engine can count (2,000,000,000,000,000,000)"


@pytest.mark.parametrize(
    ("lines", "words"),
    [
        ('[payouts]\nblackjack = "999999999999999999999999:1"', "payouts.blackjack 99999"),
        (
            '[payouts]\nwin = "1000:1"\n[limits]\nmax_main_amount = 1000000000000000',
            "payouts.win 1000:1 on a stake of 2,000,000,000,000,000",
        ),
        ('[payouts]\nwin = "99999999999999999999:99999999999999999999"', "payouts.win"),
        ("[insurance]\npays = 99999999999999999999", "insurance.pays"),
        ('[surrender]\nrefund = "99999999999999999999/99999999999999999999"', "surrender.refund"),
        ("[limits]\nmax_main_amount = 1000000000000100", "limits.max_main_amount: Input should be"),
    ],
)
def test_numbers_the_engine_could_not_pay_are_refused(
    tmp_path: Path, lines: str, words: str
) -> None:
    message = _refused(tmp_path, f'extends = "boundless"\n{lines}\n')
    assert words in message
    assert ENGINE in message or "Input should be" in message


def test_side_bet_pay_tables_and_wheels_are_bounded_too(tmp_path: Path) -> None:
    pair = 'extends = "boundless"\n[[side_bets]]\nkey = "pair"\npays = { perfect_pair = %s }\n'
    message = _refused(tmp_path, pair % '"99999999999999999:1"')
    assert "side_bets.0.pays.perfect_pair 99999999999999999:1 on a stake of 10,000" in message
    assert "must not be negative" in _refused(tmp_path, pair % "-1")
    assert "odds must look like '3:2', got 'nan'" in _refused(tmp_path, pair % '"nan"')
    assert "odds must look like '3:2', got '-3:2'" in _refused(tmp_path, pair % '"-3:2"')
    wheel = (
        'extends = "boo-bucks"\n[[side_bets]]\nkey = "bonus_spin_xtreme"\n'
        "[side_bets.wheel]\nexample = true\n"
        'inner = [{ label = "x", weight = 1, multiplier = 999999999999999 }]\n'
        'outer = [{ label = "y", weight = 1, multiplier = 2 }]\n'
    )
    assert "wheel pays 1000000000000001 times a stake of 10,000" in _refused(tmp_path, wheel)
    jackpot = wheel.replace("999999999999999", "2") + (
        'jackpots = [{ label = "j", amount = 1000000000000001, chance_per_wager_unit = 1e-9 }]\n'
    )
    assert "jackpots.0.amount: Input should be less than or equal to" in _refused(tmp_path, jackpot)


def test_the_largest_payout_a_file_may_set_is_paid_exactly(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "big.toml",
        'extends = "boundless"\n[title]\nkey = "big"\nname = "Big"\n'
        '[payouts]\nblackjack = "1000:1"\n[limits]\nmax_main_amount = 1000000000000000\n',
    )
    game = load_rule_file(path)
    stake = 10**15
    scenario = {
        "game": "big",
        "cards": ["AS", "9D", "KD", "7C", "2H"],
        "players": [{"id": "a", "balance": stake, "bets": {"main": stake}}],
    }
    result = run_scenario(scenario, lambda key: game)
    player = result["players"][0]
    assert player["hands"][0]["payout"] == stake * 1001
    assert player["balance_after"] == stake * 1001


@pytest.mark.parametrize("value", ["inf", "nan", "-inf"])
def test_a_timer_is_a_finite_number_of_seconds(tmp_path: Path, value: str) -> None:
    text = f'extends = "boundless"\n[timers]\nbetting_seconds = {value}\n'
    assert "timers.betting_seconds: Input should be" in _refused(tmp_path, text)


def test_a_file_saved_with_a_byte_order_mark_reads_as_without(tmp_path: Path) -> None:
    text = 'extends = "boundless"\n[payouts]\nblackjack = "6:5"\n'
    plain = _write(tmp_path, "plain.toml", text)
    marked = tmp_path / "marked.toml"
    marked.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    assert load_rule_file(marked) == load_rule_file(plain)
    assert str(load_rule_file(marked)[0].payouts.blackjack) == "6:5"
    chart = (TITLES / "boundless.chart.toml").read_bytes()
    (tmp_path / "boundless.toml").write_bytes(b'\xef\xbb\xbfextends = "boundless"\n')
    (tmp_path / "boundless.chart.toml").write_bytes(b"\xef\xbb\xbf" + chart)
    assert load_rule_file(tmp_path / "boundless.toml") == load_game("boundless")


def test_nesting_too_deep_for_the_parser_is_a_rule_error(tmp_path: Path) -> None:
    text = "a = " + "[" * 100_000 + "]" * 100_000 + "\n"
    assert "not valid TOML" in _refused(tmp_path, text)


def test_a_loop_is_found_however_its_paths_are_spelled(tmp_path: Path) -> None:
    folder = tmp_path / "rules"
    message = _refused(folder, 'extends = "../rules/f.toml"\n')
    assert "makes a loop" in message and len(message) < 500
    (folder / "sub").mkdir()
    _write(folder, "g.toml", 'extends = "./sub/../f.toml"\n')
    assert "makes a loop" in _refused(folder, 'extends = "g.toml"\n')
    (tmp_path / "link").symlink_to(folder)
    assert "makes a loop" in _refused(folder, 'extends = "../link/f.toml"\n')


def test_a_broken_base_file_is_named_with_the_file_that_extends_it(tmp_path: Path) -> None:
    _write(tmp_path, "base.toml", "[shoe\n")
    message = _refused(tmp_path, 'extends = "base.toml"\n')
    assert (
        f"{tmp_path / 'base.toml'} (extended by {tmp_path / 'f.toml'}): not valid TOML" in message
    )


def test_a_file_too_large_to_be_a_rule_file_is_refused_unread(tmp_path: Path) -> None:
    big = _write(tmp_path, "big.toml", "# " + "x" * (1 << 20) + "\n")
    with pytest.raises(InvalidRuleSetError, match=r"big\.toml: larger than 1,048,576 bytes"):
        load_rule_file(big)
    with pytest.raises(InvalidRuleSetError, match="cannot read the rule file /dev/zero: larger"):
        load_rule_file(Path("/dev/zero"))


def test_a_named_pipe_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    pipe = tmp_path / "rules.toml"
    os.mkfifo(pipe)
    with pytest.raises(InvalidRuleSetError, match=r"rules\.toml: a pipe or socket, not a file"):
        load_rule_file(pipe)


def test_the_dealer_bet_spins_the_seats_wheel_by_naming_it() -> None:
    """Boo Bucks' two Bonus Spin Xtreme bets share one wheel table, written once."""
    rules, _ = load_game("boo-bucks")
    seats, dealer = rules.side_bet("bonus_spin_xtreme"), rules.side_bet("bonus_spin_xtreme_dealer")
    assert seats.wheel is not None and dealer.wheel == seats.wheel


def test_a_changed_shared_wheel_changes_both_bets(tmp_path: Path) -> None:
    path = _write(tmp_path, "f.toml", 'extends = "boo-bucks"\n\n[title]\nkey = "f"\n\n'
                  '[[side_bets]]\nkey = "bonus_spin_xtreme"\n\n[side_bets.wheel]\n'
                  'example = true\ninner = [{ label = "2x", weight = 1, multiplier = 2 }]\n'
                  'outer = [{ label = "3x", weight = 1, multiplier = 3 }]\n')  # fmt: skip
    rules, _ = load_rule_file(path)
    dealer = rules.side_bet("bonus_spin_xtreme_dealer").wheel
    assert dealer is not None and [wedge.label for wedge in dealer.inner] == ["2x"]


@pytest.mark.parametrize(
    ("named", "words"),
    [
        ('"nothing"', "side_bets.6.wheel: no side bet 'nothing' with a wheel table of its own"),
        ('"trifecta"', "no side bet 'trifecta' with a wheel table of its own"),
        ('"bonus_spin_xtreme_dealer"', "no side bet 'bonus_spin_xtreme_dealer' with a wheel"),
        ("7", "wheel"),
    ],
)
def test_a_wheel_named_that_no_bet_holds_is_refused(tmp_path: Path, named: str, words: str) -> None:
    text = 'extends = "boo-bucks"\n\n[title]\nkey = "g"\n\n[[side_bets]]\n'
    text += f'key = "bonus_spin_xtreme_dealer"\nwheel = {named}\n'
    with pytest.raises(InvalidRuleSetError, match=r"g\.toml") as caught:
        load_rule_file(_write(tmp_path, "g.toml", text))
    assert words in str(caught.value)
