"""Bet batching: one batch per window, at most one bet per player in a batch, the rest next."""

from __future__ import annotations

import asyncio

from boundless.server.tables.bets import BetBatcher, PendingBet
from boundless.server.tables.service import BetRequest


def _request(player_id: str, bet_id: str) -> BetRequest:
    return BetRequest(player_id, bet_id, [1], [100], [{}])


def test_a_players_second_bet_waits_for_the_next_batch() -> None:
    batches: list[list[str]] = []

    async def write(batch: list[PendingBet]) -> None:
        batches.append([item.request.bet_id for item in batch])
        for item in batch:
            item.answer({"bet_id": item.request.bet_id})

    async def scenario() -> list[object]:
        batcher = BetBatcher(0.01, write)
        futures = [
            batcher.submit(_request("ana", "a1")),
            batcher.submit(_request("ben", "b1")),
            batcher.submit(_request("ana", "a2")),
        ]
        return list(await asyncio.gather(*futures))

    answers = asyncio.run(scenario())
    assert batches == [["a1", "b1"], ["a2"]]
    assert answers == [{"bet_id": "a1"}, {"bet_id": "b1"}, {"bet_id": "a2"}]


def test_fail_all_refuses_every_queued_bet_and_writes_nothing() -> None:
    written: list[PendingBet] = []

    async def scenario() -> BaseException | None:
        async def write(batch: list[PendingBet]) -> None:
            written.extend(batch)

        batcher = BetBatcher(0.01, write)
        future = batcher.submit(_request("ana", "a1"))
        batcher.fail_all(RuntimeError("the round was cancelled"))
        await asyncio.sleep(0.03)  # past the window: the cancelled flush does not run
        return future.exception()

    assert str(asyncio.run(scenario())) == "the round was cancelled"
    assert written == []


def test_batches_are_written_one_at_a_time_in_order_and_drain_waits_for_them() -> None:
    """A batch's write may wait (in a worker thread): the next does not start before it ends,
    and ``drain`` returns only once every bet queued before or during it is answered."""
    log: list[str] = []

    async def scenario() -> list[str]:
        held = asyncio.Event()

        async def write(batch: list[PendingBet]) -> None:
            names = ",".join(item.request.bet_id for item in batch)
            log.append(f"start {names}")
            if not held.is_set():
                await held.wait()
            log.append(f"end {names}")
            for item in batch:
                item.answer({"bet_id": item.request.bet_id})

        batcher = BetBatcher(0.01, write, max_batch=1)
        first = batcher.submit(_request("ana", "a1"))
        batcher.submit(_request("ben", "b1"))
        batcher.flush()
        await asyncio.sleep(0)
        draining = asyncio.ensure_future(batcher.drain())
        await asyncio.sleep(0)
        assert bool(batcher) and not draining.done() and not first.done()
        held.set()
        await draining
        assert not batcher
        return log

    assert asyncio.run(scenario()) == ["start a1", "end a1", "start b1", "end b1"]
