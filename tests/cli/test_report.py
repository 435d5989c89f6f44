"""``boundless report``: the certification report holds the exact figures ``rtp --json`` prints,
the rule file's SHA-256, the chart as a picture, the battery verdicts and the simulation's
intervals; a bad ``--out`` is refused before any work."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import re
from importlib import resources
from pathlib import Path

import pytest
from cli_helpers import SIX_FIVE, assert_refused, invoke

ROUNDS = "20000"
SHUFFLES = "600"
SEED = "7"
IMAGE = re.compile(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"')


def _report(tmp_path: Path, *title: str) -> str:
    out = tmp_path / "report.html"
    outcome = invoke(
        "report",
        *title,
        "--out",
        str(out),
        "--rounds",
        ROUNDS,
        "--shuffles",
        SHUFFLES,
        "--seed",
        SEED,
    )
    assert outcome.code == 0, outcome.output
    assert f"wrote {out}" in outcome.stdout
    return out.read_text(encoding="utf-8")


def _json(*arguments: str) -> dict[str, object]:
    outcome = invoke(*arguments)
    assert outcome.code == 0, outcome.output
    payload: dict[str, object] = json.loads(outcome.stdout)
    return payload


def _check(text: str, title: tuple[str, ...], rule_bytes: bytes) -> None:
    exact = _json("rtp", *title, "--json")
    main = exact["main"]
    assert isinstance(main, dict)
    for key in ("optimal", "basic"):
        assert f"{main[key]:.6%}" in text, key
    cdz = _json("rtp", *title, "--json", "--split-play", "cdz")["main"]
    assert isinstance(cdz, dict)
    assert f"{cdz['optimal']:.6%}" in text
    assert f"{main['stdev']:.4f}" in text
    side_bets = exact["side_bets"]
    assert isinstance(side_bets, dict) and side_bets
    for value in side_bets.values():
        assert f"{value:.6%}" in text
    insurance = exact["insurance"]
    assert isinstance(insurance, dict)
    assert f"{insurance['insurance_return']:.6%}" in text
    outcomes = exact["outcomes"]
    assert isinstance(outcomes, dict)
    for chance in outcomes.values():
        assert f"{chance:.6%}" in text
    assert hashlib.sha256(rule_bytes).hexdigest() in text
    picture = IMAGE.search(text)
    assert picture is not None
    assert base64.b64decode(picture.group(1)).startswith(b"\x89PNG\r\n\x1a\n")
    battery = re.findall(r"<td>(pass|FAIL)</td>", text)
    assert len(battery) == 5  # every test of the battery has its verdict
    simulated = _json(
        "simulate", *title, "--json", "--fresh-shoe", "--rounds", ROUNDS, "--seed", SEED, "--exact"
    )
    side = simulated["side_bets"]
    assert isinstance(side, dict) and side
    for estimate in [simulated["main"], *side.values()]:
        assert isinstance(estimate, dict)
        low, high = estimate["ci95"]
        assert f"{low:.4%} to {high:.4%}" in text
    assert "<script" not in text and "http" not in text  # self-contained


def test_the_report_of_a_shipped_title(tmp_path: Path) -> None:
    text = _report(tmp_path, "boundless")
    shipped = resources.files("boundless.titles").joinpath("boundless.toml").read_bytes()
    _check(text, ("boundless",), shipped)
    assert "Boundless Blackjack: certification report" in text
    assert "stands on every 17" in text and "Blackjack pays 3:2." in text


def test_the_report_of_a_rule_file_that_extends_a_title(tmp_path: Path) -> None:
    rules = tmp_path / "six-five.toml"
    rules.write_text(SIX_FIVE, encoding="utf-8")
    text = _report(tmp_path, "--rules", str(rules))
    _check(text, ("--rules", str(rules)), rules.read_bytes())
    assert "Blackjack pays 6:5." in text


def test_the_report_fingerprints_every_file_the_rules_were_read_from(tmp_path: Path) -> None:
    base = tmp_path / "base" / "h17.toml"
    base.parent.mkdir()
    base.write_bytes(b'extends = "boundless"\r\n[dealer]\r\nhits_soft_17 = true\r\n')
    mine = tmp_path / "mine.toml"
    mine.write_bytes(b"\xef\xbb\xbf" + SIX_FIVE.replace('"boundless"', '"base/h17.toml"').encode())
    text = _report(tmp_path, "--rules", str(mine))
    shipped = resources.files("boundless.titles").joinpath("boundless.toml").read_bytes()
    for data in (mine.read_bytes(), base.read_bytes(), shipped):
        assert hashlib.sha256(data).hexdigest() in text
    assert f"SHA-256 of {base}" in text and "SHA-256 of boundless.toml (shipped)" in text


def test_the_report_of_a_preset_fingerprints_the_title_it_extends(tmp_path: Path) -> None:
    text = _report(tmp_path, "boo-bucks-h17")
    titles = resources.files("boundless.titles")
    for name in ("boo-bucks-h17.toml", "boo-bucks.toml", "boo-bucks-h17.chart.toml"):
        assert hashlib.sha256(titles.joinpath(name).read_bytes()).hexdigest() in text, name


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("missing/report.html", ("--out", "does not exist")),
        ("report.txt", ("--out", "must end in .html or .pdf")),
        (".", ("--out", "is a folder")),
        ("x" * 300 + ".html", ("--out", "cannot write there", "File name too long")),
    ],
)
def test_a_bad_out_is_refused_before_any_work(
    tmp_path: Path, name: str, words: tuple[str, ...]
) -> None:
    assert_refused(invoke("report", "no-such-title", "--out", str(tmp_path / name)), *words)
    assert sorted(tmp_path.iterdir()) == []  # nothing written


def test_an_out_file_that_exists_is_probed_without_being_changed(tmp_path: Path) -> None:
    out = tmp_path / "old.html"
    out.write_text("an older report")
    assert_refused(invoke("report", "no-such-title", "--out", str(out)), "unknown title")
    assert out.read_text() == "an older report"


def test_a_pdf_is_written_with_weasyprint_and_refused_without(tmp_path: Path) -> None:
    out = tmp_path / "report.pdf"
    outcome = invoke(
        "report", "boundless", "--out", str(out), "--rounds", ROUNDS, "--shuffles", SHUFFLES
    )
    if importlib.util.find_spec("weasyprint") is None:
        assert_refused(outcome, "--out", "WeasyPrint")
        assert not out.exists()
    else:
        assert outcome.code == 0, outcome.output
        assert out.read_bytes().startswith(b"%PDF")


def test_an_unknown_title_is_refused(tmp_path: Path) -> None:
    assert_refused(invoke("report", "no-such-title", "--out", str(tmp_path / "r.html")))
