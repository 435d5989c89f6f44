"""Numba kernels of the vector environment: K one-player tables stepped from arrays.

The same game as the engine for the rule sets :func:`boundless.agents.vector_env.covered`
accepts (tested equal to :class:`AgentTable` card for card on the engine's shuffles): one
position on one spot, a peek game or one with no hole card (the dealer's second card after
the players; a dealer blackjack then takes only the original bet), insurance or even money on
an up ace, hit, stand, double,
split (resplits to ``max_hands``, split aces one card), late surrender; main bet only, coins
never short. Validation lives in the Python wrapper; these functions trust their arrays.

Cards are the engine's codes (``(rank - 1) * 4 + suit``). Per table: ``phase`` 0 betting,
1 insurance asked, 2 a decision asked. ``P`` holds the rule switches (indices below).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boundless.agents.observation import (
    PHASE_BET,
    PHASE_DECISION,
    PHASE_INSURANCE,
    PHASE_OVER,
    VALUES,
)
from boundless.core.arrays import FloatArray, IntArray
from boundless.math.kernel_jit import register_locator

register_locator()  # before the kernels below: their cache survives a reinstall too

# Rule switches in P.
HITS_SOFT_17, BJ_WIN, BJ_PER, WIN_WIN, WIN_PER = 0, 1, 2, 3, 4
DOUBLE, DAS, DOUBLE_SPLIT_ACES = 5, 6, 7
SPLIT, MAX_HANDS, RESPLIT_ACES, ACES_ONE_CARD, PAIR_BY_RANK = 8, 9, 10, 11, 12
SURRENDER, SUR_NUM, SUR_DEN, SUR_UP_MASK = 13, 14, 15, 16
INSURANCE, INS_NUM, INS_DEN, INS_WIN, INS_PER, EVEN_MONEY = 17, 18, 19, 20, 21, 22
BURN, EVERY_ROUND, CUT, CARDS, BET = 23, 24, 25, 26, 27
PEEK_MASK, NO_HOLE = 28, 29
PARAMS = 30

# Actions (the nine answers of Blackjack-v0, then the bet).
HIT, STAND, DBL, SPL, SUR, SUR20, INS, EVEN, DECLINE, BET_ACTION = range(10)
ACTIONS = 10
# Hand status.
DECIDING, NEEDS_CARD, STOOD, BUST, SURRENDERED, BLACKJACK = range(6)
# Phases.
BETTING, INSURANCE_ASKED, DECIDE = 0, 1, 2
HANDS, CARDS_PER_HAND, DEALER_CARDS = 4, 24, 24
OBS = 17


@njit(cache=True, inline="always")
def _rank(code: int) -> int:
    return code // 4 + 1


@njit(cache=True, inline="always")
def _value(code: int) -> int:
    return min(code // 4 + 1, 10)


@njit(cache=True)
def _total(cards: IntArray, count: int) -> tuple[int, bool]:
    hard = 0
    ace = False
    for index in range(count):
        value = _value(cards[index])
        hard += value
        ace = ace or value == 1
    if hard <= 11 and ace:
        return hard + 10, True
    return hard, False


@njit(cache=True)
def _natural(cards: IntArray, count: int) -> bool:
    if count != 2:
        return False
    a, b = _value(cards[0]), _value(cards[1])
    return (a == 1 and b == 10) or (a == 10 and b == 1)


@njit(cache=True)
def _draw(shoe: IntArray, pos: IntArray, k: int) -> int:
    if pos[k] >= shoe.shape[1]:
        raise ValueError("the shoe ran out of cards")
    card: int = shoe[k, pos[k]]
    pos[k] += 1
    return card


@njit(cache=True)
def shuffle_fast(shoe: IntArray, pos: IntArray, seen: IntArray, k: int, P: IntArray) -> None:
    """A new shoe for table ``k`` from numba's generator (fast mode), burn included."""
    n = P[CARDS]
    for index in range(n):
        shoe[k, index] = index % 52
    for index in range(n - 1, 0, -1):
        other = np.random.randint(0, index + 1)
        shoe[k, index], shoe[k, other] = shoe[k, other], shoe[k, index]
    pos[k] = 0
    seen[k, :] = 0
    if P[BURN]:
        shown = _draw(shoe, pos, k)
        seen[k, _value(shown) - 1] += 1
        pos[k] += _value(shown)


