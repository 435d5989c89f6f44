"""The table-timer options, one definition for ``serve``, ``coordinator`` and ``cluster``.

A command takes them as one ``timers: TimerSettings`` parameter and is decorated with
:func:`with_timer_options`: Typer then shows the five options in that parameter's place.
"""

from __future__ import annotations

import functools
import inspect
import math
import typing
from collections.abc import Callable
from typing import Annotated, Any

import typer

from boundless.server.config import TimerSettings

TimerScale = Annotated[
    float, typer.Option(min=0.0, help="Multiply every timer (0.1 = ten times faster).")
]
BettingSeconds = Annotated[
    float | None, typer.Option(min=0.0, help="Betting window; default: the title's.")
]
InsuranceSeconds = Annotated[
    float | None, typer.Option(min=0.0, help="Insurance window; default: the title's.")
]
DecisionSeconds = Annotated[
    float | None, typer.Option(min=0.0, help="Time for each decision; default: the title's.")
]
RoundGapSeconds = Annotated[
    float, typer.Option(min=0.0, help="Pause between a round's results and the next bets.")
]

MAX_TIMER_SCALE = 1000.0
MAX_TIMER_SECONDS = 86_400.0
"""Bounds of the timer options: a day per window and a thousandfold scale are far beyond any
real table, and keep every deadline a number the clock can hold (``1e308`` overflowed it)."""

DEFAULT_TIMERS = TimerSettings()
"""What a command's ``timers`` parameter defaults to (each option's default)."""

# parameter name: (its option type, the TimerSettings field it sets); in --help order.
TIMER_PARAMETERS: dict[str, tuple[Any, str]] = {
    "timer_scale": (TimerScale, "scale"),
    "betting_seconds": (BettingSeconds, "betting_seconds"),
    "insurance_seconds": (InsuranceSeconds, "insurance_seconds"),
    "decision_seconds": (DecisionSeconds, "decision_seconds"),
    "round_gap_seconds": (RoundGapSeconds, "round_gap_seconds"),
}


def timer_arguments(timers: TimerSettings) -> dict[str, float | None]:
    """The options as a command line gives them: ``{"--timer-scale": 1.0, ...}``."""
    return {
        "--" + name.replace("_", "-"): getattr(timers, field)
        for name, (_, field) in TIMER_PARAMETERS.items()
    }


def timer_problem(timers: TimerSettings) -> str | None:
    """Why these timer options cannot run a table (one line naming the option), or None."""
    for option, value in timer_arguments(timers).items():
        if value is None:
            continue
        if not math.isfinite(value):
            return f"{option} {value}: give a finite number"
        bound = MAX_TIMER_SCALE if option == "--timer-scale" else MAX_TIMER_SECONDS
        if not 0 <= value <= bound:
            return f"{option} {value:g}: give a number from 0 to {bound:g}"
    return None


def with_timer_options(command: Callable[..., None]) -> Callable[..., None]:
    """The command with the five timer options in place of its ``timers`` parameter (their
    defaults are :class:`TimerSettings`'s); it is called with them as one ``TimerSettings``."""
    hints = typing.get_type_hints(command, include_extras=True)
    parameters: list[inspect.Parameter] = []
    for parameter in inspect.signature(command).parameters.values():
        if parameter.name != "timers":
            parameters.append(parameter.replace(annotation=hints[parameter.name]))
            continue
        for name, (option, field) in TIMER_PARAMETERS.items():
            parameters.append(
                inspect.Parameter(
                    name, parameter.kind, default=getattr(DEFAULT_TIMERS, field), annotation=option
                )
            )

    @functools.wraps(command)
    def with_timers(**options: Any) -> None:
        fields = {field: options.pop(name) for name, (_, field) in TIMER_PARAMETERS.items()}
        command(**options, timers=TimerSettings(**fields))

    del with_timers.__wrapped__  # Typer reads the signature below, not the command's
    with_timers.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        parameters, return_annotation=None
    )
    with_timers.__annotations__ = {item.name: item.annotation for item in parameters}
    return with_timers
