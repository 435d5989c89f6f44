"""The table's furniture with a scripted socket: the strip of last rounds lists every round the
table finished (watched ones too), the table log is worded again on a language switch, a table
of one's own shows each card once (no shared row beside the hand, no "1 took it", no "Seated"),
joining mid-round shows the table as it stands (no replayed deal), and a table name being typed
survives the messages that redraw the table."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.web.kit import ROOT, get_json, open_page, shot, sign_up
from tests.web.mock_table import TABLE_ID, MockSocket, position, settled, state, you

pytestmark = pytest.mark.slow

SHARED = {"table": "unlimited-mock", "title": "unlimited"}
KO = json.loads((ROOT / "web" / "i18n" / "ko.json").read_text("utf-8"))


def _open(
    browser: Any, server: str, table: str, initial: list[dict[str, Any]], motion: str = "reduce"
) -> Any:
    context, page = open_page(browser, (1280, 720), reduced_motion=motion, locale="en-US")
    mock = MockSocket(page)
    mock.initial = initial
    sign_up(page, server, "Furniture")
    page.goto(f"{server}/#/table/{table}")
    page.wait_for_selector(".felt")
    return context, page, mock


def _settled(round_no: int) -> dict[str, Any]:
    spots = {1: ["TS", "7H"], 2: [], 3: []}
    return state("settled", round_no, ["9H", "7C", "5D"], spots, side_bets=(), **SHARED)


def test_the_strip_lists_watched_rounds_and_the_log_follows_the_language(
    server: str, browser: Any, failure_shots: list[Any]
) -> None:
    context, page, mock = _open(browser, server, SHARED["table"], [_settled(4)])
    failure_shots.append(page)
    page.wait_for_selector("#recent-rounds:has-text('#4')")
    # Rounds this player only watches: no bet, no `you`, no `settled` of their own.
    for round_no in (5, 6):
        spots = {1: ["TS", "7H"], 2: [], 3: []}
        mock.push(state("betting", round_no, [], {1: [], 2: [], 3: []}, side_bets=(), **SHARED))
        mock.push(state("decisions", round_no, ["9H"], spots, side_bets=(), **SHARED))
        mock.push(_settled(round_no))
        page.wait_for_selector(f"#recent-rounds:has-text('#{round_no}')")
    assert page.locator("#recent-rounds .recent-round").count() == 3
    # A step card goes in the log; the log is worded in the language shown.
    mock.push(
        {
            "type": "step",
            "table_id": SHARED["table"],
            "round_id": f"{SHARED['table']}:6",
            "spot": 1,
            "step": 1,
            "card": "5D",
            "takers": 3,
            "closed_ms": 0,
            "sent_ms": 0,
        }
    )
    page.click("#tab-log")
    page.wait_for_selector("#table-log li")
    english = page.inner_text("#table-log li")
    page.select_option("#lang-select", "ko")
    # Wait for the log's own new words, not only the page's lang attribute.
    worded = KO["table.step_card"].split("{")[0].strip()
    page.wait_for_selector(f"#table-log li:has-text('{worded}')")
    korean = page.inner_text("#table-log li")
    assert korean != english
    shot(page, "table-log-ko", full_page=False)
    context.close()


def test_own_table_shows_each_card_once_and_a_join_shows_the_table_as_it_stands(
    server: str, browser: Any, failure_shots: list[Any]
) -> None:
    spots = {1: ["8S", "8D"], 2: ["TS", "6H"]}
    step_card = state("decisions", 7, ["9H"], spots, hole_hidden=True, timer="decision")
    step_card["public"]["current_spot"] = 1
    step_card["public"]["step"] = 2
    step_card["public"]["spots"]["1"].update(step_cards=["3C"], step_takers=[1])
    mine = you("decisions", 7, [position(1, spots[1], legal=("hit", "stand"))], step=2)
    # With motion on: a paced deal would show "Dealing" and deal the cards one by one.
    context, page, _ = _open(browser, server, TABLE_ID, [step_card, mine], "no-preference")
    failure_shots.append(page)
    page.wait_for_selector("#action-hit:not([disabled])", timeout=1500)
    # Joined mid-round: the decision is on, the cards are all there, nothing is being dealt.
    assert page.get_attribute(".felt", "data-phase") == "decisions"
    assert "Dealing" not in page.inner_text("#dock-status")
    # Spot 1 is this player's: its cards show once, as the hand; spot 2 nobody plays here.
    assert page.locator(".spot[data-spot='1'] .shared-cards").count() == 0
    assert page.locator(".spot[data-spot='1'] .my-hand .card").count() == 2
    assert page.locator(".step-takers").count() == 0
    assert page.locator(".fact[data-fact='seated']").count() == 0
    shot(page, "own-table-once", full_page=False)
    context.close()


def test_a_name_being_typed_survives_the_messages_that_redraw_the_table(
    server: str, browser: Any, failure_shots: list[Any]
) -> None:
    # The lobby row says this mock table is the player's own private table.
    row = {"table_id": TABLE_ID, "name": "Boo Bucks Blackjack", "private": True, "recent": []}
    spots = {1: ["TS", "7H"]}
    context, page = open_page(browser, (1280, 720), failure_shots, reduced_motion="reduce")
    mock = MockSocket(page)
    mock.initial = [state("betting", 1, [], {1: []}, timer="betting")]
    page.route("**/api/v1/tables", lambda route: route.fulfill(json=[row]))
    sign_up(page, server, "Typist")
    page.goto(f"{server}/#/table/{TABLE_ID}")
    page.click("#rename-table")
    page.fill("#table-name", "Half typ")
    page.press("#table-name", "ArrowLeft")
    # A state message redraws the whole table while the owner is still typing.
    mock.push(state("decisions", 1, ["9H"], spots))
    page.wait_for_selector(".felt[data-phase='decisions']")
    assert page.input_value("#table-name") == "Half typ"
    page.keyboard.type("x")  # the caret stayed where the owner left it
    assert page.input_value("#table-name") == "Half tyxp"
    context.close()


def _landing(wedges: list[dict[str, Any]], label: str) -> float:
    """Where a wedge's middle sits, clockwise from the top, and so how far its ring turns back."""
    total = sum(wedge["weight"] for wedge in wedges)
    start = 0.0
    for wedge in wedges:
        end = start + 360 * wedge["weight"] / total
        if wedge["label"] == label:
            return (360 - (start + end) / 2) % 360
        start = end
    raise AssertionError(f"no wedge {label}")


