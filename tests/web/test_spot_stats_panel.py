"""The statistics panel's table of bets per spot, as a cluster gateway sends it (scripted socket):
during betting only your stake and a note that the table's figures come at the bet close; from
the bet close the table's positions and stakes; a note where they leave out part of the table."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.web.kit import ROOT, open_page, sign_up
from tests.web.mock_table import MockSocket, state

pytestmark = pytest.mark.slow

SHARED = {"table": "unlimited-mock", "title": "unlimited"}
EN = json.loads((ROOT / "web" / "i18n" / "en.json").read_text("utf-8"))
SPOTS = {1: ["TS", "7H"], 2: ["9C", "9D"], 3: []}


def test_the_panel_shows_the_tables_bets_per_spot_from_the_bet_close(
    server: str, browser: Any, failure_shots: list[Any]
) -> None:
    context, page = open_page(browser, (1280, 720), locale="en-US")
    failure_shots.append(page)
    mock = MockSocket(page)
    mock.initial = [state("betting", 3, [], {1: [], 2: [], 3: []}, side_bets=(), **SHARED)]
    sign_up(page, server, "SpotStats")
    page.goto(f"{server}/#/table/{SHARED['table']}")
    page.wait_for_selector(".felt")
    page.click("#tab-stats")
    # Betting on a gateway: no table figures yet, and the panel says when they come.
    page.wait_for_selector("#stats-spots[data-table-wide='no']")
    assert page.inner_text("#stats-spots-note") == EN["stats.spots_at_close"]
    # The bet close: the table's totals, summed by the coordinator over every gateway.
    dealt = state("decisions", 3, ["9H"], SPOTS, hole_hidden=True, side_bets=(), **SHARED)
    dealt["public"]["spot_bets"] = {
        "1": {"positions": 2, "main": 1100, "side": 0},
        "2": {"positions": 1, "main": 500, "side": 0},
    }
    mock.push(dealt)
    page.wait_for_selector("#stats-spots[data-table-wide='yes']")
    assert page.locator("#stats-spots tr[data-spot='1'] td").all_inner_texts()[:2] == [
        "2",
        "11.00",
    ]
    assert page.locator("#stats-spots tr[data-spot='3'] td").all_inner_texts()[:2] == [
        "0",
        "0.00",
    ]
    assert page.locator("#stats-spots-note").count() == 0
    # A counted report of an older gateway had no totals: the panel says they are partial.
    dealt["public"]["spot_bets_partial"] = True
    mock.push(dealt)
    page.wait_for_selector("#stats-spots-note")
    assert page.inner_text("#stats-spots-note") == EN["stats.spots_partial"]
    context.close()
