"""The web client in a real browser against a real server.

Starts ``boundless serve`` on a free port with a fresh data dir, short timers and two bots, then
drives Debian's Chromium through Playwright: sign up, join Boundless, bet, play full rounds with
at least one decision, check that the balance moves exactly by each round's result and that the
play record lists the rounds, open a round's detail, check the shoe commitment code against the
engine's, switch to Korean and Japanese, and save screenshots at desktop and phone width in
``artifacts/screenshots/``.

Needs the ``chromium`` command (``.ci/run`` installs it with apt); skips cleanly without it.
"""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

try:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
except ImportError:  # the browser fixture skips these tests
    PlaywrightTimeout = TimeoutError

from boundless.core.cards import parse_cards
from boundless.core.shoe import commitment_of
from tests.web.kit import BROKEN_WORDS_JS, STARTING_GRANT, get_json, open_page, shot, submit

pytestmark = pytest.mark.slow

DESKTOP = (1280, 900)
PHONE = {"width": 360, "height": 780}
ROUNDS_TO_PLAY = 3
PLAY_DEADLINE_S = 100.0


def _wallet(page: Any) -> int:
    """The balance in the top bar, in minor units."""
    text = page.inner_text("#wallet-balance")
    return int(re.sub(r"[^\d]", "", text))


def _try_click(locator: Any) -> bool:
    """Click unless the control goes away first (a window closing as the test reaches it)."""
    try:
        locator.click(timeout=1500)
    except PlaywrightTimeout:
        return False
    return True


def _play_rounds(page: Any) -> tuple[dict[str, int], list[str]]:
    """Bet and play until ROUNDS_TO_PLAY rounds settled with at least one decision, and every
    round bet on has settled. Returns each round's net (results panel) and the actions taken.
    """
    nets: dict[str, int] = {}
    placed: set[str] = set()
    actions: list[str] = []
    shots: set[str] = set()
    deadline = time.monotonic() + PLAY_DEADLINE_S
    while time.monotonic() < deadline:
        results = page.locator("#results")
        shown = results.get_attribute("data-round-id") if results.count() else None
        if shown and shown not in nets and page.locator("#result-net").count():
            nets[shown] = int(page.locator("#result-net").get_attribute("data-net"))
            if "result" not in shots:
                shot(page, "desktop-table-result", full_page=False)
                shots.add("result")
        enough = len(nets) >= ROUNDS_TO_PLAY and actions
        if enough and placed <= set(nets):
            break
        main_spot = page.locator("#bet-1-main:not([disabled])")
        if not enough and main_spot.count() and page.locator("#bet-place").count():
            current = page.get_attribute(".felt", "data-round-id")
            _try_click(page.locator(".chip[data-amount='100']"))
            if _try_click(main_spot):
                _try_click(main_spot)
            _try_click(page.locator("#bet-1-pair:not([disabled])"))
            if "betting" not in shots:
                shot(page, "desktop-table-betting", full_page=False)
                shots.add("betting")
            if _try_click(page.locator("#bet-place:not([disabled])")):
                try:
                    page.wait_for_selector("#dock-status:has-text('placed')", timeout=3000)
                    placed.add(current)
                except PlaywrightTimeout:
                    pass  # betting closed first: try the next round
            continue
        decline = page.locator(".insurance-offer button[id^='decline-']")
        if decline.count():
            _try_click(decline.first)
            continue
        enabled = page.locator(".action-btn:not([disabled])")
        if enabled.count():
            # The decision timer is drawn from the state's deadline (it may follow the hand).
            page.locator("#timer").wait_for(state="visible", timeout=3000)
            legal = [button.get_attribute("data-action") for button in enabled.all()]
            choice = "hit" if "hit" in legal and not actions else "stand"
            if choice not in legal:
                choice = legal[0]
            if _try_click(page.locator(f"#action-{choice}:not([disabled])")):
                actions.append(choice)
                page.wait_for_selector(
                    f"#action-{choice}:not([disabled])", state="detached", timeout=5000
                )
                if "decision" not in shots:
                    shot(page, "desktop-table-decision", full_page=False)
                    shots.add("decision")
            continue
        page.wait_for_timeout(150)
    assert len(nets) >= ROUNDS_TO_PLAY, f"only {len(nets)} rounds settled in time"
    assert actions, "no decision was ever offered"
    assert placed <= set(nets), "a round bet on did not settle in time"
    return nets, actions


