"""The ``seamless`` wallet: players' coins live in the operator's wallet, reached over HTTP.

Our ledger stays the game's record of every call. The debits the operator accepts are
written as one take-in (a grant, issuance -> the players' ledger wallets, keyed by the calls it
brings in) and staked from there as usual, in the same database transaction that records the
calls; coins the round pays stay in that ledger wallet until the round ends; then the
settlement's credit (zero for a loss) or, for a cancelled round, one rollback per debit hands
them back (a ``hand_back`` transaction) and is queued as a pending call in the same database
transaction. So between rounds a seamless player's ledger wallet holds nothing, and every coin
the game holds is a debit not yet ended.

Delivery: a betting window's debits go in stages of ``STAGE_SIZE`` (each stage's intents
committed, then its debits sent, while the stage before is written to our ledger), each stage's
debits at once, in parallel (the client's pool bounds them), or through ``debit_batch`` when the
operator offers it (up to ``BATCH_SIZE`` debits a request; a debit the answer gives no outcome is
sent again in a smaller batch); a
refused debit is a refused bet with the operator's reason and nothing staked; a debit without a
valid answer after its tries is refused as ``wallet_unavailable`` and rolled back. Credits and
rollbacks are sent after the commit by a delivery task (in batches through ``credit_batch`` when
the operator offers it) and retried under the same transaction id, each try bounded, then left
pending for the next pass and shown on the operator console: never dropped, never re-sent with
another amount (the amount is written once with the call). A debit the operator took whose
database transaction then rolled back is rolled back too (queued in memory and written by the
delivery task). Every debit's intent is committed before it is sent (:mod:`.intents`), so a
process killed between the operator's debit and our commit rolls that debit back at its next
start, by itself.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import logging
import threading
import time
from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import event
from sqlalchemy.orm import Session, SessionTransaction, sessionmaker

from boundless.ledger.accounts import DEFAULT_OWNER
from boundless.ledger.records import PlayerSettlement, StakeOrder
from boundless.wallet.calls import (
    CREDIT,
    DEBIT,
    DONE,
    REFUSED,
    ROLLBACK,
    Call,
    CallBook,
    answered,
    rollback_of,
    transaction_id,
)
from boundless.wallet.intents import DebitIntents, intents_url
from boundless.wallet.internal import InternalWallet
from boundless.wallet.operator_client import (
    CallFailedError,
    ClientSettings,
    JsonBody,
    OperatorClient,
)
from boundless.wallet.port import (
    BetDebit,
    WalletRefusal,
    WalletUnavailableError,
    WalletWrapper,
)

log = logging.getLogger("boundless.wallet.seamless")
SWEEP_WINDOW = timedelta(days=2)
SWEEP_PASSES = 60
"""Every this many delivery passes, look for rounds cancelled elsewhere that owe rollbacks."""
BATCH_SIZE = 500
"""Credits per ``credit_batch`` call, and calls per delivery pass."""
STAGE_SIZE = 2000
"""Debits per stage of a betting window's batch (see :meth:`SeamlessWallets.send_in_stages`):
measured on PostgreSQL, stages of 250, 500 and 1,000 cost more in per-stage ledger work than
their overlap saved (docs/performance.md): a gateway's whole batch is one stage."""
OFFERS_SECONDS = 30.0
"""How often ``/capabilities`` is asked again while the operator has not answered it."""
Answers = concurrent.futures.Future[list[JsonBody | Exception]]


