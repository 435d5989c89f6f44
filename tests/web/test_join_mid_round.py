"""Joining a live `serve` table in the middle of its decisions (motion on, bots playing): the
page shows the table as it stands. No card flies in as if dealt, the phase never reads
"Dealing", and the cards and the decision timer show at once; both for a fresh page load and
for a switch from another table."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.web.kit import get_json, open_page, sign_up

pytestmark = pytest.mark.slow

TABLE = "boundless-1"
OTHER = "unlimited-1"

# Every change of the page, from its first script on: the phase shown, the cards on the felt,
# the ones animating in, the dock's status line and the timer's text.
RECORDER = """
window.__frames = [];
new MutationObserver(() => {
  const felt = document.querySelector('.felt');
  window.__frames.push({
    table: location.hash,
    round: felt?.dataset.roundId ?? null,
    phase: document.querySelector('#phase-label')?.dataset.phase ?? null,
    cards: document.querySelectorAll('.felt .card').length,
    fresh: document.querySelectorAll('.felt .card-fresh').length,
    status: document.querySelector('#dock-status')?.textContent ?? '',
    timer: document.querySelector('#timer-text')?.textContent ?? '',
  });
}).observe(document, { subtree: true, childList: true, characterData: true });
"""


def _wait_for_decisions(base: str, table_id: str) -> None:
    """Until the lobby says the table's round is in its decisions (bots keep it playing)."""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        rows = get_json(f"{base}/api/v1/tables")
        if any(row["table_id"] == table_id and row.get("phase") == "decisions" for row in rows):
            return
        time.sleep(0.05)
    pytest.fail(f"{table_id} never reached its decisions")


def _first_frames(page: Any, table_id: str) -> list[dict[str, Any]]:
    """The frames from the first that shows the table's felt, over the next second and a half."""
    page.wait_for_function(
        "id => (window.__frames || []).some(f => f.table.endsWith(id) && f.phase)", arg=table_id
    )
    page.wait_for_timeout(1500)
    frames = [f for f in page.evaluate("window.__frames") if f["table"].endswith(table_id)]
    shown = [f for f in frames if f["phase"]]
    first_round = shown[0]["round"]
    return [f for f in shown if f["round"] == first_round]


def _check_join(frames: list[dict[str, Any]], how: str) -> None:
    first = frames[0]
    assert first["phase"] == "decisions", f"{how}: the first frame shows {first}"
    assert first["cards"] >= 3, f"{how}: the cards are not there at once: {first}"
    assert first["timer"], f"{how}: no timer at once: {first}"
    # Cards that land later in this round (a bot's hit) may fly in; the ones already on the
    # table when it was joined never do, and nothing reads as a deal.
    assert all(f["phase"] != "dealing" for f in frames), f"{how}: 'Dealing' shown: {frames}"
    assert all("Dealing" not in f["status"] for f in frames), f"{how}: {frames}"
    assert first["fresh"] == 0, f"{how}: the standing cards were dealt again: {first}"


def test_a_join_mid_decisions_shows_the_table_as_it_stands(
    server: str, browser: Any, failure_shots: list[Any]
) -> None:
    context, page = open_page(browser, (1280, 720), failure_shots, reduced_motion="no-preference")
    try:
        sign_up(page, server, "midjoin")
        context.add_init_script(RECORDER)
        # A fresh page load at a table in the middle of its decisions.
        _wait_for_decisions(server, TABLE)
        page.goto(f"{server}/#/table/{TABLE}")
        page.reload()
        _check_join(_first_frames(page, TABLE), "page load")
        # A switch from another table to this one while it is deciding.
        page.evaluate(f"location.hash = '#/table/{OTHER}'")
        page.wait_for_selector(".felt[data-phase]")
        _wait_for_decisions(server, TABLE)
        page.evaluate(f"location.hash = '#/table/{TABLE}'")
        _check_join(_first_frames(page, TABLE), "table switch")
        # The statistics show the table's bets on each spot (the bots' here), not only yours.
        page.click("#tab-stats")
        page.wait_for_selector("#stats-spots[data-table-wide='yes'] tr[data-spot='1']")
        cells = page.locator("#stats-spots tr[data-spot='1'] td").all_inner_texts()
        assert int(cells[0]) >= 1 and cells[1] != "0.00", cells
    finally:
        context.close()
