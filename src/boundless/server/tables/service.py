"""Money and records of a table's rounds: every database write of the table runner.

No commits here: the runner opens one transaction per command (a batch of bets, a step's extra
stakes, a settlement, a cancellation) and commits it. Choice of payment timing: every core
payment stage (even money, blackjacks paid at once, surrender refunds, side bets) is settled in
the one ``settle_round`` transaction at the end, together with the play record; a cancellation
reverses the round in the ledger with ``cancel_round``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session

from boundless.core.errors import RulesError
from boundless.core.round import SharedRound
from boundless.ledger import (
    InsufficientFundsError,
    LedgerService,
    PlayerSettlement,
    PostedTransaction,
)
from boundless.ledger.records import StakeOrder
from boundless.server.errors import BadMessageError
from boundless.server.tables.repository import RoundPlayerLine, TableRepository

WALLET_PREFIX = "wallet:"


def position_key(player_id: str, spot: int) -> str:
    """The ledger's position name: ``<player_id>@<spot>``."""
    return f"{player_id}@{spot}"


@dataclass(slots=True)
class BetRequest:
    """One ``bet`` message waiting for the next batch."""

    player_id: str
    bet_id: str
    spots: list[int]
    main_amounts: list[int]
    side_amounts: list[dict[str, int]]

    @property
    def total(self) -> int:
        return sum(self.main_amounts) + sum(sum(sides.values()) for sides in self.side_amounts)

    def orders(self) -> list[StakeOrder]:
        orders = []
        for spot, main, sides in zip(self.spots, self.main_amounts, self.side_amounts, strict=True):
            position = position_key(self.player_id, spot)
            if main > 0:
                orders.append(StakeOrder(self.player_id, position, "main", main))
            for key, amount in sorted(sides.items()):
                if amount > 0:
                    orders.append(StakeOrder(self.player_id, position, f"side:{key}", amount))
        return orders


@dataclass(slots=True)
class BetBatchOutcome:
    answers: list[Any] = field(default_factory=list)
    """Per request: an answer dict (accepted or replayed) or the refusal (an exception)."""
    accepted: list[tuple[BetRequest, int]] = field(default_factory=list)
    """Requests to place in the round after the commit, with the player's wallet before."""


@dataclass(frozen=True, slots=True)
class RoundRecord:
    table_id: str
    round_no: int
    title: str
    rules_version: str
    shoe_number: int | None
    round_in_shoe: int | None
    shoe_commitment: str | None
    events: Any


def bet_columns(
    requests: Sequence[tuple[BetRequest, int]],
) -> tuple[list[str], list[int], list[int], dict[str, list[int]], list[int]]:
    """The core's bet columns for requests (each with the player's free coins)."""
    players: list[str] = []
    spots: list[int] = []
    mains: list[int] = []
    free: list[int] = []
    keys = sorted(
        {key for request, _ in requests for sides in request.side_amounts for key in sides}
    )
    sides_by_key: dict[str, list[int]] = {key: [] for key in keys}
    for request, balance in requests:
        for spot, main, sides in zip(
            request.spots, request.main_amounts, request.side_amounts, strict=True
        ):
            players.append(request.player_id)
            spots.append(spot)
            mains.append(main)
            free.append(balance)
            for key in keys:
                sides_by_key[key].append(sides.get(key, 0))
    return players, spots, mains, sides_by_key, free


