"""The limit check of every stake: a bet, insurance, a double or a split. :class:`LimitedWallet`
calls it inside the transaction that writes the stake (after :meth:`StakeLimits.lock`), so what
it counts from the ledger is exactly what is there, whichever gateway staked it."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime

from sqlalchemy.orm import Session

from boundless.server.protection import clock
from boundless.server.protection.limits import (
    MONEY_FIELDS,
    SESSION_FIELD,
    WINDOWS,
    LimitState,
    replay,
)
from boundless.server.protection.repository import ProtectionRepository, wagered_and_net
from boundless.wallet import WalletRefusal

LIMIT_REACHED = "limit_reached"


class StakeLimits:
    def __init__(self, session: Session) -> None:
        self.repository = ProtectionRepository(session)

    def lock(self, player_ids: Sequence[str]) -> None:
        for player_id in sorted(set(player_ids)):  # one order everywhere: no deadlock
            self.repository.lock_player(player_id)

    def limited(self, player_ids: Sequence[str], now: datetime) -> dict[str, dict[str, int]]:
        """The limits in force of those players who have any (field -> amount)."""
        found = {}
        for player_id, rows in self.repository.limit_rows(player_ids).items():
            states = replay(rows, now)
            amounts = _amounts(states)
            if amounts:
                found[player_id] = amounts
        return found

    def headroom(self, player_id: str, limits: dict[str, int], now: datetime) -> int | None:
        """The most the player may still stake under their money limits (None: no money limit);
        0 once the session-time limit is reached."""
        minutes = limits.get(SESSION_FIELD)
        if minutes is not None and self._session_over(player_id, minutes, now):
            return 0
        room: int | None = None
        for _window, wager, loss, wagered, net in self._windows(player_id, limits, now):
            for left in (
                None if wager is None else wager - wagered,
                None if loss is None else loss + net,
            ):
                if left is not None:
                    room = left if room is None else min(room, left)
        return None if room is None else max(0, room)

    def refusal(
        self, player_id: str, amount: int, limits: dict[str, int], now: datetime
    ) -> WalletRefusal | None:
        """Why staking ``amount`` more could take the player past a limit, or None."""
        minutes = limits.get(SESSION_FIELD)
        if minutes is not None and self._session_over(player_id, minutes, now):
            return WalletRefusal(
                LIMIT_REACHED,
                f"your session limit of {minutes} minutes is reached; a new sign-in begins"
                " a new session",
            )
        for window, wager, loss, wagered, net in self._windows(player_id, limits, now):
            if wager is not None and wagered + amount > wager:
                return WalletRefusal(
                    LIMIT_REACHED,
                    f"a stake of {amount} would pass your {window} wager limit of {wager}"
                    f" ({wagered} wagered)",
                )
            if loss is not None and amount - net > loss:
                return WalletRefusal(
                    LIMIT_REACHED,
                    f"a stake of {amount} could pass your {window} loss limit of {loss}"
                    f" ({max(0, -net)} lost)",
                )
        return None

    def check(self, stakes: dict[str, int]) -> dict[str, WalletRefusal]:
        """The refusals among these stakes (player -> total to stake now). The players under a
        limit are locked first, to the commit (the others need no count, so no lock: a batch of
        a thousand bets of players without limits costs one query)."""
        now = clock.utc_now()
        limited = self.limited(list(stakes), now)
        self.lock(list(limited))
        refused = {}
        for player_id, limits in limited.items():
            error = self.refusal(player_id, stakes[player_id], limits, now)
            if error is not None:
                refused[player_id] = error
        return refused

    def _windows(
        self, player_id: str, limits: dict[str, int], now: datetime
    ) -> Iterator[tuple[str, int | None, int | None, int, int]]:
        """Each window with a money limit: its wager and loss limits (None: none) and what the
        ledger shows the player wagered and netted in it."""
        for window, length in WINDOWS.items():
            wager = limits.get(f"wager.{window}")
            loss = limits.get(f"loss.{window}")
            if wager is None and loss is None:
                continue
            wagered, net = wagered_and_net(self.repository.round_movements(player_id, now - length))
            yield window, wager, loss, wagered, net

    def _session_over(self, player_id: str, minutes: int, now: datetime) -> bool:
        found = self.repository.play_session(player_id)
        if found is None:  # ended (its limit, a reality check left) and not signed in since:
            return True  # a socket still open elsewhere stakes nothing until a new sign-in
        return (now - clock.aware(found.started_at)).total_seconds() >= minutes * 60


def _amounts(states: dict[str, LimitState]) -> dict[str, int]:
    return {
        field: state.amount
        for field, state in states.items()
        if state.amount is not None and (field in MONEY_FIELDS or field == SESSION_FIELD)
    }
