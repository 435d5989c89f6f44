"""The numba kernel for :mod:`boundless.math.exact.split_exact`: the dealer's final totals
from one shoe composition (the plain version it is tested against is in the tests).

A file of its own: its kernels call only each other, so numba's per-file cache cannot go stale.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from boundless.math.kernel_jit import kernel

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

MAX_DEPTH = 24  # more dealer cards than any hand can hold


@kernel
def dealer_finals(counts: IntArray, up: int, hits_soft_17: bool) -> FloatArray:
    """Chances of the dealer ending on 17, 18, 19, 20, 21 and bust (``out[6]``).

    ``counts[v - 1]`` cards of value ``v`` (ace 1, tens 10) are unseen; the hole card is
    drawn from them too, so a dealer blackjack is part of the 21s.
    """
    return _finals_from(counts, up, up == 1, hits_soft_17)


@kernel
def dealer_finals_with_hole(counts: IntArray, up: int, hole: int, hits_soft_17: bool) -> FloatArray:
    """:func:`dealer_finals` with the hole card known (``hole``, not among ``counts``)."""
    return _finals_from(counts, up + hole, up == 1 or hole == 1, hits_soft_17)


@kernel
def _finals_from(
    counts: IntArray, start_hard: int, start_ace: bool, hits_soft_17: bool
) -> FloatArray:
    out = np.zeros(6)
    soft = start_ace and start_hard <= 11
    total = start_hard + 10 if soft else start_hard
    if total >= 17 and not (hits_soft_17 and soft and total == 17):
        out[5 if total > 21 else total - 17] = 1.0
        return out
    left = counts.copy()
    unseen = 0
    for value in range(10):
        unseen += left[value]
    hard = np.zeros(MAX_DEPTH, dtype=np.int64)
    ace = np.zeros(MAX_DEPTH, dtype=np.bool_)
    chance = np.zeros(MAX_DEPTH)
    next_value = np.zeros(MAX_DEPTH, dtype=np.int64)
    drawn = np.zeros(MAX_DEPTH, dtype=np.int64)
    depth = 0
    hard[0] = start_hard
    ace[0] = start_ace
    chance[0] = 1.0
    next_value[0] = 1
    while depth >= 0:
        value = next_value[depth]
        if value > 10:
            if depth > 0:
                left[drawn[depth] - 1] += 1
                unseen += 1
            depth -= 1
            continue
        next_value[depth] = value + 1
        if left[value - 1] == 0:
            continue
        reach = chance[depth] * left[value - 1] / unseen
        new_hard = hard[depth] + value
        new_ace = ace[depth] or value == 1
        soft = new_ace and new_hard <= 11
        total = new_hard + 10 if soft else new_hard
        if total < 17 or (hits_soft_17 and soft and total == 17):
            left[value - 1] -= 1
            unseen -= 1
            depth += 1
            hard[depth] = new_hard
            ace[depth] = new_ace
            chance[depth] = reach
            next_value[depth] = 1
            drawn[depth] = value
        elif total > 21:
            out[5] += reach
        else:
            out[total - 17] += reach
    return out
