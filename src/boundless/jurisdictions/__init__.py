"""Jurisdiction profiles as data: which player-protection tools a market requires and their
figures (reality-check intervals, the cooling-off before a limit increase, the shortest game
cycle, time-out and self-exclusion durations, what the client must always show).

The shipped profiles are the ``<key>.toml`` files of this package (``none``, ``uk``, ``mt``); an
operator may write one of their own and give it with ``--jurisdiction-file``. Both are read by
:func:`load_profile` / :func:`load_profile_file` and validated by :class:`JurisdictionProfile`;
a bad file fails with one line naming the file and the field.
"""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from boundless.bounded_files import read_bounded

SUFFIX = ".toml"
Tool = Literal["limits", "reality_check", "time_out", "self_exclusion", "session_figures"]
Shown = Literal["elapsed_time", "net_position", "wagered"]
Positive = Annotated[int, Field(ge=1)]


class JurisdictionError(ValueError):
    """A profile that cannot be used: the message names the file and the field."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RealityCheckRules(_Strict):
    default_minutes: Annotated[int, Field(ge=0, le=1440)]
    """The interval a player has before choosing one; 0: no reality check until they choose."""
    min_minutes: Annotated[int, Field(ge=1, le=1440)]
    max_minutes: Annotated[int, Field(ge=1, le=1440)]

    @model_validator(mode="after")
    def _ordered(self) -> RealityCheckRules:
        if self.min_minutes > self.max_minutes:
            raise ValueError("min_minutes is above max_minutes")
        if self.default_minutes and not (
            self.min_minutes <= self.default_minutes <= self.max_minutes
        ):
            raise ValueError("default_minutes is outside min_minutes..max_minutes")
        return self


class TimeOutRules(_Strict):
    min_hours: Annotated[int, Field(ge=1, le=24 * 366)]
    max_hours: Annotated[int, Field(ge=1, le=24 * 366)]

    @model_validator(mode="after")
    def _ordered(self) -> TimeOutRules:
        if self.min_hours > self.max_hours:
            raise ValueError("min_hours is above max_hours")
        return self


class SelfExclusionRules(_Strict):
    min_months: Annotated[int, Field(ge=1, le=1200)]
    max_months: Annotated[int, Field(ge=1, le=1200)]

    @model_validator(mode="after")
    def _ordered(self) -> SelfExclusionRules:
        if self.min_months > self.max_months:
            raise ValueError("min_months is above max_months")
        return self


class Requirement(_Strict):
    """One line of the certification report: a rule of the market, what meets it, what proves it."""

    id: Annotated[str, Field(min_length=1, max_length=40)]
    text: Annotated[str, Field(min_length=1, max_length=400)]
    feature: Annotated[str, Field(min_length=1, max_length=400)]
    tests: Annotated[list[Annotated[str, Field(min_length=1)]], Field(min_length=1)]


class JurisdictionProfile(_Strict):
    key: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]{0,31}$")]
    name: Annotated[str, Field(min_length=1, max_length=120)]
    mandatory: frozenset[Tool] = frozenset()
    """Tools a player cannot switch off (``reality_check``: no interval of 0)."""
    reality_check: RealityCheckRules
    limit_increase_cooling_off_hours: Annotated[float, Field(ge=0, le=24 * 31)]
    """An increase or removal of a limit takes effect this long after it is asked for."""
    min_cycle_seconds: Annotated[float, Field(ge=0, le=600)]
    """Shortest time between the starts of two rounds at one private table."""
    time_out: TimeOutRules
    self_exclusion: SelfExclusionRules
    always_show: frozenset[Shown] = frozenset({"elapsed_time", "net_position"})
    requirements: list[Requirement] = []

    @model_validator(mode="after")
    def _reality_check_mandatory(self) -> JurisdictionProfile:
        if "reality_check" in self.mandatory and self.reality_check.default_minutes == 0:
            raise ValueError("reality_check is mandatory, so reality_check.default_minutes > 0")
        return self


def shipped_profile_keys() -> list[str]:
    folder = resources.files(__package__)
    return sorted(e.name.removesuffix(SUFFIX) for e in folder.iterdir() if e.name.endswith(SUFFIX))


def profile_from_text(text: str, source: str) -> JurisdictionProfile:
    """Parse and validate a profile; errors name ``source`` and the field."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise JurisdictionError(f"{source}: not TOML: {error}") from None
    try:
        return JurisdictionProfile.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "profile"
        message = first["msg"].removeprefix("Value error, ")
        more = len(error.errors()) - 1
        tail = f" (and {more} more)" if more else ""
        raise JurisdictionError(f"{source}: {where}: {message}{tail}") from None


@cache
def load_profile(key: str) -> JurisdictionProfile:
    """A shipped profile by key (``none``, ``uk``, ``mt``)."""
    keys = shipped_profile_keys()
    if key not in keys:
        raise JurisdictionError(f"no jurisdiction {key!r}; choose one of {', '.join(keys)}")
    text = resources.files(__package__).joinpath(f"{key}{SUFFIX}").read_text("utf-8")
    return profile_from_text(text, f"{key}{SUFFIX} (shipped)")


def load_profile_file(path: Path) -> JurisdictionProfile:
    """An operator's own profile file."""
    try:
        text = read_bounded(path).decode("utf-8-sig")
    except OSError as error:
        raise JurisdictionError(f"{path}: cannot read it ({error.strerror or error})") from None
    except UnicodeDecodeError:
        raise JurisdictionError(f"{path}: not UTF-8 text") from None
    return profile_from_text(text, str(path))
