"""The reference operator wallet: a small FastAPI app that implements ``docs/wallet-api.md``
with its own store (in memory), for tests, benchmarks and operators to read.

Every request must carry the body's HMAC-SHA256 in ``X-Boundless-Signature``; every answer
carries its own in ``X-Operator-Signature``. Calls are idempotent by transaction id: a repeat
gets the first answer, a repeat with another amount is refused (409), a rollback that arrives
before its debit (or for a debit never seen) moves nothing and makes that debit refused for good.

Fault switches (``POST /admin/faults``, unsigned, for a test bench on 127.0.0.1 only; a switch
unknown or of another kind is a 400 and changes nothing):
``latency_ms`` (every call), ``fail_next`` (the next N calls of a path answer 500 unapplied),
``timeout_next`` (the next N calls of a path are applied, then answered after ``hang_seconds``:
the caller times out not knowing), ``duplicate`` (each call is applied twice, as a duplicated
delivery would), ``refuse`` (player -> reason: their debits are refused), ``down`` (every call
answers 503), ``credit_batch`` and ``debit_batch`` (whether ``/capabilities`` offers them),
``unanswered_next`` (the next N debits inside a ``debit_batch`` get no outcome and are not
applied, as an operator that could not reach them would answer).

The routes are plain Starlette endpoints (no FastAPI parameter handling per call): the handler
checks the signature, parses the body with orjson, checks each call's form (:func:`checked`:
a call out of form is a 400 and applies nothing) and applies it under one lock.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import orjson
from fastapi import FastAPI, Request, Response

from boundless.ledger.accounts import MAX_AMOUNT
from boundless.wallet.signing import ANSWER_HEADER, REQUEST_HEADER, Signer

JsonBody = dict[str, Any]
CURRENCY = re.compile(r"^[A-Z]{3}$")
DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
TEXT_FIELDS = ("transaction_id", "player_id", "round_id")


def check_text(kind: str, name: str, value: object) -> None:
    if not isinstance(value, str) or not 1 <= len(value) <= 160:
        raise ValueError(f"{kind}: {name} must be a string of 1-160 characters")


def checked(body: object, kind: str) -> JsonBody:
    """A debit, credit or rollback as the contract writes it, or ``ValueError`` naming what is
    wrong (answered 400, nothing applied): ids are strings of 1-160 characters, the amount an
    integer of minor units (a debit's above zero; never a float, a string or a boolean), the
    currency three capital letters."""
    if not isinstance(body, dict):
        raise ValueError(f"a {kind} is a JSON object")
    for name in TEXT_FIELDS:
        check_text(kind, name, body.get(name))
    amount, lowest = body.get("amount"), 1 if kind == "debit" else 0
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise ValueError(f"{kind}: amount must be an integer of minor units")
    if not lowest <= amount <= MAX_AMOUNT:
        raise ValueError(f"{kind}: amount must be {lowest} to {MAX_AMOUNT}, not {amount}")
    if not isinstance(body.get("currency"), str) or not CURRENCY.match(body["currency"]):
        raise ValueError(f"{kind}: currency must be three capital letters")
    return body


@dataclass
class Faults:
    latency_ms: float = 0.0
    fail_next: dict[str, int] = field(default_factory=dict)
    timeout_next: dict[str, int] = field(default_factory=dict)
    hang_seconds: float = 5.0
    duplicate: bool = False
    refuse: dict[str, str] = field(default_factory=dict)
    down: bool = False
    credit_batch: bool = True
    debit_batch: bool = True
    unanswered_next: int = 0


@dataclass
class Transaction:
    transaction_id: str
    kind: str
    player_id: str
    round_id: str
    amount: int
    status: str
    """``ok`` (applied), ``refused`` or, for a rollback of nothing, ``nothing``."""
    at: datetime
    refers_to: str | None = None
    rolled_back: bool = False


@dataclass
class Store:
    starting_balance: int = 100_000
    balances: dict[str, int] = field(default_factory=dict)
    transactions: dict[str, Transaction] = field(default_factory=dict)
    dead_debits: set[str] = field(default_factory=set)
    """Debit ids a rollback arrived for first: the debit, if it ever comes, is refused."""
    debit_batches: list[int] = field(default_factory=list)
    """How many debits each ``debit_batch`` carried (for a test bench)."""

    def balance(self, player: str) -> int:
        return self.balances.setdefault(player, self.starting_balance)

    def _repeat(self, body: JsonBody, kind: str) -> JsonBody | None:
        known = self.transactions.get(str(body["transaction_id"]))
        if known is None:
            return None
        if (known.kind, known.amount, known.player_id) != (kind, body["amount"], body["player_id"]):
            raise Conflict(
                f"transaction {known.transaction_id} was a {known.kind} of {known.amount}"
            )
        return self._answer(known)

    def _answer(self, transaction: Transaction) -> JsonBody:
        answer: JsonBody = {
            "transaction_id": transaction.transaction_id,
            "status": "ok" if transaction.status in ("ok", "nothing") else "refused",
            "balance": self.balance(transaction.player_id),
        }
        if transaction.status == "refused":
            answer["reason"] = "refused"
        return answer

    def _record(
        self, body: JsonBody, kind: str, status: str, refers: str | None = None
    ) -> Transaction:
        transaction = Transaction(
            str(body["transaction_id"]),
            kind,
            str(body["player_id"]),
            str(body["round_id"]),
            int(body["amount"]),
            status,
            datetime.now(UTC),
            refers,
        )
        self.transactions[transaction.transaction_id] = transaction
        return transaction

    def debit(self, body: JsonBody, refuse: dict[str, str]) -> JsonBody:
        body = checked(body, "debit")
        repeat = self._repeat(body, "debit")
        if repeat is not None:
            return repeat
        player, amount = str(body["player_id"]), int(body["amount"])
        reason = refuse.get(player)
        if reason is None and str(body["transaction_id"]) in self.dead_debits:
            reason = "rolled_back"
        if reason is None and self.balance(player) < amount:
            reason = "insufficient_funds"
        if reason is not None:
            self._record(body, "debit", "refused")
            return {
                "transaction_id": body["transaction_id"],
                "status": "refused",
                "reason": reason,
                "detail": f"{reason.replace('_', ' ')} for {amount}",
                "balance": self.balance(player),
            }
        self.balances[player] = self.balance(player) - amount
        return self._answer(self._record(body, "debit", "ok"))

    def credit(self, body: JsonBody) -> JsonBody:
        body = checked(body, "credit")
        repeat = self._repeat(body, "credit")
        if repeat is not None:
            return repeat
        player = str(body["player_id"])
        self.balances[player] = self.balance(player) + int(body["amount"])
        return self._answer(self._record(body, "credit", "ok"))

    def rollback(self, body: JsonBody) -> JsonBody:
        body = checked(body, "rollback")
        repeat = self._repeat(body, "rollback")
        if repeat is not None:
            return repeat
        debit_id = str(body.get("debit_transaction_id"))
        debit = self.transactions.get(debit_id)
        player = str(body["player_id"])
        if debit is None or debit.status != "ok" or debit.rolled_back:
            self.dead_debits.add(debit_id)
            return self._answer(self._record(body, "rollback", "nothing", debit_id))
        if debit.amount != int(body["amount"]):
            raise Conflict(f"debit {debit_id} was {debit.amount}, not {body['amount']}")
        debit.rolled_back = True
        self.balances[player] = self.balance(player) + debit.amount
        return self._answer(self._record(body, "rollback", "ok", debit_id))

    def report(self, day: str) -> JsonBody:
        rows = [
            {
                "transaction_id": t.transaction_id,
                "kind": t.kind,
                "player_id": t.player_id,
                "round_id": t.round_id,
                "amount": t.amount,
                "status": t.status,
                "debit_transaction_id": t.refers_to,
                "rolled_back": t.rolled_back,
            }
            for t in self.transactions.values()
            if t.at.date().isoformat() == day
        ]
        return {"date": day, "transactions": rows}


class Conflict(Exception):
    """A transaction id reused with other content."""


def create_demo_operator(
    secret: bytes, store: Store | None = None, faults: Faults | None = None
) -> FastAPI:
    """The reference wallet app (``app.state.store``, ``app.state.faults`` for a test bench)."""
    app = FastAPI(title="Boundless reference operator wallet")
    app.state.store = store or Store()
    app.state.faults = faults or Faults()
    lock = asyncio.Lock()
    signer = Signer(secret)

    def signed(body: JsonBody, status: int = 200) -> Response:
        data = orjson.dumps(body)
        return Response(
            data,
            status_code=status,
            media_type="application/json",
            headers={ANSWER_HEADER: signer.sign(data)},
        )

    async def handle(request: Request, path: str) -> Response:
        the: Faults = app.state.faults
        data = await request.body()
        if not signer.verify(data, request.headers.get(REQUEST_HEADER)):
            return signed({"error": "bad_signature", "detail": "the signature does not match"}, 401)
        if the.latency_ms:
            await asyncio.sleep(the.latency_ms / 1000)
        if the.down:
            return signed({"error": "down", "detail": "the wallet is down"}, 503)
        if the.fail_next.get(path, 0) > 0:
            the.fail_next[path] -= 1
            return signed({"error": "failure", "detail": "an injected failure"}, 500)
        try:
            body = orjson.loads(data)
            if not isinstance(body, dict):
                raise TypeError("the body must be a JSON object")
            async with lock:
                answer = apply(app.state.store, the, path, body)
                if the.duplicate:
                    answer = apply(app.state.store, the, path, body)
        except Conflict as error:
            return signed({"error": "conflict", "detail": str(error)}, 409)
        except (KeyError, ValueError, TypeError, orjson.JSONDecodeError) as error:
            return signed(
                {"error": "bad_request", "detail": f"{type(error).__name__}: {error}"}, 400
            )
        if the.timeout_next.get(path, 0) > 0:
            the.timeout_next[path] -= 1
            await asyncio.sleep(the.hang_seconds)  # applied, answered too late
        return signed(answer)

    for path in (
        "capabilities",
        "balance",
        "debit",
        "credit",
        "rollback",
        "credit_batch",
        "debit_batch",
        "report",
    ):
        app.add_route(f"/{path}", _route(handle, path), methods=["POST"])

    @app.post("/admin/faults")
    async def set_faults(request: Request) -> Response:
        try:
            changes = orjson.loads(await request.body())
        except orjson.JSONDecodeError:
            changes = None
        if not isinstance(changes, dict):
            return _refused("the body must be a JSON object of switches")
        faults: Faults = app.state.faults
        for key, value in changes.items():
            if not hasattr(faults, key):
                return _refused(f"no switch {key!r}")
            if not _same_kind(key, getattr(faults, key), value):
                return _refused(f"switch {key!r} takes a {type(getattr(faults, key)).__name__}")
        for key, value in changes.items():  # all or nothing
            setattr(faults, key, value)
        return Response(orjson.dumps({"faults": faults.__dict__}), media_type="application/json")

    @app.get("/admin/balances")
    async def balances() -> JsonBody:
        return {"balances": app.state.store.balances}

    return app


def _refused(detail: str) -> Response:
    return Response(
        orjson.dumps({"error": "bad_request", "detail": detail}),
        status_code=400,
        media_type="application/json",
    )


def _same_kind(key: str, current: object, value: object) -> bool:
    """A switch keeps its kind: a flag stays a flag, a number a number of zero or more (not a
    flag), ``refuse`` a table of reasons by player, the others tables of counts by path."""
    if isinstance(current, bool):
        return isinstance(value, bool)
    if isinstance(current, int | float):
        return _count(value)
    if not isinstance(value, dict) or not all(isinstance(name, str) for name in value):
        return False
    wanted = (lambda item: isinstance(item, str)) if key == "refuse" else _count
    return all(wanted(item) for item in value.values())


def _count(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value >= 0


def _route(handle: Any, path: str) -> Any:
    async def route(request: Request) -> Response:
        return await handle(request, path)  # type: ignore[no-any-return]

    route.__name__ = f"wallet_{path}"
    return route


def apply(store: Store, faults: Faults, path: str, body: JsonBody) -> JsonBody:
    """One call against the store (the app's lock held)."""
    if path == "capabilities":
        return {"credit_batch": faults.credit_batch, "debit_batch": faults.debit_batch}
    if path == "balance":
        player = body["player_id"]
        check_text("balance", "player_id", player)
        return {"player_id": player, "balance": store.balance(player)}
    if path == "debit":
        return store.debit(body, faults.refuse)
    if path == "credit":
        return store.credit(body)
    if path == "rollback":
        return store.rollback(body)
    if path == "credit_batch":
        if not faults.credit_batch:
            raise KeyError("credit_batch is not offered")
        credits = body["credits"]
        if not isinstance(credits, list):
            raise TypeError("credits must be a list")
        return {"results": [store.credit(item) for item in credits]}
    if path == "debit_batch":
        if not faults.debit_batch:
            raise KeyError("debit_batch is not offered")
        debits = body["debits"]
        if not isinstance(debits, list):
            raise TypeError("debits must be a list")
        store.debit_batches.append(len(debits))
        return {"results": [_batch_debit(store, faults, item) for item in debits]}
    if path == "report":
        day = body["date"]
        if not isinstance(day, str) or not DAY.match(day):
            raise ValueError("report: date must be YYYY-MM-DD")
        return store.report(day)
    raise KeyError(path)


def _batch_debit(store: Store, faults: Faults, item: JsonBody) -> JsonBody:
    """One debit of a batch: its own answer, or an ``error`` (no outcome, nothing applied)."""
    transaction = str(item.get("transaction_id")) if isinstance(item, dict) else "?"
    if faults.unanswered_next > 0:
        faults.unanswered_next -= 1
        return {"transaction_id": transaction, "status": "error", "detail": "not reached"}
    try:
        return store.debit(item, faults.refuse)
    except Conflict as error:
        return {"transaction_id": transaction, "status": "error", "detail": str(error)}
    except (KeyError, ValueError, TypeError) as error:
        return {"transaction_id": transaction, "status": "error", "detail": f"bad debit: {error}"}
