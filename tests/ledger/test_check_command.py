"""``boundless ledger check``: exit 0 with a summary when balanced, exit 1 listing problems,
2 when it cannot read the books."""

from __future__ import annotations

from pathlib import Path

import typer
from sqlalchemy import update
from sqlalchemy.orm import Session, sessionmaker
from typer.testing import CliRunner

from boundless.cli.ledger_commands import register
from boundless.ledger import LedgerService, make_engine
from boundless.ledger.models import ACCOUNTS, SLICES
from tests.ledger.helpers import Run, fund


def cli() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """Test wrapper standing in for ``boundless``."""

    register(app)
    return app


def check(url: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli(), ["ledger", "check", "--database-url", url])
    return result.exit_code, result.output


def test_balanced_books_exit_zero(run: Run, database_url: str) -> None:
    fund(run, "alice", "bob")
    run(lambda ledger: ledger.stake("t1", 1, "alice", "a", "main", 100))
    code, output = check(database_url)
    assert code == 0, output
    assert "books balance: no problems" in output
    assert "issued 2000 = wallets 1900 + in play 100 + house 0" in output
    assert "rounds: 1 open" in output


def test_problems_exit_one(run: Run, database_url: str, sessions: sessionmaker[Session]) -> None:
    fund(run, "alice")
    with sessions.begin() as session:
        session.execute(update(ACCOUNTS).where(ACCOUNTS.c.name == "wallet:alice").values(balance=1))
    code, output = check(database_url)
    assert code == 1
    assert "[stale_balance] account 'wallet:alice' shows balance 1 but its entries sum to 1000" in (
        output
    )


def test_missing_or_unmigrated_database(tmp_path: Path, empty_database_url: str) -> None:
    code, output = check(f"sqlite:///{tmp_path / 'nothing-here.sqlite'}")
    assert code == 2
    assert "no ledger database at" in output
    engine = make_engine(empty_database_url)
    with engine.connect():  # an existing database without the ledger's tables
        pass
    engine.dispose()
    code, output = check(empty_database_url)
    assert code == 2
    assert "no ledger tables: run the migrations" in output


def test_check_proves_the_slices(
    run: Run, sessions: sessionmaker[Session], database_url: str
) -> None:
    fund(run, "alice", "bob")
    run(
        lambda ledger: LedgerService(ledger.session, "gateway:a").stake(
            "t1", 1, "alice", "a", "main", 100
        )
    )
    run(
        lambda ledger: LedgerService(ledger.session, "gateway:b").stake(
            "t1", 1, "bob", "b", "main", 50
        )
    )
    run(lambda ledger: LedgerService(ledger.session, "gateway:a").settle_slice(
        "t1", 1, [("alice", 100, 200)]))  # fmt: skip
    code, output = check(database_url)
    assert code == 0, output
    assert "rounds: 1 open\nslices: 1 open, 1 settled\n" in output
    with sessions.begin() as session:
        session.execute(
            update(SLICES).where(SLICES.c.owner == "gateway:b").values(status="settled")
        )
    code, output = check(database_url)
    assert code == 1
    assert (
        "[slice_holds_coins] the slice of 'gateway:b' in round 1 of table 't1' is settled" in output
    )
    assert (
        "[round_status_wrong] round 1 of table 't1' is open with 0 of its 2 slices open" in output
    )
