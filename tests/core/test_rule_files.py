"""Rule-set files that extend another: the merge, the presets written that way, the errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from boundless.core.errors import InvalidRuleSetError
from boundless.core.money import Odds
from boundless.core.rules import RuleSet, extend_rule_data, parse_rule_set
from boundless.titles import load_chart, load_rule_file, load_title, load_titles_dir

TITLES = Path(__file__).resolve().parents[2] / "src" / "boundless" / "titles"


def _changed(base: RuleSet, **sections: dict[str, Any]) -> RuleSet:
    """``base`` with fields of some sections replaced, built without the merge code."""
    updates = {
        name: getattr(base, name).model_copy(update=fields) for name, fields in sections.items()
    }
    return base.model_copy(update=updates)


def _preset_as_it_was(preset: str) -> RuleSet:
    """Each preset as its full 174-line file said before it extended boo-bucks."""
    base = load_title("boo-bucks")
    names = {
        "boo-bucks-h17": "Boo Bucks Blackjack (H17)",
        "boo-bucks-no-das": "Boo Bucks Blackjack (no double after split)",
        "boo-bucks-single-deck": "Boo Bucks Blackjack (single deck)",
        "boo-bucks-split-aces-hit": "Boo Bucks Blackjack (split aces may hit)",
    }
    title = {"key": preset, "name": names[preset]}
    if preset == "boo-bucks-h17":
        return _changed(base, title=title, dealer={"hits_soft_17": True})
    if preset == "boo-bucks-no-das":
        return _changed(base, title=title, double={"after_split": False})
    if preset == "boo-bucks-split-aces-hit":
        return _changed(base, title=title, split={"split_aces_one_card": False})
    pays = {
        "suited_one_eyed_jacks": "200:1",
        "any_two_one_eyed_jacks": "100:1",
        "two_suited_jacks": "50:1",
        "any_two_jacks": "20:1",
        "any_20": "5:1",
    }
    bets = tuple(
        bet.model_copy(
            update={
                "variant": "player_only",
                "pays": {name: Odds.parse(odds) for name, odds in pays.items()},
            }
        )
        if bet.key == "jack_a_tack"
        else bet
        for bet in base.side_bets
    )
    single = _changed(base, title=title, shoe={"decks": 1})
    return single.model_copy(update={"side_bets": bets})


PRESETS = [
    "boo-bucks-h17",
    "boo-bucks-no-das",
    "boo-bucks-single-deck",
    "boo-bucks-split-aces-hit",
]


@pytest.mark.parametrize("preset", PRESETS)
def test_each_preset_extends_boo_bucks_and_loads_the_rule_set_it_always_was(preset: str) -> None:
    text = (TITLES / f"{preset}.toml").read_text(encoding="utf-8")
    assert 'extends = "boo-bucks"' in text and len(text.splitlines()) < 25
    assert load_title(preset) == _preset_as_it_was(preset)
    assert load_title(preset).model_dump() == _preset_as_it_was(preset).model_dump()
    chart = load_chart(preset)
    assert chart is not None and chart.title_key == preset


def test_tables_merge_at_any_depth_and_other_values_replace() -> None:
    base = {"a": {"b": {"c": 1, "d": 2}, "e": [1, 2]}, "f": 3}
    changes = {"extends": "x", "a": {"b": {"d": 5}, "e": [9]}, "g": 4}
    assert extend_rule_data(base, changes) == {
        "a": {"b": {"c": 1, "d": 5}, "e": [9]},
        "f": 3,
        "g": 4,
    }
    assert base == {"a": {"b": {"c": 1, "d": 2}, "e": [1, 2]}, "f": 3}  # unchanged


def test_side_bets_match_by_key_replace_fields_whole_omit_and_add() -> None:
    base = {
        "side_bets": [
            {"key": "one", "pays": {"x": "1:1", "y": "2:1"}, "min_amount": 1},
            {"key": "two", "pays": {"x": "3:1"}},
        ]
    }
    changes = {
        "side_bets": [
            {"key": "one", "pays": {"y": "5:1"}},
            {"key": "two", "omit": True},
            {"key": "three", "pays": {"z": "1:1"}},
        ]
    }
    assert extend_rule_data(base, changes)["side_bets"] == [
        {"key": "one", "pays": {"y": "5:1"}, "min_amount": 1},
        {"key": "three", "pays": {"z": "1:1"}},
    ]


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        ({"pays": {}}, "side_bets[0]: needs a key"),
        ({"key": "nope", "omit": True}, "side_bets[0].omit: the base has no side bet 'nope'"),
        ({"key": "one", "omit": "yes"}, "side_bets[0].omit: must be true"),
        ({"key": "one", "omit": True, "min_amount": 1}, "beside the key only"),
    ],
)
def test_side_bet_changes_that_cannot_apply_name_the_entry(
    entry: dict[str, Any], words: str
) -> None:
    with pytest.raises(InvalidRuleSetError, match=r"^f\.toml: ") as raised:
        extend_rule_data({"side_bets": [{"key": "one"}]}, {"side_bets": [entry]}, "f.toml")
    assert words in str(raised.value)


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_file_extends_a_file_that_extends_a_title(tmp_path: Path) -> None:
    _write(tmp_path, "base/h17.toml", 'extends = "boundless"\n[dealer]\nhits_soft_17 = true\n')
    path = _write(
        tmp_path,
        "mine.toml",
        'extends = "base/h17.toml"\n[title]\nkey = "mine"\nname = "Mine"\n'
        '[payouts]\nblackjack = "6:5"\n',
    )
    rules, chart = load_rule_file(path)
    boundless = load_title("boundless")
    assert rules.key == "mine" and rules.title.name == "Mine"
    assert rules.dealer.hits_soft_17 and str(rules.payouts.blackjack) == "6:5"
    assert rules.shoe == boundless.shoe and rules.side_bets == boundless.side_bets
    assert chart is None  # none beside it: the math derives one where needed


def test_a_chart_beside_the_file_comes_with_it_and_must_be_its_own(tmp_path: Path) -> None:
    path = _write(tmp_path, "boundless.toml", 'extends = "boundless"\n')
    chart_text = (TITLES / "boundless.chart.toml").read_text(encoding="utf-8")
    _write(tmp_path, "boundless.chart.toml", chart_text)
    assert load_rule_file(path) == (load_title("boundless"), load_chart("boundless"))
    other = _write(tmp_path, "other.toml", 'extends = "boundless"\n[title]\nkey = "other"\n')
    _write(tmp_path, "other.chart.toml", chart_text)
    with pytest.raises(InvalidRuleSetError) as raised:
        load_rule_file(other)
    assert "other.chart.toml is the chart of 'boundless', not 'other'" in str(raised.value)


@pytest.mark.parametrize(
    ("files", "words"),
    [
        ({"f.toml": 'extends = "no-such-title"\n'}, "f.toml: extends: no shipped title"),
        ({"f.toml": "extends = 3\n"}, "f.toml: extends: must be a title key or a file path"),
        ({"f.toml": 'extends = "gone.toml"\n'}, "cannot read the base rule file"),
        ({"f.toml": 'extends = "g.toml"\n', "g.toml": 'extends = "f.toml"\n'}, "makes a loop"),
        ({"f.toml": "extends = [\n"}, "f.toml: not valid TOML"),
        (
            {"f.toml": 'extends = "boundless"\n[shoe]\ndecks = 9\n'},
            "f.toml (extends boundless): shoe.decks: Input should be less than or equal to 8",
        ),
        (
            {"f.toml": 'extends = "boundless"\n[table]\nspots = 2\nseats = 1\n'},
            "table.seats: Extra inputs are not permitted",
        ),
    ],
)
def test_bad_files_name_the_file_the_field_and_the_problem(
    tmp_path: Path, files: dict[str, str], words: str
) -> None:
    for name, text in files.items():
        _write(tmp_path, name, text)
    with pytest.raises(InvalidRuleSetError) as raised:
        load_rule_file(tmp_path / "f.toml")
    assert words in str(raised.value)
    assert "f.toml" in str(raised.value) or "g.toml" in str(raised.value)


def test_unreadable_rule_files_are_rule_errors(tmp_path: Path) -> None:
    with pytest.raises(InvalidRuleSetError, match="cannot read the rule file"):
        load_rule_file(tmp_path / "missing.toml")
    with pytest.raises(InvalidRuleSetError, match="cannot read the rule file"):
        load_rule_file(_write(tmp_path, "d.toml/x", "").parent)
    (tmp_path / "latin.toml").write_bytes(b"# caf\xe9\n")
    with pytest.raises(InvalidRuleSetError, match="is not UTF-8"):
        load_rule_file(tmp_path / "latin.toml")
    with pytest.raises(InvalidRuleSetError, match="is a strategy chart"):
        load_rule_file(TITLES / "boundless.chart.toml")


def test_parse_rule_set_refuses_extends_it_cannot_resolve() -> None:
    with pytest.raises(InvalidRuleSetError, match=r"t\.toml: extends"):
        parse_rule_set('extends = "boundless"\n', "t.toml")


def test_a_titles_folder_names_each_file_after_its_key(tmp_path: Path) -> None:
    _write(tmp_path, "fast.toml", 'extends = "boundless"\n[title]\nkey = "fast"\n')
    _write(tmp_path, "boundless.toml", 'extends = "boundless"\n[payouts]\nblackjack = "6:5"\n')
    games = load_titles_dir(tmp_path)
    assert sorted(games) == ["boundless", "fast"]
    assert str(games["boundless"][0].payouts.blackjack) == "6:5"
    _write(tmp_path, "wrong.toml", 'extends = "boundless"\n[title]\nkey = "right"\n')
    with pytest.raises(InvalidRuleSetError, match=r"wrong\.toml: title\.key is 'right'"):
        load_titles_dir(tmp_path)
    with pytest.raises(InvalidRuleSetError, match="holds no rule file"):
        load_titles_dir(_write(tmp_path, "empty/x.txt", "").parent)
    with pytest.raises(InvalidRuleSetError, match="is not a folder"):
        load_titles_dir(tmp_path / "nope")
