"""Request bodies of the protection endpoints (answers are plain JSON objects)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt

Money = Annotated[StrictInt, Field(ge=0, le=10**12)]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Windows(_Body):
    day: Money | None = None
    week: Money | None = None
    month: Money | None = None


class LimitsIn(_Body):
    """Fields left out stay as they are; ``null`` asks for no limit."""

    loss: Windows | None = None
    wager: Windows | None = None
    session_minutes: Annotated[StrictInt, Field(ge=1, le=24 * 60)] | None = None

    def wanted(self) -> dict[str, int | None]:
        """field (``loss.day`` ...) -> amount, for the fields the body gives."""
        found: dict[str, int | None] = {}
        for kind in ("loss", "wager"):
            if kind not in self.model_fields_set:
                continue
            windows: Windows | None = getattr(self, kind)
            for window in ("day", "week", "month"):
                if windows is None:
                    found[f"{kind}.{window}"] = None
                elif window in windows.model_fields_set:
                    found[f"{kind}.{window}"] = getattr(windows, window)
        if "session_minutes" in self.model_fields_set:
            found["session_minutes"] = self.session_minutes
        return found


class TimeOutIn(_Body):
    hours: Annotated[StrictInt, Field(ge=1, le=24 * 366)]


class SelfExclusionIn(_Body):
    months: Annotated[StrictInt, Field(ge=1, le=1200)]


class RealityCheckIn(_Body):
    minutes: Annotated[StrictInt, Field(ge=0, le=1440)]


Reason = Annotated[str, Field(min_length=1, max_length=300)]


class OperatorLimitsIn(LimitsIn):
    reason: Reason


class OperatorTimeOutIn(TimeOutIn):
    reason: Reason


class OperatorExclusionIn(SelfExclusionIn):
    reason: Reason


RealityChoice = Literal["continue", "leave"]
