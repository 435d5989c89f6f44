"""A bot whose bet met a pause bets again after the resume (else an empty round waits forever)."""

from __future__ import annotations

import asyncio
from typing import Any

from boundless.server.bots import Bot, BotSeat
from boundless.titles import load_game
from tests.server.recording_handler import RecordingHandler


def test_a_bet_refused_by_a_pause_is_sent_again_after_the_resume() -> None:
    async def scenario() -> list[dict[str, Any]]:
        rules, _ = load_game("boundless")
        handler = RecordingHandler()
        seat = BotSeat("bot-t-1", "Bot Ana", "autoplay", "token")
        bot = Bot(seat, "boundless-1", rules, handler, None, 0.0)  # type: ignore[arg-type]
        bot.balance = 10**6
        betting = {"type": "state", "round_id": "boundless-1:4", "public": {"phase": "betting"}}
        await bot.on_message({**betting, "paused": False})
        await asyncio.sleep(0.05)
        await bot.on_message(
            {"type": "error", "request_id": "bet-boundless-1:4", "error": "table_paused"}
        )
        await bot.on_message({**betting, "paused": True})  # the pause's own state: no bet
        await asyncio.sleep(0.05)
        await bot.on_message({**betting, "paused": False})  # the resume
        await asyncio.sleep(0.05)
        await bot.on_message({**betting, "paused": False})  # later states: no third bet
        await asyncio.sleep(0.05)
        return [body for body in handler.sent if body["type"] == "bet"]

    bets = asyncio.run(scenario())
    assert [body["request_id"] for body in bets] == ["bet-boundless-1:4", "bet-boundless-1:4"]
