"""``boundless serve --wallet seamless`` killed with SIGKILL, twice: between the operator taking
a debit and our commit (the restarted server finds the debit's intent with no record of its
outcome and rolls it back by itself: no manual step; the day then reconciles with no
difference), and after a settlement whose credit the operator, down, has not acknowledged (the
restarted server delivers it). After each restart the operator's balance is what the rounds
say."""

from __future__ import annotations

import datetime as dt
import os
import signal
from pathlib import Path

import httpx
import orjson
import pytest
from typer.testing import CliRunner

from boundless.cli.main import app
from boundless.wallet.signing import REQUEST_HEADER, SECRET_VARIABLE, sign
from tests.server.live import Client, free_port, serve_process, socket_client, wait_until
from tests.wallet.bench import SECRET, Operator, operator_wallet, post_faults

START = 100_000


def _serve(data_dir: Path, port: int, operator: Operator) -> object:
    options = ["--wallet", "seamless", "--wallet-url", operator.url, "--timer-scale", "0.2"]
    options += ["--betting-seconds", "4", "--round-gap-seconds", "0.1"]
    return serve_process(data_dir, port, data_dir / "serve.log", options)


def _launch(port: int, player_id: str) -> Client:
    body = orjson.dumps({"player_id": player_id, "name": "Kit", "currency": "EUR"})
    base = f"http://127.0.0.1:{port}"
    opened = httpx.post(
        f"{base}/api/v1/operator/sessions",
        content=body,
        headers={REQUEST_HEADER: sign(SECRET, body), "Content-Type": "application/json"},
    )
    code = opened.json()["launch_url"].split("launch=")[1].split("&")[0]
    token = httpx.post(f"{base}/api/v1/operator/launch", json={"code": code}).json()["token"]
    return socket_client(port, token)


def test_kill_9_between_debit_and_commit_and_before_a_credit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SECRET_VARIABLE, SECRET.decode())
    port = free_port()
    with operator_wallet(START) as operator:
        server = _serve(tmp_path, port, operator)
        try:
            client = _launch(port, "op-kit")
            # The operator takes the debit (in a debit_batch) and answers too late: we die before
            # our commit.
            post_faults(operator, timeout_next={"debit_batch": 1}, hang_seconds=30.0)
            client.send(_bet(1000))
            wait_until(lambda: operator.store.balances.get("op-kit") == START - 1000, 30)
            os.kill(server.pid, signal.SIGKILL)  # type: ignore[attr-defined]
            server.wait()  # type: ignore[attr-defined]
            server = _serve(tmp_path, port, operator)
            # No manual step: the restart rolls back the debit it finds sent and never recorded.
            wait_until(lambda: operator.store.balances["op-kit"] == START, 60, "the rollback")
            today = dt.datetime.now(dt.UTC).date().isoformat()
            url = f"sqlite:///{tmp_path / 'boundless.sqlite'}"
            arguments = ["wallet", "reconcile", "--date", today, "--wallet-url", operator.url]
            arguments += ["--database-url", url]
            agreed = CliRunner().invoke(app, arguments)
            assert agreed.exit_code == 0, agreed.output
            # A settled round whose credit the operator cannot take: we die; the next life sends it.
            client = _launch(port, "op-kit")
            client.send(_bet(2000))
            client.wait_for("ack", lambda m: m.get("bet_id") == "b2000", 30)
            post_faults(operator, down=True)  # before the settlement: its credit stays pending
            settled = client.wait_for("settled", lambda m: True, 60)
            os.kill(server.pid, signal.SIGKILL)  # type: ignore[attr-defined]
            server.wait()  # type: ignore[attr-defined]
            server = _serve(tmp_path, port, operator)
            post_faults(operator, down=False)
            expected = START + settled["net"]
            wait_until(lambda: operator.store.balances["op-kit"] == expected, 30, "the credit")
        finally:
            server.terminate()  # type: ignore[attr-defined]
            server.wait(timeout=30)  # type: ignore[attr-defined]


def _bet(amount: int) -> dict[str, object]:
    bets = {"1": {"main": amount}}
    return {"type": "bet", "table_id": "boundless-1", "bet_id": f"b{amount}", "bets": bets}
