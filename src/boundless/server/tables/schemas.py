"""Request bodies of the table and admin endpoints."""

from __future__ import annotations

from typing import Annotated

from fastapi import Path
from pydantic import BaseModel, ConfigDict, Field, field_validator

from boundless.server.typed_text import one_printable_line

# Table ids are a title key and a suffix (`boundless-1`, `boo-bucks-3fa9c2d1`): printable ASCII
# only, so a NUL or a control character never reaches a database query (PostgreSQL refuses NUL).
TABLE_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$"
ROUND_ID_PATTERN = TABLE_ID_PATTERN[:-1] + r":[0-9]{1,18}$"
TableId = Annotated[str, Path(pattern=TABLE_ID_PATTERN)]
"""A table id in a path: refused (422) before any lookup when malformed, never echoed back."""


class NewPrivateTable(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: Annotated[str, Field(min_length=1, max_length=64)]
    side_bets_offered: list[Annotated[str, Field(max_length=40)]] | None = None


class OperatorReason(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reason: Annotated[str, Field(min_length=1, max_length=200)] = "operator action"

    @field_validator("reason")
    @classmethod
    def one_printable_line(cls, reason: str) -> str:
        """Surrounding spaces dropped; blank, or holding a control character: refused."""
        if not reason.strip():
            raise ValueError("the reason is blank: say why, it is shown to the players")
        return one_printable_line("reason", reason)


class CancelRequest(OperatorReason):
    round_id: Annotated[str, Field(pattern=ROUND_ID_PATTERN)] | None = None
    """The round the operator means (``boundless-1:42``): if the table has moved on to another,
    nothing is cancelled (409). The console always sends it; without it, the round in play."""

    def round_no(self) -> int | None:
        return None if self.round_id is None else int(self.round_id.rsplit(":", 1)[1])
