"""The language-model adapter on a live server: the protocol in words, graded when asked."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("gymnasium", reason="the agents extra is not installed (.[agents])")

from boundless.agents.language import LanguageSeat, play
from boundless.core.errors import RulesError
from boundless.server.config import TimerSettings
from tests.server.live import serving

PATIENT = TimerSettings(
    betting_seconds=0.5, insurance_seconds=1.0, decision_seconds=30.0, round_gap_seconds=0.1
)
"""A step closes early once the one player has decided: long, so grading never runs late
(a shared table keeps the insurance window open to its end: short)."""


def test_a_model_plays_the_shared_table_in_words(tmp_path: Path) -> None:
    with serving(tmp_path, timers=PATIENT) as live:
        owner = live.sign_up("Model")
        table_id = "boundless-1"
        asked: list[list[str]] = []

        def model(text: str, legal: list[str]) -> str:
            asked.append(legal)
            assert "Legal actions:" in text and "Dealer shows" in text
            return f"I will {'stand' if 'stand' in legal else legal[-1]} here."

        turns, settled, refused = play(
            live.ws_url, owner["token"], table_id, model, rounds=4, grade=True
        )
    assert not refused
    assert len(settled) == 4
    assert sum(message["net"] for message in settled) == sum(
        message["paid"] - message["staked"] for message in settled
    )
    assert turns and all(turn.answer in legal for turn, legal in zip(turns, asked, strict=True))
    graded = [turn.grade for turn in turns if turn.grade is not None]
    assert graded and all(g.regret is not None and g.regret >= 0 for g in graded)


def test_replies_are_read_for_a_legal_word() -> None:
    seat = LanguageSeat("t")
    seat._round_id = "t:1"
    seat.you = {
        "round_id": "t:1",
        "phase": "decisions",
        "step": 1,
        "player": {"positions": [{"legal_actions": ["double", "hit", "stand", "surrender"]}]},
    }
    assert seat.parse_reply("Double down!") == "double"
    assert seat.parse_reply("I'd rather stand, or maybe hit") == "stand"
    assert seat.request_for("hit")["action"] == "hit"
    with pytest.raises(RulesError, match="names no legal action"):
        seat.parse_reply("split them")
