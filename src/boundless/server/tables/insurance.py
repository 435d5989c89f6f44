"""Taking insurance at a desk: the wallet read and the stake's write in worker threads.

A desk's :meth:`~boundless.server.tables.desk.TableDesk.insure` runs :func:`stake_off_loop`
for ``serve``'s tables and a gateway's alike: the wallet may be an operator's (an HTTP call per
balance and per debit), so neither waits on the event loop, which serves every other socket
meanwhile. The round changes in memory only once the stake is written.
"""

from __future__ import annotations

from boundless.core.errors import PhaseError
from boundless.core.round import INSURANCE
from boundless.core.round.players import PlayerRound
from boundless.ledger.outage import in_daemon_thread, write_until_done
from boundless.ledger.records import StakeOrder
from boundless.server.tables.desk_protocol import LedgerDesk
from boundless.server.tables.service import position_key

INSURANCE_WRITE_SECONDS = 10.0
"""How long an insurance stake is tried again while the database is busy (then refused)."""


def wallet_balance(desk: LedgerDesk, player_id: str) -> int:
    """The player's wallet balance (in a worker thread: it may be an HTTP call)."""
    with desk.sessions.begin() as session:
        return desk.service(session).wallet_balances([player_id]).get(player_id, 0)


async def stake_off_loop(desk: LedgerDesk, round_: PlayerRound, player_id: str, spot: int) -> None:
    """Check and write the insurance stake of ``player_id`` at ``spot``, then take it in the
    round. Raises (nothing taken) when the window closed or the round was cancelled meanwhile,
    or when the wallet does not cover it."""
    balance = await in_daemon_thread(lambda: wallet_balance(desk, player_id))
    if desk.round is not round_ or round_.phase != INSURANCE:
        raise PhaseError("the insurance window closed meanwhile")
    known = round_.player_free_coins(player_id)
    if known is not None and known != balance:
        round_.set_free_coins([player_id], [balance])  # coins moved elsewhere
    round_.verify_take_insurance(player_id, spot)
    position = round_.position(player_id, spot)
    cost = desk.rules.insurance.cost.of(round_.main_stake(position))
    order = StakeOrder(player_id, position_key(player_id, spot), "insurance", cost)
    table_id, round_no = desk.table_id, desk.round_no
    await write_until_done(
        desk.sessions,
        lambda session: desk.service(session).stake(table_id, round_no, [order]),
        what=f"insurance of {player_id} at {table_id} round {round_no}",
        seconds=INSURANCE_WRITE_SECONDS,
        lock=desk.ledger_lock,
    )
    if desk.round is not round_ or round_.over:
        raise PhaseError("the round was cancelled; every stake is returned")
    desk.metrics.staked(desk.rules.key, [order])
    round_.take_insurance(player_id, spot)
    desk.money.balances[player_id] = balance - cost
