"""Reading a file someone names on the command line, at most so many bytes of it.

A rule file or a scenario is a few kilobytes; a path such as ``/dev/zero`` or a huge file by
mistake would otherwise be read until memory runs out.
"""

from __future__ import annotations

from pathlib import Path

MAX_INPUT_BYTES = 1 << 20  # 1 MiB: a shipped title is 5 KB, a scenario under 2 KB


class FileTooLargeError(OSError):
    """The file holds more than the bytes allowed (an ``OSError``, as other reading errors)."""


def read_bounded(path: Path, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The file's bytes; :class:`FileTooLargeError` when it holds more than ``limit``."""
    with path.open("rb") as file:
        data = file.read(limit + 1)
    if len(data) > limit:
        raise FileTooLargeError(f"larger than {limit:,} bytes")
    return data
