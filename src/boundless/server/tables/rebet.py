"""``rebet``: the player's last bets at this table again, once or twice (Repeat and Double).

One rule for every client and bot: the last round this player has in the play record at this
table gives the bets; each amount is multiplied, capped at its limit, and side bets closed this
round (or no longer offered) are left out. When the whole no longer fits the wallet, every
amount is scaled down in proportion to the balance, in whole table units, and any that falls
under its minimum is left out. The result is an ordinary bet: it goes through the same batch,
the same rule checks and the same ledger write as a ``bet`` message.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from boundless.core.errors import InsufficientCoinsError
from boundless.core.rules import RuleSet
from boundless.server.errors import NotFoundError
from boundless.server.records.repository import RecordRepository
from boundless.server.tables.desk import TableDesk
from boundless.server.tables.service import BetRequest

Bets = dict[int, dict[str, int]]


def bets_of_positions(positions: list[dict[str, Any]]) -> Bets:
    """A recorded round's positions (as ``settled`` shows them) as the bets that made them."""
    bets: Bets = {}
    for position in positions:
        entry = {"main": int(position.get("main") or 0)}
        for key, side in (position.get("side_bets") or {}).items():
            entry[key] = int(side.get("stake") or 0)
        entry = {key: amount for key, amount in entry.items() if amount > 0}
        if entry:
            bets[int(position["spot"])] = entry
    return bets


def repeated_bets(
    last: Bets,
    rules: RuleSet,
    rounds_left: Mapping[str, int | None],
    balance: int,
    multiplier: int,
) -> Bets:
    """``last`` times ``multiplier``, within the limits, the open side bets and ``balance``."""
    limits = rules.limits
    wanted: Bets = {}
    for spot, amounts in sorted(last.items()):
        entry: dict[str, int] = {}
        for key, amount in amounts.items():
            if key == "main":
                entry[key] = min(amount * multiplier, limits.max_main_amount)
                continue
            bet = rules.side_bet(key)
            left = rounds_left.get(key, 0)
            if bet is None or key not in rounds_left or (left is not None and left <= 0):
                continue  # not offered this round, or closed for the rest of the shoe
            entry[key] = min(amount * multiplier, bet.max_amount)
        if entry:
            wanted[spot] = entry
    total = sum(sum(entry.values()) for entry in wanted.values())
    if total <= balance:
        return wanted
    unit = limits.unit_amount
    fitted: Bets = {}
    for spot, entry in wanted.items():
        kept: dict[str, int] = {}
        for key, amount in entry.items():
            scaled = amount * balance // total // unit * unit
            side = rules.side_bet(key)
            minimum = limits.min_main_amount if key == "main" else side.min_amount if side else 0
            if scaled >= max(minimum, unit):
                kept[key] = scaled
        if kept:
            fitted[spot] = kept
    if not fitted:
        raise InsufficientCoinsError(
            f"your balance {balance} does not cover the smallest of your last bets"
        )
    return fitted


def last_bets(desk: TableDesk, player_id: str) -> tuple[Bets, int]:
    """The player's bets in their last recorded round at this table, and their balance."""
    with desk.sessions.begin() as session:
        rows = RecordRepository(session).player_rounds(player_id, 1, None, desk.table_id)
        balance = desk.service(session).wallet_balances([player_id]).get(player_id, 0)
        positions = orjson.loads(rows[0][1].results_json) if rows else []
    return bets_of_positions(positions), balance


def rebet_request(desk: TableDesk, player_id: str, bet_id: str, multiplier: int) -> BetRequest:
    """The ``rebet`` as an ordinary bet request (``wrong_phase`` outside the betting window)."""
    round_ = desk.betting_round()
    last, balance = last_bets(desk, player_id)
    if not last:
        raise NotFoundError(f"you have no earlier bet at table {desk.table_id!r} to repeat")
    bets = repeated_bets(last, desk.rules, round_.side_bet_rounds_left(), balance, multiplier)
    spots = sorted(bets)
    return BetRequest(
        player_id,
        bet_id,
        spots,
        [bets[spot].get("main", 0) for spot in spots],
        [{key: amount for key, amount in bets[spot].items() if key != "main"} for spot in spots],
    )
