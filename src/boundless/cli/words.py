"""Words the analysis commands print: side-bet names, counted nouns, output-file checks.

Side-bet names come from the web client's English strings (``web/i18n/en.json``), the one
place they are written, resolved as the web client resolves them (by key, else by kind, with
the variant and "on the dealer's hand"), in the title's own vocabulary.
"""

from __future__ import annotations

import json
import os
import re
from functools import cache
from pathlib import Path
from typing import NoReturn

from boundless.cli.cli_errors import fail
from boundless.core.rules import RuleSet

STRINGS = Path(__file__).resolve().parents[3] / "web" / "i18n" / "en.json"
TERM = re.compile(r"\[\[([A-Za-z_]+)\]\]")
PARAMETER = re.compile(r"\{([a-z_0-9]+)\}")


def read_strings() -> dict[str, str]:
    """The web client's English strings; raises OSError or ValueError if the file is missing
    or broken (``boundless play`` refuses to start then; the analysis commands fall back)."""
    data = json.loads(STRINGS.read_text(encoding="utf-8"))
    return {key: value for key, value in data.items() if isinstance(value, str)}


@cache
def _strings() -> dict[str, str]:
    try:
        return read_strings()
    except (OSError, ValueError):
        return {}  # an installed package without the web client: keys stand in for names


def _fill(text: str, vocabulary: str, **parameters: str) -> str:
    strings = _strings()

    def term(match: re.Match[str]) -> str:
        word = match.group(1)
        found = strings.get(f"vocab.{vocabulary}.{word.lower()}", word.lower())
        return found[:1].upper() + found[1:] if word[:1].isupper() else found

    text = TERM.sub(term, text)
    return PARAMETER.sub(lambda match: parameters.get(match.group(1), match.group(0)), text)


def string_of(key: str, default: str) -> str:
    """The English string ``key`` of the web client, or ``default`` where it has none."""
    return _strings().get(key, default)


def fill_words(text: str, vocabulary: str, **parameters: str) -> str:
    """``text`` with its ``[[term]]`` words in ``vocabulary`` and its ``{name}``s filled in."""
    return _fill(text, vocabulary, **parameters)


def side_bet_name(rules: RuleSet, key: str) -> str:
    """The bet's name as players read it, e.g. "Jack A-Tack (your two cards)"."""
    strings = _strings()
    vocabulary = rules.title.vocabulary
    bet = rules.side_bet(key)
    kind = bet.kind if bet is not None else key
    base = strings.get(f"side.{key}") or strings.get(f"side.{kind}") or key
    name = _fill(base, vocabulary)
    variant = strings.get(f"variant.{kind}.{bet.variant}") if bet and bet.variant else None
    if variant is not None:
        with_variant = strings.get("side.with_variant", "{name} ({variant})")
        name = _fill(with_variant, vocabulary, name=name, variant=_fill(variant, vocabulary))
    if bet is not None and bet.target == "dealer":
        on_dealer = strings.get("side.on_dealer", "{name} on the dealer's hand")
        name = _fill(on_dealer, vocabulary, name=name)
    return name


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """ "1 deck", "6 decks", "1,000 rounds"."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"


PLOT_SUFFIXES = (".png", ".svg", ".pdf")


def checked_output(path: Path, option: str, suffixes: tuple[str, ...] | None = None) -> Path:
    """``path`` if a file can be written there, else a one-line error naming ``option``.

    Checked before any work is done; ``suffixes``: the endings the format allows (``""``: none).
    """
    try:
        _check_output(path, option, suffixes)
    except OSError as error:  # a name the system refuses (too long, ...), a folder it hides
        fail(f"{option} {path}: cannot write there ({error.strerror or error})")
    return path


def _check_output(path: Path, option: str, suffixes: tuple[str, ...] | None) -> None:
    if path.is_dir():
        fail(f"{option} {path} is a folder; name a file in it")
    folder = path.parent
    if not folder.is_dir():
        fail(f"{option} {path}: the folder {folder} does not exist")
    if suffixes is not None and path.suffix.lower() not in suffixes:
        *others, last = [suffix for suffix in suffixes if suffix]
        named = f"{', '.join(others)} or {last}" if others else last
        fail(f"{option} {path}: the file name must end in {named}")
    # Open it as the write will (appending changes nothing; a file made here is removed), so a
    # folder or name that cannot take it is refused now, not after minutes of work.
    existed = path.exists()
    with path.open("ab"):
        pass
    if not existed:
        path.unlink()


def write_failed(option: str, path: Path, error: OSError) -> NoReturn:
    fail(f"cannot write {option} {path}: {error.strerror or error}")


def write_whole(path: Path, data: bytes, option: str) -> None:
    """Write ``data`` to ``path`` so that the file is either all there or as it was: a new
    file beside it, renamed over it (a full disk or a stop mid-write leaves no half report)."""
    partial = path.with_name(f".{path.name}.partial")
    try:
        partial.write_bytes(data)
        os.replace(partial, path)
    except OSError as error:
        partial.unlink(missing_ok=True)
        write_failed(option, path, error)
