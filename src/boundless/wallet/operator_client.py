"""The HTTP client of an operator's wallet (the contract: ``docs/wallet-api.md``).

A few ``httpx.AsyncClient`` with bounded pools (``max_connections`` in all) run on an event loop
of their own (a daemon thread), so the server's synchronous wallet calls (made inside a database
transaction, on a worker thread or on the server's loop) can send many calls at once and wait
for them all.
Each call is retried with the same transaction id (tenacity: a few tries, short waits) on a
transport error, a timeout, a 5xx or an answer whose signature does not match; then it fails
with :class:`CallFailedError` and the caller decides (a debit is refused and rolled back; a
credit or rollback stays queued for the next try).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx
import orjson
from tenacity import (
    AsyncRetrying,
    RetryError,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential,
)

from boundless.wallet.signing import ANSWER_HEADER, REQUEST_HEADER, Signer

T = TypeVar("T")
JsonBody = dict[str, Any]


class CallFailedError(Exception):
    """A call got no valid answer after its tries (its outcome at the operator is unknown)."""


class _Retryable(Exception):
    """One try failed in a way worth another try under the same transaction id."""


@dataclass(frozen=True, slots=True)
class ClientSettings:
    url: str
    secret: bytes
    max_connections: int = 128
    timeout_seconds: float = 2.0
    tries: int = 3
    first_wait_seconds: float = 0.05
    connections_per_client: int = 8
    """The connections are spread over several httpx clients of this many each: httpx's pool
    looks at every connection it holds whenever a request starts or ends, so one pool of 128
    connections cost about 2.5 times the CPU per call of sixteen pools of 8 (measured: the
    client's CPU, not the wallet's latency, bounded one-by-one debits)."""


class OperatorClient:
    """Signed JSON calls to ``settings.url``; sync front (:meth:`run`) over an async core."""

    def __init__(self, settings: ClientSettings) -> None:
        self.settings = settings
        self.signer = Signer(settings.secret)
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self.loop.run_forever, name="operator-wallet", daemon=True
        )
        self._thread.start()
        self.http: list[httpx.AsyncClient] = self.run(self._make_clients())
        self._next = 0
        self.retries = 0
        """Tries beyond each call's first (for the benchmark and the console)."""
        self.calls = 0

    async def _make_clients(self) -> list[httpx.AsyncClient]:
        # Made on the client's loop: the semaphores belong to it. httpx's pool slows down badly
        # with thousands of requests queued on it, so no more than its connections wait there.
        total = self.settings.max_connections
        each = max(1, min(self.settings.connections_per_client, total))
        sizes = [each] * (total // each) + ([total % each] if total % each else [])
        self._in_flight = [asyncio.Semaphore(size) for size in sizes]
        return [
            httpx.AsyncClient(
                base_url=self.settings.url.rstrip("/"),
                limits=httpx.Limits(max_connections=size, max_keepalive_connections=size),
                timeout=httpx.Timeout(self.settings.timeout_seconds),
            )
            for size in sizes
        ]

    def run(self, work: Coroutine[Any, Any, T]) -> T:
        """Run ``work`` on the client's loop and wait for it (from any other thread)."""
        return asyncio.run_coroutine_threadsafe(work, self.loop).result()

    def submit(self, work: Coroutine[Any, Any, T]) -> Awaitable[T]:
        """Start ``work`` on the client's loop; await the answer on another loop."""
        return asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work, self.loop))

    async def call(self, path: str, body: JsonBody) -> JsonBody:
        """POST ``body`` signed; the operator's signed JSON answer (retried, then raises)."""
        data = orjson.dumps(body)
        headers = {REQUEST_HEADER: self.signer.sign(data), "Content-Type": "application/json"}
        self.calls += 1
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.settings.tries),
            wait=wait_exponential(multiplier=self.settings.first_wait_seconds, max=1.0),
            retry=retry_if_exception_type(_Retryable),
            reraise=False,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    if attempt.retry_state.attempt_number > 1:
                        self.retries += 1
                    return await self._try(path, data, headers)
        except RetryError as error:
            cause = error.last_attempt.exception()
            raise CallFailedError(f"{path}: {cause}") from None
        raise AssertionError("unreachable")  # pragma: no cover

    async def _try(self, path: str, data: bytes, headers: dict[str, str]) -> JsonBody:
        shard = self._next = (self._next + 1) % len(self.http)
        try:
            async with self._in_flight[shard]:
                answer = await self.http[shard].post(path, content=data, headers=headers)
        except httpx.HTTPError as error:
            raise _Retryable(f"{type(error).__name__}: {error}") from None
        if answer.status_code >= 500:
            raise _Retryable(f"HTTP {answer.status_code}")
        if not self.signer.verify(answer.content, answer.headers.get(ANSWER_HEADER)):
            raise _Retryable(f"HTTP {answer.status_code} with a bad or missing signature")
        try:
            parsed = orjson.loads(answer.content)
        except orjson.JSONDecodeError:
            raise _Retryable(f"HTTP {answer.status_code}: not JSON") from None
        if not isinstance(parsed, dict):
            raise _Retryable(f"HTTP {answer.status_code}: not a JSON object")
        if answer.status_code >= 400:
            raise CallFailedError(f"{path}: HTTP {answer.status_code}: {parsed.get('detail')}")
        return parsed

    async def call_many(self, path: str, bodies: Sequence[JsonBody]) -> list[JsonBody | Exception]:
        """Every call at once (the pool bounds how many are in flight); per body its answer or
        its failure."""
        results = await asyncio.gather(
            *(self.call(path, body) for body in bodies), return_exceptions=True
        )
        return [r if isinstance(r, dict | Exception) else CallFailedError(str(r)) for r in results]

    def close(self) -> None:
        if self.loop.is_closed():
            return
        for http in self.http:
            self.run(http.aclose())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=5)
        self.loop.close()
