"""A PostgreSQL outage for one test: a TCP proxy between the code under test and the machine's
PostgreSQL that the test can cut and restore.

Why a proxy: the machine's PostgreSQL is shared by every test run (and every other user of it), so
the outage must reach only the connections of the code under test. Terminating backends or
refusing logins on the server would hit everyone else's connections too. Cutting the proxy
closes every connection that goes through it (the driver sees the server vanish mid-statement)
and closes its listening socket (new connections are refused), which is what a restarting or
failing-over database looks like to a client. ``restore()`` listens again on the same port.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress

from sqlalchemy.engine import make_url

UPSTREAM_CONNECT_SECONDS = 5.0


class OutageProxy:
    """``127.0.0.1:<port>`` forwarding to ``upstream`` until :meth:`cut`; again after
    :meth:`restore`."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()
        self._listener: socket.socket | None = None
        self.cuts = 0
        self.accepted = 0
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = int(probe.getsockname()[1])
        self.restore()

    def url(self, database_url: str) -> str:
        """``database_url`` pointed at this proxy instead of its own host and port."""
        proxied = make_url(database_url).set(host="127.0.0.1", port=self.port)
        return proxied.render_as_string(hide_password=False)

    @property
    def is_cut(self) -> bool:
        return self._listener is None

    def restore(self) -> None:
        """Listen again (a no-op while listening)."""
        with self._lock:
            if self._listener is not None:
                return
            listener = socket.socket()
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind(("127.0.0.1", self.port))
            listener.listen(128)
            self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self) -> None:
        """Drop every connection through the proxy and refuse new ones until :meth:`restore`."""
        with self._lock:
            listener, self._listener = self._listener, None
            sockets, self._sockets = list(self._sockets), set()
            self.cuts += 1
        if listener is not None:
            _shut(listener)  # wakes the accepting thread (close alone does not, on Linux)
        for item in sockets:
            _shut(item)

    def close(self) -> None:
        self.cut()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # cut
            try:
                server = socket.create_connection(self.upstream, UPSTREAM_CONNECT_SECONDS)
            except OSError:
                _shut(client)
                continue
            server.settimeout(None)
            with self._lock:
                if self._listener is not listener:  # cut meanwhile
                    _shut(client)
                    _shut(server)
                    return
                self._sockets |= {client, server}
                self.accepted += 1
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            with suppress(OSError):
                while data := source.recv(65536):
                    sink.sendall(data)
        finally:
            with self._lock:
                self._sockets -= {source, sink}
            _shut(source)
            _shut(sink)


def _shut(item: socket.socket) -> None:
    with suppress(OSError):
        item.shutdown(socket.SHUT_RDWR)
    item.close()


@contextmanager
def outage_proxy(database_url: str) -> Iterator[tuple[OutageProxy, str]]:
    """A proxy in front of the PostgreSQL that ``database_url`` names, and the URL through it."""
    parsed = make_url(database_url)
    proxy = OutageProxy((parsed.host or "127.0.0.1", parsed.port or 5432))
    try:
        yield proxy, proxy.url(database_url)
    finally:
        proxy.close()
