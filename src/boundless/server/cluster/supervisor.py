"""``boundless cluster``'s supervisor: starts the table's processes, restarts one that dies.

Each child is started once and watched; a child that exits while the cluster runs is started
again after a back-off (tenacity's exponential wait over its quick deaths in a row; a child that
ran a minute starts over at the shortest wait), with one line on stderr per restart. A signal
stops them all: the coordinators first, all at once (the active one ends its round in flight;
the standbys, told to stop, take no lease), then the gateways, so no coordinator runs a round
whose gateways are already gone.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from tenacity import RetryCallState, Retrying, wait_exponential

STEADY_SECONDS = 60.0
"""A child that ran this long before dying is restarted at the shortest wait again."""
BACK_OFF = wait_exponential(multiplier=0.5, min=0.5, max=30.0)


def port_in_use(host: str, port: int) -> bool:
    """Whether something already listens on ``host:port`` (tried by binding it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((host, port))
        except OSError:
            return True
    return False


def back_off_seconds(quick_deaths: int) -> float:
    """The wait before restart number ``quick_deaths`` of a child that keeps dying."""
    state = RetryCallState(Retrying(), None, (), {})
    state.attempt_number = max(1, quick_deaths)
    return float(BACK_OFF(state))


@dataclass
class Child:
    label: str
    argv: list[str]
    env: dict[str, str] | None
    url: str = ""
    process: subprocess.Popen[bytes] | None = None
    started: float = 0.0
    quick_deaths: int = 0
    restart_at: float | None = None
    restarts: int = field(default=0)

    def start(self) -> None:
        self.process = subprocess.Popen(self.argv, env=self.env)
        self.started = time.monotonic()
        self.restart_at = None

    def line(self) -> str:
        assert self.process is not None
        where = f"{self.url} " if self.url else ""
        return f"{self.label}: {where}pid {self.process.pid}"


def supervise(children: list[Child], *, restart: bool, say: Callable[..., None]) -> None:
    """Start ``children`` in order (printing each one's line), keep them running until a
    signal, then stop them (coordinators first)."""
    stopping = False

    def stop(_signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    for child in children:
        child.start()
        say(child.line())
    alive = list(children)
    while alive and not stopping:
        now = time.monotonic()
        for child in list(alive):
            if child.restart_at is not None:
                if now >= child.restart_at:
                    child.start()
                continue
            assert child.process is not None
            code = child.process.poll()
            if code is None:
                continue
            if not restart:
                say(f"{child.label}: exited with code {code} (not restarted)", err=True)
                alive.remove(child)
                continue
            ran = now - child.started
            child.quick_deaths = 1 if ran >= STEADY_SECONDS else child.quick_deaths + 1
            wait = back_off_seconds(child.quick_deaths)
            child.restarts += 1
            child.restart_at = now + wait
            say(
                f"{child.label}: exited with code {code}; restarting in {wait:.1f} s "
                f"(restart {child.restarts})",
                err=True,
            )
        time.sleep(0.2)
    _stop_all([child for child in alive if child.restart_at is None])


def _stop_all(children: list[Child]) -> None:
    """The coordinators, then the gateways; each group given 10 s to stop."""
    order = sorted(children, key=lambda child: _stop_rank(child.label))
    for rank in sorted({_stop_rank(child.label) for child in order}):
        group = [c.process for c in order if _stop_rank(c.label) == rank and c.process]
        for process in group:
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
        for process in group:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


def _stop_rank(label: str) -> int:
    """Every coordinator at once (which one leads changes with each takeover; a standby told
    to stop takes no lease), then the gateways."""
    return 0 if label == "coordinator" or label.startswith("standby") else 1