@njit(cache=True)
def _one_card_aces(sa: IntArray, k: int, h: int, P: IntArray) -> bool:
    one_card: bool = sa[k, h] == 1 and P[ACES_ONE_CARD] == 1
    return one_card


@njit(cache=True)
def _may_split_again(nh: IntArray, sa: IntArray, k: int, h: int, P: IntArray) -> bool:
    again: bool = nh[k] < P[MAX_HANDS] and (sa[k, h] == 0 or P[RESPLIT_ACES] == 1)
    return again


@njit(cache=True)
def _first_decision(hn: IntArray, nh: IntArray, mv: IntArray, k: int) -> bool:
    first: bool = nh[k] == 1 and mv[k, 0] == 0 and hn[k, 0] == 2
    return first


@njit(cache=True)
def legal_row(
    k: int, phase: IntArray, hc: IntArray, hn: IntArray, nh: IntArray, cur: IntArray,
    fs: IntArray, sa: IntArray, mv: IntArray, dc: IntArray, P: IntArray, out: IntArray,
) -> None:  # fmt: skip
    """Table ``k``'s legal actions now, as 0/1 in ``out`` (the engine's, coins never short)."""
    out[:] = 0
    if phase[k] == BETTING:
        out[BET_ACTION] = 1
        return
    if phase[k] == INSURANCE_ASKED:
        if P[EVEN_MONEY] == 1 and _natural(hc[k, 0], hn[k, 0]):
            out[EVEN] = 1
        else:
            out[INS] = 1
        out[DECLINE] = 1
        return
    h = cur[k]
    count = hn[k, h]
    offered = False
    if P[SPLIT] == 1 and count == 2:
        again = (
            _may_split_again(nh, sa, k, h, P) if fs[k, h] == 1 else _first_decision(hn, nh, mv, k)
        )
        if again:
            a, b = hc[k, h, 0], hc[k, h, 1]
            offered = _rank(a) == _rank(b) if P[PAIR_BY_RANK] == 1 else _value(a) == _value(b)
    if _one_card_aces(sa, k, h, P):
        out[STAND] = 1
        if offered:
            out[SPL] = 1
        return
    out[HIT] = 1
    out[STAND] = 1
    if (
        P[DOUBLE] == 1
        and count == 2
        and (fs[k, h] == 0 or P[DAS] == 1)
        and (sa[k, h] == 0 or P[DOUBLE_SPLIT_ACES] == 1)
    ):
        out[DBL] = 1
    if offered:
        out[SPL] = 1
    up = _value(dc[k, 0])
    if P[SURRENDER] == 1 and _first_decision(hn, nh, mv, k) and (P[SUR_UP_MASK] >> up) & 1:
        out[SUR] = 1


@njit(cache=True)
def _receive(
    k: int, card: int, hc: IntArray, hn: IntArray, nh: IntArray, cur: IntArray, st: IntArray,
    sa: IntArray, dbl: IntArray, P: IntArray,
) -> None:  # fmt: skip
    h = cur[k]
    hc[k, h, hn[k, h]] = card
    hn[k, h] += 1
    total, _ = _total(hc[k, h], hn[k, h])
    status = DECIDING
    if total > 21:
        status = BUST
    elif total == 21 or dbl[k, h] == 1:
        status = STOOD
    elif _one_card_aces(sa, k, h, P):
        again = _rank(card) == 1 and _may_split_again(nh, sa, k, h, P)
        status = DECIDING if again else STOOD
    st[k, h] = status
    if status != DECIDING:
        cur[k] += 1


