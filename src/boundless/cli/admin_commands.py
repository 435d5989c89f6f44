"""``boundless admin ...``: operator commands against a running server's admin API."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from typing import Annotated, Any

import typer

admin_app = typer.Typer(
    help="Operate a running server: pause, resume, cancel.", no_args_is_help=True
)

Url = Annotated[str, typer.Option("--url", help="The server's base URL.")]
Token = Annotated[
    str | None, typer.Option("--token", help="Admin token; default $BOUNDLESS_ADMIN_TOKEN.")
]
Reason = Annotated[str, typer.Option("--reason", help="Shown to the players.")]
OptionalReason = Annotated[str | None, typer.Option("--reason", help="Shown to the players.")]
DEFAULT_URL = "http://127.0.0.1:8000"


def _call(url: str, token: str | None, method: str, path: str, body: Any = None) -> Any:
    token = token or os.environ.get("BOUNDLESS_ADMIN_TOKEN")
    if not token:
        typer.echo("an admin token is needed: --token or $BOUNDLESS_ADMIN_TOKEN", err=True)
        raise typer.Exit(code=2)
    data = None if body is None else json.dumps(body).encode()
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
        typer.echo(f"{error.code}: {error.read().decode(errors='replace')}", err=True)
        raise typer.Exit(code=1) from None
    except urllib.error.URLError as error:
        typer.echo(f"cannot reach {url}: {error.reason}", err=True)
        raise typer.Exit(code=1) from None


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
    table_id: str, url: Url = DEFAULT_URL, token: Token = None, reason: Reason = "operator pause"
) -> None:
    """Freeze the table's timers; no bets or decisions until resume."""
    state = _call(url, token, "POST", f"/api/v1/admin/tables/{table_id}/pause", {"reason": reason})
    typer.echo(f"{table_id} paused (round {state['round_no']}, timer {state['timer']})")


@admin_app.command("resume")
def resume(
    table_id: str, url: Url = DEFAULT_URL, token: Token = None, reason: OptionalReason = None
) -> None:
    """Continue where the pause stopped, with the time that was left."""
    body = None if reason is None else {"reason": reason}
    state = _call(url, token, "POST", f"/api/v1/admin/tables/{table_id}/resume", body)
    typer.echo(f"{table_id} resumed (round {state['round_no']}, timer {state['timer']})")


@admin_app.command("cancel")
def cancel(
    table_id: str, url: Url = DEFAULT_URL, token: Token = None, reason: Reason = "operator cancel"
) -> None:
    """Void the round in play and return every coin staked in it."""
    result = _call(
        url, token, "POST", f"/api/v1/admin/tables/{table_id}/cancel", {"reason": reason}
    )
    total = sum(item["amount"] for item in result["refunds"])
    typer.echo(f"{result['round_id']} cancelled: {len(result['refunds'])} players refunded {total}")


def register(app: typer.Typer) -> None:
    app.add_typer(admin_app, name="admin")
