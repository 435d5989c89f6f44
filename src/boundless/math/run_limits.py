"""How much work one call may ask of the math: the commands refuse more before they start, the
runners refuse it again. This module imports nothing, so the CLI stays quick to start."""

from __future__ import annotations

# A simulation's rounds: about two days of one core at five million rounds a second. The runner
# plans its chunks as a list, and a number past the machine's index size was a traceback.
MAX_ROUNDS = 10**12