@njit(cache=True)
def _feed(
    k: int, shoe: IntArray, pos: IntArray, seen: IntArray, hc: IntArray, hn: IntArray,
    nh: IntArray, cur: IntArray, st: IntArray, sa: IntArray, dbl: IntArray, P: IntArray,
) -> None:  # fmt: skip
    """Give a card to each hand in play that waits for one (a split hand's second card)."""
    while cur[k] < nh[k] and st[k, cur[k]] == NEEDS_CARD:
        card = _draw(shoe, pos, k)
        seen[k, _value(card) - 1] += 1
        _receive(k, card, hc, hn, nh, cur, st, sa, dbl, P)


@njit(cache=True)
def _dealer_draws(dc: IntArray, count: int, P: IntArray) -> bool:
    if _natural(dc, count):
        return False
    total, soft = _total(dc, count)
    return total < 17 or (total == 17 and soft and P[HITS_SOFT_17] == 1)


@njit(cache=True)
def _settle(
    k: int, shoe: IntArray, pos: IntArray, seen: IntArray, hc: IntArray, hn: IntArray,
    nh: IntArray, st: IntArray, units: IntArray, dc: IntArray, dn: IntArray, ins: IntArray,
    paid: IntArray, staked: IntArray, phase: IntArray, must_shuffle: IntArray, P: IntArray,
    peeked_natural: bool,
) -> None:  # fmt: skip
    """Reveal the hole card (with no hole card: deal the dealer's second card now), play the
    dealer (unless the peek ended it), pay, end the round."""
    if dn[k] == 1:
        dc[k, 1] = _draw(shoe, pos, k)
        dn[k] = 2
    seen[k, _value(dc[k, 1]) - 1] += 1
    if not peeked_natural:
        while _dealer_draws(dc[k], dn[k], P):
            card = _draw(shoe, pos, k)
            seen[k, _value(card) - 1] += 1
            dc[k, dn[k]] = card
            dn[k] += 1
    bet = P[BET]
    for h in range(nh[k]):  # doubles and splits were staked as they were made
        staked[k] += bet * units[k, h]
    staked[k] -= bet  # the main bet, staked at the deal
    dealer_bj = _natural(dc[k], dn[k])
    dealer_total, _ = _total(dc[k], dn[k])
    if ins[k] != 2:  # even money was paid at once
        for h in range(nh[k]):
            u = units[k, h]
            status = st[k, h]
            payout = 0
            if status == SURRENDERED:
                payout = (bet * u * P[SUR_NUM]) // P[SUR_DEN]
            elif status == BLACKJACK:
                payout = bet * u if dealer_bj else bet * u + (bet * u * P[BJ_WIN]) // P[BJ_PER]
            elif dealer_bj and P[NO_HOLE] == 1:
                # No hole card: a dealer blackjack takes only the original bet (which the
                # first hand carries); doubles and split stakes come back, even when bust.
                payout = bet * (u - 1) if h == 0 else bet * u
            elif status == BUST or dealer_bj:
                payout = 0
            else:
                total, _ = _total(hc[k, h], hn[k, h])
                if dealer_total > 21 or total > dealer_total:
                    payout = bet * u + (bet * u * P[WIN_WIN]) // P[WIN_PER]
                elif total == dealer_total:
                    payout = bet * u
            paid[k] += payout
    if ins[k] == 1 and dealer_bj:
        cost = (bet * P[INS_NUM]) // P[INS_DEN]
        paid[k] += cost + (cost * P[INS_WIN]) // P[INS_PER]
    phase[k] = BETTING
    if pos[k] > P[CUT] or P[EVERY_ROUND] == 1:
        must_shuffle[k] = 1


