"""What the browser tests share: the live server, the browser, screenshots, page helpers."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
STARTING_GRANT = 100_000
BETTING_SECONDS = 7


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.skip(
            "Chromium is not installed: install Debian's 'chromium' package "
            "(apt-get install chromium); .ci/run does this before the tests"
        )
    return path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def get_json(url: str, token: str | None = None) -> Any:
    request = urllib.request.Request(url)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.load(response)


def post_json(url: str, body: Any, token: str | None = None) -> Any:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST")
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.load(response)


# The flags the browser tests' server runs with: short timers, a known starting grant.
BROWSER_OPTIONS = (
    # The browser tests sign up more than the default 10 players a minute from one address.
    "--signup-rate",
    "1000/minute",
    "--starting-grant",
    str(STARTING_GRANT),
    "--betting-seconds",
    str(BETTING_SECONDS),
    "--insurance-seconds",
    "4",
    "--decision-seconds",
    "6",
    "--round-gap-seconds",
    "2",
)


def serve(
    data_dir: Path,
    options: Sequence[str] = BROWSER_OPTIONS,
    admin_token: str = "browser-test-admin",
) -> Iterator[str]:
    """``boundless serve`` with two bots and these options; yields its base URL."""
    port = free_port()
    log_path = data_dir / "serve.log"
    command = [
        sys.executable,
        "-m",
        "boundless.cli.main",
        "serve",
        "--port",
        str(port),
        "--data-dir",
        str(data_dir),
        "--bots",
        "2",
        *options,
        "--log-level",
        "warning",
    ]
    env = {**os.environ, "BOUNDLESS_ADMIN_TOKEN": admin_token}
    with log_path.open("w") as log:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                tables = get_json(f"{base}/api/v1/tables")
                if any(table["title"] == "boundless" for table in tables):
                    break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"boundless serve did not start:\n{log_path.read_text()[-3000:]}")
            time.sleep(0.2)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def open_page(
    browser: Any, size: tuple[int, int], shots: list[Any] | None = None, **options: Any
) -> tuple[Any, Any]:
    """A new browser context with a ``size`` (width, height) viewport and ``options``
    (``reduced_motion``, ``locale``, ...), and a page in it; ``shots`` is the test's
    ``failure_shots``, where the page goes to be photographed if the test fails."""
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, **options)
    page = context.new_page()
    if shots is not None:
        shots.append(page)
    return context, page


def shot(page: Any, name: str, full_page: bool = True) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    if not full_page:
        page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=full_page)


def submit(page: Any, field: str, value: str, button: str, shows: str) -> None:
    """Type ``value`` into ``field``, press ``button``, wait until ``shows`` is on the page."""
    page.fill(field, value)
    page.click(button)
    page.wait_for_selector(shows)


def sign_up(page: Any, base: str, name: str) -> str:
    """Sign up through the lobby's form; returns the token the page keeps."""
    page.goto(base + "/")
    page.wait_for_selector("body[data-ready='true']")
    submit(page, "#signup-name", name, "#signup-submit", ".welcome-card")
    token = page.evaluate("localStorage.getItem('boundless.token')")
    assert token
    return str(token)


# Words (as the language's own word segmentation finds them) that the page draws across two
# lines inside the elements matching a selector: each word's boxes must share one line.
BROKEN_WORDS_JS = """selector => {
    const lang = document.documentElement.lang;
    const words = new Intl.Segmenter(lang, { granularity: "word" });
    const broken = [];
    for (const element of document.querySelectorAll(selector)) {
        if (element.offsetParent === null) continue;
        const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            for (const part of words.segment(node.data)) {
                if (!part.isWordLike || part.segment.length < 2) continue;
                const range = document.createRange();
                range.setStart(node, part.index);
                range.setEnd(node, part.index + part.segment.length);
                const tops = new Set([...range.getClientRects()]
                    .filter((r) => r.width > 0).map((r) => Math.round(r.top)));
                if (tops.size > 1) broken.push(`${part.segment} in "${element.textContent}"`);
            }
        }
    }
    return broken;
}"""


# Cards on the felt that the insurance banner covers (it must cover none).
BANNER_CLEAR_JS = """() => {
    const banner = document.querySelector('#insurance-banner').getBoundingClientRect();
    const felt = document.querySelector('.felt').getBoundingClientRect();
    const out = [];
    if (banner.top < felt.top - 0.5 || banner.bottom > felt.bottom + 0.5) out.push('off the felt');
    for (const card of document.querySelectorAll('.felt .card')) {
        const r = card.getBoundingClientRect();
        const x = Math.min(r.right, banner.right) - Math.max(r.left, banner.left);
        const y = Math.min(r.bottom, banner.bottom) - Math.max(r.top, banner.top);
        if (x > 0.5 && y > 0.5) out.push(`covers ${card.dataset.card ?? 'a card'}`);
    }
    return out;
}"""
