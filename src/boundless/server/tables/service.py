"""Money and records of a table's rounds: every database write of the table runner.

No commits here: the runner opens one transaction per command (a batch of bets, a step's extra
stakes, a settlement, a cancellation) and commits it. A service either writes whole rounds
(``boundless serve``: the ledger owner ``local``) or, given a ``slice_owner``, only that owner's
slice of rounds other processes share (a cluster gateway): its cancellation then reverses its own
slice, and its play record lines join the round's row beside the other slices'. Choice of
payment timing: every core
payment stage (even money, blackjacks paid at once, surrender refunds, side bets) is settled in
the one ``settle_round`` transaction at the end, together with the play record; a cancellation
reverses the round in the ledger with ``cancel_round``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session

from boundless.core.errors import RulesError
from boundless.core.round.players import PlayerRound
from boundless.ledger import (
    ROUND_SCOPE,
    Category,
    IdempotencyConflictError,
    LedgerService,
    PlayerSettlement,
    round_key,
    slice_key,
)
from boundless.ledger.accounts import DEFAULT_OWNER
from boundless.ledger.records import StakeOrder
from boundless.server.errors import BadMessageError
from boundless.server.tables.repository import RoundPlayerLine, TableRepository
from boundless.wallet import INTERNAL, BetDebit, WalletProvider, wallet_amounts


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

    def amounts(self) -> dict[str, dict[str, int]]:
        """What the bet asks for, by spot: the content a retry of ``bet_id`` must repeat."""
        return {
            str(spot): {key: amount for key, amount in {"main": main, **sides}.items() if amount}
            for spot, main, sides in zip(
                self.spots, self.main_amounts, self.side_amounts, strict=True
            )
        }

    def replay(self, stored: Any, table_id: str | None = None) -> dict[str, Any]:
        """The stored answer of this ``bet_id`` for a retry; a different bet under the same id,
        or the same id sent to another table (``table_id``), is refused
        (``idempotency_conflict``): a retry is answered only by the table that took it."""
        answer = stored.get("answer", stored) if isinstance(stored, dict) else None
        taken_at = str(answer.get("round_id", "")) if isinstance(answer, dict) else ""
        if table_id is not None and taken_at and taken_at.rpartition(":")[0] != table_id:
            raise IdempotencyConflictError(
                f"bet_id {self.bet_id}",
                f"the bet taken at table {taken_at.rpartition(':')[0]!r} ({taken_at})",
                f"a bet at table {table_id!r} (choose a new bet_id for each bet)",
            )
        if isinstance(stored, dict) and "answer" in stored:
            asked = stored.get("bets")
            if asked is not None and asked != self.amounts():
                raise IdempotencyConflictError(
                    f"bet_id {self.bet_id}", f"the bet {asked}", f"the bet {self.amounts()}"
                )
            stored = stored["answer"]
        return {**stored, "replayed": True}

    def debit(self) -> BetDebit:
        """The bet as the wallet takes it: every stake of it, all or none."""
        return BetDebit(self.player_id, self.bet_id, tuple(self.orders()))

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
class CancelOutcome:
    refunds: dict[str, int]
    """What the cancellation moved into each wallet (stakes back, early payments taken back)."""
    lines: list[PlayerSettlement]
    """Each player's figures for the whole round, from the ledger: net zero once reversed."""
    balances: dict[str, int]
    """Each player's wallet after the cancellation."""


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


Candidate = tuple[int, BetRequest, int]
"""A bet of a batch on its way in: its index in the batch, the request, the player's balance."""


