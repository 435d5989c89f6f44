"""Open a ledger database URL once, before a command relies on it, and say plainly what is wrong.

``ledger check`` and ``serve`` both call :func:`probe_database`; SQLAlchemy's own errors (a
missing driver, an unknown dialect, a refused connection, a file that is not SQLite) become
one sentence naming the URL, so no traceback reaches the operator.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError

from boundless.ledger.database import make_engine


class DatabaseProblem(Exception):
    """The database cannot be used; the message is for the operator."""


def parse_database_url(url: str) -> URL:
    try:
        return make_url(url)
    except ArgumentError:
        raise DatabaseProblem(
            f"{url!r} is not a database URL (use sqlite:///path or postgresql+psycopg://...)"
        ) from None


def sqlite_file(parsed: URL) -> Path | None:
    """The file a SQLite URL names; ``None`` for other back ends and in-memory databases."""
    database = parsed.database or ""
    if parsed.get_backend_name() != "sqlite" or database in ("", ":memory:"):
        return None
    if database.startswith("file:"):
        return None
    return Path(database)


def probe_database(url: str, *, must_exist: bool) -> URL:
    """Connect and run one query; raise :class:`DatabaseProblem` with the reason if that fails.

    ``must_exist``: a SQLite file that is not there is a problem (``ledger check``) rather than
    a database to create (``serve``).
    """
    parsed = parse_database_url(url)
    shown = parsed.render_as_string(hide_password=True)
    path = sqlite_file(parsed)
    if path is not None:
        if path.is_dir():
            raise DatabaseProblem(f"{path} is a directory, not a SQLite database file")
        if must_exist and not path.exists():
            raise DatabaseProblem(f"no ledger database at {path} (has the server run yet?)")
        if not path.exists() and not path.parent.is_dir():
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise DatabaseProblem(
                    f"cannot create the folder {path.parent}: {error.strerror or error}"
                ) from None
    try:
        engine = make_engine(url, read_only=True)
    except NoSuchModuleError:
        raise DatabaseProblem(
            f"{shown}: unknown database kind {parsed.drivername!r} "
            "(use sqlite:///path or postgresql+psycopg://...)"
        ) from None
    except ImportError as error:
        raise DatabaseProblem(
            f"{shown}: the driver for {parsed.drivername!r} is not installed "
            f"({error.name or error})"
        ) from None
    except OSError as error:
        raise DatabaseProblem(f"{shown}: {error.strerror or error}") from None
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
            if path is not None:
                # A file that is not SQLite fails only once a page is read.
                connection.execute(text("SELECT count(*) FROM sqlite_master"))
    except DBAPIError as error:
        reason = " ".join(str(error.orig).split()) or type(error.orig).__name__
        raise DatabaseProblem(f"cannot use the database at {shown}: {reason}") from None
    finally:
        engine.dispose()
    return parsed
