"""Jurisdiction profiles: the shipped ones load and every test their report names exists; a bad
file is refused with one line naming the file and the field, by the loader and by the CLI."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from boundless.cli.main import app
from boundless.jurisdictions import (
    JurisdictionError,
    load_profile,
    load_profile_file,
    shipped_profile_keys,
)
from boundless.server.protection.limits import is_decrease

ROOT = Path(__file__).resolve().parents[3]
GOOD = (ROOT / "src/boundless/jurisdictions/uk.toml").read_text()


def test_shipped_profiles() -> None:
    assert shipped_profile_keys() == ["mt", "none", "uk"]
    uk = load_profile("uk")
    assert uk.min_cycle_seconds == 5 and uk.limit_increase_cooling_off_hours == 24
    assert "reality_check" in uk.mandatory
    assert load_profile("mt").time_out.max_hours == 720
    assert load_profile("none").reality_check.default_minutes == 0


@pytest.mark.parametrize("key", ["none", "uk", "mt"])
def test_every_named_test_exists(key: str) -> None:
    for requirement in load_profile(key).requirements:
        for node in requirement.tests:
            path, _, name = node.partition("::")
            source = (ROOT / path).read_text()
            assert re.search(rf"^def {re.escape(name)}\(", source, re.M), node


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (("min_cycle_seconds = 5", "min_cycle_seconds = -1"), "min_cycle_seconds: Input should be"),
        (
            ("default_minutes = 60", "default_minutes = 5"),
            "reality_check: default_minutes is outside",
        ),
        (("min_hours = 24", "min_hours = 2000"), "time_out: min_hours is above max_hours"),
        (('key = "uk"', 'key = "uk"\ncolour = 1'), "colour: Extra inputs are not permitted"),
        (
            ('"limits", "reality_check"', '"limits", "reality_checks"'),
            "mandatory.1: Input should be",
        ),
        (("[time_out]", "[time_out"), "not TOML"),
    ],
)
def test_a_bad_file_names_file_and_field(
    tmp_path: Path, change: tuple[str, str], words: str
) -> None:
    bad = tmp_path / "mine.toml"
    bad.write_text(GOOD.replace(*change))
    with pytest.raises(JurisdictionError) as raised:
        load_profile_file(bad)
    assert str(raised.value).startswith(f"{bad}: ")
    assert words in str(raised.value)


def test_the_cli_refuses_a_bad_profile_in_one_line(tmp_path: Path) -> None:
    runner = CliRunner()
    unknown = runner.invoke(app, ["serve", "--jurisdiction", "xx", "--data-dir", str(tmp_path)])
    assert unknown.exit_code == 2
    assert "--jurisdiction: no jurisdiction 'xx'; choose one of mt, none, uk" in unknown.output
    bad = tmp_path / "mine.toml"
    bad.write_text(GOOD.replace("min_months = 6", "min_months = 0"))
    for command in (
        ["serve", "--data-dir", str(tmp_path)],
        [
            "gateway",
            "--database-url",
            "sqlite://",
            "--nats-url",
            "nats://127.0.0.1:1",
            "--port",
            "1",
        ],
    ):
        result = runner.invoke(app, [*command, "--jurisdiction-file", str(bad)])
        assert result.exit_code == 2, result.output
        lines = [line for line in result.output.splitlines() if line.strip()]
        field = "self_exclusion.min_months: Input should be greater than or equal to 1"
        assert lines == [f"error: --jurisdiction-file: {bad}: {field}"]


def test_a_decrease_is_no_looser() -> None:
    assert is_decrease(None, 100) and is_decrease(100, 100) and is_decrease(100, 99)
    assert not is_decrease(100, 101) and not is_decrease(100, None) and is_decrease(None, None)


@pytest.mark.parametrize("key", ["uk", "mt"])
def test_the_report_section_lists_each_requirement_with_its_tests(key: str) -> None:
    from boundless.cli.report.html import report_html
    from boundless.cli.report.protection_section import protection_section

    profile = load_profile(key)
    text = report_html("t", [protection_section(profile)], "f")
    assert f"Player protection: {profile.name}" in text
    for requirement in profile.requirements:
        assert requirement.id in text
        for test in requirement.tests:
            assert test in text
    assert f"{profile.min_cycle_seconds:g} seconds" in text
