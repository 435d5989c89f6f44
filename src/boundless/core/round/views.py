"""What one player may see of a round, built in one place for every interface.

The hole card appears only once revealed; undealt cards never appear. Other players' bets
and decisions are not in a player's view (only how many positions took each step card).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from boundless.core.hands import best_total
from boundless.core.round.checks import insurance_offer, legal_now
from boundless.core.round.results import (
    PositionResult,
    SideBetResult,
    hand_json,
    position_result,
)
from boundless.core.round.state import RoundState


def public_view(round_: RoundState) -> dict[str, Any]:
    dealer_cards = list(round_.dealer_cards)
    visible = dealer_cards if round_.hole_revealed else dealer_cards[:1]
    return {
        "phase": round_.phase,
        "paused": round_.paused,
        "title": round_.rules.key,
        "rules_version": round_.rules.title.version,
        "round_in_shoe": round_.round_in_shoe,
        "current_spot": round_.current_spot,
        "step": round_.step,
        "dealer": {
            "cards": [str(card) for card in visible],
            "hole_hidden": round_.rules.dealer.hole_card == "peek"
            and round_.up_card is not None
            and not round_.hole_revealed,
            "total": best_total(visible) if visible else None,
        },
        "spots": {
            str(spot): {
                "cards": [str(card) for card in cards],
                "step_cards": [str(card) for card in round_.step_cards.get(spot, [])],
                "step_takers": list(round_.step_takers.get(spot, [])),
            }
            for spot, cards in sorted(round_.spot_cards.items())
        },
        "side_bets_rounds_left": round_.side_bet_rounds_left(),
        "positions": round_.position_count(),
    }


def spot_bets(round_: RoundState) -> dict[str, dict[str, int]]:
    """Every position's bets summed by spot: how many positions bet there and the main and side
    stakes placed (as bet, before doubles or splits). Totals only: nobody's bet is named."""
    book = round_.book
    spots = np.asarray(book.spot)
    if not len(spots):
        return {}
    mains = np.asarray(book.main)
    sides = np.asarray(book.sides).reshape(len(spots), -1).sum(axis=1)
    totals: dict[str, dict[str, int]] = {}
    for spot in np.unique(spots).tolist():
        on = spots == spot
        staked = on & ((mains > 0) | (sides > 0))
        if staked.any():
            totals[str(spot)] = {
                "positions": int(staked.sum()),
                "main": int(mains[on].sum()),
                "side": int(sides[on].sum()),
            }
    return totals


def add_spot_bets(parts: Iterable[Mapping[str, Mapping[str, int]]]) -> dict[str, dict[str, int]]:
    """Several parts' :func:`spot_bets` summed by spot (a table's positions held in slices)."""
    totals: dict[str, dict[str, int]] = {}
    for part in parts:
        for spot, figures in part.items():
            into = totals.setdefault(spot, {"positions": 0, "main": 0, "side": 0})
            for key in into:
                into[key] += figures.get(key, 0)
    return dict(sorted(totals.items(), key=lambda item: int(item[0])))


def position_view(round_: RoundState, result: PositionResult, position: int) -> dict[str, Any]:
    path = round_.path_of(position) if round_.has_path(position) else None
    current = None if path is None or path.finished else path.current
    legal = sorted(action.word for action in legal_now(round_, result.player_id, result.spot))
    return {
        "spot": result.spot,
        "main": result.main_amount,
        "current_hand": current,
        "legal_actions": legal,
        "hands": [hand_json(hand, status=True) for hand in result.hands],
        "insurance": None
        if result.insurance is None
        else {
            "kind": result.insurance.kind,
            "stake": result.insurance.stake,
            "outcome": result.insurance.outcome,
            "payout": result.insurance.payout_amount,
        },
        "insurance_offer": insurance_offer(round_, result.player_id, result.spot),
        "side_bets": {side.key: side_bet_json(side) for side in result.side_bets},
        "staked": result.staked_amount,
        "paid": result.paid_amount,
    }


def player_view(round_: RoundState, player_id: str) -> dict[str, Any]:
    view = public_view(round_)
    positions = round_.positions_of(player_id)
    view["player"] = {
        "id": player_id,
        "free_coins": round_.player_free_coins(player_id),
        "positions": [
            position_view(round_, position_result(round_, position), position)
            for position in positions
        ],
    }
    return view


def side_bet_json(side: SideBetResult) -> dict[str, Any]:
    """A side bet's view; a wheel bet's also names the wedges it landed on, inner wheel first."""
    shown: dict[str, Any] = {
        "stake": side.stake,
        "outcome": side.outcome,
        "pattern": side.pattern,
        "payout": side.payout_amount,
    }
    if side.wheel_labels:
        shown["wheel"] = list(side.wheel_labels)
    return shown