class SeamlessWallets:
    """The ``seamless`` :class:`~boundless.wallet.port.WalletProvider`: one operator client,
    the balances last seen, and the delivery task of pending credits and rollbacks."""

    name = "seamless"

    def __init__(
        self,
        settings: ClientSettings,
        currency: str = "EUR",
        delivery_seconds: float = 0.5,
        stage_size: int = STAGE_SIZE,
    ) -> None:
        self.client = OperatorClient(settings)
        self.stage_size = stage_size
        self.currency = currency
        self.delivery_seconds = delivery_seconds
        self.last_balance: dict[str, int] = {}
        self._lock = threading.Lock()
        self._orphans: list[Call] = []
        self._ended_debits: list[str] = []
        """Debits whose outcome is in our record of calls: their intents can go."""
        self.intents: DebitIntents | None = None
        self._sessions: sessionmaker[Session] | None = None
        self._wake: asyncio.Event | None = None
        self._task: concurrent.futures.Future[None] | None = None
        self.batch: bool | None = None
        """Whether the operator offers ``credit_batch`` (asked at start and, until the operator
        answers, at every delivery pass)."""
        self.debit_batch = False
        """Whether the operator offers ``debit_batch`` (asked as ``batch`` is)."""
        self._offers_known, self._offers_asked = False, 0.0

    def __call__(self, session: Session, slice_owner: str | None = None) -> SeamlessWallet:
        return SeamlessWallet(session, slice_owner, self)

    # ---- the delivery task --------------------------------------------------------------
    def start(self, sessions: sessionmaker[Session], owners: Sequence[str] | None = None) -> None:
        """Start delivering pending calls (this process's and any left by an earlier one),
        after owing the rollbacks of a crash's recovery: the debits ``owners`` (the ledger
        owners this process writes for; ``None``: all, the one process of ``serve``) sent and
        never recorded, and those of rounds cancelled meanwhile."""
        self._sessions = sessions
        bind = sessions.kw["bind"]
        self.intents = DebitIntents(intents_url(bind.url.render_as_string(hide_password=False)))
        self._take_offers(self.client.run(self._offers()))
        self.roll_back_unrecorded(owners)
        self.roll_back_cancelled()
        self._task = asyncio.run_coroutine_threadsafe(self._deliver_forever(), self.client.loop)

    async def _offers(self) -> dict[str, Any] | None:
        """What the operator offers, or ``None`` while it does not answer (its wallet down when
        this process started: one by one until it answers, then its batches)."""
        try:
            return await self.client.call("/capabilities", {})
        except CallFailedError as error:
            if self.batch is None:  # said once, at start
                log.warning("the operator's wallet did not say what it offers (%s)", error)
            return None

    def _take_offers(self, offers: dict[str, Any] | None) -> None:
        self._offers_known, self._offers_asked = offers is not None, time.monotonic()
        self.batch = bool((offers or {}).get("credit_batch"))
        self.debit_batch = bool((offers or {}).get("debit_batch"))
        if offers is not None:
            log.info("the operator's wallet offers: credit_batch %s, debit_batch %s",
                     self.batch, self.debit_batch)  # fmt: skip

    async def debit_answers(self, bodies: Sequence[JsonBody]) -> list[JsonBody | Exception]:
        """Per debit body the operator's answer (``ok`` or ``refused``) or why there is none."""
        if not self.debit_batch:
            return await self.client.call_many("/debit", bodies)
        chunks = [bodies[first : first + BATCH_SIZE] for first in range(0, len(bodies), BATCH_SIZE)]
        parts = await asyncio.gather(*(self._debit_batch(chunk) for chunk in chunks))
        return [answer for part in parts for answer in part]

    async def _debit_batch(self, bodies: Sequence[JsonBody]) -> list[JsonBody | Exception]:
        """One ``debit_batch`` (the client retries it whole on a failure or timeout: each debit
        is idempotent by its id); the debits its answer gives no outcome are sent again, alone
        in a smaller batch, up to the client's tries; still none: a failure (rolled back)."""
        answers: list[JsonBody | Exception] = [
            CallFailedError("/debit_batch: not sent") for _ in bodies
        ]
        for _ in range(self.client.settings.tries):
            open_ = [index for index, answer in enumerate(answers) if not _has_outcome(answer)]
            if not open_:
                break
            try:
                answer = await self.client.call(
                    "/debit_batch", {"debits": [bodies[index] for index in open_]}
                )
            except CallFailedError as error:
                for index in open_:
                    answers[index] = error
                break
            results = answer.get("results")
            if not isinstance(results, list) or len(results) != len(open_):
                mismatch = CallFailedError("/debit_batch: the results do not match the debits")
                for index in open_:
                    answers[index] = mismatch
                break
            for index, result in zip(open_, results, strict=True):
                sent = bodies[index]["transaction_id"]
                if isinstance(result, dict) and result.get("transaction_id") == sent:
                    answers[index] = result
                else:
                    answers[index] = CallFailedError(f"/debit_batch: no answer for {sent}")
        return [
            answer
            if _has_outcome(answer) or isinstance(answer, Exception)
            else CallFailedError(f"/debit_batch: no outcome: {answer.get('detail')}")
            for answer in answers
        ]

    def roll_back_unrecorded(self, owners: Sequence[str] | None) -> list[str]:
        """A rollback (pending, delivered like any) for every debit whose intent is left and
        whose outcome is not in our record of calls: a previous life sent it and died before
        its database transaction committed. The transaction ids of the debits so ended."""
        sessions, intents = self._sessions, self.intents
        assert sessions is not None and intents is not None, "start() first"
        left = intents.left(owners)
        if not left:
            return []
        with sessions.begin() as session:
            book = CallBook(session)
            known = book.known([call.transaction_id for call in left])
            unrecorded = [call for call in left if call.transaction_id not in known]
            book.add(rollback_of(call) for call in unrecorded)
        intents.forget([call.transaction_id for call in left])
        if unrecorded:
            log.warning(
                "rolling back %s debits sent by a previous run and never recorded",
                len(unrecorded),
            )
            self.wake()
        return [call.transaction_id for call in unrecorded]

    def before_sending(self, debits: Sequence[Call]) -> None:
        """Commit the intents of ``debits`` (about to be sent to the operator)."""
        intents = self.intents
        assert intents is not None, "start() first: a debit needs its intent written"
        intents.write(debits)

    def send_in_stages(self, stages: Sequence[Sequence[Call]]) -> list[Answers]:
        """Per stage, in order: its intents committed, then its debits sent; the next stage's
        intents are written while this one's debits are in flight, and the caller records each
        stage's answers as they come (its ledger writes overlap the later stages' calls)."""
        answers: list[Answers] = [concurrent.futures.Future() for _ in stages]

        async def send() -> None:
            sending: list[asyncio.Future[list[JsonBody | Exception]]] = []
            for index, stage in enumerate(stages):
                try:
                    await asyncio.to_thread(self.before_sending, stage)
                except Exception as error:  # this stage and the later ones are never sent
                    for unsent in answers[index:]:
                        unsent.set_exception(error)
                    break
                bodies = [{**call.body(), "kind": "debit"} for call in stage]
                task = asyncio.ensure_future(self.debit_answers(bodies))
                task.add_done_callback(functools.partial(_hand_over, answers[index]))
                sending.append(task)
            await asyncio.gather(*sending, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(send(), self.client.loop)
        return answers

    def ended(self, debits: Sequence[str]) -> None:
        """The outcomes of ``debits`` are committed in our record of calls."""
        if debits:
            with self._lock:
                self._ended_debits.extend(debits)

    def roll_back_cancelled(self) -> list[str]:
        """Rollbacks for every debit of a round cancelled by anyone (this process's recovery, a
        cluster's coordinator) that has none yet; the rounds so ended."""
        sessions = self._sessions
        assert sessions is not None, "start() first"
        since = datetime.now(UTC) - SWEEP_WINDOW
        with sessions.begin() as session:
            rounds = CallBook(session).unended_rounds(since)
        ended = []
        for round_id, owner in rounds:
            table_id, _, number = round_id.rpartition(":")
            with sessions.begin() as session:
                wallet = SeamlessWallet(session, owner, self)
                if wallet.roll_back_round(table_id, int(number)):
                    ended.append(round_id)
        if ended:
            self.wake()
        return ended

    def wake(self) -> None:
        """Something was queued: deliver now rather than at the next pass."""
        wake = self._wake
        if wake is not None and not self.client.loop.is_closed():
            self.client.loop.call_soon_threadsafe(wake.set)

    def orphaned(self, calls: Sequence[Call]) -> None:
        """Rollbacks owed for debits whose database transaction rolled back (their intents
        go once the rollbacks are written)."""
        with self._lock:
            self._orphans.extend(calls)
        self.wake()

    async def _deliver_forever(self) -> None:
        self._wake = asyncio.Event()
        passes = 0
        while True:
            passes += 1
            if passes % SWEEP_PASSES == 0:
                try:
                    await asyncio.to_thread(self.roll_back_cancelled)
                except Exception:
                    log.exception("looking for cancelled rounds failed; trying again later")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.delivery_seconds)
            self._wake.clear()
            if not self._offers_known and time.monotonic() >= self._offers_asked + OFFERS_SECONDS:
                self._take_offers(await self._offers())
            try:
                while await self.deliver_once():
                    pass
            except Exception:
                log.exception("delivering wallet calls failed; trying again at the next pass")

    async def deliver_once(self) -> bool:
        """One pass: write the orphans' rollbacks, send up to a batch of pending calls. Whether
        a full batch was sent (there may be more)."""
        sessions = self._sessions
        assert sessions is not None, "start() first"
        with self._lock:
            orphans, self._orphans = self._orphans, []
            ended, self._ended_debits = self._ended_debits, []
        if orphans:
            await asyncio.to_thread(_write, sessions, orphans)
            ended += [call.refers_to for call in orphans if call.refers_to is not None]
        if ended and self.intents is not None:
            await asyncio.to_thread(self.intents.forget, ended)
        pending = await asyncio.to_thread(_pending, sessions)
        if not pending:
            return False
        done, failed = await self._send(pending)
        await asyncio.to_thread(_mark, sessions, done, failed)
        return len(pending) >= BATCH_SIZE and bool(done)

    async def _send(self, calls: list[Call]) -> tuple[list[str], dict[str, str]]:
        credits = [call for call in calls if call.kind == CREDIT]
        singles = [call for call in calls if call.kind != CREDIT]
        done: list[str] = []
        failed: dict[str, str] = {}
        if self.batch and credits:
            try:
                answer = await self.client.call(
                    "/credit_batch", {"credits": [call.body() for call in credits]}
                )
                results = answer.get("results")
                if not isinstance(results, list) or len(results) != len(credits):
                    raise CallFailedError("/credit_batch: the results do not match the credits")
                for call, result in zip(credits, results, strict=True):
                    _sort(call, result, done, failed)
            except CallFailedError as error:
                failed.update({call.transaction_id: str(error) for call in credits})
        else:
            singles = calls
        paths = [f"/{call.kind}" for call in singles]
        sent = await asyncio.gather(
            *(
                self.client.call(path, call.body())
                for path, call in zip(paths, singles, strict=True)
            ),
            return_exceptions=True,
        )
        for call, outcome in zip(singles, sent, strict=True):
            _sort(call, outcome, done, failed)
        return done, failed

    def pending_count(self) -> int:
        sessions = self._sessions
        if sessions is None:
            return 0
        with sessions.begin() as session:
            return CallBook(session).pending_count()

    def close(self) -> None:
        task = self._task
        if task is not None:
            task.cancel()
        self.client.close()
        if self.intents is not None:
            self.intents.close()


