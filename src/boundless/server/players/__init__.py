"""Players: sign-up, bearer tokens (stored hashed), balances from the ledger."""
