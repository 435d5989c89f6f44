"""Limits counted from the ledger, at their boundaries, on SQLite and PostgreSQL: exactly at a
limit is accepted, one unit over is refused; a decrease applies at once, an increase only after
the cooling-off; concurrent stakes of one player from two gateways cannot pass a limit."""

from __future__ import annotations

import itertools
import threading

import pytest
from sqlalchemy.orm import Session, sessionmaker

from boundless.jurisdictions import load_profile
from boundless.ledger import LedgerService, PlayerSettlement
from boundless.ledger.records import StakeOrder
from boundless.server.protection.limited_wallet import LimitedWallet, LimitedWallets
from boundless.server.protection.service import ProtectionService
from boundless.wallet import INTERNAL, BetDebit, WalletRefusal
from tests.server.protection.conftest import Moved, new_player

UK = load_profile("uk")
ROUNDS = itertools.count(1)


def set_limits(sessions: sessionmaker[Session], player: str, **wanted: int | None) -> dict:
    fields = {
        key.replace("_", ".", 1) if key != "session_minutes" else key: v
        for key, v in wanted.items()
    }
    with sessions.begin() as session:
        return ProtectionService(session, UK).set_limits(player, fields, "player", None)


def play(sessions: sessionmaker[Session], player: str, staked: int, paid: int) -> None:
    """A settled round in the ledger: ``staked`` from the wallet, ``paid`` back."""
    round_no = next(ROUNDS)
    with sessions.begin() as session:
        ledger = LedgerService(session)
        ledger.stake_many("t-1", round_no, [StakeOrder(player, f"{player}@1", "main", staked)])
        ledger.settle_round("t-1", round_no, [PlayerSettlement(player, staked, paid)])


def limited(session: Session, owner: str | None = None) -> LimitedWallet:
    return LimitedWallets(INTERNAL)(session, owner)


def refusal(sessions: sessionmaker[Session], player: str, amount: int) -> WalletRefusal | None:
    """What the limits say of staking ``amount`` now (nothing is staked)."""
    with sessions.begin() as session:
        return limited(session).limits.check({player: amount}).get(player)


def debit(sessions: sessionmaker[Session], player: str, amount: int) -> Exception | None:
    """A bet through the limited wallet in a new round: None (staked) or the refusal."""
    with sessions.begin() as session:
        order = StakeOrder(player, f"{player}@1", "main", amount)
        bet = BetDebit(player, f"b{amount}", (order,))
        (answer,) = limited(session).debit_bets("t-2", next(ROUNDS), [bet])
        return answer


def balance(sessions: sessionmaker[Session], player: str) -> int:
    with sessions.begin() as session:
        return LedgerService(session).wallet_balance(player)


def test_wager_limit_at_its_boundary(sessions: sessionmaker[Session]) -> None:
    player = new_player(sessions)
    set_limits(sessions, player, wager_day=1000)
    play(sessions, player, 600, 1200)  # a win still counts as wagered
    assert refusal(sessions, player, 400) is None
    refused = refusal(sessions, player, 401)
    assert refused is not None and refused.code == "limit_reached"
    assert "day wager limit of 1000" in refused.detail
    play(sessions, player, 400, 0)
    assert refusal(sessions, player, 1) is not None


def test_loss_limit_at_its_boundary(sessions: sessionmaker[Session]) -> None:
    player = new_player(sessions)
    set_limits(sessions, player, loss_week=1000)
    play(sessions, player, 600, 0)  # lost 600
    assert refusal(sessions, player, 400) is None
    assert refusal(sessions, player, 401) is not None
    play(sessions, player, 300, 500)  # won 200 back: 400 lost in all
    assert refusal(sessions, player, 600) is None
    refused = refusal(sessions, player, 601)
    assert refused is not None and "week loss limit of 1000 (400 lost)" in refused.detail


def test_every_window_and_no_limit(sessions: sessionmaker[Session]) -> None:
    player, free = new_player(sessions), new_player(sessions)
    set_limits(sessions, player, wager_month=700, wager_day=900)
    assert refusal(sessions, player, 700) is None
    assert "month wager limit" in str(refusal(sessions, player, 701))
    assert refusal(sessions, free, 10**9) is None  # no limit: nothing counted


