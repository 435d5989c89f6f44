"""Run ``boundless`` commands in-process and check the one-line refusal every bad input gets."""

from __future__ import annotations

from dataclasses import dataclass

from typer.testing import CliRunner

from boundless.cli.main import app

# A rule-set file that extends the shipped Boundless title and pays a blackjack 6:5.
SIX_FIVE = """extends = "boundless"

[title]
key = "six-five"
name = "Boundless at 6:5"

[payouts]
blackjack = "6:5"
"""


@dataclass(frozen=True)
class Outcome:
    code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def invoke(*args: str, input_text: str | None = None) -> Outcome:
    result = CliRunner().invoke(app, list(args), input=input_text)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return Outcome(result.exit_code, result.stdout, result.stderr)


def assert_refused(outcome: Outcome, *words: str) -> None:
    """Exit 2, one error line on stderr naming ``words``, and no traceback anywhere."""
    assert outcome.code == 2, outcome.output
    assert "Traceback" not in outcome.output
    lines = [line for line in outcome.stderr.splitlines() if line.strip()]
    assert lines, outcome.output
    text = " ".join(lines)
    for word in words:
        assert word in text, text
