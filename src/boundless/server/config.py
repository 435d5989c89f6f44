"""Server settings: where the data lives, how fast the clocks run, who may administer."""

from __future__ import annotations

import logging
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boundless.jurisdictions import JurisdictionProfile, load_profile
from boundless.server.protocol import MAX_MESSAGE_BYTES

ADMIN_TOKEN_ENV = "BOUNDLESS_ADMIN_TOKEN"


def admin_token_problem(token: str) -> str | None:
    """Why no client could present this admin token, or None. It travels as ``Authorization:
    Bearer <token>``: a header carries Latin-1 bytes only (a browser refuses to send anything
    else) and the server strips the spaces around it, so only printable ASCII without spaces
    is sure to arrive as typed. The message never repeats the token (a secret)."""
    for character in token:
        if not "!" <= character <= "~":
            held = "a space" if character.isspace() else f"U+{ord(character):04X}"
            return (
                "the admin token must be printable ASCII without spaces (it is sent in an HTTP "
                f"header); it holds {held}"
            )
    return None


DEFAULT_STARTING_GRANT = 100_000
"""Coins (minor units) a new player receives at sign-up: 1,000.00."""


def transport_options() -> dict[str, Any]:
    """The uvicorn settings the protocol relies on, for ``boundless serve`` and the tests alike.

    ``ws_max_size`` makes the WebSocket transport refuse a frame over the message limit (in
    bytes) from its header, with close code 1009, before reading it, so nobody can make the
    server buffer megabytes before ``hello``. Compression stays off (nothing to inflate).
    """
    return {
        "ws": "websockets-sansio",
        "ws_per_message_deflate": False,
        "ws_max_size": MAX_MESSAGE_BYTES,
    }


INVALID_UTF8_LINE = "a client sent a text frame that is not UTF-8: its socket is closed with 1007"


class _InvalidUtf8InOneLine(logging.Filter):
    """uvicorn logs a client's invalid UTF-8 text frame with a full traceback (7 lines for
    every socket that sends one: a cheap log flood). It already closes the socket with 1007;
    this makes the log one line without the traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg == "Invalid UTF-8 sequence received from client.":
            record.msg, record.args = INVALID_UTF8_LINE, ()
            record.exc_info, record.exc_text = None, None
            record.levelno, record.levelname = logging.INFO, "INFO"
        return True


def quiet_transport_logs() -> None:
    """Install the filters above on uvicorn's logger (once per process)."""
    logger = logging.getLogger("uvicorn.error")
    if not any(isinstance(item, _InvalidUtf8InOneLine) for item in logger.filters):
        logger.addFilter(_InvalidUtf8InOneLine())


def forwarded_options(allow_ips: str | None) -> dict[str, Any]:
    """uvicorn's settings for ``X-Forwarded-For`` / ``X-Forwarded-Proto``: trusted only from the
    proxies the operator names (``--forwarded-allow-ips``); by default from nobody, so a
    client cannot pick its own address (the sign-up limit counts per address). uvicorn alone
    would trust 127.0.0.1 (or ``$FORWARDED_ALLOW_IPS``)."""
    if not allow_ips:
        return {"proxy_headers": False, "forwarded_allow_ips": ""}
    return {"proxy_headers": True, "forwarded_allow_ips": allow_ips}


def forwarded_ips_problem(allow_ips: str) -> str | None:
    """Why ``--forwarded-allow-ips`` cannot be used, or None: a comma-separated list of IP
    addresses or networks (``10.0.0.0/8``), or ``*`` for every peer."""
    import ipaddress

    items = [item.strip() for item in allow_ips.split(",")]
    for item in items:
        if item == "*":
            continue
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError:
            return (
                f"{item!r} is not an IP address or network (give addresses or networks "
                "separated by commas, like '10.0.0.5,192.168.0.0/16', or '*' for any)"
            )
    return None


def default_web_dir() -> Path:
    """``web/`` at the root of a source checkout (the static web client)."""
    return Path(__file__).resolve().parents[3] / "web"


@dataclass(frozen=True, slots=True)
class TimerSettings:
    """Overrides for the title's timers. ``scale`` multiplies every timer (tests use 0.05)."""

    scale: float = 1.0
    betting_seconds: float | None = None
    insurance_seconds: float | None = None
    decision_seconds: float | None = None
    round_gap_seconds: float = 3.0
    """Pause between a settlement and the next betting window, so people see the results."""

    def seconds(self, kind: str, title_seconds: float) -> float:
        chosen = getattr(self, f"{kind}_seconds", None) if kind != "round_gap" else None
        base = title_seconds if chosen is None else chosen
        return max(0.0, base * self.scale)

    def round_gap(self) -> float:
        return max(0.0, self.round_gap_seconds * self.scale)


@dataclass(frozen=True, slots=True)
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 8000
    data_dir: Path = Path("data")
    database_url: str | None = None
    """``None``: a SQLite file ``boundless.sqlite`` in the data dir."""
    bots: int = 0
    admin_token: str = field(default_factory=lambda: os.environ.get(ADMIN_TOKEN_ENV, ""))
    starting_grant: int = DEFAULT_STARTING_GRANT
    timers: TimerSettings = TimerSettings()
    web_dir: Path = field(default_factory=default_web_dir)
    bet_batch_seconds: float = 0.01
    """Bets arriving within this window are written in one database transaction."""
    messages_per_second: float = 50.0
    """Per-socket rate limit (token bucket with a burst of twice this)."""
    max_body_bytes: int = MAX_MESSAGE_BYTES
    """Largest REST request body (413 ``too_large`` beyond it; no endpoint needs more)."""
    signup_rate: str = "10/minute;100/day"
    """Sign-ups per client address (a ``limits`` rate string; each sign-up grants coins)."""
    max_sockets_per_player: int = 8
    """Open WebSockets per player; one more is refused (``too_many_sockets``, close 1008)."""
    titles: tuple[str, ...] | None = None
    """Title keys to open shared tables for; ``None``: every shipped title."""
    jurisdiction: JurisdictionProfile = field(default_factory=lambda: load_profile("none"))
    """The player-protection profile (``--jurisdiction`` / ``--jurisdiction-file``)."""
    forwarded_allow_ips: str | None = None
    """Proxies whose ``X-Forwarded-For`` is believed (see :func:`forwarded_options`)."""

    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{self.data_dir / 'boundless.sqlite'}"

    def with_admin_token(self) -> ServerConfig:
        """This config with an admin token, generated when none was given."""
        if self.admin_token:
            return self
        from dataclasses import replace

        return replace(self, admin_token=secrets.token_urlsafe(24))
