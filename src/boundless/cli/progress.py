"""The progress line of the long commands: on standard error, gone when done, so that standard
output holds only the results."""

from __future__ import annotations

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn


def stderr_progress(*columns: str | ProgressColumn, quiet_off_terminal: bool = False) -> Progress:
    """A transient progress display of ``columns`` on standard error; ``quiet_off_terminal``:
    none at all when standard error is no terminal (a log file, a pipe)."""
    err = Console(stderr=True)
    return Progress(
        *columns, console=err, transient=True, disable=quiet_off_terminal and not err.is_terminal
    )


def counted_progress(label: str | ProgressColumn, *after: ProgressColumn) -> Progress:
    """``label``, a bar and "done/total", then ``after`` (a clock)."""
    return stderr_progress(label, BarColumn(), MofNCompleteColumn(), *after)
