"""A language model at a real table: the WebSocket protocol (docs/protocol.md) in words.

A thin adapter, not a second game: :class:`LanguageSeat` folds the server's own messages
(``state``, ``you``, ``notice``) for one player at one table and says what that player sees in
plain sentences with the legal answers in words (:func:`text.describe_view`); the model's
reply becomes the protocol's ``decide`` or ``insurance`` message. With ``grade=True`` each
question also carries the exact value of every legal answer on the shoe as the player has
seen it (the cards of the shoe's earlier rounds, the burn's shown card, this round's public
cards), from :mod:`grading`. :func:`play` drives one socket for a number of rounds.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from boundless.agents.grading import Grade, grade_answer
from boundless.agents.text import describe_view
from boundless.core.cards import Card
from boundless.core.errors import RulesError
from boundless.core.rules import RuleSet
from boundless.titles import load_title, shipped_title_keys

Message = dict[str, Any]
RANKS = 13
SPOT = 1


def public_cards(public: Message) -> list[Card]:
    """The cards a ``state``'s public view shows: each spot's, the step cards, the dealer's."""
    cards: list[Card] = []
    for spot in (public.get("spots") or {}).values():
        cards += [Card.parse(code) for code in (*spot["cards"], *spot["step_cards"])]
    cards += [Card.parse(code) for code in (public.get("dealer") or {}).get("cards", [])]
    return cards


@dataclass
class LanguageSeat:
    table_id: str
    grade: bool = False
    public: Message = field(default_factory=dict)
    you: Message = field(default_factory=dict)
    seen_before: list[int] = field(default_factory=lambda: [0] * RANKS)
    _counted_round: str | None = None
    _round_id: str | None = None
    _rules: RuleSet | None = None

    # ---- reading the server --------------------------------------------------------------------
    def fold(self, message: Message) -> None:
        """Take one server message into account (others' tables and other kinds are ignored)."""
        if message.get("table_id") != self.table_id:
            return
        kind = message.get("type")
        if kind == "state" and message.get("public"):
            self.public = message["public"]
            self._round_id = message.get("round_id")
            if self.public.get("phase") in ("settled", "cancelled"):
                self._count_round()
        elif kind == "you":
            self.you = message
        elif kind == "notice" and message.get("kind") == "shuffle":
            self.seen_before = [0] * RANKS
            shown = ((message.get("detail") or {}).get("burn") or {}).get("revealed")
            if shown:
                self.seen_before[Card.parse(shown).rank - 1] += 1

    def _count_round(self) -> None:
        if self._round_id is None or self._counted_round == self._round_id:
            return
        self._counted_round = self._round_id
        for card in public_cards(self.public):
            self.seen_before[card.rank - 1] += 1

    # ---- the question in words ---------------------------------------------------------------
    def _position(self) -> Message | None:
        positions = (self.you.get("player") or {}).get("positions") or []
        return positions[0] if positions else None

    def legal_words(self) -> list[str]:
        """The answers the server accepts now (empty when nothing is asked)."""
        position = self._position()
        if position is None or self.you.get("round_id") != self._round_id:
            return []
        if self.you.get("phase") == "insurance" and position.get("insurance_offer"):
            return [position["insurance_offer"], "decline"]
        if self.you.get("phase") == "decisions":
            return list(position.get("legal_actions") or [])
        return []

    def prompt(self) -> str:
        """The table as the player sees it, and the legal answers, in plain sentences."""
        view = {**self.public, "player": self.you.get("player") or {}}
        return describe_view(view, self.legal_words())

    def parse_reply(self, reply: str) -> str:
        """The legal answer a free-text reply names (the first one it mentions)."""
        legal = self.legal_words()
        text = reply.lower().replace("even money", "even_money").replace("-", "_")
        found = [(text.find(word), -len(word), word) for word in legal if word in text]
        if not found:
            raise RulesError(f"the reply names no legal action (legal: {', '.join(legal)})")
        return min(found)[2]

    def request_for(self, word: str) -> Message:
        """The protocol message that gives ``word`` as this player's answer."""
        if word not in self.legal_words():
            raise RulesError(f"{word!r} is not legal now (legal: {', '.join(self.legal_words())})")
        if word in ("insurance", "even_money", "decline"):
            return {"v": 1, "type": "insurance", "table_id": self.table_id, "spot": SPOT,
                    "kind": word}  # fmt: skip
        return {"v": 1, "type": "decide", "table_id": self.table_id, "spot": SPOT,
                "step": self.you.get("step"), "action": word}  # fmt: skip

    # ---- grading -------------------------------------------------------------------------------
    def grade_now(self) -> Grade | None:
        """The exact value of each legal answer now (None: nothing asked, or not gradable)."""
        legal = self.legal_words()
        position = self._position()
        title = self.public.get("title")
        if not legal or position is None or title not in shipped_title_keys():
            return None
        if self._rules is None or self._rules.key != title:
            self._rules = load_title(str(title))
        hands = position["hands"]
        current = position.get("current_hand") or 0
        asked = legal[0] if self.you.get("phase") == "insurance" else "decision"
        hand = hands[0] if asked != "decision" else hands[current]
        cards = [Card.parse(code) for code in hand["cards"]]
        up = Card.parse(self.public["dealer"]["cards"][0])
        ranks = [4 * self._rules.shoe.decks - seen for seen in self.seen_before]
        for card in public_cards(self.public):
            ranks[card.rank - 1] -= 1
        for card in (up, *cards):
            ranks[card.rank - 1] += 1
        split_hands = len(hands) - 1
        return grade_answer(self._rules, ranks, up, cards, split_hands, asked, legal)


