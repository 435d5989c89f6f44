"""A round in which every bet on a gateway was refused (the ledger away: ``ledger_unavailable``)
leaves an ended play record row, not one open for ever: the gateway writes the round's row before
its first batch of bets, so when none of them is staked it must end that row itself."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from boundless.core.round.follower import BetsReport, StepReport
from boundless.core.round.phases import INSURANCE
from boundless.ledger import LedgerUnavailableError
from boundless.server.cluster.gateway_table import NOTHING_STAKED_REASON, GatewayTable
from boundless.server.gateway.handler import MessageHandler
from boundless.server.gateway.hub import Hub
from boundless.server.storage.models import Round, RoundPlayer
from boundless.server.tables.service import TableService
from tests.cluster.conftest import run
from tests.cluster.harness import CHART, RULES, TABLE, dealer_maker
from tests.cluster.players import ledger_sessions, sign_up
from tests.cluster.test_ledger_off_loop import Socket, send


def refuse_every_stake(monkeypatch: pytest.MonkeyPatch) -> None:
    def away(*_args: Any, **_kwargs: Any) -> Any:
        raise LedgerUnavailableError("the ledger's database cannot be reached right now")

    monkeypatch.setattr(TableService, "accept_bets", away)


@pytest.mark.parametrize(
    ("ending", "status", "reason"),
    [
        ("cancelled", "cancelled", "no bets were placed"),  # nobody's bets made the deal
        ("settled", "cancelled", NOTHING_STAKED_REASON),  # others played it (their slice ends it)
    ],
)
def test_a_round_whose_every_bet_was_refused_ends_its_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ending: str, status: str, reason: str
) -> None:
    sessions = ledger_sessions(tmp_path)
    _ana, token = sign_up(sessions, "ana")
    hub = Hub()
    table = GatewayTable(
        table_id=TABLE, gateway="g1", rules=RULES, chart=CHART, hub=hub, sessions=sessions
    )
    handler = MessageHandler(table, hub, sessions, 1000.0)
    refuse_every_stake(monkeypatch)

    async def body() -> list[dict[str, Any]]:
        dealer = dealer_maker(3)(1)
        players = table.new_slice(1, dealer.opened)
        socket = Socket()
        await send(handler, socket, type="hello", token=token)
        await send(handler, socket, type="join", table_id=TABLE)
        await send(handler, socket, type="bet", table_id=TABLE, request_id="b1", bet_id="b1",
                   bets={"1": {"main": 500}})  # fmt: skip
        report = await players.bets_report()
        assert report.spots == frozenset()
        if ending == "cancelled":
            await players.cancel("no bets were placed")
        else:  # another gateway's players play the round on spot 1, to its settlement
            for event in dealer.close_bets([BetsReport(frozenset({1}), frozenset({1}))]):
                await players.apply(event)
            while not dealer.done:
                if dealer.phase == INSURANCE:
                    dealt = dealer.close_insurance()
                else:
                    other = StepReport(dealer.current_spot, dealer.step, 0, (0,) * 14)
                    dealt = dealer.close_step([other])
                for event in dealt:
                    await players.apply(event)
            await players.settle()
        await asyncio.sleep(0)
        return socket.acks("b1")

    acks = run(body())
    assert [(m["type"], m["error"]) for m in acks] == [("error", "ledger_unavailable")]
    with sessions.begin() as session:
        rows = session.scalars(select(Round).where(Round.table_id == TABLE)).all()
        lines = session.scalars(select(RoundPlayer)).all()
        assert [(row.round_no, row.status, row.reason) for row in rows] == [(1, status, reason)]
        assert lines == []  # nothing was staked, so nobody has a line
