"""``boundless rng-test --dieharder``: the labs' own tool on the production random source.

The shuffle draws from :class:`boundless.entropy.CryptoSource` (the OS CSPRNG behind
``secrets``); its bytes are streamed into Debian's ``dieharder`` (generator 200, raw input on
standard input), whose result lines are read back: each test's p-value and its own verdict
(PASSED, WEAK, FAILED). Over all of them the report adds one figure: a Kolmogorov-Smirnov test
(scipy) that the p-values are uniform, as they are for a good source.
"""

from __future__ import annotations

import shutil
import subprocess
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from scipy import stats

CHUNK_BYTES = 1 << 16
RAW_STDIN_GENERATOR = "200"
VERDICTS = ("PASSED", "WEAK", "FAILED")


class ByteSource(Protocol):
    def token_bytes(self, count: int) -> bytes: ...


@dataclass(frozen=True, slots=True)
class DieharderResult:
    test: str
    ntup: int
    tsamples: int
    psamples: int
    p_value: float
    verdict: str  # dieharder's own: PASSED, WEAK or FAILED


@dataclass(frozen=True, slots=True)
class DieharderRun:
    results: tuple[DieharderResult, ...]
    bytes_streamed: int
    uniformity_p: float | None
    """Kolmogorov-Smirnov p-value that the tests' p-values are uniform (None: fewer than 2)."""

    @property
    def passed(self) -> bool:
        return bool(self.results) and all(r.verdict != "FAILED" for r in self.results)


def dieharder_path() -> str | None:
    return shutil.which("dieharder")


def parse_results(text: str) -> list[DieharderResult]:
    """The result lines of dieharder's table output (``name|ntup|tsamples|psamples|p|verdict``)."""
    results = []
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.split("|")]
        if len(cells) != 6 or cells[5] not in VERDICTS:
            continue
        name, ntup, tsamples, psamples, p_value, verdict = cells
        results.append(
            DieharderResult(name, int(ntup), int(tsamples), int(psamples), float(p_value), verdict)
        )
    return results


def uniformity_p(p_values: Sequence[float]) -> float | None:
    if len(p_values) < 2:
        return None
    return float(stats.kstest(list(p_values), "uniform").pvalue)


def run_dieharder(
    executable: str, source: ByteSource, tests: Sequence[int], psamples: int | None
) -> DieharderRun:
    """Run dieharder on ``source``'s bytes: ``tests`` by number, one run each (dieharder takes
    one ``-d`` at a time; empty: every test, ``-a``)."""
    results: list[DieharderResult] = []
    streamed = 0
    for selection in [["-d", str(test)] for test in tests] or [["-a"]]:
        found, count = _run_once(executable, source, selection, psamples)
        results += found
        streamed += count
    return DieharderRun(
        tuple(results), streamed, uniformity_p([result.p_value for result in results])
    )


def _run_once(
    executable: str, source: ByteSource, selection: list[str], psamples: int | None
) -> tuple[list[DieharderResult], int]:
    command = [executable, "-g", RAW_STDIN_GENERATOR, *selection]
    if psamples is not None:
        command += ["-p", str(psamples)]
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    streamed = [0]

    def feed() -> None:
        assert process.stdin is not None
        try:
            while process.poll() is None:
                process.stdin.write(source.token_bytes(CHUNK_BYTES))
                streamed[0] += CHUNK_BYTES
        except (BrokenPipeError, ValueError, OSError):
            pass  # dieharder has read all it wanted and closed its input

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    assert process.stdout is not None
    output = process.stdout.read().decode("utf-8", "replace")
    process.wait()
    feeder.join(5)
    results = parse_results(output)
    if not results:
        last = output.strip().splitlines()[-1:] or ["no output"]
        raise RuntimeError(f"dieharder gave no results (exit {process.returncode}): {last[0]}")
    return results, streamed[0]
