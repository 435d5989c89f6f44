"""The numba kernel for the dealer's outcome chances (validation lives in :mod:`.fast`).

A file of its own: it calls no other kernel, so numba's per-file cache cannot go stale.
The trie it walks is :func:`boundless.math.exact.fast_tables.dealer_trie`.
"""

from __future__ import annotations

import numpy as np

from boundless.core.arrays import FloatArray, IntArray
from boundless.math.kernel_jit import kernel

OUTCOMES = 7
BLOCK = 256  # removals per cache block


@kernel
def dealer_chances(
    node_value: IntArray,
    node_count: IntArray,
    node_depth: IntArray,
    node_outcome: IntArray,
    node_ways: FloatArray,
    node_cards: IntArray,
    first: int,
    last: int,
    base: IntArray,
    removal_counts: IntArray,
    removal_size: IntArray,
    max_count: IntArray,
    max_cards: int,
    max_depth: int,
    out: FloatArray,
) -> None:
    """Chances of the seven dealer outcomes for every removal, one up card (``out[7, R]``).

    ``base`` is the shoe without the up card; removal ``r`` takes ``removal_counts[r]`` more.
    Infeasible removals get zeros. Removals are done in blocks small enough that the trie's
    running products stay in cache.
    """
    removals = removal_counts.shape[0]
    total = 0
    for value in range(10):
        total += base[value]
    most = 0
    for value in range(10):
        most = max(most, max_count[value])
    falling = np.zeros((10, most + 1, BLOCK))
    by_cards = np.zeros((OUTCOMES, max_cards + 1, BLOCK))
    inverse = np.zeros((max_cards + 1, BLOCK))
    stack = np.ones((max_depth + 1, BLOCK))
    feasible = np.ones(BLOCK, dtype=np.bool_)
    for begin in range(0, removals, BLOCK):
        width = min(BLOCK, removals - begin)
        feasible[:] = True
        for value in range(10):
            for k in range(width):
                left = base[value] - removal_counts[begin + k, value]
                if left < 0:
                    feasible[k] = False
                    left = 0
                product = 1.0
                falling[value, 0, k] = 1.0
                for count in range(1, max_count[value] + 1):
                    product *= max(left - count + 1, 0)
                    falling[value, count, k] = product
        for k in range(width):
            left = total - removal_size[begin + k]
            product = 1.0
            for cards in range(1, max_cards + 1):
                product *= max(left - cards + 1, 0)
                inverse[cards, k] = 1.0 / product if product > 0 else 0.0
        by_cards[:, :, :] = 0.0
        for node in range(first, last):
            depth = node_depth[node]
            factor = falling[node_value[node], node_count[node]]
            above = stack[depth - 1]
            outcome = node_outcome[node]
            has_children = node + 1 < last and node_depth[node + 1] > depth
            if has_children:
                here = stack[depth]
                for k in range(width):
                    here[k] = above[k] * factor[k]
                if outcome >= 0:
                    ways = node_ways[node]
                    target = by_cards[outcome, node_cards[node]]
                    for k in range(width):
                        target[k] += ways * here[k]
            elif outcome >= 0:
                ways = node_ways[node]
                target = by_cards[outcome, node_cards[node]]
                for k in range(width):
                    target[k] += ways * above[k] * factor[k]
        for outcome in range(OUTCOMES):
            for k in range(width):
                chance = 0.0
                for cards in range(1, max_cards + 1):
                    chance += by_cards[outcome, cards, k] * inverse[cards, k]
                out[outcome, begin + k] = chance if feasible[k] else 0.0
