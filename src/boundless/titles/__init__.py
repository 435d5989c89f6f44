"""Rule sets as files: the shipped titles in this package, and any an operator writes.

A file may say ``extends = "<title>"`` (a shipped title's key) or ``extends = "base.toml"`` (a
path relative to the file) and give only what differs; the merge is
:func:`boundless.core.rules.extend_rule_data`. A title's basic-strategy chart is the
``<name>.chart.toml`` beside its rule file, when there is one.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from boundless.bounded_files import read_bounded
from boundless.core.errors import InvalidRuleSetError
from boundless.core.rules import (
    EXTENDS,
    RuleSet,
    extend_rule_data,
    rule_data_from_toml,
    rule_set_from_data,
)
from boundless.core.strategy_chart import StrategyChart, parse_strategy_chart

CHART_SUFFIX = ".chart.toml"
RULES_SUFFIX = ".toml"


def shipped_title_keys() -> list[str]:
    folder = resources.files(__package__)
    return sorted(
        entry.name.removesuffix(RULES_SUFFIX)
        for entry in folder.iterdir()
        if entry.name.endswith(RULES_SUFFIX) and not entry.name.endswith(CHART_SUFFIX)
    )


SourceFile = tuple[str, bytes]
"""A file a game was read from: its name (a path, or ``<key>.toml (shipped)``) and its bytes."""


def _shipped_text(key: str, read: list[SourceFile] | None = None) -> str:
    data = resources.files(__package__).joinpath(f"{key}{RULES_SUFFIX}").read_bytes()
    if read is not None:
        read.append((f"{key}{RULES_SUFFIX} (shipped)", data))
    return data.decode("utf-8")


def _read_text(
    path: Path, what: str, prefix: str = "", read: list[SourceFile] | None = None
) -> str:
    """The file's text; its bytes, exactly those decoded, are added to ``read``. A leading
    byte-order mark (some editors save one) is not part of the text."""
    try:
        data = read_bounded(path)
        text = data.decode("utf-8-sig")
    except OSError as error:
        problem = error.strerror or str(error)
        raise InvalidRuleSetError(f"{prefix}cannot read {what} {path}: {problem}") from None
    except UnicodeDecodeError:
        raise InvalidRuleSetError(f"{prefix}{what} {path} is not UTF-8 text") from None
    if read is not None:
        read.append((str(path), data))
    return text


def _identity(path: Path) -> str:
    """One name per file however a path spells it (``./``, ``..``, links): how loops are found."""
    return str(path.resolve())


def _resolved(
    text: str,
    source: str,
    folder: Path | None,
    chain: tuple[str, ...],
    seen: frozenset[str],
    read: list[SourceFile],
) -> dict[str, Any]:
    """The file's data with its ``extends`` chain merged in (not yet validated); ``chain``
    names the files so far as written, ``seen`` as :func:`_identity` names them, ``read``
    gathers each base file read."""
    data = rule_data_from_toml(text, source)
    base_name = data.get(EXTENDS)
    if base_name is None:
        return data
    where = f"{source}: {EXTENDS}"
    if not isinstance(base_name, str) or not base_name:
        raise InvalidRuleSetError(f"{where}: must be a title key or a file path, got {base_name!r}")
    if "/" not in base_name and not base_name.endswith(RULES_SUFFIX):
        known = shipped_title_keys()
        if base_name not in known:
            raise InvalidRuleSetError(
                f"{where}: no shipped title {base_name!r} (shipped: {', '.join(known)}; "
                "a file is named by its path, e.g. 'base.toml')"
            )
        base_source, base_id, base_path = f"{base_name}{RULES_SUFFIX}", base_name, None
    elif folder is None:
        raise InvalidRuleSetError(f"{where}: a shipped title extends shipped titles only")
    else:
        base_path = folder / base_name
        base_source, base_id = str(base_path), _identity(base_path)
    if base_id in seen:
        loop = " -> ".join((*chain, base_source))
        raise InvalidRuleSetError(f"{where}: {base_name!r} makes a loop ({loop})")
    if base_path is None:
        base_text, base_folder = _shipped_text(base_name, read), None
    else:
        base_text = _read_text(base_path, "the base rule file", f"{where}: ", read)
        base_folder = base_path.parent
    named = f"{base_source} (extended by {chain[-1]})"  # errors in it name both files
    base = _resolved(base_text, named, base_folder, (*chain, base_source), seen | {base_id}, read)
    return extend_rule_data(base, data, source)


def _load(
    text: str, source: str, folder: Path | None, identity: str, read: list[SourceFile]
) -> RuleSet:
    """Resolve and validate; a merged file's errors say what it extends."""
    data = _resolved(text, source, folder, (source,), frozenset({identity}), read)
    base = rule_data_from_toml(text, source).get(EXTENDS)
    return rule_set_from_data(data, source if base is None else f"{source} (extends {base})")


