"""The operator console: the floor, the returns against the exact figures, the ledger check."""