@njit(cache=True)
def step_tables(
    actions: IntArray, shoe: IntArray, pos: IntArray, seen: IntArray, hc: IntArray,
    hn: IntArray, nh: IntArray, cur: IntArray, st: IntArray, units: IntArray, fs: IntArray,
    sa: IntArray, mv: IntArray, dbl: IntArray, dc: IntArray, dn: IntArray, ins: IntArray,
    paid: IntArray, staked: IntArray, phase: IntArray, must_shuffle: IntArray, P: IntArray,
    fast_shuffle: bool, rewards: FloatArray, dones: IntArray, masks: IntArray,
) -> None:  # fmt: skip
    """One action per table; an illegal one is no answer (hit to 12, decline, bet).
    ``masks`` holds each table's legal actions now (the last step's, or the wrapper's after a
    reset); it is refreshed for the next step."""
    for k in range(actions.shape[0]):
        rewards[k] = 0.0
        dones[k] = 0
        legal = masks[k]
        action = actions[k]
        if action < 0 or action >= ACTIONS or legal[action] == 0:
            action = _silent(k, phase, hc, hn, cur, legal)
        if phase[k] == BETTING:
            if must_shuffle[k] == 1:
                if not fast_shuffle:
                    raise ValueError("a table needs a new shoe from the wrapper first")
                shuffle_fast(shoe, pos, seen, k, P)
                must_shuffle[k] = 0
            _deal(k, shoe, pos, seen, hc, hn, nh, cur, st, units, fs, sa, mv, dbl, dc, dn,
                  ins, paid, staked, phase, must_shuffle, P)  # fmt: skip
        elif phase[k] == INSURANCE_ASKED:
            bet = P[BET]
            if action == INS:
                ins[k] = 1
                staked[k] += (bet * P[INS_NUM]) // P[INS_DEN]
            elif action == EVEN:
                ins[k] = 2
                paid[k] += bet + (bet * P[WIN_WIN]) // P[WIN_PER]
            _after_insurance(k, shoe, pos, seen, hc, hn, nh, cur, st, units, dc, dn, ins,
                             paid, staked, phase, must_shuffle, P)  # fmt: skip
        else:
            _decide(k, action, shoe, pos, seen, hc, hn, nh, cur, st, units, fs, sa, mv, dbl, P)
            if cur[k] >= nh[k]:
                _settle(k, shoe, pos, seen, hc, hn, nh, st, units, dc, dn, ins, paid, staked,
                        phase, must_shuffle, P, False)  # fmt: skip
        if phase[k] == BETTING:
            dones[k] = 1
            rewards[k] = (paid[k] - staked[k]) / P[BET]
        legal_row(k, phase, hc, hn, nh, cur, fs, sa, mv, dc, P, masks[k])


@njit(cache=True)
def _silent(
    k: int, phase: IntArray, hc: IntArray, hn: IntArray, cur: IntArray, legal: IntArray
) -> int:
    """The title's autoplay (hit while 11 or less), decline, or the bet."""
    if phase[k] == BETTING:
        return BET_ACTION
    if phase[k] == INSURANCE_ASKED:
        return DECLINE
    total, _ = _total(hc[k, cur[k]], hn[k, cur[k]])
    return HIT if total <= 11 and legal[HIT] == 1 else STAND


