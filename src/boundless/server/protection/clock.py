"""The protection clock: aware UTC datetimes. Tests replace :func:`utc_now` to move time (the
cooling-off of a limit increase, the end of a time-out) without waiting."""

from __future__ import annotations

from datetime import UTC, datetime


def utc_now() -> datetime:
    return datetime.now(UTC)


def aware(moment: datetime) -> datetime:
    """SQLite keeps no zone: its datetimes are UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def epoch_ms(moment: datetime) -> int:
    return int(aware(moment).timestamp() * 1000)