@cache
def load_title(key: str) -> RuleSet:
    """The shipped rule set named ``key``; unknown names raise with the list of known ones."""
    known = shipped_title_keys()
    if key not in known:
        raise InvalidRuleSetError(f"unknown title {key!r}; shipped titles: {', '.join(known)}")
    return _load_title(key, [])


def _load_title(key: str, read: list[SourceFile]) -> RuleSet:
    source = f"{key}{RULES_SUFFIX}"
    rules = _load(_shipped_text(key, read), source, None, key, read)
    if rules.key != key:
        raise InvalidRuleSetError(f"{source}: title.key is {rules.key!r}, expected {key!r}")
    return rules


def _checked_chart(text: str, source: str, key: str) -> StrategyChart:
    chart = parse_strategy_chart(text, source=source)
    if chart.title_key != key:
        raise InvalidRuleSetError(f"{source} is the chart of {chart.title_key!r}, not {key!r}")
    return chart


@cache
def load_chart(key: str) -> StrategyChart | None:
    """The title's shipped basic-strategy chart, or ``None`` when none is shipped."""
    entry = resources.files(__package__).joinpath(f"{key}{CHART_SUFFIX}")
    if not entry.is_file():
        return None
    return _checked_chart(entry.read_text(encoding="utf-8"), f"{key}{CHART_SUFFIX}", key)


def load_game(key: str) -> tuple[RuleSet, StrategyChart | None]:
    """Rules and chart together; a title whose rules need a chart must ship one."""
    rules = load_title(key)
    chart = load_chart(key)
    if rules.needs_strategy_chart and chart is None:
        raise InvalidRuleSetError(f"title {key!r} needs {key}{CHART_SUFFIX}, which is missing")
    return rules, chart


def chart_path_beside(path: Path) -> Path:
    """Where the chart of the rule file ``path`` lives: ``<name>.chart.toml`` beside it."""
    return path.with_name(path.name.removesuffix(RULES_SUFFIX) + CHART_SUFFIX)


def shipped_title_files(key: str) -> tuple[SourceFile, ...]:
    """The files the shipped title ``key`` is read from: its rule file, each title it extends,
    its chart (what a certification report fingerprints)."""
    read: list[SourceFile] = []
    _load_title(key, read)
    chart = resources.files(__package__).joinpath(f"{key}{CHART_SUFFIX}")
    if chart.is_file():
        read.append((f"{key}{CHART_SUFFIX} (shipped)", chart.read_bytes()))
    return tuple(read)


def load_rule_file(path: Path) -> tuple[RuleSet, StrategyChart | None]:
    """A rule set from any file (its ``extends`` resolved), and the chart beside it if any.

    The chart may be ``None`` even where the rules need one: deriving it is the math's job
    (``boundless.math.strategy.with_chart``).
    """
    rules, chart, _ = read_rule_file(path)
    return rules, chart


def read_rule_file(path: Path) -> tuple[RuleSet, StrategyChart | None, tuple[SourceFile, ...]]:
    """:func:`load_rule_file` with the files it read, in order: the rule file, each file or
    shipped title it extends, the chart beside it (their bytes, exactly as parsed)."""
    if path.name.endswith(CHART_SUFFIX):
        raise InvalidRuleSetError(f"{path} is a strategy chart, not a rule set")
    read: list[SourceFile] = []
    text = _read_text(path, "the rule file", read=read)
    rules = _load(text, str(path), path.parent, _identity(path), read)
    chart_file = chart_path_beside(path)
    if not chart_file.is_file():
        return rules, None, tuple(read)
    chart_text = _read_text(chart_file, "the chart file", read=read)
    return rules, _checked_chart(chart_text, str(chart_file), rules.key), tuple(read)


def load_titles_dir(folder: Path) -> dict[str, tuple[RuleSet, StrategyChart | None]]:
    """Every rule file of ``folder`` by its key; each file is named after its title's key."""
    try:
        if not folder.is_dir():
            raise InvalidRuleSetError(f"titles folder {folder} is not a folder")
        files = sorted(folder.glob(f"*{RULES_SUFFIX}"))
    except OSError as error:  # a name the system refuses (too long, ...)
        problem = error.strerror or str(error)
        raise InvalidRuleSetError(f"cannot read titles folder {folder}: {problem}") from None
    games: dict[str, tuple[RuleSet, StrategyChart | None]] = {}
    for path in (path for path in files if not path.name.endswith(CHART_SUFFIX)):
        rules, chart = load_rule_file(path)
        expected = path.name.removesuffix(RULES_SUFFIX)
        if rules.key != expected:
            raise InvalidRuleSetError(
                f"{path}: title.key is {rules.key!r}; a file in a titles folder is named "
                f"after its key ({rules.key}{RULES_SUFFIX})"
            )
        games[rules.key] = (rules, chart)
    if not games:
        raise InvalidRuleSetError(f"titles folder {folder} holds no rule file (*{RULES_SUFFIX})")
    return games
