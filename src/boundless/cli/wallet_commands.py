"""``boundless wallet ...``: the reference operator wallet and the day's reconciliation."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Annotated

import typer

from boundless.cli.cli_errors import fail
from boundless.cli.ledger_commands import DatabaseUrl

wallet_app = typer.Typer(
    help="The operator's wallet: a reference wallet, the day's reconciliation.",
    no_args_is_help=True,
)


def _secret() -> bytes:
    from boundless.wallet.signing import SecretError, secret_from_environment

    try:
        return secret_from_environment()
    except SecretError as error:
        fail(str(error))


@wallet_app.command("demo-operator")
def demo_operator(
    port: Annotated[int, typer.Option(min=1, max=65535, help="TCP port.")],
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    starting_balance: Annotated[
        int, typer.Option(min=0, help="Balance of a player the wallet sees first.")
    ] = 100_000,
    latency_ms: Annotated[float, typer.Option(min=0, help="Delay of every call.")] = 0.0,
    no_batch: Annotated[bool, typer.Option(help="Do not offer credit_batch.")] = False,
    no_debit_batch: Annotated[bool, typer.Option(help="Do not offer debit_batch.")] = False,
) -> None:
    """Run the reference operator wallet (docs/wallet-api.md), secret in $BOUNDLESS_WALLET_SECRET;
    its fault switches: POST /admin/faults."""
    import uvicorn

    from boundless.cli.serve_commands import bind_socket
    from boundless.wallet.demo_operator import Faults, Store, create_demo_operator

    secret = _secret()
    sock = bind_socket(host, port)
    faults = Faults(
        latency_ms=latency_ms, credit_batch=not no_batch, debit_batch=not no_debit_batch
    )
    app = create_demo_operator(secret, Store(starting_balance=starting_balance), faults)
    typer.echo(f"reference operator wallet at http://{host}:{port}/")
    uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False)).run(sockets=[sock])


@wallet_app.command("reconcile")
def reconcile(
    day: Annotated[str, typer.Option("--date", help="The UTC day, YYYY-MM-DD.")],
    wallet_url: Annotated[str, typer.Option("--wallet-url", help="The operator's wallet API.")],
    database_url: DatabaseUrl = None,
    currency: Annotated[str, typer.Option(help="The operator's currency.")] = "EUR",
    repair: Annotated[
        bool, typer.Option(help="Send the rollbacks the differences owe (debits held there only).")
    ] = False,
) -> None:
    """Compare the day's wallet calls with the operator's report; exit 1 listing every
    difference, 0 when they agree, 2 if either side cannot be read."""
    from boundless.cli.database_probe import DatabaseProblem, probe_database
    from boundless.ledger.database import default_database_url, make_engine, make_session_factory
    from boundless.wallet.calls import CallBook
    from boundless.wallet.operator_client import CallFailedError, ClientSettings, OperatorClient
    from boundless.wallet.reconcile import compare

    try:
        start = datetime.combine(date.fromisoformat(day), datetime.min.time(), UTC)
    except ValueError:
        fail(f"--date {day!r}: give a day as YYYY-MM-DD")
    url = database_url or default_database_url()
    try:
        probe_database(url, must_exist=True)
    except DatabaseProblem as problem:
        fail(str(problem))
    client = OperatorClient(ClientSettings(wallet_url, _secret()))
    engine = make_engine(url)
    try:
        try:
            report = client.run(client.call("/report", {"date": day}))
        except CallFailedError as error:
            fail(f"the operator's report for {day} could not be read: {error}")
        rows = report.get("transactions")
        if not isinstance(rows, list):
            fail("the operator's report has no transaction list")
        sessions = make_session_factory(engine)
        with sessions.begin() as session:
            ours = CallBook(session).between(start, start + timedelta(days=1))
            pending = CallBook(session).pending_count()
        differences = compare(ours, rows, currency)
        typer.echo(
            f"{day}: {len(ours)} calls here, {len(rows)} at the operator, "
            f"{len(differences)} differences; {pending} calls pending now"
        )
        for difference in differences:
            typer.echo(difference.line())
        owed = [d.owed_rollback for d in differences if d.owed_rollback is not None]
        if repair and owed:
            with sessions.begin() as session:
                CallBook(session).add(owed)
            typer.echo(f"queued {len(owed)} rollbacks; a running server sends them")
    finally:
        client.close()
        engine.dispose()
    if differences:
        raise typer.Exit(code=1)


def register(app: typer.Typer) -> None:
    app.add_typer(wallet_app, name="wallet")
