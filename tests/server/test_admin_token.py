"""``boundless serve`` refuses an admin token no client could present, before serving.

The console and ``boundless admin`` send it as ``Authorization: Bearer <token>``: a header
carries Latin-1 bytes only (a browser's fetch refuses anything else) and the server strips the
spaces around it, so a token beyond printable ASCII or with spaces would lock the operator out
without a word.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from boundless.server.config import admin_token_problem


@pytest.mark.parametrize(
    "token", ["관리자토큰", "päss-wörd-token", "two words", " padded", "tab\there"]
)
def test_serve_refuses_a_token_no_client_can_send(tmp_path: Path, token: str) -> None:
    for via_environment in (False, True):
        options = [] if via_environment else ["--admin-token", token]
        environment = {**os.environ, "BOUNDLESS_ADMIN_TOKEN": token if via_environment else ""}
        outcome = subprocess.run(
            [
                sys.executable,
                "-m",
                "boundless.cli.main",
                "serve",
                "--port",
                "1",
                *options,
                "--data-dir",
                str(tmp_path / "data"),
            ],
            capture_output=True,
            text=True,
            timeout=60,
            env=environment,
        )
        assert outcome.returncode == 2, outcome.stderr
        assert "admin token" in outcome.stderr and "Traceback" not in outcome.stderr
        assert token not in outcome.stderr  # a secret is never echoed
        assert not (tmp_path / "data" / "boundless.sqlite").exists()


def test_printable_ascii_tokens_are_fine() -> None:
    assert admin_token_problem("s3cret-admin_~!") is None
    assert admin_token_problem("") is None  # none given: serve generates one


@pytest.mark.parametrize("command", ["gateway", "cluster"])
@pytest.mark.parametrize("token", ["two words", "päss-wörd-token"])
def test_a_cluster_refuses_the_same_tokens_before_it_connects(command: str, token: str) -> None:
    from typer.testing import CliRunner

    from boundless.cli.main import app

    # unreachable addresses: the token is refused before anything is connected to
    urls = ["--database-url", "postgresql+psycopg://nobody@127.0.0.1:9/none"]
    urls += ["--nats-url", "nats://127.0.0.1:9"]
    counts = ["--port", "18999"] if command == "gateway" else ["--gateways", "1"]
    for via_environment in (False, True):
        options = [] if via_environment else ["--admin-token", token]
        result = CliRunner().invoke(
            app,
            [command, *urls, *counts, *options],
            env={"BOUNDLESS_ADMIN_TOKEN": token if via_environment else ""},
        )
        assert result.exit_code == 2, result.output
        assert "admin token" in result.stderr and token not in result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
