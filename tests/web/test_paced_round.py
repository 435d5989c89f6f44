"""The paced round, with a scripted socket that sends what the server sends, as fast as it
sends it: the dealer's hole card turns before any draw, each draw lands on its own, and no
result (outcome, net, status line) shows before the last card has landed and `settled` has
come. Screenshots of the reveal land in artifacts/screenshots/."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from tests.web.kit import open_page, shot, sign_up
from tests.web.mock_table import TABLE_ID, MockSocket, position, settled, state, you

pytestmark = pytest.mark.slow

SPOTS = {1: ["TS", "7D"]}
DEALER = ["9C", "5D", "2H", "4S"]  # up card, hole card, two draws: 20

RECORDER = """() => {
    window.__frames = [];
    const roundId = () => document.querySelector('.felt')?.dataset.roundId;
    const look = () => {
        const cards = document.querySelectorAll('#dealer-cards .card');
        const backs = document.querySelectorAll('#dealer-cards .card-back');
        const net = document.querySelector('#result-net');
        const results = document.querySelector('#results');
        window.__frames.push({
            t: performance.now(),
            dealer: cards.length - backs.length,
            backs: backs.length,
            round: roundId(),
            net: Boolean(net) && results?.dataset.roundId === roundId(),
            outcomes: document.querySelectorAll('.my-hand .outcome').length,
            status: document.querySelector('#dock-status')?.textContent ?? '',
        });
    };
    look();
    const watch = { subtree: true, childList: true, characterData: true };
    new MutationObserver(look).observe(document.body, watch);
}"""


def _deal(round_no: int) -> list[dict[str, Any]]:
    """The deal and the open decision, as the server sends them."""
    return [
        state(
            "decisions",
            round_no,
            DEALER[:1],
            SPOTS,
            hole_hidden=True,
            timer="decision",
            current_spot=1,
            step=1,
        ),
        you("decisions", round_no, [position(1, SPOTS[1], legal=("hit", "stand"))], step=1),
    ]


def _dealer_plays(round_no: int) -> list[dict[str, Any]]:
    """From the last decision to the settled state: the server needs milliseconds for this."""
    mine = position(1, SPOTS[1], status="stood")
    return [
        state("dealer", round_no, DEALER[:1], SPOTS, hole_hidden=True),
        you("dealer", round_no, [mine]),
        state("settling", round_no, DEALER, SPOTS),
    ]


def _result(round_no: int) -> dict[str, Any]:
    return settled(round_no, [position(1, SPOTS[1], outcome="lose", payout=0, status="stood")])


def _frames(page: Any) -> list[dict[str, Any]]:
    frames: list[dict[str, Any]] = page.evaluate("window.__frames")
    return [f for f in frames if f["round"] == frames[-1]["round"]]


def _at_the_decision(page: Any, server: str, name: str) -> MockSocket:
    """Sign ``name`` up and open the table on a mocked socket at round 1's first decision, with
    the frame recorder running; returns the socket, to push the rest of the round."""
    mock = MockSocket(page)
    mock.initial = _deal(1)
    sign_up(page, server, name)
    page.goto(f"{server}/#/table/{TABLE_ID}")
    page.wait_for_selector("#action-stand:not([disabled])")
    page.evaluate(RECORDER)
    return mock


def test_reveal_is_paced_and_results_come_last(
    server: str, browser: Any, failure_shots: list[Any]
) -> None:
    context, page = open_page(browser, (1280, 720), failure_shots, locale="en-US")
    mock = _at_the_decision(page, server, "Pace")

    # Everything at once, as the server sends it: the page deals it out one card at a time.
    mock.push(*_dealer_plays(1), _result(1))
    page.wait_for_selector("#result-net")
    shot(page, "paced-reveal-result", full_page=False)
    frames = _frames(page)
    counts = [f["dealer"] for f in frames]
    assert counts == sorted(counts), "a dealer card went away"
    assert all(b - a <= 1 for a, b in itertools.pairwise(counts)), "two cards landed at once"
    first = {n: next(f["t"] for f in frames if f["dealer"] == n) for n in (2, 3, 4)}
    # The hole card turns (the back goes) before the first draw lands, each draw after it.
    turned = next(f for f in frames if f["dealer"] == 2)
    assert turned["backs"] == 0
    assert first[2] < first[3] < first[4]
    assert first[3] - first[2] > 100 and first[4] - first[3] > 100, "draws were not paced"
    early = [
        f
        for f in frames
        if f["dealer"] < 4 and (f["net"] or f["outcomes"] or "lost" in f["status"])
    ]
    assert early == [], "a result showed before the last card"
    shown = next(f["t"] for f in frames if f["net"])
    assert shown > first[4]
    assert "lost" in page.inner_text("#dock-status")

    # The next round: every card lands, and still no result until `settled` comes.
    mock.push(state("betting", 2, [], {}), *_deal(2))
    page.wait_for_selector("#action-stand:not([disabled])")
    mock.push(*_dealer_plays(2))
    landed = "#dealer-cards .card:not(.card-back)"
    page.wait_for_function(f"document.querySelectorAll('{landed}').length === 4")
    page.wait_for_selector(".felt[data-phase='settling']")
    shot(page, "paced-reveal-before-settled", full_page=False)
    assert page.locator(".my-hand .outcome").count() == 0
    assert page.get_attribute("#results", "data-round-id") != f"{TABLE_ID}:2"
    assert "lost" not in page.inner_text("#dock-status")
    mock.push(_result(2))
    page.wait_for_selector(f"#results[data-round-id='{TABLE_ID}:2'] #result-net")
    context.close()


def test_reduced_motion_shows_the_table_at_once(server: str, browser: Any) -> None:
    context, page = open_page(browser, (1280, 720), reduced_motion="reduce")
    mock = _at_the_decision(page, server, "Still")
    mock.push(*_dealer_plays(1), _result(1))
    page.wait_for_selector("#result-net")
    counts = sorted({f["dealer"] for f in _frames(page)})
    assert 2 not in counts and 3 not in counts, "reduced motion still dealt one by one"
    context.close()