def all_or_each(
    candidates: list[Candidate],
    outcome: BetBatchOutcome,
    refusal: type[Exception],
    attempt: Callable[[list[Candidate]], object],
) -> list[Candidate]:
    """The candidates ``attempt`` takes: all of them in one call, else (the call raised
    ``refusal``) one at a time, each ``refusal`` answering its own bet."""
    try:
        attempt(candidates)
        return candidates
    except refusal:
        pass
    taken = []
    for candidate in candidates:
        try:
            attempt([candidate])
        except refusal as error:
            outcome.answers[candidate[0]] = error
            continue
        taken.append(candidate)
    return taken


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
    """``wallets``: the wallet port's provider; every coin of a player moves through it (the
    ledger is only read here, as the game's record)."""

    def __init__(
        self,
        session: Session,
        slice_owner: str | None = None,
        wallets: WalletProvider = INTERNAL,
    ) -> None:
        self.session = session
        self.slice_owner = slice_owner
        self.wallet = wallets(session, slice_owner)
        self.ledger = LedgerService(session, slice_owner or DEFAULT_OWNER)
        self.records = TableRepository(session)

    def wallet_balances(self, player_ids: Sequence[str]) -> dict[str, int]:
        return self.wallet.balances(player_ids)

    # -- bets ------------------------------------------------------------------------------
    def accept_bets(
        self,
        round_: PlayerRound,
        record: RoundRecord,
        requests: Sequence[BetRequest],
    ) -> BetBatchOutcome:
        """Check each bet against the round, stake it, remember its answer. The caller commits,
        then places ``outcome.accepted`` in the round."""
        table_id, round_no = record.table_id, record.round_no
        round_id = f"{table_id}:{round_no}"
        outcome = BetBatchOutcome(answers=[None] * len(requests))
        replayed = self.replayed_bets(requests, table_id)
        balances = self.wallet_balances([r.player_id for r in requests])
        funded: list[Candidate] = []
        for index, request in enumerate(requests):
            if index in replayed:
                outcome.answers[index] = replayed[index]
                continue
            balance = balances.get(request.player_id)
            if balance is None:
                outcome.answers[index] = BadMessageError(
                    f"player {request.player_id!r} has no wallet"
                )
                continue
            funded.append((index, request, balance))
        candidates = self._verified(round_, funded, outcome)
        staked = self._stake(table_id, round_no, candidates, outcome)
        if staked:
            self.open_round_row(record)
        answers = []
        for index, request, balance in staked:
            answer = {
                "bet_id": request.bet_id,
                "round_id": round_id,
                "balance": balance - request.total,
            }
            outcome.answers[index] = answer
            outcome.accepted.append((request, balance))
            stored_answer = {"answer": answer, "bets": request.amounts()}
            answers.append((request.player_id, request.bet_id, stored_answer))
        self.records.add_bets(table_id, round_no, answers)
        return outcome

    def open_round_row(self, record: RoundRecord) -> None:
        """The round's play record row (open until it ends), unless it is there already."""
        self.records.open_round(
            table_id=record.table_id,
            round_no=record.round_no,
            title=record.title,
            rules_version=record.rules_version,
            shoe_number=record.shoe_number,
            round_in_shoe=record.round_in_shoe,
            shoe_commitment=record.shoe_commitment,
        )

    def replayed_bets(
        self, requests: Sequence[BetRequest], table_id: str | None = None
    ) -> dict[int, Any]:
        """Answers for retries of bets already taken (by index of ``requests``): the stored
        answer, or the refusal of a different bet under the same ``bet_id`` (another table's
        included, when ``table_id`` names the table asked)."""
        stored = self.records.bet_answers([(r.player_id, r.bet_id) for r in requests])
        found: dict[int, Any] = {}
        for index, request in enumerate(requests):
            known = stored.get((request.player_id, request.bet_id))
            if known is not None:
                try:
                    found[index] = request.replay(known, table_id)
                except IdempotencyConflictError as error:
                    found[index] = error
        return found

    @staticmethod
    def _verified(
        round_: PlayerRound,
        funded: list[Candidate],
        outcome: BetBatchOutcome,
    ) -> list[Candidate]:
        """The bets the round's rules accept: the whole batch in one check (the batch holds one
        bet per player), else bet by bet, refusing only the ones that break a rule."""

        def verify(group: list[Candidate]) -> None:
            round_.verify_place_bets(*bet_columns([(r, balance) for _, r, balance in group]))

        return all_or_each(funded, outcome, RulesError, verify)

    def _stake(
        self,
        table_id: str,
        round_no: int,
        candidates: list[Candidate],
        outcome: BetBatchOutcome,
    ) -> list[Candidate]:
        if not candidates:
            return []
        refusals = self.wallet.debit_bets(
            table_id, round_no, [request.debit() for _, request, _ in candidates]
        )
        staked = []
        for candidate, refusal in zip(candidates, refusals, strict=True):
            if refusal is None:
                staked.append(candidate)
            else:
                outcome.answers[candidate[0]] = refusal
        return staked

    # -- early credits and extra stakes ------------------------------------------------------
    def credit_early(
        self, table_id: str, round_no: int, step: int, credits: dict[str, int]
    ) -> None:
        """Pay players coins the round already paid them (a blackjack paid at once, a
        surrender), so a double or split at ``step`` can use them."""
        self.wallet.credit_early(table_id, round_no, step, credits)

    def stake(self, table_id: str, round_no: int, orders: Sequence[StakeOrder]) -> None:
        """Insurance, or a step's doubles and splits: all staked, or the wallet's refusal."""
        self.wallet.debit(table_id, round_no, orders)

    # -- settlement and cancellation -------------------------------------------------------
    def settle(
        self,
        record: RoundRecord,
        lines: Sequence[PlayerSettlement],
        balance_before: dict[str, int],
        results: dict[str, Any],
        credited: dict[str, int],
        away: Sequence[str] = (),
    ) -> dict[str, int]:
        """Pay the round in one ledger transaction and write its play record; balances after.

        ``credited`` is what each player was already paid during the round (early credits);
        ``results`` holds the recorded players' positions (the balances after are theirs);
        ``away``: (a shared round) players to be told later, by whichever process they reach.

        A slice of a shared round writes its players' lines before it settles in the ledger:
        settling locks the round until the commit, and the other slices' settlements wait for
        it, so that lock is held for the settlement and the round row's ending alone."""
        recorded = [line for line in lines if line.player_id in results]
        owed = [
            PlayerSettlement(
                line.player_id, line.staked, line.paid - credited.get(line.player_id, 0)
            )
            for line in lines
        ]
        if self.slice_owner is None:
            self.wallet.settle(record.table_id, record.round_no, owed, credited)
            after = self.wallet_balances([line.player_id for line in recorded])
            self._write_record(record, "settled", None, recorded, balance_before, after, results)
            return after
        now = self.wallet_balances([line.player_id for line in recorded])
        paying = {settlement.player_id: settlement.paid for settlement in owed}
        after = {player: now.get(player, 0) + paying.get(player, 0) for player in now}
        row = self.records.round_row(record.table_id, record.round_no)
        assert row is not None, "the round's row is written with its first bet"
        lines_of = self._record_lines(recorded, balance_before, after, results, away)
        self.records.add_slice_players(row.id, "settled", None, lines_of)
        self.wallet.settle(record.table_id, record.round_no, owed, credited)
        self._write_record(record, "settled", None, [], balance_before, after, results)
        return after

    def cancel(
        self,
        record: RoundRecord,
        reason: str,
        player_ids: Sequence[str],
        balance_before: dict[str, int],
        results: dict[str, Any],
        away: Sequence[str] = (),
        credited: dict[str, int] | None = None,
    ) -> CancelOutcome:
        """Reverse the round in the ledger (exactly once) and record it with the ledger's figures
        for the whole round, early payments included (so each player's net is zero). ``away``:
        as for :meth:`settle`; ``credited``: (a slice) what the round paid its players early."""
        refunds = self.reverse_in_ledger(record.table_id, record.round_no)
        if self.slice_owner is None:
            by_player = round_lines(self.ledger, record.table_id, record.round_no)
        else:
            by_player = self._reversed_lines(record, player_ids, credited or {})
        players = sorted(set(player_ids) | set(by_player))
        lines = [by_player.get(player, PlayerSettlement(player, 0, 0)) for player in players]
        after = self.wallet_balances(players)
        if lines:
            self._write_record(
                record, "cancelled", reason, lines, balance_before, after, results, away
            )
        if lines and self.slice_owner is not None:
            # The coordinator may have recorded this slice first (we were too slow to cancel
            # it): the players told now must not be told again at their next hello.
            told = [player for player in players if player not in set(away)]
            self.records.claim_untold(told, record.table_id, record.round_no)
        return CancelOutcome(refunds, lines, after)

    def _reversed_lines(
        self, record: RoundRecord, player_ids: Sequence[str], credited: dict[str, int]
    ) -> dict[str, PlayerSettlement]:
        """A reversed slice's figures from its reversal alone (not the whole round's
        transactions, thousands in a large round): each player got back what they staked less
        what the round had paid them early, so both their staked and their paid are that
        refund plus the early payments."""
        table_id, round_no = record.table_id, record.round_no
        owner = self.ledger.owner
        reversal = self.ledger.transaction(slice_key(table_id, round_no, owner, "cancel"))
        ours: set[str] | None = None
        if reversal is None:  # a new coordinator cancelled the whole round
            reversal = self.ledger.transaction(round_key(table_id, round_no, ROUND_SCOPE, "cancel"))
            ours = set(player_ids)
        if reversal is None:
            return {}
        lines = {}
        for player, refund in wallet_amounts(reversal).items():
            if ours is None or player in ours:
                total = refund + credited.get(player, 0)
                lines[player] = PlayerSettlement(player, total, total)
        return lines

    def record_reversed(
        self, table_id: str, round_no: int, reason: str, *, untold: bool = False
    ) -> list[PlayerSettlement]:
        """The play record of a round (or of this owner's slice) the ledger reversed after the
        table that played it was gone (a crash, a stopped gateway): every player's figures from
        the ledger, each netting zero, the round's row made if missing. ``untold``: the players
        are still to be told (a gateway tells each one once, when they are back)."""
        by_player = round_lines(self.ledger, table_id, round_no, owner=self.slice_owner)
        if not by_player:
            return []
        records = self.records
        if records.round_row(table_id, round_no) is None:
            records.open_round(
                table_id=table_id,
                round_no=round_no,
                title=table_id.rsplit("-", 1)[0],
                rules_version="unknown",
                shoe_number=None,
                round_in_shoe=None,
                shoe_commitment=None,
            )
        lines = list(by_player.values())
        after = self.wallet_balances([line.player_id for line in lines])
        players = [
            RoundPlayerLine(
                line.player_id,
                line.staked,
                line.paid,
                after.get(line.player_id, 0) - line.net,
                after.get(line.player_id),
                [],
            )
            for line in lines
        ]
        records.end_round(
            table_id,
            round_no,
            status="cancelled",
            reason=reason,
            events=None,
            players=players,
            shared=self.slice_owner is not None,
            untold=untold,
        )
        return lines

    def reverse_in_ledger(self, table_id: str, round_no: int) -> dict[str, int]:
        """The round's (a slice's: its owner's) stakes back, once, through the wallet."""
        return self.wallet.cancel(table_id, round_no)

    def _write_record(
        self,
        record: RoundRecord,
        status: str,
        reason: str | None,
        lines: Sequence[PlayerSettlement],
        balance_before: dict[str, int],
        balance_after: dict[str, int],
        results: dict[str, Any],
        away: Sequence[str] = (),
    ) -> None:
        self.records.end_round(
            record.table_id,
            record.round_no,
            status=status,
            reason=reason,
            events=record.events,
            players=self._record_lines(lines, balance_before, balance_after, results, away),
            shared=self.slice_owner is not None,
        )

    @staticmethod
    def _record_lines(
        lines: Sequence[PlayerSettlement],
        balance_before: dict[str, int],
        balance_after: dict[str, int],
        results: dict[str, Any],
        away: Sequence[str] = (),
    ) -> list[RoundPlayerLine]:
        untold = set(away)
        return [
            RoundPlayerLine(
                line.player_id,
                line.staked,
                line.paid,
                balance_before.get(line.player_id),
                balance_after.get(line.player_id),
                results.get(line.player_id, []),
                line.player_id in untold,
            )
            for line in lines
        ]


def round_lines(
    ledger: LedgerService, table_id: str, round_no: int, owner: str | None = None
) -> dict[str, PlayerSettlement]:
    """Each player's figures for a round from its ledger transactions: ``staked`` what left the
    wallet as stakes, ``paid`` everything the round moved back into it (early payments, the
    settlement or the cancellation's reversal). ``owner``: that owner's slice only (and the
    round-wide cancellation, which reverses it too), so only the players who staked in it."""
    staked: dict[str, int] = {}
    paid: dict[str, int] = {}
    for transaction in ledger.round_transactions(table_id, round_no):
        if owner is not None and transaction.owner not in (owner, None):
            continue
        into = staked if transaction.category == Category.STAKE else paid
        sign = -1 if transaction.category == Category.STAKE else 1
        for player, amount in wallet_amounts(transaction).items():
            into[player] = into.get(player, 0) + sign * amount
    players = set(staked) if owner is not None else set(staked) | set(paid)
    return {
        player: PlayerSettlement(player, staked.get(player, 0), paid.get(player, 0))
        for player in sorted(players)
    }
