"""The round as it crosses processes: what the coordinator appends and the gateways report.

The rules stay in the core: the coordinator drives a
:class:`~boundless.core.round.dealer_table.TableDealer` (shoe, hole card, dealer, step plan) and
each gateway a :class:`~boundless.core.round.follower.FollowerRound` holding its own players'
positions. On the bus, in order (each a :class:`~boundless.server.cluster.bus.RoundEvent`):

- ``table``: one of the core's public table events (``RoundOpened``, ``CardsDealt``,
  ``InsuranceClosed``, ``PeekResult``, ``StepOpened``, ``StepDealt``, ``DealerRevealed``), in the
  server's event encoding; every gateway applies them in order. The event that opens a window
  also carries its ``timer`` (``kind``, ``deadline_ms``), and ``RoundOpened`` the
  ``shoe_number`` and the shoe's ``notices`` (shuffle, shoe finished), for the players' messages.
- ``betting_closed``: gateways close their bets and report ``bets_closed`` (spots held, their
  players and positions, and ``spot_bets``: their positions and stakes on each spot).
- ``slices``: the gateways whose bets are in the round, and how many ``players`` and
  ``positions`` they hold together; one with bets that is not listed cancels its slice. Its
  ``spot_bets`` (``spot_totals``) are the table's bets per spot, for the players' ``state``.
- ``step_closed`` (after a step's deadline or once every gateway reported ``decided``; its
  ``closed_ms`` is the coordinator's clock at the close):
  gateways autoplay their undecided positions and report ``takers`` (the core's step report);
  the table's ``StepDealt`` then carries the step's one card.
- ``round_settling``: gateways settle their slices and report ``settled``; ``round_closed``
  follows (``settled`` and ``dropped``: the gateways in each case).
- ``gateway_dropped``: a gateway missed a report deadline; its slice is out of the round (it is
  cancelled and refunded) and the others play on.
- ``round_cancelled``: the round ends without settlement (a coordinator found it in flight,
  nobody bet, or the operator cancelled it: its ``reason``); every slice is cancelled, and each
  gateway that held one reports ``cancelled`` once it has cancelled and recorded its own.
- ``betting_held`` (``ledger``: ``away`` or ``back``; ``reason``; ``held_seconds`` so far and
  ``hold_limit_seconds``; the betting window's ``timer``): the coordinator holds the bet close
  while the coin ledger's database does not answer (``ledger_hold``), saying so again every few
  seconds, then gives the players a short betting window once it answers. Gateways show the
  timer and tell their players; bets keep being refused (``ledger_unavailable``) while it is away.
- ``table_paused`` / ``table_resumed`` (the operator; ``reason``, and the open window's
  ``timer``: its time left when paused, its new deadline when resumed): gateways refuse bets and
  decisions while paused and tell their players.
"""

from __future__ import annotations

from enum import StrEnum


class Public(StrEnum):
    TABLE = "table"
    BETTING_CLOSED = "betting_closed"
    SLICES = "slices"
    STEP_CLOSED = "step_closed"
    ROUND_SETTLING = "round_settling"
    ROUND_CLOSED = "round_closed"
    ROUND_CANCELLED = "round_cancelled"
    GATEWAY_DROPPED = "gateway_dropped"
    TABLE_PAUSED = "table_paused"
    BETTING_HELD = "betting_held"
    TABLE_RESUMED = "table_resumed"


ROUND_ENDS = frozenset({Public.ROUND_CLOSED, Public.ROUND_CANCELLED})
OPERATOR_EVENTS = frozenset({Public.TABLE_PAUSED, Public.TABLE_RESUMED})
"""The operator's pause and resume (:mod:`~boundless.server.cluster.control`): they come at any
moment, between rounds too, and change no round."""
INSURANCE_KEY = 0
"""Report key of the insurance window's ``decided`` reports."""


PLAYERS_SUFFIX = "players"
DROPPED_REASON = "the gateway holding your bets stopped during this round; every stake was returned"


def slice_owners(gateway: str) -> tuple[str, str]:
    """The ledger owners of a gateway's slices of a round: its bots' (bulk positions, staked at
    the bet close) and its players' (staked as each bet is accepted)."""
    return gateway, f"{gateway}:{PLAYERS_SUFFIX}"


def step_key(spot: int, step: int) -> int:
    """One report key per (spot, step) of a round: spots are small, steps under 1000."""
    return spot * 1000 + step