def _hand_over(answer: Answers, task: asyncio.Future[list[JsonBody | Exception]]) -> None:
    error = None if task.cancelled() else task.exception()
    if task.cancelled() or error is not None:
        answer.set_exception(error or CallFailedError("the debits were not sent"))
    else:
        answer.set_result(task.result())


def _has_outcome(answer: JsonBody | Exception) -> bool:
    return isinstance(answer, dict) and answer.get("status") in ("ok", "refused")


def _sort(call: Call, answer: object, done: list[str], failed: dict[str, str]) -> None:
    if isinstance(answer, dict) and answer.get("status") == "ok":
        done.append(call.transaction_id)
    elif isinstance(answer, BaseException):
        failed[call.transaction_id] = str(answer) or type(answer).__name__
    else:
        failed[call.transaction_id] = f"not acknowledged: {answer!r}"[:300]


def _write(sessions: sessionmaker[Session], calls: list[Call]) -> None:
    with sessions.begin() as session:
        CallBook(session).add(calls)


def _pending(sessions: sessionmaker[Session]) -> list[Call]:
    with sessions.begin() as session:
        return CallBook(session).pending(BATCH_SIZE)


def _mark(sessions: sessionmaker[Session], done: list[str], failed: dict[str, str]) -> None:
    with sessions.begin() as session:
        book = CallBook(session)
        book.mark_done(done)
        book.mark_failed(failed)
    if failed:
        log.warning("%s wallet calls not acknowledged yet (pending for the next try)", len(failed))


