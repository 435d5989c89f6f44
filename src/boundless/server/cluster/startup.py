"""What every cluster process's start shares: the one-line setup error and the holder names
that its leases carry (kept apart so the start-up helpers need not import the processes)."""

from __future__ import annotations

import os
import socket


class ClusterSetupError(ValueError):
    """A setting the cluster cannot start with; the message is one line for the operator."""


def holder_name(role: str, detail: str = "") -> str:
    return f"{role}-{socket.gethostname()}-{detail or os.getpid()}"
