"""Request and answer bodies of the player endpoints."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from boundless.server.typed_text import printable

DisplayName = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=32),
    printable("display name"),
]


class SignUp(BaseModel):
    model_config = ConfigDict(extra="forbid")

    display_name: DisplayName


class PlayerOut(BaseModel):
    player_id: str
    display_name: str
    balance: int


class SignedUp(PlayerOut):
    token: str = Field(description="shown once; only its SHA-256 is stored")