def test_decrease_at_once_increase_after_cooling_off(
    sessions: sessionmaker[Session], moved_clock: Moved
) -> None:
    player = new_player(sessions)
    set_limits(sessions, player, loss_day=1000)
    shown = set_limits(sessions, player, loss_day=500)  # a decrease: at once
    assert shown["loss"]["day"] == 500 and shown["pending"] == []
    shown = set_limits(sessions, player, loss_day=2000)  # an increase: pending
    assert shown["loss"]["day"] == 500
    (pending,) = shown["pending"]
    due = moved_clock.at.timestamp() * 1000 + 24 * 3600 * 1000
    assert pending["limit"] == "loss.day" and pending["amount"] == 2000
    assert abs(pending["effective_ms"] - due) <= 1
    assert refusal(sessions, player, 501) is not None
    moved_clock.forward(hours=23, minutes=59)
    assert refusal(sessions, player, 501) is not None
    moved_clock.forward(minutes=1)
    assert refusal(sessions, player, 2000) is None
    assert refusal(sessions, player, 2001) is not None
    with sessions.begin() as session:
        shown = ProtectionService(session, UK).limits(player)
    assert shown["loss"]["day"] == 2000 and shown["pending"] == []


def test_removal_waits_and_a_later_decrease_cancels_a_pending_increase(
    sessions: sessionmaker[Session], moved_clock: Moved
) -> None:
    player = new_player(sessions)
    set_limits(sessions, player, wager_day=1000, session_minutes=60)
    shown = set_limits(sessions, player, wager_day=None)  # removal: pending
    assert shown["wager"]["day"] == 1000 and shown["pending"][0]["amount"] is None
    moved_clock.forward(hours=1)
    shown = set_limits(sessions, player, wager_day=800)  # thinks better of it
    assert shown["wager"]["day"] == 800 and shown["pending"] == []
    moved_clock.forward(hours=30)
    assert refusal(sessions, player, 801) is not None
    with sessions.begin() as session:
        history = ProtectionService(session, UK).history(player)
    assert [row["field"] for row in history] == [
        "wager.day",
        "wager.day",
        "session_minutes",
        "wager.day",
    ]


def test_session_limit_refuses_once_reached(
    sessions: sessionmaker[Session], moved_clock: Moved
) -> None:
    player = new_player(sessions)
    with sessions.begin() as session:
        ProtectionService(session, UK).begin_session(player)
    set_limits(sessions, player, session_minutes=30)
    moved_clock.forward(minutes=29, seconds=59)
    assert refusal(sessions, player, 1) is None
    moved_clock.forward(seconds=1)
    refused = refusal(sessions, player, 1)
    assert refused is not None and "session limit of 30 minutes" in refused.detail


def test_spendable_is_what_doubles_and_splits_may_use(sessions: sessionmaker[Session]) -> None:
    player, free = new_player(sessions), new_player(sessions)
    set_limits(sessions, player, wager_day=1000, loss_day=5000)
    play(sessions, player, 300, 0)
    with sessions.begin() as session:
        wallet = limited(session)
        assert wallet.checks_every_extra
        assert wallet.spendable([player, free]) == {player: 700, free: 100_000}
        insurance = StakeOrder(player, f"{player}@1", "insurance", 701)
        with pytest.raises(WalletRefusal, match="day wager limit of 1000"):
            wallet.debit("t-3", 1, [insurance])


def test_two_gateways_cannot_pass_a_limit_together(sessions: sessionmaker[Session]) -> None:
    """Two gateways (two ledger owners) stake for one player at once: the check and the stake
    are one transaction with the player locked, so exactly one of two 600s fits under 1000."""
    player = new_player(sessions)
    set_limits(sessions, player, wager_day=1000)
    with sessions.begin() as session:
        LedgerService(session, "gateway-a").open_round("t-9", 1)
    start = threading.Barrier(2)
    results: list[str] = []

    def stake(owner: str, spot: int) -> None:
        start.wait()
        with sessions.begin() as session:
            order = StakeOrder(player, f"{player}@{spot}", "main", 600)
            bet = BetDebit(player, f"b{spot}", (order,))
            (answer,) = limited(session, owner).debit_bets("t-9", 1, [bet])
            results.append("staked" if answer is None else getattr(answer, "code", repr(answer)))

    threads = [
        threading.Thread(target=stake, args=(f"gateway-{n}", i + 1)) for i, n in enumerate("ab")
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(results) == ["limit_reached", "staked"]
    assert balance(sessions, player) == 100_000 - 600


def test_a_refusal_moves_nothing(sessions: sessionmaker[Session]) -> None:
    player = new_player(sessions)
    set_limits(sessions, player, wager_day=1000)
    assert debit(sessions, player, 1000) is None  # exactly at the limit, through the wallet
    before = balance(sessions, player)
    refused = debit(sessions, player, 1)
    assert isinstance(refused, WalletRefusal) and refused.code == "limit_reached"
    assert balance(sessions, player) == before == 100_000 - 1000


@pytest.mark.parametrize("hours", [23, 1009])
def test_time_out_outside_the_profile_is_refused(
    sessions: sessionmaker[Session], hours: int
) -> None:
    player = new_player(sessions)
    with sessions.begin() as session, pytest.raises(Exception, match="24 to 1008 hours"):
        ProtectionService(session, UK).time_out(player, hours, "player", None)
