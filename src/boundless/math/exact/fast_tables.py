"""Shoe-independent tables for the fast kernels: hand compositions and dealer draw tries.

A *composition* is a multiset of card values, stored as 10 counts. The player compositions
are every multiset with a hard sum of 21 or less; the *removals* are the card sets whose
absence from the shoe the dealer tables are needed for: each player composition, and each
split-hand composition plus the other split cards it knows of (one when a pair is split
once, up to three with resplits).

The dealer trie lists, per up card, every multiset of cards the dealer can draw to a final
result, with the number of orders that reach it. The chance of a multiset ``d`` from a shoe
``n`` is ``ways(d) * prod_v falling(n_v, d_v) / falling(N, |d|)``, the same for every order;
so one table of multisets serves every shoe. The trie shares the product's prefixes.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from boundless.core.arrays import FloatArray, IntArray
from boundless.math.exact.params import BUST, DEALER_BLACKJACK, VALUES
from boundless.math.exact.strategy_cells import CELL_ORDER, cell_of


@dataclass(frozen=True)
class HandSpace:
    """Player compositions, highest hard sum first (so a hit's result comes earlier)."""

    counts: IntArray  # (hands, 10)
    hard: IntArray
    size: IntArray
    total: IntArray  # best total (an ace counts 11 when that does not bust)
    soft: IntArray  # 1 where an ace counts 11
    child: IntArray  # (hands, 10): the hand after drawing value v+1, -1 when that busts
    removal: IntArray  # index of the hand itself among the removals
    # (others, hands, 10): index of hand + (k+1) cards of value v+1, -1 unless v+1 is in hand
    removal_plus: IntArray
    removal_counts: IntArray  # (removals, 10)
    removal_size: IntArray
    index: dict[tuple[int, ...], int]
    group_start: IntArray  # CSR over CELL_ORDER: hands of two or more cards per chart row
    group_members: IntArray

    def hand_index(self, *values: int) -> int:
        counts = [0] * VALUES
        for value in values:
            counts[value - 1] += 1
        return self.index[tuple(counts)]


def _compositions(limit: int) -> list[tuple[int, ...]]:
    found: list[tuple[int, ...]] = []

    def extend(value: int, left: int, counts: list[int]) -> None:
        if value == 0:
            found.append(tuple(counts))
            return
        for count in range(left // value + 1):
            counts[value - 1] = count
            extend(value - 1, left - count * value, counts)
        counts[value - 1] = 0

    extend(VALUES, limit, [0] * VALUES)
    return found


@cache
def hand_space(others: int = 1) -> HandSpace:
    """The compositions, with removals for split hands knowing of up to ``others`` other
    split cards (the first ones in the same order whatever ``others`` is)."""
    hands = [counts for counts in _compositions(21) if sum(counts) >= 1]
    hard_of = [sum((v + 1) * c for v, c in enumerate(counts)) for counts in hands]
    order = sorted(range(len(hands)), key=lambda i: (-hard_of[i], hands[i]))
    hands = [hands[i] for i in order]
    index = {counts: i for i, counts in enumerate(hands)}
    count = len(hands)
    counts_array = np.array(hands, dtype=np.int64)
    hard = counts_array @ np.arange(1, VALUES + 1, dtype=np.int64)
    size = counts_array.sum(axis=1)
    soft = ((hard <= 11) & (counts_array[:, 0] > 0)).astype(np.int64)
    total = hard + 10 * soft
    child = np.full((count, VALUES), -1, dtype=np.int64)
    removals: dict[tuple[int, ...], int] = dict(index)
    removal_plus = np.full((others, count, VALUES), -1, dtype=np.int64)
    for i, counts in enumerate(hands):
        for value in range(VALUES):
            bigger = list(counts)
            bigger[value] += 1
            key = tuple(bigger)
            if key in index:
                child[i, value] = index[key]
            if counts[value]:
                removal_plus[0, i, value] = removals.setdefault(key, len(removals))
    for known in range(1, others):
        for i, counts in enumerate(hands):
            for value in range(VALUES):
                if counts[value]:
                    bigger = list(counts)
                    bigger[value] += known + 1
                    removal_plus[known, i, value] = removals.setdefault(
                        tuple(bigger), len(removals)
                    )
    removal_counts = np.array(list(removals), dtype=np.int64)
    starts: list[int] = [0]
    members: list[int] = []
    for cell in CELL_ORDER:
        members.extend(
            i
            for i in range(count)
            if size[i] >= 2 and cell_of(int(total[i]), bool(soft[i])) == cell
        )
        starts.append(len(members))
    return HandSpace(
        counts=counts_array,
        hard=hard,
        size=size,
        total=total,
        soft=soft,
        child=child,
        removal=np.arange(count, dtype=np.int64),
        removal_plus=removal_plus,
        removal_counts=removal_counts,
        removal_size=removal_counts.sum(axis=1),
        index=index,
        group_start=np.array(starts, dtype=np.int64),
        group_members=np.array(members, dtype=np.int64),
    )


@dataclass(frozen=True)
class DealerTrie:
    """Dealer draw multisets per up card, as a trie in depth-first order.

    Node ``n`` multiplies the product of its parent (depth ``depth[n] - 1``) by
    ``falling(n_value, count)``; a node with ``outcome >= 0`` ends a multiset of ``cards``
    drawn cards reached in ``ways`` orders. Up card ``u`` owns nodes ``start[u-1]:start[u]``.
    """

    value: IntArray
    count: IntArray
    depth: IntArray
    outcome: IntArray
    ways: FloatArray
    cards: IntArray
    start: IntArray
    max_count: IntArray  # per value: the most copies a dealer hand draws
    max_cards: int
    max_depth: int


def _dealer_multisets(up: int, hits_soft_17: bool) -> dict[tuple[int, ...], tuple[int, int]]:
    """Each final draw multiset: (outcome, number of orders)."""
    found: dict[tuple[int, ...], tuple[int, int]] = {}
    drawn = [0] * VALUES

    def draw(hard: int, has_ace: bool, cards: int) -> None:
        total = hard + 10 if has_ace and hard <= 11 else hard
        soft = total != hard
        outcome = -1
        if cards == 2 and total == 21:
            outcome = DEALER_BLACKJACK
        elif total > 21:
            outcome = BUST
        elif total >= 17 and not (hits_soft_17 and soft and total == 17):
            outcome = total - 17
        if outcome >= 0:
            key = tuple(drawn)
            old_outcome, ways = found.get(key, (outcome, 0))
            if old_outcome != outcome:
                raise AssertionError(f"dealer multiset {key} ends in two outcomes")
            found[key] = (outcome, ways + 1)
            return
        for value in range(1, VALUES + 1):
            drawn[value - 1] += 1
            draw(hard + value, has_ace or value == 1, cards + 1)
            drawn[value - 1] -= 1

    draw(up, up == 1, 1)
    return found


Path = tuple[tuple[int, int], ...]  # the multiset's (value index, count) pairs, in order


def _trie_nodes(multisets: dict[tuple[int, ...], tuple[int, int]]) -> list[tuple[int, ...]]:
    """Depth-first trie nodes: (value index, count, depth, outcome, orders, cards)."""
    ends: dict[Path, tuple[int, int, int]] = {}
    children: dict[Path, set[tuple[int, int]]] = {(): set()}
    for key, (result, orders) in multisets.items():
        path = tuple((value, copies) for value, copies in enumerate(key) if copies)
        ends[path] = (result, orders, sum(key))
        for depth in range(len(path)):
            children.setdefault(path[:depth], set()).add(path[depth])
            children.setdefault(path[: depth + 1], set())
    nodes: list[tuple[int, ...]] = []
    pending: list[Path] = [(step,) for step in sorted(children[()], reverse=True)]
    while pending:
        path = pending.pop()
        result, orders, drawn = ends.get(path, (-1, 0, 0))
        nodes.append((path[-1][0], path[-1][1], len(path), result, orders, drawn))
        pending.extend((*path, step) for step in sorted(children[path], reverse=True))
    return nodes


@cache
def dealer_trie(hits_soft_17: bool) -> DealerTrie:
    nodes: list[tuple[int, ...]] = []
    start = [0]
    for up in range(1, VALUES + 1):
        nodes.extend(_trie_nodes(_dealer_multisets(up, hits_soft_17)))
        start.append(len(nodes))
    table = np.array(nodes, dtype=np.int64)
    max_count = [int(table[table[:, 0] == value, 1].max(initial=0)) for value in range(VALUES)]
    return DealerTrie(
        value=table[:, 0].copy(),
        count=table[:, 1].copy(),
        depth=table[:, 2].copy(),
        outcome=table[:, 3].copy(),
        ways=table[:, 4].astype(np.float64),
        cards=table[:, 5].copy(),
        start=np.array(start, dtype=np.int64),
        max_count=np.array(max_count, dtype=np.int64),
        max_cards=int(table[:, 5].max()),
        max_depth=int(table[:, 2].max()),
    )
