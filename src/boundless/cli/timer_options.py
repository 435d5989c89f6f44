"""The table-timer options, one definition for ``serve``, ``coordinator`` and ``cluster``."""

from __future__ import annotations

from typing import Annotated

import typer

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
