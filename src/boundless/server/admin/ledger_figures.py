"""What the ledger says each title has taken: stakes by kind and the house result, settled rounds.

A round counts once the ledger has closed it (settled) and its play record names the title;
cancelled rounds move nothing net and are left out. Amounts are minor units, read from the
ledger's entries on wallets (stakes) and on the house account (the house result), never from
the play record's own copies.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import and_, func, select
from sqlalchemy.orm import Session

from boundless.ledger.models import ACCOUNTS, ENTRIES, ROUNDS, TRANSACTIONS
from boundless.server.metrics import stake_kind
from boundless.server.storage.models import Round as PlayRound

ROUNDS_RECORDED = PlayRound.__table__


@dataclass(frozen=True, slots=True)
class KindStakes:
    """Stakes of one kind: their sum, and the sum over rounds of the round's stakes squared.

    Squared per round, not per bet: every position of a round shares its cards (in a shared
    title all players play one hand; insurance pays on the one dealer's blackjack), so one
    round's stakes of a kind win or lose together and count as one draw in the band. For the
    extras (``double``, ``split``) the squares are per ledger kind (``double:1``...) and unused.
    """

    total: int
    squares: int
    rounds: int
    """Settled rounds that held a stake of this kind."""


@dataclass(slots=True)
class TitleLedger:
    title: str
    rounds: int = 0
    cancelled_rounds: int = 0
    house_result: int = 0
    """Coins the house won over settled rounds (negative: players won)."""
    stakes: dict[str, KindStakes] = field(default_factory=dict)
    """By kind: ``main``, ``side:<key>``, ``insurance``, ``double``, ``split``."""

    @property
    def staked(self) -> int:
        return sum(kind.total for kind in self.stakes.values())

    @property
    def paid(self) -> int:
        return self.staked - self.house_result


def _settled_rounds() -> object:
    """Ledger rounds closed by a settlement, joined to their title."""
    return and_(
        ROUNDS.c.status == "closed",
        ROUNDS_RECORDED.c.table_id == ROUNDS.c.table_id,
        ROUNDS_RECORDED.c.round_no == ROUNDS.c.round_no,
        ROUNDS_RECORDED.c.status == "settled",
    )


def title_ledgers(session: Session) -> dict[str, TitleLedger]:
    """Every title's figures, from the ledger (read only)."""
    ledgers: dict[str, TitleLedger] = {}

    def of(title: str) -> TitleLedger:
        return ledgers.setdefault(title, TitleLedger(title))

    counted = select(ROUNDS_RECORDED.c.title, ROUNDS_RECORDED.c.status, func.count()).group_by(
        ROUNDS_RECORDED.c.title, ROUNDS_RECORDED.c.status
    )
    for title, status, number in session.execute(counted):
        if status == "settled":
            of(title).rounds += int(number)
        elif status == "cancelled":
            of(title).cancelled_rounds += int(number)
    joined = (
        ENTRIES.join(TRANSACTIONS, TRANSACTIONS.c.id == ENTRIES.c.transaction_id)
        .join(ACCOUNTS, ACCOUNTS.c.id == ENTRIES.c.account_id)
        .join(ROUNDS, ROUNDS.c.id == TRANSACTIONS.c.round_id)
        .join(ROUNDS_RECORDED, _settled_rounds())  # type: ignore[arg-type]
    )
    house = (
        select(ROUNDS_RECORDED.c.title, func.sum(ENTRIES.c.amount))
        .select_from(joined)
        .where(ACCOUNTS.c.kind == "house")
        .group_by(ROUNDS_RECORDED.c.title)
    )
    for title, amount in session.execute(house):
        of(title).house_result = int(amount or 0)
    per_round = (
        select(
            ROUNDS_RECORDED.c.title.label("title"),
            TRANSACTIONS.c.kind.label("kind"),
            func.sum(-ENTRIES.c.amount).label("staked"),
        )
        .select_from(joined)
        .where(ACCOUNTS.c.kind == "wallet", TRANSACTIONS.c.category == "stake")
        .group_by(ROUNDS_RECORDED.c.title, TRANSACTIONS.c.kind, ROUNDS.c.id)
        .subquery()
    )
    stakes = select(
        per_round.c.title,
        per_round.c.kind,
        func.sum(per_round.c.staked),
        func.sum(per_round.c.staked * per_round.c.staked),
        func.count(),
    ).group_by(per_round.c.title, per_round.c.kind)
    for title, kind, total, squares, number in session.execute(stakes):
        label = stake_kind(kind)
        before = of(title).stakes.get(label, KindStakes(0, 0, 0))
        of(title).stakes[label] = KindStakes(
            before.total + int(total or 0),
            before.squares + int(squares or 0),
            before.rounds + int(number),
        )
    return ledgers