def test_the_wheels_land_on_the_wedges_the_server_drew(
    server: str, browser: Any, failure_shots: list[Any]
) -> None:
    rules = get_json(f"{server}/api/v1/titles/boo-bucks")
    wheel = next(bet["wheel"] for bet in rules["side_bets"] if bet["key"] == "bonus_spin_xtreme")
    inner = next(wedge["label"] for wedge in wheel["inner"] if wedge.get("power_up"))
    outer = wheel["outer"][2]["label"]
    sides = ("bonus_spin_xtreme", "trifecta")
    spin = {
        "stake": 100,
        "outcome": "win",
        "pattern": None,
        "payout": 10_000,
        "wheel": [inner, outer],
    }
    spots = {1: ["AS", "KD"]}
    won = position(
        1,
        spots[1],
        outcome="blackjack",
        payout=2500,
        status="stood",
        side_bets={"bonus_spin_xtreme": spin},
    )
    initial = [
        state("settled", 9, ["9H", "7C"], spots, timer="betting", side_bets=sides),
        you("settled", 9, [won]),
        settled(9, [won]),
    ]
    context, page, _ = _open(browser, server, TABLE_ID, initial)
    failure_shots.append(page)
    figure = page.wait_for_selector(f".wheel-svg[data-inner='{inner}'][data-outer='{outer}']")
    assert figure.is_visible()
    # Each ring turned so that the drawn wedge sits under the pointer (no extra turns here:
    # reduced motion), by the rule set's weights.
    for ring, label, wedges in (("inner", inner, wheel["inner"]), ("outer", outer, wheel["outer"])):
        angle = float(figure.get_attribute(f"data-{ring}-angle"))
        assert angle == pytest.approx(_landing(wedges, label), abs=0.01)
        center = float(page.get_attribute(f".wheel-{ring} .wedge-landed", "data-center"))
        turned = (center + angle) % 360
        assert min(turned, 360 - turned) == pytest.approx(0, abs=0.01)
        assert page.get_attribute(f".wheel-{ring} .wedge-landed", "data-label") == label
    assert page.locator(".wheel-inner .wedge").count() == len(wheel["inner"])
    assert page.locator(".wheel-outer .wedge").count() == len(wheel["outer"])
    # The results name the wedges; the badge on the circle is the net win, labelled so.
    assert f"{inner} · {outer}" in page.inner_text("#results")
    assert page.inner_text("#bet-1-bonus_spin_xtreme .result-paid") == "+99 net"
    shot(page, "wheel-landed", full_page=False)
    # The rules page draws the same wheels and lists every wedge with its chance, from the rule
    # set the table plays.
    page.goto(f"{server}/#/rules/boo-bucks")
    page.wait_for_selector(".wheel-rest .wheel-svg")
    rest = page.locator(".wheel-rules").first  # the seats' bet (the dealer's has the same)
    assert rest.locator(".wheel-inner .wedge").count() == len(wheel["inner"])
    assert rest.locator("tbody tr").count() == len(wheel["inner"]) + len(wheel["outer"])
    context.close()


def test_phone_toast_leaves_the_nav_free_and_the_key_field_is_styled(
    server: str, browser: Any, failure_shots: list[Any]
) -> None:
    context, page = open_page(browser, (390, 844), failure_shots, reduced_motion="reduce")
    sign_up(page, server, "Toasty")
    toast = page.wait_for_selector(".toast").bounding_box()
    nav = page.locator(".top-bar").bounding_box()
    assert toast["y"] >= nav["y"] + nav["height"], (toast, nav)
    # The account-key field (a password field) has the same look as the name field.
    page.evaluate("localStorage.clear()")
    page.goto(server + "/#/lobby")
    page.reload()
    page.wait_for_selector("#key-input")
    looks = page.evaluate(
        """() => ['#key-input', '#signup-name'].map((s) => {
            const c = getComputedStyle(document.querySelector(s));
            return [c.backgroundColor, c.borderRadius, c.minHeight];
        })"""
    )
    assert looks[0] == looks[1]
    context.close()


def test_sound_is_off_until_turned_on_and_the_choice_is_kept(
    server: str, browser: Any, failure_shots: list[Any]
) -> None:
    betting = state("betting", 3, [], {1: [], 2: [], 3: []}, timer="betting")
    context, page, _ = _open(browser, server, TABLE_ID, [betting])
    failure_shots.append(page)
    page.wait_for_selector("#bet-1-main:not([disabled])")
    assert page.get_attribute("#sound-toggle", "aria-pressed") == "false"
    page.locator(".chip").first.click()
    page.click("#bet-1-main")
    assert page.get_attribute("body", "data-last-sound") is None
    page.click("#sound-toggle")
    page.wait_for_selector("#sound-toggle[aria-pressed='true']")
    page.click("#bet-1-main")
    page.wait_for_selector("body[data-last-sound='chip']")
    page.reload()
    page.wait_for_selector("#sound-toggle[aria-pressed='true']")
    context.close()
