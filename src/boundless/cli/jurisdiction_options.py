"""``--jurisdiction KEY`` and ``--jurisdiction-file FILE``: the player-protection profile of
``serve``, ``gateway`` and ``cluster``, checked before anything starts."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from boundless.cli.cli_errors import fail

if TYPE_CHECKING:
    from boundless.jurisdictions import JurisdictionProfile

JurisdictionKey = Annotated[
    str,
    typer.Option(help="Player-protection profile: none, uk or mt (see docs/player-protection.md)."),
]
JurisdictionFile = Annotated[
    Path | None,
    typer.Option(help="A profile file of your own (TOML); replaces --jurisdiction."),
]


def chosen_profile(key: str, file: Path | None) -> JurisdictionProfile:
    """The profile the options name; one line and exit 2 when it cannot be used."""
    from boundless.jurisdictions import JurisdictionError, load_profile, load_profile_file

    try:
        return load_profile_file(file) if file is not None else load_profile(key)
    except JurisdictionError as error:
        option = "--jurisdiction-file" if file is not None else "--jurisdiction"
        fail(f"{option}: {error}")


def profile_arguments(key: str, file: Path | None) -> list[str]:
    """The same choice on a child process's command line."""
    if file is not None:
        return ["--jurisdiction-file", str(file.resolve())]
    return ["--jurisdiction", key]
