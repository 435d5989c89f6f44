"""A gateway's wallet calls at insurance and at a step close run off the event loop (the
operator's wallet answers over HTTP): while one is held (its database session blocked in a
worker thread, see :mod:`tests.cluster.test_ledger_off_loop`), the gateway answers another
socket. Had the call blocked the loop, nobody would release it and ``released_by_loop`` would
be false after the gate's own safety wait."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from boundless.core.round import INSURANCE
from boundless.ledger import LedgerService
from boundless.server.cluster import gateway_table
from boundless.server.gateway.handler import MessageHandler
from boundless.server.tables.money import TableMoney
from tests.cluster.conftest import run
from tests.cluster.harness import TABLE, dealer_maker
from tests.cluster.test_gateway_players import ACE_SEED
from tests.cluster.test_ledger_off_loop import (
    BETS,
    Gate,
    Socket,
    deal_to_the_first_step,
    send,
    two_on_a_held_gateway,
)

GRANT = 1_000_000


async def deal_to_insurance(
    handler: MessageHandler, table: Any, sockets: list[tuple[Socket, str]]
) -> tuple[Any, Any]:
    """A round whose dealer shows an ace, the first socket's player betting on spot 1, dealt
    up to its insurance window."""
    dealer = dealer_maker(ACE_SEED)(1)
    players = table.new_slice(1, dealer.opened)
    for socket, token in sockets:
        await send(handler, socket, type="hello", token=token)
        await send(handler, socket, type="join", table_id=TABLE)
    await asyncio.sleep(0)  # the hellos' greetings (what ended while away) are read
    await send(handler, sockets[0][0], type="bet", table_id=TABLE, request_id="b1",
               bet_id="b1", bets=BETS)  # fmt: skip
    for event in dealer.close_bets([await players.bets_report()]):
        await players.apply(event)
    assert table.round.phase == INSURANCE
    return dealer, players


def test_a_gateway_answers_a_socket_while_insurance_reads_the_wallet(tmp_path: Path) -> None:
    """The insurance's wallet read is held: the gateway answers another socket meanwhile, and
    the window's close (the coordinator's event) waits for the stake before it applies."""
    sessions, gate, table, handler, signed = two_on_a_held_gateway(tmp_path)
    (ana, ana_token), (_ben, ben_token) = signed

    async def body() -> tuple[list[dict[str, Any]], bool, list[dict[str, Any]]]:
        insuring, watching = Socket(), Socket()
        dealer, players = await deal_to_insurance(
            handler, table, [(insuring, ana_token), (watching, ben_token)]
        )
        gate.armed = True  # the next session is the insurance's wallet read
        insure = {"table_id": TABLE, "spot": 1, "kind": "insurance", "request_id": "i1"}
        insuring_task = asyncio.ensure_future(send(handler, insuring, type="insurance", **insure))
        await gate.entered_call()
        await send(handler, watching, type="resync", table_id=TABLE, request_id="r1")
        answered_while_held = watching.acks("r1")
        closing = asyncio.ensure_future(apply_all(players, dealer.close_insurance()))
        await asyncio.sleep(0)
        closed_before_the_stake = closing.done()
        gate.release.set()
        await insuring_task
        await closing
        return answered_while_held, closed_before_the_stake, insuring.acks("i1")

    answered, closed_early, acks = run(body())
    assert [m["type"] for m in answered] == ["ack"]
    assert gate.released_by_loop is True
    assert not closed_early
    assert [m["type"] for m in acks] == ["ack"]
    assert table.round.phase != INSURANCE
    with sessions.begin() as session:
        wallet = LedgerService(session).wallet_balances([ana])[ana]
    assert wallet == table.money.balances[ana] == acks[0]["balance"] == GRANT - 500 - 250


def doubling_gateway(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Gate, Any, MessageHandler, list[tuple[str, str]]]:
    """A held gateway whose doubles are always in doubt (their wallets read at a step close,
    as with an operator's wallet that checks every extra stake)."""
    _sessions, gate, table, handler, signed = two_on_a_held_gateway(tmp_path)
    ana = signed[0][0]
    monkeypatch.setattr(TableMoney, "coins_in_doubt", lambda *_: [ana])
    return gate, table, handler, signed


async def double_at_the_first_step(
    handler: MessageHandler, table: Any, signed: list[tuple[str, str]]
) -> tuple[Any, Socket]:
    (_ana, ana_token), (_ben, ben_token) = signed
    deciding, watching = Socket(), Socket()
    sockets = [(deciding, ana_token), (watching, ben_token)]
    _dealer, players = await deal_to_the_first_step(handler, table, sockets, seed=4)
    await send(handler, deciding, type="decide", table_id=TABLE, spot=1, step=1,
               action="double", request_id="d1")  # fmt: skip
    assert [m["type"] for m in deciding.acks("d1")] == ["ack"]
    return players, watching


def test_a_gateway_answers_a_socket_while_a_step_close_reads_wallets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate, table, handler, signed = doubling_gateway(tmp_path, monkeypatch)
    ana = signed[0][0]

    async def body() -> tuple[list[dict[str, Any]], bool, Any]:
        players, watching = await double_at_the_first_step(handler, table, signed)
        gate.armed = True  # the next session is the step close's wallet read
        reporting = asyncio.ensure_future(players.step_report())
        await gate.entered_call()
        await send(handler, watching, type="resync", table_id=TABLE, request_id="r1")
        answered_while_held = watching.acks("r1")
        await asyncio.sleep(0)
        reported_before_the_read = reporting.done()
        gate.release.set()
        return answered_while_held, reported_before_the_read, await reporting

    answered, reported_early, _report = run(body())
    assert [m["type"] for m in answered] == ["ack"]
    assert gate.released_by_loop is True
    assert not reported_early
    assert table.round.player_free_coins(ana) == GRANT - 500


def test_a_step_close_whose_wallet_read_is_too_slow_reports_with_no_double(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The coordinator waits for the step's reports a bounded time: a wallet read past the
    gateway's bound counts as unreadable (the double falls back), and the report goes."""
    gate, table, handler, signed = doubling_gateway(tmp_path, monkeypatch)
    ana = signed[0][0]
    monkeypatch.setattr(gateway_table, "STEP_WALLET_READ_SECONDS", 0.01)

    async def body() -> tuple[Any, bool]:
        players, _watching = await double_at_the_first_step(handler, table, signed)
        gate.armed = True
        report = await players.step_report()
        read_still_held = not gate.release.is_set() and gate.entered.is_set()
        gate.release.set()
        return report, read_still_held

    _report, read_still_held = run(body())
    assert read_still_held  # the report did not wait for the read
    assert table.round.player_free_coins(ana) == 0  # no coins known: the double falls back


async def apply_all(players: Any, events: list[Any]) -> None:
    for event in events:
        await players.apply(event)