@njit(cache=True)
def _deal(
    k: int, shoe: IntArray, pos: IntArray, seen: IntArray, hc: IntArray, hn: IntArray,
    nh: IntArray, cur: IntArray, st: IntArray, units: IntArray, fs: IntArray, sa: IntArray,
    mv: IntArray, dbl: IntArray, dc: IntArray, dn: IntArray, ins: IntArray, paid: IntArray,
    staked: IntArray, phase: IntArray, must_shuffle: IntArray, P: IntArray,
) -> None:  # fmt: skip
    """Bet one unit and deal: the spot, the up card, the spot again, the hole card."""
    paid[k] = 0
    staked[k] = P[BET]
    ins[k] = 0
    nh[k] = 1
    cur[k] = 0
    for h in range(HANDS):
        hn[k, h] = 0
        units[k, h] = 1
        fs[k, h] = 0
        sa[k, h] = 0
        mv[k, h] = 0
        dbl[k, h] = 0
        st[k, h] = DECIDING
    first = _draw(shoe, pos, k)
    up = _draw(shoe, pos, k)
    second = _draw(shoe, pos, k)
    seen[k, _value(first) - 1] += 1
    seen[k, _value(up) - 1] += 1
    seen[k, _value(second) - 1] += 1
    hc[k, 0, 0] = first
    hc[k, 0, 1] = second
    hn[k, 0] = 2
    dc[k, 0] = up
    dn[k] = 1  # no hole card: the dealer's second card comes after the players (_settle)
    if P[NO_HOLE] == 0:
        dc[k, 1] = _draw(shoe, pos, k)
        dn[k] = 2
    if _natural(hc[k, 0], 2):
        st[k, 0] = BLACKJACK
        cur[k] = 1
    if P[INSURANCE] == 1 and _rank(up) == 1:
        phase[k] = INSURANCE_ASKED
        return
    _after_insurance(k, shoe, pos, seen, hc, hn, nh, cur, st, units, dc, dn, ins, paid,
                     staked, phase, must_shuffle, P)  # fmt: skip


@njit(cache=True)
def _after_insurance(
    k: int, shoe: IntArray, pos: IntArray, seen: IntArray, hc: IntArray, hn: IntArray,
    nh: IntArray, cur: IntArray, st: IntArray, units: IntArray, dc: IntArray, dn: IntArray,
    ins: IntArray, paid: IntArray, staked: IntArray, phase: IntArray, must_shuffle: IntArray,
    P: IntArray,
) -> None:  # fmt: skip
    up = _value(dc[k, 0])
    if (P[PEEK_MASK] >> up) & 1 and _natural(dc[k], 2):
        _settle(k, shoe, pos, seen, hc, hn, nh, st, units, dc, dn, ins, paid, staked, phase,
                must_shuffle, P, True)  # fmt: skip
        return
    if cur[k] >= nh[k]:
        _settle(k, shoe, pos, seen, hc, hn, nh, st, units, dc, dn, ins, paid, staked, phase,
                must_shuffle, P, False)  # fmt: skip
        return
    phase[k] = DECIDE


@njit(cache=True)
def _decide(
    k: int, action: int, shoe: IntArray, pos: IntArray, seen: IntArray, hc: IntArray,
    hn: IntArray, nh: IntArray, cur: IntArray, st: IntArray, units: IntArray, fs: IntArray,
    sa: IntArray, mv: IntArray, dbl: IntArray, P: IntArray,
) -> None:  # fmt: skip
    h = cur[k]
    mv[k, h] += 1
    if action == STAND:
        st[k, h] = STOOD
        cur[k] += 1
    elif action == SUR:
        st[k, h] = SURRENDERED
        cur[k] += 1
    elif action in (HIT, DBL):
        if action == DBL:
            units[k, h] *= 2
            dbl[k, h] = 1
        card = _draw(shoe, pos, k)
        seen[k, _value(card) - 1] += 1
        _receive(k, card, hc, hn, nh, cur, st, sa, dbl, P)
    else:  # split: the second card opens a new hand right after this one
        for moved in range(nh[k] - 1, h, -1):
            for index in range(hn[k, moved]):
                hc[k, moved + 1, index] = hc[k, moved, index]
            hn[k, moved + 1] = hn[k, moved]
            st[k, moved + 1] = st[k, moved]
            units[k, moved + 1] = units[k, moved]
            fs[k, moved + 1] = fs[k, moved]
            sa[k, moved + 1] = sa[k, moved]
            mv[k, moved + 1] = mv[k, moved]
            dbl[k, moved + 1] = dbl[k, moved]
        aces = 1 if _rank(hc[k, h, 0]) == 1 else 0
        hc[k, h + 1, 0] = hc[k, h, 1]
        for index in (h, h + 1):
            hn[k, index] = 1
            st[k, index] = NEEDS_CARD
            units[k, index] = 1
            fs[k, index] = 1
            sa[k, index] = aces
            dbl[k, index] = 0
        mv[k, h + 1] = 0
        nh[k] += 1
    _feed(k, shoe, pos, seen, hc, hn, nh, cur, st, sa, dbl, P)


