"""The core's event log as JSON, and back: what the play record stores and rebuilds from.

Each event becomes ``{"type": <class name>, <field>: <value>...}``: numpy arrays as lists of
ints, cards as their codes (``"AS"``), tuples as lists. :func:`decode_events` gives back events
that :meth:`SharedRound.rebuild` replays into the same round.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any, get_args

import numpy as np

from boundless.core.arrays import IntArray
from boundless.core.cards import Card
from boundless.core.errors import EventLogError
from boundless.core.round import events as ev

# Every event the core defines: a round's own log and the table's public stream (the unions
# in ``events.py`` are the one list of them).
EVENT_TYPES: dict[str, type[Any]] = {
    cls.__name__: cls for cls in (*get_args(ev.Event), *get_args(ev.TableEvent))
}


def _plain(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, tuple | list):
        return [_plain(item) for item in value]
    if isinstance(value, np.integer):
        return int(value)
    return value


def encode_event(event: ev.Event | ev.TableEvent) -> dict[str, Any]:
    body: dict[str, Any] = {"type": type(event).__name__}
    for field in dataclasses.fields(event):
        body[field.name] = _plain(getattr(event, field.name))
    return body


def encode_events(events: Iterable[ev.Event]) -> list[dict[str, Any]]:
    return [encode_event(event) for event in events]


def _card(value: Any) -> Card | None:
    return None if value is None else Card.parse(str(value))


def _array(value: Any, width: int | None = None) -> IntArray:
    array = ev.frozen_array(value)
    if width is not None and array.ndim == 1 and len(array) == 0:
        return ev.frozen_array(np.zeros((0, width), dtype=np.int64))
    return array


def _nested_tuple(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_nested_tuple(item) for item in value)
    return value


TABLE_ONLY = (ev.PeekResult, ev.StepOpened, ev.StepDealt, ev.DealerRevealed)


def decode_event(body: dict[str, Any]) -> ev.Event | ev.TableEvent:
    kind = body.get("type")
    cls = EVENT_TYPES.get(str(kind))
    if cls is None:
        raise EventLogError(f"unknown event type {kind!r}")
    values: dict[str, Any] = {}
    for field in dataclasses.fields(cls):
        if field.name not in body:
            if field.default is not dataclasses.MISSING:
                continue
            raise EventLogError(f"{kind}: missing field {field.name!r}")
        values[field.name] = body[field.name]
    annotation = {field.name: str(field.type) for field in dataclasses.fields(cls)}
    for name, value in list(values.items()):
        declared = annotation[name]
        if declared == "IntArray":
            width = len(values.get("side_keys", ())) if name == "side_amounts" else None
            values[name] = _array(value, width)
        elif declared in ("Card", "Card | None"):
            values[name] = _card(value)
        elif name == "spot_cards":
            values[name] = tuple(
                (int(spot), Card.parse(one), Card.parse(two)) for spot, one, two in value
            )
        elif name == "cards" and cls in (ev.DealerCardsDrawn, ev.DealerRevealed):
            values[name] = tuple(Card.parse(card) for card in value)
        elif declared.startswith("tuple"):
            values[name] = _nested_tuple(value)
    return cls(**values)  # type: ignore[no-any-return]


def decode_events(bodies: Sequence[dict[str, Any]]) -> list[ev.Event]:
    """A round's own event log (the table's public stream has events of its own)."""
    events: list[ev.Event] = []
    for body in bodies:
        event = decode_event(body)
        if isinstance(event, TABLE_ONLY):
            raise EventLogError(f"{type(event).__name__} belongs to a table's public stream")
        events.append(event)
    return events