def test_engine_and_browser_agree_on_shoe_commitments(server: str, browser: Any) -> None:
    """The page's SHA-256 (WebCrypto, and its fallback for plain http) matches the shoe's."""
    page = browser.new_page()
    page.goto(server + "/")
    page.wait_for_selector("body[data-ready='true']")
    salt = "00ff" * 8
    cards = ["AS", "TH", "9D", "2C", "KS", "QH", "7C"]
    expected = commitment_of(salt, parse_cards(cards))
    computed = page.evaluate(
        """async ([salt, cards]) => {
            const module = await import('/js/sha256.js');
            const text = `${salt}:${cards.join('')}`;
            const fallback = Array.from(module.sha256Bytes(new TextEncoder().encode(text)),
                (b) => b.toString(16).padStart(2, '0')).join('');
            return [await module.commitmentOf(salt, cards), fallback];
        }""",
        [salt, cards],
    )
    assert computed == [expected, expected]
    page.close()


def _open_lobby(server: str, browser: Any, failure_shots: list[Any]) -> tuple[Any, Any, list[str]]:
    """A desktop page on the lobby, ready; page errors are collected in the returned list."""
    context, page = open_page(
        browser, DESKTOP, failure_shots, reduced_motion="reduce", locale="en-US"
    )
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server + "/")
    page.wait_for_selector("body[data-ready='true']")
    return context, page, errors


def test_sign_up_play_record_and_languages(
    server: str, browser: Any, failure_shots: list[Any]
) -> None:
    context, page, errors = _open_lobby(server, browser, failure_shots)
    shot(page, "desktop-lobby-signed-out")

    # Sign up: the token is kept, the wallet shows the starting grant.
    submit(page, "#signup-name", "Ana", "#signup-submit", ".welcome-card")
    token = page.evaluate("localStorage.getItem('boundless.token')")
    assert token
    assert _wallet(page) == STARTING_GRANT
    page.wait_for_selector(".table-card[data-title='boundless'] .join-table")
    shot(page, "desktop-lobby")

    # Join Boundless and play full rounds.
    page.click(".table-card[data-title='boundless'] .join-table")
    page.wait_for_selector(".felt")
    start_balance = _wallet(page)
    nets, actions = _play_rounds(page)
    # Balance moves exactly by the results: after the last settled round, the wallet equals
    # the start plus every round's net (no bet is open once the last result is in).
    page.wait_for_function(
        "expected => Number(document.querySelector('#wallet-balance').textContent"
        ".replace(/[^0-9]/g, '')) === expected",
        arg=start_balance + sum(nets.values()),
        timeout=15000,
    )
    me = get_json(f"{server}/api/v1/me", token)
    assert me["balance"] == start_balance + sum(nets.values())

    # This table's history lists the rounds just played, each a link to its record; the
    # statistics show the dealer's results; Repeat places the last bets again (server's rebet).
    page.click("#tab-history")
    page.wait_for_selector("#history .record-link")
    here = set(page.locator("#history .record-link").all_inner_texts())
    assert {f"#{round_id.rsplit(':', 1)[1]}" for round_id in nets} <= here
    page.click("#tab-stats")
    page.wait_for_selector("#stats-dealer tr[data-result='bust']")
    for _ in range(3):
        page.wait_for_selector("#bet-rebet:not([disabled])", timeout=30000)
        if _try_click(page.locator("#bet-rebet:not([disabled])")):
            try:
                page.wait_for_selector("#dock-status:has-text('placed')", timeout=3000)
                break
            except PlaywrightTimeout:
                continue  # the window closed first: the next one
    assert "placed" in page.inner_text("#dock-status")

    # The play record lists the rounds, newest first, with the same nets.
    page.click("a[data-nav='records']")
    page.wait_for_selector(".record-row")
    rows = page.locator(".record-row")
    listed = {
        rows.nth(i).get_attribute("data-round-id"): rows.nth(i).locator("td").nth(5).inner_text()
        for i in range(rows.count())
    }
    assert set(nets) <= set(listed)
    records = get_json(f"{server}/api/v1/records?limit=50", token)["items"]
    assert {item["round_id"]: item["net"] for item in records if item["round_id"] in nets} == nets
    shot(page, "desktop-records")

    # A round's full detail: cards in order, the decision, balance before and after, the shoe.
    details = {
        item["round_id"]: get_json(f"{server}/api/v1/records/{item['round_id']}", token)
        for item in records
        if item["round_id"] in nets
    }
    decided_round, detail = next(
        (round_id, found)
        for round_id, found in details.items()
        if any(decision["by"] == "player" for decision in found["decisions"])
    )
    mine = {d["action"] for d in detail["decisions"] if d["by"] == "player"}
    assert mine <= set(actions)
    page.click(f".record-row[data-round-id='{decided_round}'] .record-link")
    page.wait_for_selector("#detail-cards .card-timeline li")
    assert page.locator("#detail-cards .card-timeline li").count() == len(detail["cards"])
    assert page.inner_text("#rules-version") == detail["rules_version"]
    assert page.inner_text("#shoe-commitment") == detail["shoe"]["commitment"]
    assert page.locator("#detail-decisions li").count() == len(detail["decisions"])
    assert page.locator("#detail-decisions li[data-by='player']").count() >= 1
    net = detail["paid"] - detail["staked"]
    assert detail["balance_after"] - detail["balance_before"] == net
    shot(page, "desktop-record-detail")

    # Korean, then Japanese, without a reload; the choice is remembered.
    page.select_option("#lang-select", "ko")
    page.wait_for_selector("a[data-nav='records']:has-text('플레이 기록')")
    assert "카드" in page.inner_text("#detail-cards h2")
    shot(page, "desktop-record-detail-ko")
    page.select_option("#lang-select", "ja")
    page.wait_for_selector("a[data-nav='records']:has-text('プレイ履歴')")
    assert "カード" in page.inner_text("#detail-cards h2")
    assert page.evaluate(BROKEN_WORDS_JS, "td, th, dt, dd, .btn, label") == []
    assert page.evaluate("localStorage.getItem('boundless.lang')") == "ja"
    page.click("a[data-nav='rules']")
    page.wait_for_selector(".rules-page[data-title]")
    assert "デッキ" in page.inner_text(".rules-page")
    shot(page, "desktop-rules-ja")

    # Phone width: the same pages stay usable at 360 px.
    page.set_viewport_size(PHONE)
    page.goto(server + "/#/lobby")
    page.wait_for_selector(".table-card[data-title='boundless'] .join-table")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(page, "phone-lobby-ja")
    page.click(".table-card[data-title='boundless'] .join-table")
    page.wait_for_selector(".felt .bet-main")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(page, "phone-table-ja", full_page=False)
    page.select_option("#lang-select", "ko")
    page.wait_for_selector("a[data-nav='lobby']:has-text('로비')")
    shot(page, "phone-table-ko", full_page=False)
    page.goto(server + "/#/records")
    page.wait_for_selector(".record-row")
    assert page.evaluate(BROKEN_WORDS_JS, "td, th, .btn, label") == []
    shot(page, "phone-records-ko")
    page.select_option("#lang-select", "en")
    page.goto(server + "/#/rules/boundless")
    page.wait_for_selector(".rules-page[data-title='boundless']")
    shot(page, "phone-rules-en")

    assert errors == []
    context.close()


