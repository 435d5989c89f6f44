"""Boundless: a shared-round blackjack platform."""

__version__ = "0.1.0"
