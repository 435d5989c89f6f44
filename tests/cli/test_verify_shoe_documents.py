"""``boundless verify-shoe`` reads every form the platform hands a shoe out in: a saved reveal,
the REST shoe document, its ``reveal`` with ``--commitment``, and the WebSocket notice (or its
``detail``). A tampered order fails in each; what is not a reveal is one line."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import assert_refused, invoke

from boundless.core.random_source import SeededSource
from boundless.core.shoe import Shoe
from boundless.ledger import make_session_factory
from boundless.server import messages
from boundless.server.storage.database import migrated_engine
from boundless.server.tables.endpoints import shoe as shoe_endpoint
from boundless.server.tables.repository import TableRepository

SHOE = Shoe.shuffled(1, 0.75, SeededSource(9))
REVEAL = SHOE.reveal()


@pytest.fixture(scope="module")
def rest_document(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What ``GET /api/v1/shoes/boundless-1/1`` answers for the shoe, finished."""
    path = tmp_path_factory.mktemp("shoes") / "shoes.sqlite"
    engine = migrated_engine(f"sqlite:///{path}")
    try:
        with make_session_factory(engine).begin() as session:
            repository = TableRepository(session)
            cards = [str(card) for card in REVEAL.cards]
            repository.add_shoe("boundless-1", 1, REVEAL.commitment, REVEAL.salt_hex, cards, None)
            repository.finish_shoes("boundless-1", 1)
            document: dict[str, Any] = shoe_endpoint("boundless-1", 1, session)
        return json.loads(json.dumps(document))
    finally:
        engine.dispose()


def notice() -> dict[str, Any]:
    """The ``shoe_finished`` notice as a table sends it (``TableShoes._publish``)."""
    detail = {"shoe_number": 1, **REVEAL.to_json(), "verified": REVEAL.verify()}
    return messages.notice("boundless-1", "shoe_finished", detail)


def swapped(cards: list[str]) -> list[str]:
    return [cards[1], cards[0], *cards[2:]]


FORMS: dict[str, tuple[Callable[[dict[str, Any]], Any], Callable[[Any], Any], list[str]]] = {
    # form: (the document, the document with two cards swapped, extra arguments)
    "saved reveal": (
        lambda _: REVEAL.to_json(),
        lambda d: {**d, "cards": swapped(d["cards"])},
        [],
    ),
    "REST document": (
        lambda rest: rest,
        lambda d: {**d, "reveal": {**d["reveal"], "cards": swapped(d["reveal"]["cards"])}},
        [],
    ),
    "REST reveal": (
        lambda rest: rest["reveal"],
        lambda d: {**d, "cards": swapped(d["cards"])},
        ["--commitment", REVEAL.commitment],
    ),
    "notice": (
        lambda _: notice(),
        lambda d: {**d, "detail": {**d["detail"], "cards": swapped(d["detail"]["cards"])}},
        [],
    ),
    "notice detail": (
        lambda _: notice()["detail"],
        lambda d: {**d, "cards": swapped(d["cards"])},
        [],
    ),
}


@pytest.mark.parametrize("form", FORMS)
def test_every_form_verifies_and_a_swap_is_caught(
    tmp_path: Path, rest_document: dict[str, Any], form: str
) -> None:
    make, tamper, extra = FORMS[form]
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(make(rest_document)))
    bad.write_text(json.dumps(tamper(make(rest_document))))
    ok = invoke("verify-shoe", str(good), *extra)
    assert ok.code == 0 and ok.stdout.startswith("ok: 52 cards"), ok.output
    mismatch = invoke("verify-shoe", str(bad), *extra)
    assert mismatch.code == 1 and "MISMATCH" in mismatch.stderr, mismatch.output


@pytest.mark.parametrize(
    ("document", "words"),
    [
        ({"salt": "ab", "cards": ["AS"], "verified": True, "check": "..."}, "--commitment"),
        (
            {
                "table_id": "boundless-1",
                "shoe_number": 2,
                "commitment": "ab",
                "finished": False,
                "reveal": None,
            },
            "is not finished",
        ),
        ({"type": "notice", "kind": "shuffle", "detail": {}}, "'shuffle' notice holds no reveal"),
        ([1, 2], "must be a JSON object"),
    ],
)
def test_what_is_not_a_reveal_is_one_line(tmp_path: Path, document: Any, words: str) -> None:
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(document))
    assert_refused(invoke("verify-shoe", str(path)), words)
