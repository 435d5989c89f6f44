"""The table on one screen: for every title, in every phase of a round (betting, insurance,
decisions with a split hand, the dealer's play, settled) and at six window sizes from a small
phone to a wide monitor, the dealer's cards, every spot, every hand (split hands too), the timer
and every enabled control are wholly inside the window with the page at the top, the page does
not scroll, and no two controls overlap. One browser page per title, resized between checks;
the round is scripted (tests/web/mock_table.py). Screenshots land in artifacts/screenshots/."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.web.kit import BANNER_CLEAR_JS, SCREENSHOTS, get_json, open_page, sign_up
from tests.web.mock_table import MockSocket, position, settled, state, you

pytestmark = pytest.mark.slow

SIZES = {
    "1280x720": (1280, 720),
    "1366x768": (1366, 768),
    "1920x1080": (1920, 1080),
    "390x844": (390, 844),
    "360x740": (360, 740),
    "844x390": (844, 390),
}
TITLES = ("boundless", "boo-bucks", "unlimited")

# Every visible control of the page, and the problems with their boxes: outside the window
# (controls of the table only; the site's header is checked for overlaps) or over another one.
CHECK_JS = """required => {
    const problems = [];
    const se = document.scrollingElement;
    if (window.scrollY !== 0) problems.push(`scrolled to ${window.scrollY}`);
    if (se.scrollHeight > innerHeight + 1) problems.push(`page ${se.scrollHeight} tall`);
    if (se.scrollWidth > innerWidth + 1) problems.push(`page ${se.scrollWidth} wide`);
    const box = (el) => el.getBoundingClientRect();
    const name = (el) => el.id || `${el.tagName}.${el.className}`;
    const at = (r) => [r.left, r.top, r.right, r.bottom].map(Math.round);
    const inside = (r) => r.top >= -0.5 && r.left >= -0.5 && r.bottom <= innerHeight + 0.5
        && r.right <= innerWidth + 0.5;
    const shown = (el) => el.offsetParent !== null && box(el).width > 0 && box(el).height > 0
        && getComputedStyle(el).visibility !== "hidden";
    for (const selector of required) {
        const found = [...document.querySelectorAll(selector)];
        if (!found.length) problems.push(`missing ${selector}`);
        for (const el of found) {
            const r = box(el);
            if (!shown(el)) problems.push(`${selector} hidden`);
            else if (!inside(r)) problems.push(`${selector} ${name(el)} at ${at(r)}`);
        }
    }
    const controls = [...document.querySelectorAll("a[href], button, select, input")]
        .filter((el) => shown(el) && !el.classList.contains("skip-link"));
    for (const el of controls) {
        if (!el.closest(".table-view") || el.disabled) continue;
        const r = box(el);
        if (!inside(r)) problems.push(`control ${name(el)} at ${at(r)}`);
    }
    for (let i = 0; i < controls.length; i++) {
        for (let j = i + 1; j < controls.length; j++) {
            const a = controls[i], b = controls[j];
            if (a.contains(b) || b.contains(a)) continue;
            const r = box(a), s = box(b);
            const x = Math.min(r.right, s.right) - Math.max(r.left, s.left);
            const y = Math.min(r.bottom, s.bottom) - Math.max(r.top, s.top);
            if (x > 0.5 && y > 0.5) problems.push(`${name(a)} overlaps ${name(b)}`);
        }
    }
    return problems;
}"""

SETTLE_JS = """() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(
    () => requestAnimationFrame(done))))"""


def _cards(spot: int) -> list[str]:
    return [["8S", "8D"], ["TS", "6H"], ["9C", "2D"]][spot - 1]


def _split_position(spot: int, legal: tuple[str, ...]) -> dict[str, Any]:
    """A position whose pair was split: two hands, the first being decided."""
    split = position(spot, ["8S", "3C"], legal=legal)
    second = copy.deepcopy(split["hands"][0])
    second.update(cards=["8D", "TC", "2H"], total=20, status="needs_card")
    split["hands"].append(second)
    return split


class Round:
    """The scripted messages of one round of ``title`` at a table of its own."""

    def __init__(self, title: str, rules: dict[str, Any]) -> None:
        self.title = title
        self.table = f"{title}-mock"
        self.spots = list(range(1, rules["table"]["spots"] + 1))
        self.sides = tuple(bet["key"] for bet in rules.get("side_bets", []))
        if rules.get("side_bet_offer", {}).get("mode") == "player_chooses":
            self.sides = self.sides[:2]
        self.insurance = bool(rules["insurance"]["offered"])
        self.hole = rules["dealer"]["hole_card"] == "peek"
        self.actions = ("hit", "stand", "double", "split", "surrender", "surrender20")

    def _state(self, phase: str, dealer: list[str], **options: Any) -> dict[str, Any]:
        spots = {spot: _cards(spot) if dealer else [] for spot in self.spots}
        return state(
            phase,
            1,
            dealer,
            spots,
            side_bets=self.sides,
            table=self.table,
            title=self.title,
            **options,
        )

    def _you(self, phase: str, positions: list[dict[str, Any]]) -> dict[str, Any]:
        return you(phase, 1, positions, table=self.table)

    def _sides(self, outcome: str | None = None) -> dict[str, Any]:
        return {
            key: {"stake": 100, "outcome": outcome, "pattern": None, "payout": outcome and 0}
            for key in self.sides
        }

    def betting(self) -> list[dict[str, Any]]:
        return [self._state("betting", [], timer="betting")]

    def insurance_offer(self) -> list[dict[str, Any]]:
        positions = [
            position(spot, _cards(spot), offer="insurance", side_bets=self._sides())
            for spot in self.spots
        ]
        return [
            self._state("insurance", ["AH"], hole_hidden=self.hole, timer="insurance"),
            self._you("insurance", positions),
        ]

    def decisions(self) -> list[dict[str, Any]]:
        positions = [_split_position(1, self.actions)]
        positions += [position(spot, _cards(spot)) for spot in self.spots[1:]]
        for item in positions:
            item["side_bets"] = self._sides()
        return [
            self._state(
                "decisions", ["9H"], hole_hidden=self.hole, timer="decision", current_spot=1, step=2
            ),
            self._you("decisions", positions),
        ]

    def dealer(self) -> list[dict[str, Any]]:
        positions = [
            position(spot, _cards(spot), status="stood", side_bets=self._sides())
            for spot in self.spots
        ]
        return [self._state("dealer", ["9H", "7C"]), self._you("dealer", positions)]

    def settled(self) -> list[dict[str, Any]]:
        positions = [
            position(
                spot,
                _cards(spot),
                outcome="win",
                payout=2000,
                status="stood",
                side_bets=self._sides("lose"),
            )
            for spot in self.spots
        ]
        return [
            self._state("settled", ["9H", "7C", "5D"], timer="betting"),
            self._you("settled", positions),
            settled(1, positions, table=self.table),
        ]


# What must be wholly on screen in each phase, beyond the enabled controls.
ALWAYS = [".felt", "#dock", ".panel-tabs"]
DEALT = [*ALWAYS, "#dealer-cards"]
REQUIRED = {
    "betting": [*ALWAYS, "#timer", ".bet-circle", "#bet-place"],
    "insurance": [*DEALT, "#timer", ".felt #insurance-banner", "#insurance-countdown", ".my-hand"],
    "decisions": [*DEALT, "#timer", ".hand-active", ".my-hand", ".action-btn"],
    "dealer": [*DEALT, ".my-hand"],
    "settled": [*DEALT, ".my-hand", ".bet-circle"],
}


# Photographed at every size (each failing check is too): the busiest moments of a round.
PHOTOGRAPHED = ("betting", "decisions")


def _check(page: Any, phase: str, label: str, problems: list[str]) -> None:
    page.wait_for_selector(f".felt[data-phase='{phase}']")
    page.evaluate(SETTLE_JS)
    found = page.evaluate(CHECK_JS, REQUIRED[phase])
    if phase == "insurance":
        found += page.evaluate(BANNER_CLEAR_JS)
        if page.locator(".insurance-offer").count() > 1 and not page.locator("#insure-all").count():
            found.append("no one tap for every offer")
    if found:
        problems.append(f"{label}: {found}")
    if found or phase in PHOTOGRAPHED:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"one-screen-{label}.png"))


@pytest.mark.parametrize("title", TITLES)
def test_every_phase_fits_every_screen(
    server: str, browser: Any, failure_shots: list[Any], title: str
) -> None:
    rules = get_json(f"{server}/api/v1/titles/{title}")
    round_ = Round(title, rules)
    context, page = open_page(browser, SIZES["1280x720"], failure_shots, reduced_motion="reduce")
    mock = MockSocket(page)
    sign_up(page, server, f"Fit{title[:4]}")
    phases = ["betting", "insurance", "decisions", "dealer", "settled"]
    if not round_.insurance:
        phases.remove("insurance")
    script = {
        "betting": round_.betting,
        "insurance": round_.insurance_offer,
        "decisions": round_.decisions,
        "dealer": round_.dealer,
        "settled": round_.settled,
    }
    mock.initial = script[phases[0]]()
    page.goto(f"{server}/#/table/{round_.table}")
    problems: list[str] = []
    for phase in phases:
        if phase != phases[0]:
            mock.push(*script[phase]())
        if phase == "decisions":
            page.wait_for_selector("#action-hit:not([disabled])")
        for size_name, size in SIZES.items():
            page.set_viewport_size({"width": size[0], "height": size[1]})
            _check(page, phase, f"{title}-{phase}-{size_name}", problems)
    assert problems == [], "\n".join(problems)
    context.close()
