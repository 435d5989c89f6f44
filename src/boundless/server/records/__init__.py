"""The play record: a player's rounds, newest first, and each round's full detail."""
