"""Tables: the runner (clock around the pure round), money and records, lobby and admin."""
