"""How much work one call may ask of the math: the commands refuse more before they start, the
runners refuse it again. This module imports nothing, so the CLI stays quick to start."""

from __future__ import annotations

# A simulation's rounds: about two days of one core at five million rounds a second. The runner
# plans its chunks as a list, and a number past the machine's index size was a traceback.
MAX_ROUNDS = 10**12

# The RNG battery's shoes: at least 600, so every chi-square cell expects 5 or more (120 orders
# of five cards, 5 each); at most ten million (hours of one core).
MIN_SHUFFLES = 600
MAX_SHUFFLES = 10_000_000
