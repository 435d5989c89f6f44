"""xoshiro256** seeding, and the plain-Python twin of the kernel's generator (kernels.py).

Fast and statistically strong, for simulation only (never live play: the tables use a CSPRNG).
A state is four ``uint64`` words, seeded from :class:`numpy.random.SeedSequence`, so every
worker chunk has its own independent stream. Bounded integers use Lemire's multiply-shift on the
high 32 bits with rejection, which is exactly uniform; a wheel draw uses the top 53 bits.
"""

from __future__ import annotations

import numpy as np

from boundless.core.arrays import UInt64Array

U64 = UInt64Array
MASK64 = (1 << 64) - 1
MASK32 = (1 << 32) - 1


def seed_state(seed: np.random.SeedSequence) -> U64:
    """A xoshiro256** state from a seed sequence (never all zeros)."""
    state: U64 = np.asarray(seed.generate_state(4, dtype=np.uint64), dtype=np.uint64)
    if not state.any():
        state[0] = 1
    return state


# ---- the plain-Python twin (the reference implementation uses it) ----------------------
def py_next_u64(state: list[int]) -> int:
    s0, s1, s2, s3 = state
    result = (((s1 * 5) & MASK64) << 7 | ((s1 * 5) & MASK64) >> 57) & MASK64
    result = (result * 9) & MASK64
    t = (s1 << 17) & MASK64
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = ((s3 << 45) | (s3 >> 19)) & MASK64
    state[:] = [s0, s1, s2, s3]
    return result


def py_randbelow(state: list[int], bound: int) -> int:
    product = (py_next_u64(state) >> 32) * bound
    low = product & MASK32
    if low < bound:
        threshold = ((1 << 32) - bound) % bound
        while low < threshold:
            product = (py_next_u64(state) >> 32) * bound
            low = product & MASK32
    return product >> 32
