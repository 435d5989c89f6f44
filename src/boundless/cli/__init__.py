"""The ``boundless`` command line (Typer + Rich)."""
