"""The table's furniture with a scripted socket: the strip of last rounds lists every round the
table finished (watched ones too), the table log is worded again on a language switch, a table
of one's own shows each card once (no shared row beside the hand, no "1 took it", no "Seated"),
and joining mid-round shows the table as it stands (no replayed deal)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.web.kit import ROOT, open_page, shot, sign_up
from tests.web.mock_table import TABLE_ID, MockSocket, position, state, you

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
    page.wait_for_selector("html[lang='ko']")
    korean = page.inner_text("#table-log li")
    assert korean != english
    assert KO["table.step_card"].split("{")[0].strip() in korean
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
