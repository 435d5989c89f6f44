"""``boundless admin ...``: operator commands against a running server's admin API."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from typing import Annotated, Any

import typer

from boundless.cli.cli_errors import fail

admin_app = typer.Typer(
    help="Operate a running server: pause, resume, cancel.", no_args_is_help=True
)

Url = Annotated[str, typer.Option("--url", help="The server's base URL.")]
Token = Annotated[
    str | None, typer.Option("--token", help="Admin token; default $BOUNDLESS_ADMIN_TOKEN.")
]
Reason = Annotated[str, typer.Option("--reason", help="Shown to the players.")]
TableId = Annotated[str, typer.Argument(help="The table, as `boundless admin tables` lists it.")]
OptionalReason = Annotated[str | None, typer.Option("--reason", help="Shown to the players.")]
DEFAULT_URL = "http://127.0.0.1:8000"


def _call(url: str, token: str | None, method: str, path: str, body: Any = None) -> Any:
    token = token or os.environ.get("BOUNDLESS_ADMIN_TOKEN")
    if not token:
        fail("an admin token is needed: --token or $BOUNDLESS_ADMIN_TOKEN")
    data = None if body is None else json.dumps(body).encode()
    if not url.startswith(("http://", "https://")):
        fail(f"--url {url!r}: give the server's address, like {DEFAULT_URL}")
    request = urllib.request.Request(
        url.rstrip("/") + path,
        data=data,
        method=method,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        if error.code == 401:
            fail("the server rejected the admin token (check --token or $BOUNDLESS_ADMIN_TOKEN)")
        fail(f"the server refused: {_problem(error.code, error.read())}", code=1)
    except urllib.error.URLError as error:
        fail(f"cannot reach {url}: {error.reason}", code=1)
    except ValueError:
        fail(f"{url} answered with something that is not JSON: is it a Boundless server?", 1)


def _problem(status: int, body: bytes) -> str:
    """``conflict: table 'x' is already paused`` from the server's error shape."""
    try:
        data = json.loads(body)
    except ValueError:
        data = None
    if isinstance(data, dict) and "error" in data:
        detail = data.get("detail")
        return f"{data['error']}: {detail}" if detail else str(data["error"])
    return f"HTTP {status} {body.decode(errors='replace').strip()[:200]}"


def timer_text(timer: dict[str, Any] | None) -> str:
    """What the table's clock does now, in words."""
    if not timer:
        return "no timer running"
    kind = str(timer.get("kind", "")).replace("_", " ")
    remaining = timer.get("remaining_ms")
    if remaining is None:
        return f"{kind} timer running"
    return f"{kind} timer, {remaining / 1000:.1f} s left"


def state_text(table_id: str, verb: str, state: dict[str, Any]) -> str:
    public = state.get("public") or {}
    phase = public.get("phase") or "between rounds"
    return (
        f"{table_id} {verb}: round {state.get('round_no')}, {phase}, "
        f"{timer_text(state.get('timer'))}"
    )


@admin_app.command("tables")
def tables(url: Url = DEFAULT_URL, token: Token = None) -> None:
    """List every table with its phase, round and pause state."""
    for row in _call(url, token, "GET", "/api/v1/admin/tables"):
        paused = " PAUSED" if row["paused"] else ""
        typer.echo(
            f"{row['table_id']:<24} {row['title']:<14} round {row['round_no']:<6} "
            f"{row['phase'] or '-':<10} players {row['players']}{paused}"
        )


@admin_app.command("pause")
def pause(
    table_id: TableId,
    url: Url = DEFAULT_URL,
    token: Token = None,
    reason: Reason = "operator pause",
) -> None:
    """Freeze the table's timers; no bets or decisions until resume."""
    state = _call(url, token, "POST", f"/api/v1/admin/tables/{table_id}/pause", {"reason": reason})
    typer.echo(state_text(table_id, "paused", state) + f"; the players see: {reason}")


@admin_app.command("resume")
def resume(
    table_id: TableId, url: Url = DEFAULT_URL, token: Token = None, reason: OptionalReason = None
) -> None:
    """Continue where the pause stopped, with the time that was left."""
    body = None if reason is None else {"reason": reason}
    state = _call(url, token, "POST", f"/api/v1/admin/tables/{table_id}/resume", body)
    typer.echo(state_text(table_id, "resumed", state))


@admin_app.command("cancel")
def cancel(
    table_id: TableId,
    url: Url = DEFAULT_URL,
    token: Token = None,
    reason: Reason = "operator cancel",
) -> None:
    """Void the round in play and return every coin staked in it."""
    result = _call(
        url, token, "POST", f"/api/v1/admin/tables/{table_id}/cancel", {"reason": reason}
    )
    from boundless.core.money import format_amount

    total = sum(item["amount"] for item in result["refunds"])
    count = len(result["refunds"])
    typer.echo(
        f"{result['round_id']} cancelled: {count} player{'' if count == 1 else 's'} "
        f"refunded {format_amount(total)} in all"
    )


def register(app: typer.Typer) -> None:
    app.add_typer(admin_app, name="admin")
