"""Reading a file someone names on the command line, at most so many bytes of it.

A rule file or a scenario is a few kilobytes; a path such as ``/dev/zero`` or a huge file by
mistake would otherwise be read until memory runs out.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

MAX_INPUT_BYTES = 1 << 20  # 1 MiB: a shipped title is 5 KB, a scenario under 2 KB


class FileTooLargeError(OSError):
    """The file holds more than the bytes allowed (an ``OSError``, as other reading errors)."""


class NotAFileError(OSError):
    """A pipe or a socket where a file was named: reading it would wait for a writer."""


def read_bounded(path: Path, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The file's bytes; :class:`FileTooLargeError` when it holds more than ``limit``."""
    # Opened without blocking, so that a named pipe nobody writes to is refused, not waited on.
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(descriptor, "rb") as file:
        kind = os.fstat(file.fileno()).st_mode
        if stat.S_ISFIFO(kind) or stat.S_ISSOCK(kind):
            raise NotAFileError("a pipe or socket, not a file")
        data = file.read(limit + 1)
    if len(data) > limit:
        raise FileTooLargeError(f"larger than {limit:,} bytes")
    return data
