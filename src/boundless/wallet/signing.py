"""HMAC-SHA256 signatures of wallet calls, both ways, with the secret the operator shares.

A request's signature covers its exact body bytes and goes in ``X-Boundless-Signature``; the
operator's answer is signed the same way in ``X-Operator-Signature``. The secret comes from an
environment variable (never a command-line argument: those show in ``ps``)."""

from __future__ import annotations

import hashlib
import hmac
import os

REQUEST_HEADER = "X-Boundless-Signature"
ANSWER_HEADER = "X-Operator-Signature"
SECRET_VARIABLE = "BOUNDLESS_WALLET_SECRET"
MIN_SECRET_LENGTH = 16


class SecretError(ValueError):
    """The shared secret is missing or too short."""


def sign(secret: bytes, body: bytes) -> str:
    return hmac.new(secret, body, hashlib.sha256).hexdigest()


def verify(secret: bytes, body: bytes, signature: str | None) -> bool:
    """Whether ``signature`` is the body's (compared in constant time)."""
    return signature is not None and hmac.compare_digest(sign(secret, body), signature)


def secret_from_environment(variable: str = SECRET_VARIABLE) -> bytes:
    value = os.environ.get(variable, "")
    if len(value) < MIN_SECRET_LENGTH:
        raise SecretError(
            f"set {variable} to the secret shared with the operator "
            f"(at least {MIN_SECRET_LENGTH} characters)"
        )
    return value.encode()


class Signer:
    """:func:`sign` and :func:`verify` with the key set up once (an HMAC object copied per
    body rather than the secret hashed into a new one for every call)."""

    __slots__ = ("_keyed",)

    def __init__(self, secret: bytes) -> None:
        self._keyed = hmac.new(secret, digestmod=hashlib.sha256)

    def sign(self, body: bytes) -> str:
        mac = self._keyed.copy()
        mac.update(body)
        return mac.hexdigest()

    def verify(self, body: bytes, signature: str | None) -> bool:
        return signature is not None and hmac.compare_digest(self.sign(body), signature)
