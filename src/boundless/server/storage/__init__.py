"""The server's own tables (players, bets, rounds, shoes) and their Alembic migrations."""
