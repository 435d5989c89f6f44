"""Scenario packs: replay many scenario files and compare each with what it expects.

A scenario may carry ``"expect"``: a part of the replay output it must match (an object
matches when each of its keys matches, a list when it has as many items and each matches in
turn, anything else when equal, with ``true`` never equal to ``1``), or ``{"error": true}`` for
a scenario the engine must refuse (``{"error": "words"}``: refused with a message containing
them). A scenario without ``"expect"`` uses ``NAME.expected.json`` beside it when there is one,
else passes when it plays. docs/scenario-format.md describes the format.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boundless.bounded_files import read_bounded

EXPECTED_SUFFIX = ".expected.json"
Replay = Callable[[object], Any]
"""Plays a scenario (without its ``expect``); raises ``RulesError`` when the engine refuses."""


def differences(expected: Any, actual: Any, where: str = "") -> list[str]:
    """Each place where ``actual`` departs from the part of it that ``expected`` gives."""
    here = where or "the output"
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{here}: expected an object, got {_short(actual)}"]
        found: list[str] = []
        for key, value in expected.items():
            path = f"{where}.{key}" if where else str(key)
            if key not in actual:
                found.append(f"{path}: missing (expected {_short(value)})")
            else:
                found += differences(value, actual[key], path)
        return found
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return [f"{here}: expected a list, got {_short(actual)}"]
        if len(actual) != len(expected):
            return [f"{here}: expected {len(expected)} items, got {len(actual)}: {_short(actual)}"]
        found = []
        for index, (want, got) in enumerate(zip(expected, actual, strict=True)):
            found += differences(want, got, f"{where}[{index}]")
        return found
    same_kind = isinstance(expected, bool) == isinstance(actual, bool)
    if not same_kind or expected != actual:
        return [f"{here}: expected {_short(expected)}, got {_short(actual)}"]
    return []


def _short(value: Any, limit: int = 80) -> str:
    text = json.dumps(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass
class Verdict:
    path: Path
    problems: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.problems


def scenario_files(paths: Iterable[Path]) -> list[Path]:
    """The scenario files named, folders searched (sorted, sub-folders too); ``*.expected.json``
    files are expectations, not scenarios."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += sorted(
                item
                for item in path.rglob("*.json")
                if item.is_file() and not item.name.endswith(EXPECTED_SUFFIX)
            )
        else:
            found.append(path)
    return found


def read_json(path: Path) -> tuple[Any, str | None]:
    """The file's JSON, or ``None`` and what is wrong with it (one line, without the path)."""
    try:
        return json.loads(read_bounded(path).decode("utf-8-sig")), None  # a byte-order mark too
    except OSError as error:
        return None, f"cannot read it: {error.strerror or error}"
    except UnicodeDecodeError:
        return None, "not UTF-8 text"
    except json.JSONDecodeError as error:
        return None, f"not valid JSON: {error.msg} at line {error.lineno} column {error.colno}"
    except RecursionError:
        return None, "not valid JSON: nested too deeply"


def _expect_problem(expect: Any) -> str | None:
    """What is wrong with the shape of an ``expect`` (a part of the result, or an error)."""
    if not isinstance(expect, dict):
        return (
            'expect: must be an object (a part of the result) or {"error": ...}, '
            f"got {_short(expect)}"
        )
    if "error" in expect and len(expect) > 1:
        return 'expect: "error" stands alone (a refused scenario has no result to compare)'
    return None


def check_scenario(path: Path, replay: Replay, refused: type[Exception]) -> Verdict:
    verdict = Verdict(path)
    data, problem = read_json(path)
    if problem is not None:
        verdict.problems.append(problem)
        return verdict
    expect: Any = None
    if isinstance(data, dict) and "expect" in data:
        data = dict(data)
        expect = data.pop("expect")
        problem = _expect_problem(expect)
    else:
        sibling = path.with_name(path.name.removesuffix(".json") + EXPECTED_SUFFIX)
        if sibling.is_file():
            expect, problem = read_json(sibling)
            problem = problem or _expect_problem(expect)
            problem = problem and f"{sibling.name}: {problem}"
    if problem is not None:
        verdict.problems.append(problem)
        return verdict
    wanted = expect.get("error") if isinstance(expect, dict) and len(expect) == 1 else None
    wants_error = wanted is True or isinstance(wanted, str)
    try:
        output = replay(data)
    except refused as error:
        message = " ".join(str(error).split())
        if not wants_error:
            verdict.problems.append(f"refused: {message}")
        elif isinstance(wanted, str) and wanted not in message:
            verdict.problems.append(f"refused with {message!r}, expected {wanted!r} in it")
        return verdict
    if wants_error:
        verdict.problems.append("expected the engine to refuse this scenario, but it played")
    elif expect is not None:
        verdict.problems += differences(expect, output)
    return verdict
