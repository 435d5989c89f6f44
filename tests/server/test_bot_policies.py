"""The server's bots play the core's policies from the frames a browser reads."""

from __future__ import annotations

import asyncio
from typing import Any, cast

from boundless.core.bots import Policy
from boundless.server.bots import Bot, BotSeat
from boundless.server.gateway.handler import MessageHandler
from boundless.titles import load_game
from tests.server.recording_handler import RecordingHandler


def _position(cards: list[str], legal: list[str], offer: str | None = None) -> dict[str, Any]:
    hand = {"cards": cards, "total": 0}
    return {
        "spot": 1,
        "current_hand": 0,
        "legal_actions": legal,
        "hands": [hand],
        "insurance_offer": offer,
    }


def _frames(policy: Policy, frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rules, _ = load_game("boundless")
    handler = RecordingHandler()
    seat = BotSeat("bot-1", "Bot Ana", policy, "token")
    bot = Bot(seat, "boundless-1", rules, cast(MessageHandler, handler), cast(Any, None), 0.0)

    async def play() -> None:
        for frame in frames:
            await bot.on_message(frame)
        while bot.tasks:
            await asyncio.sleep(0)

    asyncio.run(play())
    return handler.sent


def _state(phase: str, up: str) -> dict[str, Any]:
    public = {"phase": phase, "step": 1, "dealer": {"cards": [up]}}
    return {"type": "state", "round_id": "boundless-1:1", "public": public}


def test_the_doubler_doubles_a_soft_17_and_takes_insurance() -> None:
    you = {"type": "you", "round_id": "boundless-1:1", "phase": "decisions"}
    soft = {**you, "player": {"positions": [_position(["AS", "6D"], ["hit", "stand", "double"])]}}
    sent = _frames(Policy.DOUBLER, [_state("decisions", "5H"), soft])
    assert [(m["type"], m.get("action")) for m in sent] == [("decide", "double")]
    offer = _position(["TS", "7D"], [], "insurance")
    insure = {**you, "phase": "insurance", "player": {"positions": [offer]}}
    sent = _frames(Policy.DOUBLER, [_state("insurance", "AH"), insure, insure])
    assert [(m["type"], m["kind"]) for m in sent] == [("insurance", "insurance")]  # once


def test_other_policies_decline_insurance_and_autoplay_sends_no_decision() -> None:
    you = {"type": "you", "round_id": "boundless-1:1"}
    offer = {
        **you,
        "phase": "insurance",
        "player": {"positions": [_position(["TS", "7D"], [], "insurance")]},
    }
    assert _frames(Policy.HIT_TO_17, [_state("insurance", "AH"), offer]) == []
    hard = {
        **you,
        "phase": "decisions",
        "player": {"positions": [_position(["TS", "2D"], ["hit", "stand"])]},
    }
    assert _frames(Policy.AUTOPLAY, [_state("decisions", "TH"), hard]) == []
    sent = _frames(Policy.HIT_TO_17, [_state("decisions", "TH"), hard])
    assert [m.get("action") for m in sent] == ["hit"]
