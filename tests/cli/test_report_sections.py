"""The report's pure parts: the rules in words, the sections from given figures, the HTML."""

from __future__ import annotations

import pytest

from boundless.cli.report.html import report_html
from boundless.cli.report.rule_sentences import pay_tables, rule_groups
from boundless.cli.report.sections import (
    ExactFigures,
    Provenance,
    ReportFigures,
    Section,
    SimulatedBet,
    SimulationFigures,
    report_sections,
)
from boundless.core.rules import DealerRules, InsuranceRules, RuleSet
from boundless.math.rng_battery import BatteryReport
from boundless.math.rng_battery import TestResult as BatteryTest
from boundless.titles import load_title, shipped_title_keys


def _said(rules: RuleSet) -> str:
    return " ".join(sentence for group in rule_groups(rules) for sentence in group.sentences)


@pytest.mark.parametrize("key", shipped_title_keys())
def test_every_sentence_is_filled_in(key: str) -> None:
    rules = load_title(key)
    text = _said(rules) + " ".join(
        " ".join(table.notes) + " ".join(name for name, _ in table.rows)
        for table in pay_tables(rules)
    )
    assert "{" not in text and "[[" not in text and "rules." not in text


def test_the_words_follow_the_rule_set() -> None:
    boundless = load_title("boundless")
    said = _said(boundless)
    assert "8 standard 52-card decks" in said and "about 75% of the way" in said
    assert "stands on every 17" in said and "Blackjack pays 3:2." in said
    assert "facilitator" in said  # the title's own vocabulary
    assert "draws on 16 or less and on soft 17" in _said(load_title("boo-bucks-h17"))
    unlimited = _said(load_title("unlimited"))  # pairs split only where the chart splits them
    assert "the only other choice is Surrender 20%" in unlimited
    assert "Give the pair up and get 80% of the bet back." in unlimited
    assert "split only the pairs" not in said
    private = _said(load_title("boo-bucks"))
    assert "private table" in private and "reshuffled before every round" in private
    no_hole = boundless.model_copy(
        update={
            "dealer": DealerRules(hole_card="none", hits_soft_17=False),
            "insurance": InsuranceRules(offered=False),
        }
    )
    changed = _said(no_hole)
    assert "second card only after every spot" in changed and "checks for blackjack" not in changed
    assert "No insurance is offered." in changed


def test_pay_tables_carry_every_pattern_and_the_rounds_they_are_open() -> None:
    rules = load_title("boundless")
    tables = pay_tables(rules)
    assert len(tables) == len(rules.side_bets)
    for table, bet in zip(tables, rules.side_bets, strict=True):
        assert [pays for _, pays in table.rows] == [str(odds) for odds in bet.pays.values()]
        assert any(f"first {bet.max_round} rounds" in note for note in table.notes)


def _figures(exact_main: float) -> ReportFigures:
    returns = {"optimal": 0.995, "optimal_cdz": 0.9949, "basic": 0.994}
    exact = ExactFigures(
        **returns,
        stdev=1.14,
        stdev_optimal=1.15,
        outcomes={"-1": 0.5, "0": 0.1, "1": 0.4},
        win=0.4,
        push=0.1,
        lose=0.5,
        insurance=0.925,
        side_bets={"pair": 0.966},
    )
    bets = (
        SimulatedBet("main", 0.99, 0.98, 1.0, 1000, exact_main),
        SimulatedBet("pair", 0.96, 0.90, 1.02, 1000, 0.966),
    )
    battery = BatteryReport(
        shuffles=600,
        decks=8,
        alpha=0.01,
        results=(BatteryTest("k", "monobit", 0.5, None, 0.001, False, ""),),
    )
    provenance = Provenance((("file.toml", "ab" * 32),), "0.1.0", "3.11", "2.0", "2026-12-01")
    return ReportFigures(exact, SimulationFigures(1000, 1, 7, bets), battery, b"png", provenance)


def _text(sections: list[Section]) -> str:
    parts: list[str] = []
    for section in sections:
        parts += [section.heading, *section.paragraphs, *section.items]
        parts += [" ".join(" ".join(row) for row in table.rows) for table in section.tables]
        parts.append(_text(list(section.subsections)))
    return " ".join(parts)


def test_an_exact_figure_outside_its_interval_is_flagged() -> None:
    rules = load_title("boundless")
    inside = _text(report_sections(rules, _figures(0.995)))
    assert "Every exact figure lies in its 95% interval." in inside
    outside = _text(report_sections(rules, _figures(1.01)))
    assert "1 exact figure outside its 95% interval" in outside
    assert "98.0000% to 100.0000%" in outside and " NO" in outside
    assert "monobit" in outside and "FAIL" in outside and "At least one test FAILS." in outside
    assert "an 8-deck shoe" in outside
    assert "92.500000%" in outside  # insurance
    assert "ab" * 32 in outside


def test_the_html_escapes_every_text_and_embeds_the_picture() -> None:
    sections = [Section("<b>rules</b>", ("a & b",), image_png=b"\x89PNG", image_alt='"x"')]
    text = report_html("T <script>", sections, "foot")
    assert "<script>" not in text and "&lt;b&gt;rules&lt;/b&gt;" in text and "a &amp; b" in text
    assert 'src="data:image/png;base64,iVBORw=="' in text and 'alt="&quot;x&quot;"' in text
