"""The table in words for a language model (and ``render_mode="ansi"``).

Built from the one player view every interface uses (:func:`player_view`), so the words say
what a player at a real table sees and nothing more.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from boundless.agents.table import AgentTable
from boundless.core.round.views import player_view

ACTION_MEANINGS: dict[str, str] = {
    "hit": "take one more card",
    "stand": "take no more cards on this hand",
    "double": "double the bet and take exactly one more card",
    "split": "split the pair into two hands, each with its own bet",
    "surrender": "give up the hand and get half the bet back",
    "surrender20": "decline the split and get the refund the title names back",
    "insurance": "insure against a dealer blackjack for half the bet",
    "even_money": "take a 1:1 win on the blackjack now",
    "decline": "refuse the offer",
}


def describe_view(view: Mapping[str, Any], legal: Sequence[str]) -> str:
    """A player view (as :func:`player_view` or the protocol's ``you`` message gives it) and
    the legal answers, in plain sentences."""
    lines = [f"Title {view.get('title')}, round {view.get('round_in_shoe')} of the shoe."]
    dealer = view.get("dealer") or {}
    cards = dealer.get("cards") or []
    if cards:
        hidden = " and a hidden hole card" if dealer.get("hole_hidden") else ""
        lines.append(f"Dealer shows {' '.join(cards)}{hidden} (total {dealer.get('total')}).")
    player = view.get("player") or {}
    for position in player.get("positions", []):
        hands = position.get("hands", [])
        current = position.get("current_hand")
        for number, hand in enumerate(hands):
            marker = " <- in play" if number == current else ""
            outcome = f", {hand['outcome']}" if hand.get("outcome") else ""
            lines.append(
                f"Your hand {number + 1}: {' '.join(hand.get('cards', []))} "
                f"(total {hand.get('total')}, {hand.get('status')}{outcome}){marker}."
            )
        offer = position.get("insurance_offer")
        if offer:
            lines.append(f"You are offered {offer.replace('_', ' ')}.")
    if legal:
        lines.append("Legal actions: " + "; ".join(f"{w} ({ACTION_MEANINGS[w]})" for w in legal))
    else:
        lines.append("No action is asked of you now.")
    return "\n".join(lines)


def describe(table: AgentTable, player: str, legal: Sequence[str]) -> str:
    if table.round is None:
        return "No round yet: place a bet."
    text = describe_view(player_view(table.round, player), legal)
    return f"{text}\nShoe dealt: {table.penetration:.0%}."


__all__ = ["ACTION_MEANINGS", "describe", "describe_view"]