class SeamlessWallet(WalletWrapper):
    """The :class:`~boundless.wallet.port.Wallet` of one database transaction (see the module):
    our own ledger's wallet (``inner``) records every coin, the operator's is called first.
    What the round paid early passes straight through: it stays in the player's ledger wallet
    (a double may use it) until the round's credit."""

    def __init__(self, session: Session, slice_owner: str | None, wallets: SeamlessWallets) -> None:
        internal = InternalWallet(session, slice_owner)
        super().__init__(internal)
        self.session = session
        self.owner = slice_owner or DEFAULT_OWNER
        self.ledger = internal.ledger
        self.wallets = wallets
        self.client = wallets.client
        self.book = CallBook(session)
        self._sent: list[Call] = []
        """Every debit sent (or about to be) in this database transaction."""
        self._refused: set[str] = set()
        """Those the operator refused: the others are rolled back if the transaction is."""
        event.listen(session, "after_commit", self._committed)
        event.listen(session, "after_transaction_end", self._ended)
        self._commit_seen = False

    # ---- the transaction's end ------------------------------------------------------------
    def _committed(self, _session: Session) -> None:
        self._commit_seen = True
        self.wallets.wake()

    def _ended(self, _session: Session, transaction: SessionTransaction) -> None:
        if transaction.parent is not None or transaction.nested:
            return
        sent, self._sent = self._sent, []
        refused, self._refused = self._refused, set()
        committed, self._commit_seen = self._commit_seen, False
        if committed:
            self.wallets.ended([call.transaction_id for call in sent])
            return
        # Rolled back: every debit the operator may hold (taken, sent without an answer, or
        # whose answer was never read) is rolled back; a refused debit's intent simply goes.
        owed = [rollback_of(call) for call in sent if call.transaction_id not in refused]
        if owed:
            self.wallets.orphaned(owed)
        self.wallets.ended([call.transaction_id for call in sent if call.transaction_id in refused])

    # ---- reads ----------------------------------------------------------------------------
    def _player_body(self, player_id: str) -> dict[str, Any]:
        return {"player_id": player_id, "currency": self.wallets.currency}

    def _operator_balances(self, player_ids: Sequence[str]) -> dict[str, int]:
        """The operator's balances of the players with a ledger wallet here (launched by the
        operator); a balance the operator did not give counts 0."""
        known = self.ledger.wallet_balances(player_ids)
        ask = sorted(known)
        answers = self.client.run(
            self.client.call_many("/balance", [self._player_body(p) for p in ask])
        )
        found: dict[str, int] = {}
        for player, answer in zip(ask, answers, strict=True):
            if isinstance(answer, dict) and isinstance(answer.get("balance"), int):
                found[player] = int(answer["balance"])
                self.wallets.last_balance[player] = found[player]
            else:
                log.warning("no balance for %s from the operator: %s", player, answer)
                found[player] = 0
        return found

    def balances(self, player_ids: Sequence[str]) -> dict[str, int]:
        last = self.wallets.last_balance
        unknown = [player for player in player_ids if player not in last]
        found = self._operator_balances(unknown) if unknown else {}
        return {
            player: last[player] if player in last else found[player]
            for player in player_ids
            if player in last or player in found
        }

    def spendable(self, player_ids: Sequence[str]) -> dict[str, int]:
        return self._operator_balances(player_ids)

    # ---- debits ---------------------------------------------------------------------------
    def _debit_call(self, round_id: str, player_id: str, amount: int, *what: object) -> Call:
        return Call(
            transaction_id=transaction_id(DEBIT, round_id, self.owner, player_id, *what),
            kind=DEBIT,
            player_id=player_id,
            round_id=round_id,
            owner=self.owner,
            amount=amount,
            currency=self.wallets.currency,
        )

    def _send_debits(self, calls: list[Call]) -> list[Exception | None]:
        """Each debit sent (all at once); per call ``None`` (taken) or its refusal."""
        self._sent.extend(calls)
        (answers,) = self.wallets.send_in_stages([calls])
        return self._record_answers(calls, answers.result())

    def _record_answers(
        self, calls: Sequence[Call], answers: Sequence[JsonBody | Exception]
    ) -> list[Exception | None]:
        """Per call ``None`` (taken) or its refusal. Taken ones are granted into the player's
        ledger wallet and recorded; the others recorded refused, a failed one with its rollback
        queued (its outcome at the operator is unknown)."""
        results: list[Exception | None] = []
        taken: list[Call] = []
        records: list[Call] = []
        for call, answer in zip(calls, answers, strict=True):
            if isinstance(answer, dict) and answer.get("status") == "ok":
                taken.append(call)
                if isinstance(answer.get("balance"), int):
                    self.wallets.last_balance[call.player_id] = int(answer["balance"])
                results.append(None)
                continue
            if isinstance(answer, dict) and answer.get("status") == "refused":
                reason = str(answer.get("reason") or "refused")[:40]
                detail = str(answer.get("detail") or "the operator refused the debit")[:200]
                results.append(WalletRefusal(reason, f"the operator's wallet: {detail}"))
                records.append(answered(call, REFUSED, f"{reason}: {detail}"))
                self._refused.add(call.transaction_id)
                self.wallets.last_balance.pop(call.player_id, None)
                continue
            error = str(answer)[:200]
            results.append(
                WalletUnavailableError(f"the operator's wallet did not answer the bet ({error})")
            )
            records.append(answered(call, REFUSED, f"no answer: {error}"))
            records.append(rollback_of(call))
        self.book.add(records)
        if taken:
            self._take_in(taken, results)
        return results

    def _take_in(self, taken: list[Call], results: list[Exception | None]) -> None:
        """Record the ``taken`` debits (those answered ``None`` in ``results``) and bring their
        coins into the players' ledger wallets, in one take-in keyed by the calls it brings
        in. Only a debit recorded now brings coins: one recorded taken before is a replay
        (its coins came in then); one recorded refused before was rolled back (its rollback is
        queued): refused again, whatever the operator says now."""
        fresh = self.book.add([answered(call, DONE, None) for call in taken])
        stale = [call.transaction_id for call in taken if call.transaction_id not in fresh]
        earlier = self.book.by_id(stale) if stale else {}
        amounts: dict[str, int] = defaultdict(int)
        where = [index for index, result in enumerate(results) if result is None]
        for call, index in zip(taken, where, strict=True):
            if call.transaction_id in fresh:
                amounts[call.player_id] += call.amount
            elif earlier[call.transaction_id].status != DONE:
                results[index] = WalletUnavailableError(
                    "the operator's wallet answered this bet after it was rolled back"
                )
        key = "take_in:" + transaction_id(DEBIT, *sorted(fresh))
        self.ledger.take_in(key, dict(amounts), f"debits of {taken[0].round_id}")

    def debit_bets(
        self, table_id: str, round_no: int, bets: Sequence[BetDebit]
    ) -> list[Exception | None]:
        round_id = f"{table_id}:{round_no}"
        calls = [self._debit_call(round_id, bet.player_id, bet.total, bet.bet_id) for bet in bets]
        self._sent.extend(calls)
        size = self.wallets.stage_size
        firsts = range(0, len(calls), size)
        stages = self.wallets.send_in_stages([calls[f : f + size] for f in firsts])
        results: list[Exception | None] = []
        for first, answers in zip(firsts, stages, strict=True):
            mine = range(first, min(first + size, len(calls)))
            recorded = self._record_answers([calls[i] for i in mine], answers.result())
            taken = [i for i, result in zip(mine, recorded, strict=True) if result is None]
            staked = self.inner.debit_bets(table_id, round_no, [bets[i] for i in taken])
            results.extend(recorded)
            for index, refusal in zip(taken, staked, strict=True):
                if refusal is not None:  # our ledger refused what the operator took: give it back
                    results[index] = refusal
                    self._give_back(round_id, [calls[index]])
        return results

    def debit(self, table_id: str, round_no: int, orders: Sequence[StakeOrder]) -> None:
        if not orders:
            return
        round_id = f"{table_id}:{round_no}"
        by_player: dict[str, list[StakeOrder]] = defaultdict(list)
        for order in orders:
            by_player[order.player_id].append(order)
        calls = [
            self._debit_call(
                round_id,
                player,
                sum(order.amount for order in mine),
                *sorted(f"{order.position}/{order.kind}" for order in mine),
            )
            for player, mine in sorted(by_player.items())
        ]
        results = self._send_debits(calls)
        refusal = next((result for result in results if result is not None), None)
        if refusal is not None:
            raise refusal  # the transaction rolls back: the debits taken are rolled back too
        self.inner.debit(table_id, round_no, orders)

    def _give_back(self, round_id: str, debits: list[Call]) -> None:
        rollbacks = [rollback_of(call) for call in debits]
        amounts: dict[str, int] = defaultdict(int)
        for call in rollbacks:
            amounts[call.player_id] += call.amount
        key = f"hand_back:{rollbacks[0].transaction_id}"
        self.ledger.hand_back(key, dict(amounts), f"rollbacks of {round_id} to the operator")
        self.book.add(rollbacks)

    # ---- credits --------------------------------------------------------------------------
    def settle(
        self,
        table_id: str,
        round_no: int,
        owed: Sequence[PlayerSettlement],
        early: dict[str, int],
    ) -> None:
        self.inner.settle(table_id, round_no, owed, early)
        round_id = f"{table_id}:{round_no}"
        calls = [
            Call(
                transaction_id=transaction_id(CREDIT, round_id, self.owner, line.player_id),
                kind=CREDIT,
                player_id=line.player_id,
                round_id=round_id,
                owner=self.owner,
                amount=line.paid + early.get(line.player_id, 0),
                currency=self.wallets.currency,
            )
            for line in owed
            if line.staked
        ]
        if not calls:
            return
        amounts = {call.player_id: call.amount for call in calls}
        self.ledger.hand_back(
            f"hand_back:{calls[0].transaction_id}", amounts, f"credits of {round_id}"
        )
        self.book.add(calls)
        last = self.wallets.last_balance
        for call in calls:
            if call.player_id in last:
                last[call.player_id] += call.amount  # as the operator shows it once delivered

    def cancel(self, table_id: str, round_no: int) -> dict[str, int]:
        refunds = self.inner.cancel(table_id, round_no)
        self.roll_back_round(table_id, round_no)
        return refunds

    def roll_back_round(self, table_id: str, round_no: int) -> bool:
        """Once this owner's part of the round is cancelled (by anyone): a rollback for each of
        its debits not rolled back yet, the coins handed back in the ledger."""
        if not self._cancelled(table_id, round_no):
            return False
        round_id = f"{table_id}:{round_no}"
        debits = [
            call for call in self.book.of_round(round_id, self.owner, DEBIT) if call.status == DONE
        ]
        ended = {call.refers_to for call in self.book.of_round(round_id, self.owner, ROLLBACK)}
        open_debits = [call for call in debits if call.transaction_id not in ended]
        if open_debits:
            self._give_back(round_id, open_debits)
            last = self.wallets.last_balance
            for call in open_debits:
                if call.player_id in last:
                    last[call.player_id] += call.amount
        return bool(open_debits)

    def _cancelled(self, table_id: str, round_no: int) -> bool:
        info = self.ledger.round_info(table_id, round_no)
        if info is None:
            return False
        if info.status == "cancelled":
            return True
        mine = [
            item for item in self.ledger.slices_of(table_id, round_no) if item.owner == self.owner
        ]
        return bool(mine) and mine[0].status == "cancelled"
