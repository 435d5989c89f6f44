"""Column types and naming shared by every table the platform owns (ledger and server)."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import BigInteger, Integer

# SQLite only auto-increments an INTEGER PRIMARY KEY; PostgreSQL gets BIGINT identities.
IdType = BigInteger().with_variant(Integer(), "sqlite")

# Literal constraint names, so migrations name them the same on SQLite and PostgreSQL.
NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utc_now() -> datetime:
    return datetime.now(UTC)
