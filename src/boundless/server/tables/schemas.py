"""Request bodies of the table and admin endpoints."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

# Table ids are a title key and a suffix (`boundless-1`, `boo-bucks-3fa9c2d1`): printable ASCII
# only, so a NUL or a control character never reaches a database query (PostgreSQL refuses NUL).
TABLE_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$"


class NewPrivateTable(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: Annotated[str, Field(min_length=1, max_length=64)]
    side_bets_offered: list[Annotated[str, Field(max_length=40)]] | None = None


class OperatorReason(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reason: Annotated[str, Field(min_length=1, max_length=200)] = "operator action"
