"""Bet batching: one batch per window, at most one bet per player in a batch, the rest next."""

from __future__ import annotations

import asyncio

from boundless.core.errors import RulesError
from boundless.ledger import InsufficientFundsError
from boundless.server.tables.bets import BetBatcher, PendingBet
from boundless.server.tables.service import BetBatchOutcome, BetRequest, all_or_each


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


def test_a_batch_refused_whole_is_retried_bet_by_bet_and_only_the_refused_are_answered() -> None:
    requests = [_request("ana", "a1"), _request("ben", "b1"), _request("cy", "c1")]
    candidates = [(index, request, 1000) for index, request in enumerate(requests)]
    outcome = BetBatchOutcome(answers=[None, None, None])
    calls: list[list[str]] = []

    def attempt(group: list[tuple[int, BetRequest, int]]) -> None:
        calls.append([request.bet_id for _, request, _ in group])
        if any(request.player_id == "ben" for _, request, _ in group):
            raise InsufficientFundsError("wallet:ben", 0, 100, player_id="ben")

    taken = all_or_each(candidates, outcome, InsufficientFundsError, attempt)
    assert calls == [["a1", "b1", "c1"], ["a1"], ["b1"], ["c1"]]
    assert [request.bet_id for _, request, _ in taken] == ["a1", "c1"]
    assert outcome.answers[0] is None and outcome.answers[2] is None
    assert isinstance(outcome.answers[1], InsufficientFundsError)


def test_a_batch_taken_whole_is_attempted_once() -> None:
    candidates = [(0, _request("ana", "a1"), 1000), (1, _request("ben", "b1"), 1000)]
    calls: list[int] = []
    taken = all_or_each(
        candidates, BetBatchOutcome(), RulesError, lambda group: calls.append(len(group))
    )
    assert taken == candidates
    assert calls == [2]
