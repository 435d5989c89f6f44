"""Plans that stay linear at any batch size on PostgreSQL: the settlement's cross-check when the
tables' statistics predate the round, and the wallet lock when the batch outgrows work_mem."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.orm import Session, sessionmaker

from boundless.ledger import LedgerService, grant_key
from boundless.ledger.accounts import AccountKind
from boundless.ledger.bulk import APPLY_STAGED_CHANGES
from boundless.ledger.repository import LedgerRepository
from boundless.ledger.staging import Stage

PLAYERS = 2_000


def test_stake_sum_never_plans_a_nested_loop(backend: str, sessions: sessionmaker[Session]) -> None:
    if backend != "postgresql":
        pytest.skip("the plan is PostgreSQL's; SQLite has one join strategy")
    players = [f"p{i:05d}" for i in range(PLAYERS)]
    with sessions.begin() as session:
        ledger = LedgerService(session)
        ledger.open_wallets(players)
        ledger.grant_many([(p, 1_000, grant_key(p, "signup")) for p in players])
    with sessions.begin() as session:
        # Statistics taken before the round, as a long-running database has them.
        session.execute(text("ANALYZE ledger_transactions"))
        session.execute(text("ANALYZE ledger_entries"))
    with sessions.begin() as session:
        ledger = LedgerService(session)
        ledger.stake_many("shared", 1, [(p, f"{p}.0", "main", 10) for p in players])
    with sessions.begin() as session:
        repository = LedgerRepository(session)
        round_row = repository.round_row("shared", 1)
        assert round_row is not None
        in_play = repository.account_by_name("in_play:shared:1:local")
        assert in_play is not None
        stmt = repository.stakes_by_player_statement(round_row.id, "local", in_play.id)
        compiled = stmt.compile(session.get_bind(), compile_kwargs={"literal_binds": True})
        with repository.without_nested_loops():
            plan = "\n".join(row[0] for row in session.execute(text(f"EXPLAIN {compiled}")))
        assert "Nested Loop" not in plan, plan
        assert session.execute(text("SHOW enable_nestloop")).scalar() == "on"
        stakes = repository.stakes_by_player(round_row.id, "local", in_play.id)
        assert stakes == dict.fromkeys(players, 10)


def _analysed_wallets(backend: str, sessions: sessionmaker[Session]) -> list[str]:
    """PLAYERS wallets, with the accounts' statistics taken (as a long-running database has)."""
    if backend != "postgresql":
        pytest.skip("the plan is PostgreSQL's; SQLite has one join strategy")
    players = [f"p{i:05d}" for i in range(PLAYERS)]
    with sessions.begin() as session:
        LedgerService(session).open_wallets(players)
    with sessions.begin() as session:
        session.execute(text("ANALYZE ledger_accounts"))
    return players


def test_wallet_lock_is_a_semi_join_past_work_mem(
    backend: str, sessions: sessionmaker[Session]
) -> None:
    """Locking a batch's wallets (and the slice's accounts) never rescans the stage per account,
    however many wallets outgrow work_mem."""
    players = _analysed_wallets(backend, sessions)
    with sessions.begin() as session:
        stage = Stage(session)
        stage.load([(i, None, None, None, None, p, None, f"wallet:{p}", 0, 0)
                    for i, p in enumerate(players)])  # fmt: skip
        repository = LedgerRepository(session)
        extra = [repository.ensure_account("issuance", AccountKind.ISSUANCE).name]
        # The smallest work_mem stands for a batch of hundreds of thousands of wallets.
        session.execute(text("SET LOCAL work_mem = '64kB'"))
        sql = stage.lock_wallets_sql()
        plan = "\n".join(row[0] for row in session.execute(text(f"EXPLAIN {sql}")))
        assert "SubPlan" not in plan, plan
        locked = stage.lock_wallets(extra)
        assert set(locked) == {f"wallet:{p}" for p in players}


def _probes_or_hashes(plan: str) -> bool:
    """Each staged row joins the accounts by a probe of their unique name index, or all of them
    by one hash join: never a rescan of the stage or the accounts per row."""
    if "SubPlan" in plan:
        return False
    return "Nested Loop" not in plan or "Index Scan using uq_ledger_accounts_name" in plan


@pytest.mark.parametrize("staged_wallets", [200, PLAYERS])
def test_a_stake_batch_first_try_needs_no_statistics(
    backend: str, sessions: sessionmaker[Session], staged_wallets: int
) -> None:
    """The first try of a stake batch stages one row per wallet and does not ANALYZE it: the
    wallet lock and the balance update still join it linearly, and lock what they should."""
    players = _analysed_wallets(backend, sessions)
    staged = players[:staged_wallets]
    with sessions.begin() as session:
        # A new stage: one this connection analysed for an earlier batch keeps its statistics.
        session.execute(text("DROP TABLE IF EXISTS pg_temp.ledger_stage"))
        stage = Stage(session)
        stage.load_changes((p, f"wallet:{p}", -1) for p in staged)
        analysed = session.execute(
            text(
                "SELECT count(*) FROM pg_stats WHERE tablename = 'ledger_stage' AND schemaname "
                "= (SELECT nspname FROM pg_namespace WHERE oid = pg_my_temp_schema())"
            )
        ).scalar_one()
        assert analysed == 0
        for sql in (stage.lock_wallets_sql(), APPLY_STAGED_CHANGES):
            plan = "\n".join(row[0] for row in session.execute(text(f"EXPLAIN {sql}")))
            assert _probes_or_hashes(plan), plan
        assert set(stage.lock_wallets()) == {f"wallet:{p}" for p in staged}
