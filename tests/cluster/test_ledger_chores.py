"""The coordinator's queued ledger writes (``ledger_chores``): in order, the round not waiting
for them; one given up because the database stayed away past its retry budget is queued again,
in its place, ahead of the next write (before, it was only logged: a dropped gateway's slices
held their coins until that gateway started again); one the ledger refused is not."""

from __future__ import annotations

import asyncio

from boundless.ledger.errors import LedgerUnavailableError, RoundClosedError
from boundless.server.cluster.ledger_chores import LedgerChores
from tests.cluster.conftest import run


class Writes:
    def __init__(self) -> None:
        self.done: list[str] = []
        self.failing: dict[str, BaseException] = {}

    def write(self, name: str):  # type: ignore[no-untyped-def]
        async def go() -> None:
            error = self.failing.pop(name, None)
            if error is not None:
                raise error
            self.done.append(name)

        return go


def test_a_write_given_up_while_the_database_was_away_is_tried_again_in_order() -> None:
    async def body() -> tuple[list[str], list[str]]:
        chores, writes = LedgerChores(wait_seconds=0.5), Writes()
        writes.failing["open 1"] = LedgerUnavailableError("the database stayed away")
        await chores.do("open 1", writes.write("open 1"))
        assert [what for what, _ in chores.again] == ["open 1"]
        await chores.do("refund 1", writes.write("refund 1"))
        await chores.drain(1.0)
        first = list(writes.done)
        writes.failing["end 1"] = LedgerUnavailableError("away again")
        await chores.do("end 1", writes.write("end 1"))
        await chores.drain(1.0)  # an orderly stop tries it once more
        return first, writes.done

    first, done = run(body())
    assert first == ["open 1", "refund 1"]
    assert done == ["open 1", "refund 1", "end 1"]


def test_a_write_the_ledger_refused_is_not_tried_again() -> None:
    async def body() -> tuple[list[str], int]:
        chores, writes = LedgerChores(wait_seconds=0.5), Writes()
        writes.failing["end 1"] = RoundClosedError("t", 1, "cancelled", "end")
        await chores.do("end 1", writes.write("end 1"))
        await chores.do("open 2", writes.write("open 2"))
        await chores.drain(1.0)
        await asyncio.sleep(0)
        return writes.done, len(chores.again)

    done, again = run(body())
    assert done == ["open 2"] and again == 0
