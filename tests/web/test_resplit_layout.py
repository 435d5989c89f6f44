"""Resplits in the web client (issue 12). The table: four hands on each of three spots, long
hands among them, stay inside their spot and clear of each other on laptops and phones, and the
decision buttons stay on screen (a scripted socket sets the moment). The rules page of a title
served from an operator's folder (``--titles-dir docs/examples/rules``) says the resplit rule in
English, Korean and Japanese. Screenshots land in artifacts/screenshots/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.kit import BROWSER_OPTIONS, ROOT, serve, shot, sign_up
from tests.web.mock_table import TABLE_ID, MockSocket, position, state, you
from tests.web.test_table_layout import LABELS, OVERLAP_JS

pytestmark = pytest.mark.slow

SCREENS = {"1280x720": (1280, 720), "1366x768": (1366, 768), "phone": (360, 740)}
# Four hands a spot: a long one (hit four times), a doubled one, the one in play and one that
# has only its first card.
HANDS = [
    ["8S", "2C", "2D", "3H", "AS", "2S"],
    ["8H", "3C", "TD"],
    ["8C", "8D"],
    ["8D"],
]


def _four_hands(spot: int, current: int | None) -> dict[str, Any]:
    view = position(spot, ["8S", "8D"], legal=("hit", "stand", "double") if current else ())
    view["current_hand"] = current
    view["hands"] = [
        {
            **view["hands"][0],
            "cards": cards,
            "bet": 2000 if len(cards) == 3 else 1000,
            "status": "needs_card" if len(cards) == 1 else "deciding",
        }
        for cards in HANDS
    ]
    return view


def _moment() -> list[dict[str, Any]]:
    """Step 5 on spot 1: its hand 3 is in play; spots 2 and 3 wait with four hands each."""
    spots = {1: ["8S", "8D"], 2: ["8H", "8C"], 3: ["8D", "8S"]}
    deciding = {"hole_hidden": True, "timer": "decision", "current_spot": 1, "step": 5}
    views = [_four_hands(1, 2), _four_hands(2, None), _four_hands(3, None)]
    return [state("decisions", 4, ["6H"], spots, **deciding), you("decisions", 4, views, 5)]


ESCAPES_JS = """() => {
    const out = [];
    for (const spot of document.querySelectorAll('.spot')) {
        const box = spot.getBoundingClientRect();
        const hands = [...spot.querySelectorAll('.my-hand')];
        for (const hand of hands) {
            const r = hand.getBoundingClientRect();
            if (r.left < box.left - 0.5 || r.right > box.right + 0.5)
                out.push(`spot ${spot.dataset.spot} hand ${hand.dataset.hand} leaves its spot`);
            for (const card of hand.querySelectorAll('.card')) {
                const c = card.getBoundingClientRect();
                if (c.left < r.left - 0.5 || c.right > r.right + 0.5)
                    out.push(`spot ${spot.dataset.spot} hand ${hand.dataset.hand}: a card is out`);
            }
        }
        for (let i = 0; i < hands.length; i++) {
            for (let j = i + 1; j < hands.length; j++) {
                const a = hands[i].getBoundingClientRect(), b = hands[j].getBoundingClientRect();
                const overlap = Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5
                    && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;
                if (overlap) out.push(`spot ${spot.dataset.spot}: hands ${i} and ${j} overlap`);
            }
        }
    }
    if (document.documentElement.scrollWidth > innerWidth + 0.5) out.push('sideways scroll');
    return out;
}"""


ENABLED_BUTTON_BOXES_JS = """() => [...document.querySelectorAll('.action-btn:not([disabled])')]
    .map((button) => button.getBoundingClientRect().toJSON())"""


def _open(browser: Any, server: str, size: tuple[int, int]) -> tuple[Any, Any]:
    context = browser.new_context(
        viewport={"width": size[0], "height": size[1]}, reduced_motion="reduce", locale="en-US"
    )
    page = context.new_page()
    mock = MockSocket(page)
    mock.initial = _moment()
    sign_up(page, server, "Resplit")
    page.goto(f"{server}/#/table/{TABLE_ID}")
    page.wait_for_selector("#action-hit:not([disabled])")
    return context, page


@pytest.mark.parametrize("screen", sorted(SCREENS))
def test_four_hands_a_spot_fit_their_spots(
    server: str, browser: Any, failure_shots: list[Any], screen: str
) -> None:
    width, height = SCREENS[screen]
    context, page = _open(browser, server, (width, height))
    failure_shots.append(page)
    assert page.locator(".my-hand").count() == 12
    assert page.locator(".my-hands[data-count='4'] .card-small").count() == 3 * 12
    assert page.evaluate(ESCAPES_JS) == []
    labels = page.locator(".spot[data-spot='1'] .hand-label").all_inner_texts()
    assert labels == ["Hand 1", "Hand 2", "Hand 3", "Hand 4"]
    active = page.locator(".spot[data-spot='1'] .my-hand.hand-active")
    assert active.get_attribute("data-hand") == "2"
    # The buttons for the hand in play are wholly on screen without scrolling. The boxes are read
    # in one script: a redraw between reading the buttons and their boxes would detach them.
    boxes = page.evaluate(ENABLED_BUTTON_BOXES_JS)
    assert len(boxes) >= 3
    for box in boxes:
        assert box["left"] >= 0 and box["right"] <= width
        assert box["top"] >= 0 and box["bottom"] <= height
    shot(page, f"{screen}-four-hands", full_page=True)
    context.close()


@pytest.mark.parametrize("lang", ["ko", "ja"])
def test_four_hands_labels_do_not_overlap(
    server: str, browser: Any, failure_shots: list[Any], lang: str
) -> None:
    for name in ("1366x768", "phone"):
        context, page = _open(browser, server, SCREENS[name])
        failure_shots.append(page)
        page.select_option("#lang-select", lang)
        page.wait_for_selector(f"html[lang='{lang}']")
        assert page.evaluate(OVERLAP_JS, LABELS) == []
        assert page.evaluate(ESCAPES_JS) == []
        shot(page, f"{name}-four-hands-{lang}", full_page=True)
        context.close()


RULE_WORDS = {
    "en": ["up to 4 hands in all", "Aces may be split again too."],
    "ko": ["최대 4개 핸드까지", "에이스도 다시 스플릿할 수 있습니다."],
    "ja": ["全部で4ハンドまで", "エースも再スプリットできます。"],
}


@pytest.fixture(scope="module")
def folder_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``boundless serve --titles-dir docs/examples/rules`` (the resplit example among them)."""
    folder = ROOT / "docs" / "examples" / "rules"
    options = (*BROWSER_OPTIONS, "--titles-dir", str(folder))
    yield from serve(Path(tmp_path_factory.mktemp("titles-dir")), options)


@pytest.mark.parametrize("lang", sorted(RULE_WORDS))
def test_the_rules_page_says_the_resplit_rule(
    folder_server: str, browser: Any, failure_shots: list[Any], lang: str
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 720}, locale="en-US")
    page = context.new_page()
    failure_shots.append(page)
    page.goto(f"{folder_server}/#/rules/boo-bucks-resplit")
    page.wait_for_selector(".rules-page[data-title='boo-bucks-resplit']")
    page.select_option("#lang-select", lang)
    page.wait_for_selector(f"html[lang='{lang}']")
    text = page.inner_text(".rules-page")
    for words in RULE_WORDS[lang]:
        assert words in text
    shot(page, f"rules-boo-bucks-resplit-{lang}")
    page.goto(f"{folder_server}/#/rules/boo-bucks")
    page.wait_for_selector(".rules-page[data-title='boo-bucks']")
    assert RULE_WORDS[lang][0] not in page.inner_text(".rules-page")
    context.close()
