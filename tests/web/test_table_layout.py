"""The table's layout on laptops and phones, in three languages, with a scripted socket (the
moments that matter come on demand): every decision and insurance offer is on screen without
scrolling, shortcuts are on the buttons and "?" lists them, and no badge or label runs into
another in Korean or Japanese. Screenshots land in artifacts/screenshots/."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.web.kit import BANNER_CLEAR_JS, BROKEN_WORDS_JS, ROOT, open_page, shot, sign_up
from tests.web.mock_table import TABLE_ID, MockSocket, position, settled, state, you

pytestmark = pytest.mark.slow

SCREENS = {"1280x720": (1280, 720), "1366x768": (1366, 768), "phone": (360, 740)}
ACTIONS = ("hit", "stand", "double", "split", "surrender")


def _open(
    browser: Any, server: str, size: tuple[int, int], initial: list[dict[str, Any]]
) -> tuple[Any, Any, MockSocket]:
    context, page = open_page(browser, size, reduced_motion="reduce", locale="en-US")
    mock = MockSocket(page)
    mock.initial = initial
    sign_up(page, server, "Layout")
    page.goto(f"{server}/#/table/{TABLE_ID}")
    page.wait_for_selector(".felt")
    return context, page, mock


def _off_screen(page: Any, selector: str) -> list[str]:
    """Enabled controls matching ``selector`` that are not wholly inside the viewport as it is."""
    return page.evaluate(
        """selector => {
            const out = [];
            if (window.scrollY !== 0) out.push(`scrolled ${window.scrollY}`);
            for (const el of document.querySelectorAll(selector)) {
                if (el.disabled) continue;
                const r = el.getBoundingClientRect();
                if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth)
                    out.push(`${el.id} at ${[r.left, r.top, r.right, r.bottom].map(Math.round)}`);
            }
            return out;
        }""",
        selector,
    )


def _decision() -> list[dict[str, Any]]:
    spots = {1: ["8S", "8D"], 2: ["TS", "6H"], 3: ["9C", "2D"]}
    return [
        state(
            "decisions",
            1,
            ["9H"],
            spots,
            hole_hidden=True,
            timer="decision",
            current_spot=1,
            step=1,
        ),
        you(
            "decisions",
            1,
            [position(1, spots[1], legal=ACTIONS), position(2, spots[2]), position(3, spots[3])],
            step=1,
        ),
    ]


def _insurance() -> list[dict[str, Any]]:
    spots = {1: ["8S", "9D"], 2: ["TS", "6H"], 3: ["AC", "KD"]}
    offers = ["insurance", "insurance", "even_money"]
    return [
        state("insurance", 2, ["AH"], spots, hole_hidden=True, timer="insurance"),
        you("insurance", 2, [position(s, spots[s], offer=offers[s - 1]) for s in spots]),
    ]


@pytest.mark.parametrize("screen", sorted(SCREENS))
def test_decision_and_insurance_offer_on_screen(
    server: str, browser: Any, failure_shots: list[Any], screen: str
) -> None:
    context, page, mock = _open(browser, server, SCREENS[screen], _decision())
    failure_shots.append(page)
    page.wait_for_selector("#action-hit:not([disabled])")
    assert page.locator(".action-btn:not([disabled])").count() == len(ACTIONS)
    assert _off_screen(page, ".action-btn") == []
    # Each button shows its key; the key does what the button does.
    if screen != "phone":  # no key hints on a phone's narrow buttons
        assert page.inner_text("#action-stand kbd") == "S"
    shot(page, f"{screen}-decision", full_page=False)
    page.keyboard.press("s")
    page.wait_for_selector("#action-stand[disabled]")
    decided = [m for m in mock.sent if m["type"] == "decide"]
    assert decided and decided[-1]["action"] == "stand" and decided[-1]["spot"] == 1

    mock.push(*_insurance())
    page.wait_for_selector("#decline-3")
    assert _off_screen(page, "#insurance-banner button") == []
    # The banner lies over the felt (not in the dock), with its own countdown, and over no
    # card: the felt's contents are fitted into the room it leaves.
    assert page.locator(".felt #insurance-banner").count() == 1
    assert page.locator("#dock #insurance-banner").count() == 0
    page.wait_for_function("document.querySelector('#insurance-countdown').textContent.trim()")
    assert page.evaluate(BANNER_CLEAR_JS) == []
    shot(page, f"{screen}-insurance", full_page=False)
    page.keyboard.press("n")  # declines the first open offer
    page.wait_for_selector("#decline-1", state="detached")
    assert {"type": "insurance", "spot": 1, "kind": "decline"}.items() <= mock.sent[-1].items()
    # One tap answers every open offer, each with its own kind.
    page.click("#insure-all")
    page.wait_for_selector("#insurance-banner", state="detached")
    answered = {m["spot"]: m["kind"] for m in mock.sent if m["type"] == "insurance"}
    assert answered == {1: "decline", 2: "insurance", 3: "even_money"}
    context.close()


def test_question_mark_lists_the_shortcuts(
    server: str, browser: Any, failure_shots: list[Any]
) -> None:
    context, page, _ = _open(browser, server, SCREENS["1280x720"], _decision())
    failure_shots.append(page)
    page.wait_for_selector("#action-hit:not([disabled])")
    page.keyboard.press("?")
    page.wait_for_selector("#key-help")
    listed = page.inner_text("#key-help")
    for button in page.locator(".action-btn").all():
        assert button.inner_text().split()[-1] in listed
    shot(page, "1280x720-key-help", full_page=False)
    page.keyboard.press("Escape")
    page.wait_for_selector("#key-help", state="detached")
    context.close()


def _longest_patterns(lang: str) -> dict[str, str]:
    strings = json.loads((ROOT / "web" / "i18n" / f"{lang}.json").read_text("utf-8"))
    longest: dict[str, str] = {}
    for key, text in strings.items():
        if key.startswith("pattern."):
            _, kind, pattern = key.split(".")
            if len(text) > len(strings.get(f"pattern.{kind}.{longest.get(kind, '')}", "")):
                longest[kind] = pattern
    return longest


OVERLAP_JS = """selector => {
    const boxes = [...document.querySelectorAll(selector)].filter((el) => el.offsetParent !== null);
    const clashes = [];
    for (let i = 0; i < boxes.length; i++) {
        for (let j = i + 1; j < boxes.length; j++) {
            const a = boxes[i], b = boxes[j];
            if (a.contains(b) || b.contains(a)) continue;
            const r = a.getBoundingClientRect(), s = b.getBoundingClientRect();
            if (!r.width || !s.width) continue;
            const overlap = Math.min(r.right, s.right) - Math.max(r.left, s.left) > 0.5
                && Math.min(r.bottom, s.bottom) - Math.max(r.top, s.top) > 0.5;
            const name = (el) => `${el.className}: "${el.textContent}"`;
            if (overlap) clashes.push(`${name(a)} / ${name(b)}`);
        }
    }
    return clashes;
}"""
LABELS = ", ".join(
    [
        ".bet-name",
        ".bet-badge",
        ".bet-result",
        ".chip-stack",
        ".hand-label",
        ".hand-total",
        ".hand-bet",
        ".outcome",
        ".timer-text",
        ".timer-kind",
        ".fact dt",
        ".fact dd",
        ".zone-label",
        ".spot-label",
    ]
)


WORD_CELLS = ", ".join(
    [
        ".result-table td",
        ".result-table th",
        ".bet-name",
        ".hand-label",
        ".hand-foot",
        ".fact dt",
        ".fact dd",
        ".panel-tab",
        ".recent-round",
        ".dock-status",
        ".btn",
    ]
)


@pytest.mark.parametrize("lang", ["ko", "ja"])
def test_labels_do_not_overlap(
    server: str, browser: Any, failure_shots: list[Any], lang: str
) -> None:
    sides = ("trifecta", "in_between")
    patterns = _longest_patterns(lang)
    spots = {1: ["8S", "8D"], 2: ["TS", "6H"], 3: ["9C", "2D"]}
    won = {
        key: {"stake": 100_000, "outcome": "win", "pattern": patterns[key], "payout": 12_345_600}
        for key in sides
    }
    results = [
        position(s, spots[s], outcome="win", payout=2000, side_bets=won, status="stood")
        for s in spots
    ]
    initial = [
        state("settled", 3, ["9H", "7C", "5D"], spots, timer="betting", side_bets=sides),
        you("settled", 3, results),
        settled(3, results),
    ]
    for name, size in (("desktop", SCREENS["1366x768"]), ("phone", SCREENS["phone"])):
        context, page, _ = _open(browser, server, size, initial)
        failure_shots.append(page)
        page.select_option("#lang-select", lang)
        page.wait_for_selector(f"html[lang='{lang}']")
        page.wait_for_selector(".bet-result")
        assert page.evaluate(OVERLAP_JS, LABELS) == []
        # The chips' labels fit inside the chips.
        assert (
            page.evaluate(
                """() => [...document.querySelectorAll('.chip')]
                .filter((chip) => chip.scrollWidth > chip.clientWidth)
                .map((chip) => chip.textContent)"""
            )
            == []
        )
        # No label and no cell of the results breaks inside a word (the results open as a
        # drawer on a phone).
        if page.locator("#results").is_hidden():
            page.click("#tab-results")
        page.wait_for_selector("#results .result-table")
        assert page.evaluate(BROKEN_WORDS_JS, WORD_CELLS) == []
        shot(page, f"{name}-table-labels-{lang}", full_page=True)
        context.close()