def test_private_table_seat_rule_and_shoe_verification(
    server: str, browser: Any, failure_shots: list[Any]
) -> None:
    """A private table from the lobby: pick its side bets, see the seat rule, play a round, and
    verify its shoe (reshuffled every round, so revealed at once) with one click."""
    context, page, errors = _open_lobby(server, browser, failure_shots)
    submit(page, "#signup-name", "Bo", "#signup-submit", "#private-open")
    title = page.input_value("#private-title")
    rules = get_json(f"{server}/api/v1/titles/{title}")
    offer = rules["side_bet_offer"]
    assert offer["mode"] == "player_chooses"
    boxes = page.locator("input[name='side_group']")
    for index in range(offer["choose_count"]):
        boxes.nth(index).check()
    assert boxes.nth(offer["choose_count"]).is_disabled()
    page.click("#private-open")
    page.wait_for_selector("#bet-place")
    spots = rules["table"]["spots"]
    assert page.locator(".felt .bet-main").count() == spots

    # The seat rule: a main bet may be at most N times the seat to its right.
    multiple = rules["table"]["main_bet_max_multiple_of_right"]
    page.locator(".chip[data-amount='100']").click()
    page.click("#bet-2-main")
    for _ in range(multiple + 1):
        page.click("#bet-1-main")
    page.wait_for_selector(".bet-problems li")
    assert page.locator("#bet-place").is_disabled()
    shot(page, "desktop-private-seat-rule", full_page=False)
    page.click("#bet-undo")
    page.wait_for_selector(".bet-problems", state="detached")
    page.click("#bet-place")
    # A private table deals on the bet: the "placed" line may show only for a moment.
    page.wait_for_selector("#dock-status:has-text('placed'), .felt:not([data-phase='betting'])")

    deadline = time.monotonic() + 40
    while not page.locator("#result-net").count() and time.monotonic() < deadline:
        answer = page.locator(
            "#action-stand:not([disabled]), .insurance-offer button[id^='decline-']"
        )
        if answer.count():
            answer.first.click()
        page.wait_for_timeout(200)
    assert page.locator("#result-net").count(), "the private round did not settle"
    shot(page, "desktop-private-result", full_page=False)

    page.click("a[data-nav='records']")
    page.wait_for_selector(".record-link")
    page.locator(".record-link").first.click()
    page.click("#verify-shoe")
    page.wait_for_selector("#verify-result.good")
    assert page.inner_text("#verify-result code") == page.inner_text("#shoe-commitment")
    shot(page, "desktop-shoe-verified")
    assert errors == []
    context.close()