Chooser = Callable[[str, list[str]], str]
"""The agent: given the table in words and the legal answers, its reply in words."""


@dataclass(frozen=True)
class Turn:
    prompt: str
    answer: str
    grade: Grade | None


def play(
    ws_url: str,
    token: str,
    table_id: str,
    choose: Chooser,
    *,
    rounds: int = 1,
    main_amount: int = 100,
    grade: bool = False,
    timeout: float = 30.0,
) -> tuple[list[Turn], list[Message], list[Message]]:
    """Play ``rounds`` rounds at ``table_id`` over the WebSocket at ``ws_url``: bet
    ``main_amount`` on spot 1 each round, answer every question with ``choose``. Returns the
    turns (prompt, answer, grade when asked), the ``settled`` messages, and the server's
    refusals of answers that came after their window closed (the table autoplayed those)."""
    from websockets.sync.client import connect

    seat = LanguageSeat(table_id, grade=grade)
    turns: list[Turn] = []
    settled: list[Message] = []
    refused: list[Message] = []
    answered: set[tuple[object, object, str]] = set()
    with connect(ws_url) as socket:

        def send(body: Message) -> None:
            socket.send(json.dumps({"v": 1, **body}))

        send({"type": "hello", "token": token})
        send({"type": "join", "table_id": table_id})
        need_bet = True
        while len(settled) < rounds:
            message = json.loads(socket.recv(timeout=timeout))
            if message.get("type") == "error":
                if str(message.get("request_id", "")).startswith("bet"):
                    need_bet = True  # too late for this round: bet in the next window
                else:  # an answer after its window closed: the table autoplayed instead
                    refused.append(message)
                continue
            seat.fold(message)
            if message.get("type") == "settled" and message.get("table_id") == table_id:
                settled.append(message)
                need_bet = True
                continue
            is_state = message.get("type") == "state" and message.get("table_id") == table_id
            phase = (message.get("public") or {}).get("phase") if is_state else None
            if need_bet and is_state and phase in (None, "betting"):
                need_bet = False
                bets = {"1": {"main": main_amount}}
                bet_id = uuid.uuid4().hex
                send({"type": "bet", "table_id": table_id, "bet_id": bet_id, "bets": bets,
                      "request_id": f"bet-{bet_id}"})  # fmt: skip
                continue
            legal = seat.legal_words()
            key = (seat.you.get("round_id"), seat.you.get("step"), seat.you.get("phase") or "")
            if legal and key not in answered:
                answered.add(key)
                text = seat.prompt()
                graded = seat.grade_now() if grade else None
                word = seat.parse_reply(choose(text, legal))
                turns.append(Turn(text, word, None if graded is None else graded.of(word)))
                send(seat.request_for(word))
    return turns, settled, refused


__all__ = ["LanguageSeat", "Turn", "play", "public_cards"]
