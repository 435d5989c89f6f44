"""The player-protection pages in a real browser, in English, Korean and Japanese: the session
panel is shown, the profile page sets a limit (a decrease at once, an increase shown pending) and
lists the history, a reality check that falls due opens its dialog, which the player answers, and
the session limit ends the session in a dialog.
The server runs in this process under the UK profile, so the test moves its protection clock."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from boundless.jurisdictions import load_profile
from boundless.server.protection import clock
from tests.server.live import serving
from tests.web.kit import ROOT, open_page, shot

pytestmark = pytest.mark.slow


def strings(lang: str) -> dict[str, str]:
    return dict(json.loads((ROOT / "web" / "i18n" / f"{lang}.json").read_text("utf-8")))


@pytest.mark.parametrize("lang", ["en", "ko", "ja"])
def test_profile_tools_and_reality_check(
    lang: str,
    browser: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    failure_shots: list[Any],
) -> None:
    words = strings(lang)
    now = [datetime.now(UTC)]
    monkeypatch.setattr(clock, "utc_now", lambda: now[0])
    with serving(tmp_path, jurisdiction=load_profile("uk"), web_dir=ROOT / "web") as live:
        token = live.sign_up("Hana")["token"]
        context, page = open_page(browser, (1280, 900), failure_shots, reduced_motion="reduce")
        page.add_init_script(
            f"localStorage.setItem('boundless.token', {json.dumps(token)});"
            f"localStorage.setItem('boundless.lang', {json.dumps(lang)});"
        )
        page.goto(live.base_url + "/#/profile")
        page.wait_for_selector("body[data-ready='true']")
        page.wait_for_selector("#protect-limits")
        assert page.inner_text("#protect-limits h2") == words["protect.limits"]
        # The session panel: elapsed time and net position, from the server's figures.
        page.wait_for_selector("#session-panel:not([hidden])")
        assert page.inner_text("#session-net").endswith("0.00")
        # A decrease applies at once; an increase waits for the cooling-off, shown pending.
        page.fill("#limit-loss-day", "50")
        page.click("#limits-save")
        page.wait_for_selector("#protect-message")
        assert page.inner_text("#protect-message") == words["protect.saved"].replace(
            "{hours}", "24"
        )
        assert page.input_value("#limit-loss-day") == "50"
        page.fill("#limit-loss-day", "80")
        page.click("#limits-save")
        page.wait_for_selector("#limits-pending li")
        pending = page.inner_text("#limits-pending li")
        assert words["protect.loss"] in pending and "80" in pending
        assert page.input_value("#limit-loss-day") == "50"
        assert page.locator("#protection-history tbody tr").count() == 2
        shot(page, f"protection-profile-{lang}")
        # The UK profile checks every 60 minutes: the dialog opens when the check falls due.
        now[0] += timedelta(minutes=61)
        page.wait_for_selector("#reality-dialog[open]", timeout=15_000)
        assert page.inner_text("#reality-title") == words["reality.title"]
        text = page.inner_text("#reality-text")
        for piece in re.split(r"\{[a-z]+\}", words["reality.body"]):
            assert piece.strip() in text  # every word of the sentence, in the page's language
        assert "1:01:" in text and "0.00" in text
        shot(page, f"protection-reality-check-{lang}", full_page=False)
        page.click("#reality-continue")
        page.wait_for_selector("#reality-dialog:not([open])", state="attached")
        history = page.locator("#protection-history tbody tr")
        page.reload()
        page.wait_for_selector("#protection-history")
        assert history.count() == 3  # the answer is a row too
        assert words["protect.history_reality_answer"].split("{", 1)[0].strip() in page.inner_text(
            "#protection-history"
        )
        context.close()


def test_the_console_excludes_a_player_with_a_reason(
    browser: Any, tmp_path: Path, failure_shots: list[Any]
) -> None:
    with serving(tmp_path, jurisdiction=load_profile("mt"), web_dir=ROOT / "web") as live:
        player = live.sign_up("Iris")["player_id"]
        context, page = open_page(browser, (1280, 900), failure_shots)
        page.goto(live.base_url + "/admin/")
        page.fill("#token", "test-admin-token")
        page.click("#sign-in button[type=submit]")
        page.wait_for_selector("#protected-players li")
        page.fill("#protect-player", player)
        page.select_option("#protect-action", "self-exclusion")
        page.fill("#protect-value", "12")
        page.click("#protect-form button[type=submit]")
        page.wait_for_selector("#notice:has-text('A player id and a reason')")  # no reason
        page.fill("#protect-reason", "asked by phone")
        page.click("#protect-form button[type=submit]")
        page.wait_for_selector(f"#protected-players li:has-text('{player}')")
        assert "Self-excluded (1)" in page.inner_text("#protected-players")
        first = page.locator("#protection-events tbody tr").first.inner_text()
        assert player in first and "operator" in first and "asked by phone" in first
        shot(page, "protection-console")
        context.close()


@pytest.mark.parametrize("lang", ["en", "ko", "ja"])
def test_the_session_limit_ends_the_session_in_a_dialog(
    lang: str,
    browser: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    failure_shots: list[Any],
) -> None:
    """The server's ``session_ended`` opens a dialog with the session's figures; the client does
    not reconnect until the player asks for a new session."""
    words = strings(lang)
    now = [datetime.now(UTC)]
    monkeypatch.setattr(clock, "utc_now", lambda: now[0])
    with serving(tmp_path, jurisdiction=load_profile("uk"), web_dir=ROOT / "web") as live:
        player = live.sign_up("Jun")
        headers = {"Authorization": f"Bearer {player['token']}"}
        put = live.http.put("/api/v1/me/limits", json={"session_minutes": 10}, headers=headers)
        assert put.status_code == 200
        context, page = open_page(browser, (1280, 900), failure_shots, reduced_motion="reduce")
        page.add_init_script(
            f"localStorage.setItem('boundless.token', {json.dumps(player['token'])});"
            f"localStorage.setItem('boundless.lang', {json.dumps(lang)});"
        )
        page.goto(live.base_url + "/#/profile")
        page.wait_for_selector("#session-panel:not([hidden])")
        now[0] += timedelta(minutes=10)
        page.wait_for_selector("#session-ended-dialog[open]", timeout=15_000)
        assert page.inner_text("#session-ended-title") == words["session_ended.title"]
        text = page.inner_text("#session-ended-text")
        for piece in re.split(r"\{[a-z]+\}", words["session_ended.session_limit"]):
            assert piece.strip() in text
        assert "0:10:" in text
        hub = live.app_state.handler.hub
        deadline = datetime.now(UTC) + timedelta(seconds=10)
        while hub.by_player.get(player["player_id"]) and datetime.now(UTC) < deadline:
            page.wait_for_timeout(100)
        assert not hub.by_player.get(player["player_id"])  # closed
        page.wait_for_timeout(1500)  # three times the client's first reconnect back-off
        assert not hub.by_player.get(player["player_id"])  # and no reconnect by itself
        shot(page, f"protection-session-ended-{lang}", full_page=False)
        page.click("#session-ended-again")
        page.wait_for_selector("#session-ended-dialog:not([open])", state="attached")
        page.wait_for_selector("#session-panel:not([hidden])")  # a new session's welcome
        context.close()
