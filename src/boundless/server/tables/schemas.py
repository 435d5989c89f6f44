"""Request bodies of the table and admin endpoints."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field


class NewPrivateTable(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: Annotated[str, Field(min_length=1, max_length=64)]
    side_bets_offered: list[Annotated[str, Field(max_length=40)]] | None = None


class OperatorReason(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reason: Annotated[str, Field(min_length=1, max_length=200)] = "operator action"
