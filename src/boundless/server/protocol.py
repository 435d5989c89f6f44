"""Client → server WebSocket messages (protocol version 1), validated with pydantic.

See ``docs/protocol.md``. :func:`parse_client_message` is the only way text from a socket
becomes a message: anything malformed raises ``bad_message`` (or ``unsupported_version``).
"""

from __future__ import annotations

from typing import Annotated, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, StrictInt, TypeAdapter, ValidationError

from boundless.server.errors import BadMessageError, UnsupportedVersionError, describe_validation

PROTOCOL_VERSION = 1
MAX_MESSAGE_BYTES = 16_384

Identifier = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.@-]+$")]
RequestId = Annotated[str, Field(min_length=1, max_length=64)]
Amount = Annotated[StrictInt, Field(ge=0, le=10**12)]
SpotKey = Annotated[str, Field(pattern=r"^[1-7]$")]
SideKey = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]{0,39}$")]
Spot = Annotated[StrictInt, Field(ge=1, le=7)]


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    v: Literal[1]
    request_id: RequestId | None = None


class Hello(_Message):
    type: Literal["hello"]
    token: Annotated[str, Field(min_length=1, max_length=200)]


class Join(_Message):
    type: Literal["join"]
    table_id: Identifier


class Leave(_Message):
    type: Literal["leave"]
    table_id: Identifier


class PlaceBet(_Message):
    """``bets``: ``{"1": {"main": 1000, "pair": 100}}`` (spot → main and side amounts)."""

    type: Literal["bet"]
    table_id: Identifier
    bet_id: Identifier
    bets: Annotated[dict[SpotKey, dict[SideKey, Amount]], Field(min_length=1, max_length=7)]


class Rebet(_Message):
    """The last bets at this table again (Repeat), or ``multiplier`` times them (Double)."""

    type: Literal["rebet"]
    table_id: Identifier
    bet_id: Identifier
    multiplier: Literal[1, 2] = 1


class TakeInsurance(_Message):
    type: Literal["insurance"]
    table_id: Identifier
    spot: Spot
    kind: Literal["insurance", "even_money", "decline"]


class Decide(_Message):
    type: Literal["decide"]
    table_id: Identifier
    spot: Spot
    step: Annotated[StrictInt, Field(ge=1, le=100)]
    action: Literal["hit", "stand", "double", "split", "surrender", "surrender20"]


class ChooseSideBets(_Message):
    type: Literal["choose_side_bets"]
    table_id: Identifier
    side_bets: Annotated[list[SideKey], Field(min_length=1, max_length=10)]


class Resync(_Message):
    type: Literal["resync"]
    table_id: Identifier


class RealityCheckAnswer(_Message):
    """The player's answer to a ``reality_check``: play on, or end the session."""

    type: Literal["reality_check"]
    choice: Literal["continue", "leave"]


ClientMessage = Annotated[
    Hello
    | Join
    | Leave
    | PlaceBet
    | Rebet
    | TakeInsurance
    | Decide
    | ChooseSideBets
    | Resync
    | RealityCheckAnswer,
    Field(discriminator="type"),
]
_ADAPTER: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)


def request_id_of(raw: object) -> str | None:
    """The request id of a message that may not validate (to address the error reply)."""
    if isinstance(raw, dict):
        value = raw.get("request_id")
        if isinstance(value, str) and 0 < len(value) <= 64:
            return value
    return None


def too_large(text: str | bytes) -> bool:
    """Over the limit in UTF-8 bytes, as the transport counts (a character may take four)."""
    if isinstance(text, bytes):
        return len(text) > MAX_MESSAGE_BYTES
    if len(text) * 4 <= MAX_MESSAGE_BYTES:
        return False  # short enough whatever the characters: no need to encode
    return len(text.encode("utf-8", "surrogatepass")) > MAX_MESSAGE_BYTES


def decode_text(text: str | bytes) -> object:
    if too_large(text):
        raise BadMessageError(f"a message is at most {MAX_MESSAGE_BYTES:,} bytes")
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as error:
        raise BadMessageError(f"not JSON: {error}") from None


def parse_client_message(raw: object) -> ClientMessage:
    """Validate a decoded JSON value as a client message of protocol version 1."""
    if not isinstance(raw, dict):
        raise BadMessageError("a message is a JSON object")
    version = raw.get("v")
    if type(version) is not int or version != PROTOCOL_VERSION:  # not 1.0, not true
        if "v" not in raw:
            raise BadMessageError('every message carries "v": 1')
        raise UnsupportedVersionError(
            f"protocol version {version!r} is not supported (this server speaks 1)"
        )
    try:
        return _ADAPTER.validate_python(raw)
    except ValidationError as error:
        raise BadMessageError(describe_validation(error)) from None