class TableService:
    def __init__(self, session: Session) -> None:
        self.session = session
        self.ledger = LedgerService(session)
        self.records = TableRepository(session)

    def wallet_balances(self, player_ids: Sequence[str]) -> dict[str, int]:
        return self.ledger.wallet_balances(player_ids)

    # -- bets ------------------------------------------------------------------------------
    def accept_bets(
        self,
        round_: SharedRound,
        record: RoundRecord,
        requests: Sequence[BetRequest],
    ) -> BetBatchOutcome:
        """Check each bet against the round, stake it, remember its answer. The caller commits,
        then places ``outcome.accepted`` in the round."""
        table_id, round_no = record.table_id, record.round_no
        round_id = f"{table_id}:{round_no}"
        outcome = BetBatchOutcome(answers=[None] * len(requests))
        stored = self.records.bet_answers([(r.player_id, r.bet_id) for r in requests])
        balances = self.wallet_balances([r.player_id for r in requests])
        candidates: list[tuple[int, BetRequest, int]] = []
        for index, request in enumerate(requests):
            known = stored.get((request.player_id, request.bet_id))
            if known is not None:
                outcome.answers[index] = {**known, "replayed": True}
                continue
            balance = balances.get(request.player_id)
            if balance is None:
                outcome.answers[index] = BadMessageError(
                    f"player {request.player_id!r} has no wallet"
                )
                continue
            try:
                round_.verify_place_bets(*bet_columns([(request, balance)]))
            except RulesError as error:
                outcome.answers[index] = error
                continue
            candidates.append((index, request, balance))
        staked = self._stake(table_id, round_no, candidates, outcome)
        if staked:
            self.records.open_round(
                table_id=record.table_id,
                round_no=record.round_no,
                title=record.title,
                rules_version=record.rules_version,
                shoe_number=record.shoe_number,
                round_in_shoe=record.round_in_shoe,
                shoe_commitment=record.shoe_commitment,
            )
        answers = []
        for index, request, balance in staked:
            answer = {
                "bet_id": request.bet_id,
                "round_id": round_id,
                "balance": balance - request.total,
            }
            outcome.answers[index] = answer
            outcome.accepted.append((request, balance))
            answers.append((request.player_id, request.bet_id, answer))
        self.records.add_bets(table_id, round_no, answers)
        return outcome

    def _stake(
        self,
        table_id: str,
        round_no: int,
        candidates: list[tuple[int, BetRequest, int]],
        outcome: BetBatchOutcome,
    ) -> list[tuple[int, BetRequest, int]]:
        if not candidates:
            return []
        orders = [order for _, request, _ in candidates for order in request.orders()]
        try:
            self.ledger.stake_many(table_id, round_no, orders)
            return candidates
        except InsufficientFundsError:
            pass  # someone's wallet moved: stake one by one, refusing only those short
        staked = []
        for index, request, balance in candidates:
            try:
                self.ledger.stake_many(table_id, round_no, request.orders())
            except InsufficientFundsError as error:
                outcome.answers[index] = error
                continue
            staked.append((index, request, balance))
        return staked

    # -- early credits and extra stakes ------------------------------------------------------
    def credit_early(
        self, table_id: str, round_no: int, step: int, credits: dict[str, int]
    ) -> None:
        """Pay players coins the round already paid them (a blackjack paid at once, a
        surrender), so a double or split at ``step`` can use them."""
        for player_id, amount in sorted(credits.items()):
            self.ledger.pay(
                table_id, round_no, player_id, f"{player_id}@early", amount, f"payout:early{step}"
            )

    def stake(self, table_id: str, round_no: int, orders: Sequence[StakeOrder]) -> None:
        if orders:
            self.ledger.stake_many(table_id, round_no, list(orders))

    # -- settlement and cancellation -------------------------------------------------------
    def settle(
        self,
        record: RoundRecord,
        lines: Sequence[tuple[str, int, int]],
        balance_before: dict[str, int],
        results: dict[str, Any],
        credited: dict[str, int],
    ) -> dict[str, int]:
        """Pay the round in one ledger transaction and write its play record; balances after.

        ``credited`` is what each player was already paid during the round (early credits)."""
        if any(staked for _, staked, _ in lines):
            self.ledger.settle_round(
                record.table_id,
                record.round_no,
                [
                    PlayerSettlement(player, staked, paid - credited.get(player, 0))
                    for player, staked, paid in lines
                ],
            )
        after = self.wallet_balances([player for player, _, _ in lines])
        self._write_record(record, "settled", None, lines, balance_before, after, results)
        return after

    def cancel(
        self,
        record: RoundRecord,
        reason: str,
        lines: Sequence[tuple[str, int, int]],
        balance_before: dict[str, int],
        results: dict[str, Any],
    ) -> dict[str, int]:
        """Reverse the round in the ledger (exactly once) and record it; refunds by player."""
        refunds = self.reverse_in_ledger(record.table_id, record.round_no)
        refund_lines = [(player, staked, refunds.get(player, 0)) for player, staked, _ in lines]
        if lines:
            after = self.wallet_balances([player for player, _, _ in lines])
            self._write_record(
                record, "cancelled", reason, refund_lines, balance_before, after, results
            )
        return refunds

    def reverse_in_ledger(self, table_id: str, round_no: int) -> dict[str, int]:
        info = self.ledger.round_info(table_id, round_no)
        if info is None or info.status == "closed":
            return {}
        return wallet_amounts(self.ledger.cancel_round(table_id, round_no))

    def _write_record(
        self,
        record: RoundRecord,
        status: str,
        reason: str | None,
        lines: Sequence[tuple[str, int, int]],
        balance_before: dict[str, int],
        balance_after: dict[str, int],
        results: dict[str, Any],
    ) -> None:
        self.records.end_round(
            record.table_id,
            record.round_no,
            status=status,
            reason=reason,
            events=record.events,
            players=[
                RoundPlayerLine(
                    player,
                    staked,
                    paid,
                    balance_before.get(player),
                    balance_after.get(player),
                    results.get(player, []),
                )
                for player, staked, paid in lines
            ],
        )


def wallet_amounts(transaction: PostedTransaction) -> dict[str, int]:
    """What a transaction moved into each player's wallet."""
    amounts: dict[str, int] = {}
    for entry in transaction.entries:
        if entry.account.startswith(WALLET_PREFIX):
            player = entry.account[len(WALLET_PREFIX) :]
            amounts[player] = amounts.get(player, 0) + entry.amount
    return amounts