@njit(cache=True)
def observe_tables(
    phase: IntArray, hc: IntArray, hn: IntArray, nh: IntArray, cur: IntArray, dc: IntArray,
    seen: IntArray, out: IntArray,
) -> None:  # fmt: skip
    """Per table: phase, up card value, the hand in play's total, soft, card count, its
    index, the number of hands, then the cards seen since the shuffle by value (10)."""
    for k in range(phase.shape[0]):
        out[k, :] = 0
        out[k, 0] = phase[k]
        if phase[k] != BETTING:
            out[k, 1] = _value(dc[k, 0])
            h = min(cur[k], nh[k] - 1)
            total, soft = _total(hc[k, h], hn[k, h])
            out[k, 2] = total
            out[k, 3] = 1 if soft else 0
            out[k, 4] = hn[k, h]
            out[k, 5] = cur[k]
            out[k, 6] = nh[k]
        for value in range(10):
            out[k, 7 + value] = seen[k, value]


@njit(cache=True)
def observe_one(
    betting: bool, over: bool, phase: IntArray, hc: IntArray, hn: IntArray, nh: IntArray,
    cur: IntArray, units: IntArray, dc: IntArray, hands: IntArray, out: IntArray,
) -> None:  # fmt: skip
    """Table 0 as Blackjack-v0 sees it (``observation.observe``'s arrays): ``hands`` rows, and
    ``out`` = phase, current hand, up card. Here, not in kernel_table.py, so that numba's cache
    of the calls below is rebuilt whenever this file changes."""
    hands[:, :] = 0
    out[:] = 0
    if betting:
        out[0] = PHASE_BET
        return
    if over:
        out[0] = PHASE_OVER
    elif phase[0] == INSURANCE_ASKED:
        out[0] = PHASE_INSURANCE
    else:
        out[0] = PHASE_DECISION
    rows = hands.shape[0]
    out[1] = min(cur[0], rows)
    out[2] = min(dc[0, 0] // 4 + 1, 10)
    for h in range(min(nh[0], rows)):
        count = hn[0, h]
        for index in range(count):
            hands[h, min(hc[0, h, index] // 4 + 1, 10) - 1] += 1
        total, soft = _total(hc[0, h], count)
        hands[h, VALUES] = total
        hands[h, VALUES + 1] = 1 if soft else 0
        hands[h, VALUES + 2] = units[0, h]


@njit(cache=True)
def step_one(
    actions: IntArray, shoe: IntArray, pos: IntArray, seen: IntArray, hc: IntArray,
    hn: IntArray, nh: IntArray, cur: IntArray, st: IntArray, units: IntArray, fs: IntArray,
    sa: IntArray, mv: IntArray, dbl: IntArray, dc: IntArray, dn: IntArray, ins: IntArray,
    paid: IntArray, staked: IntArray, phase: IntArray, must_shuffle: IntArray, P: IntArray,
    rewards: FloatArray, dones: IntArray, masks: IntArray, hands: IntArray, head: IntArray,
) -> None:  # fmt: skip
    """One step of table 0 and its observation after it, in one call (one dispatch a step)."""
    step_tables(
        actions, shoe, pos, seen, hc, hn, nh, cur, st, units, fs, sa, mv, dbl, dc, dn, ins,
        paid, staked, phase, must_shuffle, P, False, rewards, dones, masks,
    )  # fmt: skip
    observe_one(False, dones[0] == 1, phase, hc, hn, nh, cur, units, dc, hands, head)


@njit(cache=True)
def seed_numba(seed: int) -> None:
    np.random.seed(seed)
