"""The simulator's nopython kernels: the generator, one round, whole shoes, a recorded shoe.

One round follows the engine's card order (DECISIONS rule 8 with one position per spot): each
spot's first card, the up card, each spot's second card, the hole card (peek games); spots play
left to right, a split hand 1 takes cards until it finishes, then hand 2 (a hand split again
puts its new hand right after itself and goes on first, up to ``split.max_hands``); then the
dealer (second card first in no-hole-card games). :mod:`boundless.math.simulation.reference`
plays the same rounds in plain Python with the core's own objects; tests hold the two equal,
and hold the kernel to the engine card for card.

Everything numba compiles lives in this one file, with the array layouts it reads: numba's
cache is keyed by the file that defines a kernel, so a kernel split over files could load a
stale compilation after an edit to a helper. The kernels run with numba's reference counting
off (``_nrt=False``): they allocate nothing (the wrapper, :mod:`boundless.math.simulation`,
passes every array in), and counting references on array arguments made them six times slower.

Statistics, per bet (row 0 the main game, row ``1 + i`` side bet ``i``), in ``stats[row, ...]``:
``ST_HAND_SQ`` the sum of squares of each spot's result (main: net per initial unit; side bet:
payout per unit), and over shoes ``Y`` (a shoe's summed results) and ``N`` (its stakes, in
units): ``ST_Y``, ``ST_YY``, ``ST_N``, ``ST_NN``, ``ST_YN``. A shoe is the sampling unit of the
confidence intervals (the rounds of one shoe share its cards).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from numba import njit

from boundless.core.arrays import FloatArray, Int8Array, IntArray, UInt64Array
from boundless.math.kernel_jit import register_locator

# Short names: the kernels' argument lists are long.
I64 = IntArray
I8 = Int8Array
F64 = FloatArray
U64 = UInt64Array
# Side tables in the order SideTables.kernel_arrays() gives them.
SideArrays = tuple[I64, I8, I8, F64, I8, F64, I64, I64, I64, F64, I8, F64, F64, I64]
# Work arrays (see boundless.math.simulation.work_arrays): hands, cards, spot_hands, spot_cards,
# dealer, out_main, out_side, cur, shoe sums [2, bets], no pre-drawn wheel numbers.
Game = tuple[I64, F64, I8, SideArrays, I64]
"""What a title's rounds are played by, unchanged from round to round: ``(ip, fp, moves,
sides, max_round)``."""
Work = tuple[I64, I8, I64, I64, I8, F64, F64, I64, F64, U64]
Function = TypeVar("Function", bound=Callable[..., Any])

# ---- layouts ---------------------------------------------------------------------------
# Integer parameters ip[] (the policy's decisions are in moves[], below).
IP_CARDS = 0  # cards in the shoe
IP_CUT = 1  # cut index: the shoe ends after the round in which a card past it was drawn
IP_BURN = 2
IP_RESHUFFLE = 3  # reshuffle before every round
IP_SPOTS = 4
IP_PEEK = 5  # 1: the dealer has a hole card and peeks with peek-up values
IP_PEEK_MASK = 6  # bit v set: peek with up value v (1..10)
IP_H17 = 7
IP_SPLIT_ACES_ONE_CARD = 8
IP_ORIGINAL_BETS_ONLY = 9  # no hole card: a dealer blackjack takes only the original bet
IP_SIDES = 10
IP_MAX_HANDS = 11  # hands a spot may hold after splitting (2: no resplit)
IP_RESPLIT_ACES = 12
IP_PAIR_BY_RANK = 13
IP_SIZE = 14
# Float parameters fp[]: winnings per unit (stake not included) and refunds per unit.
FP_BLACKJACK, FP_WIN, FP_SURRENDER, FP_DECLINE = 0, 1, 2, 3
FP_SIZE = 4
# Actions: the engine's Action codes (core/round/actions.py).
HIT, STAND, DOUBLE, SPLIT, SURRENDER, SURRENDER20 = 0, 1, 2, 3, 4, 5
# moves[]: the policy's decision tables, by up value 0..10 (0 unused) in the last place.
# First decision of a spot's two cards: [rank index 1, rank index 2, up];
# a split hand's two cards: [split aces, hard sum 0..31, has an ace, up];
# a hand of three or more cards: [hard sum 0..31, has an ace, up];
# a split hand's pair while the rules let it split again: [pair value 0..10, up].
MV_FIRST = 0
MV_SPLIT = MV_FIRST + 13 * 13 * 11
MV_LATER = MV_SPLIT + 2 * 32 * 2 * 11
MV_RESPLIT = MV_LATER + 32 * 2 * 11
MV_SIZE = MV_RESPLIT + 11 * 11
# Side-bet methods (see boundless.math.simulation.side_tables).
TABLE, BUST, WHEEL_SPOT, WHEEL_DEALER, PAIR_TABLE = 0, 1, 2, 3, 4
# cur[]: shoe position, next pre-drawn wheel number, shoe exhausted.
CUR_POS, CUR_WHEEL, CUR_EXHAUSTED = 0, 1, 2
CUR_SIZE = 3
# hands[h, field]; hand h of spot s is MAX_HANDS*s (+i for the split hand i, left to right).
MAX_HANDS = 4
H_COUNT, H_HARD, H_ACES, H_UNITS, H_STATUS, H_SPLIT, H_SPLIT_ACES = 0, 1, 2, 3, 4, 5, 6
H_FIELDS = 7
DECIDING, STOOD, BUSTED, SURRENDERED, SURRENDERED20, NATURAL = 0, 1, 2, 3, 4, 5
MAX_CARDS = 24  # a hand or the dealer never holds more (21 ones then a busting card)
UNAVAILABLE = -1.0  # out_side value for a bet not offered this round
TWO_POW_53 = 9007199254740992.0
MASK32 = (1 << 32) - 1
ST_HAND_SQ, ST_Y, ST_YY, ST_N, ST_NN, ST_YN = 0, 1, 2, 3, 4, 5
ST_FIELDS = 6
C_ROUNDS, C_SHOES, C_VOID = 0, 1, 2
C_FIELDS = 3
# rec_round[r, field] in play_shoe
R_USED, R_DEALER, R_ROUND, R_VOID, R_HANDS, R_BURNED = 0, 1, 2, 3, 4, 5
R_FIELDS = 6


def kernel(function: Function) -> Function:
    """Compile in nopython mode, cached, without reference counting (nothing is allocated)."""
    register_locator()
    options: dict[str, Any] = {"cache": True, "_nrt": False}
    compiled: Function = njit(**options)(function)
    return compiled


def inlined_kernel(function: Function) -> Function:
    """A kernel numba inlines into its callers: a copy of a long argument list per call is
    avoided and LLVM optimises the round as one function (measured 20% faster)."""
    register_locator()
    options: dict[str, Any] = {"cache": True, "_nrt": False, "inline": "always"}
    compiled: Function = njit(**options)(function)
    return compiled


# ---- xoshiro256** (plain-Python twin: boundless.math.simulation.rng) --------------------------
@kernel
def _rotl(value: np.uint64, shift: int) -> np.uint64:
    return (value << np.uint64(shift)) | (value >> np.uint64(64 - shift))


@kernel
def next_u64(state: U64) -> np.uint64:
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    return result


@kernel
def randbelow(state: U64, bound: int) -> int:
    """Uniform integer in ``0 .. bound-1`` for ``1 <= bound < 2**32`` (Lemire, with rejection)."""
    limit = np.uint64(bound)
    product = (next_u64(state) >> np.uint64(32)) * limit
    low = product & np.uint64(MASK32)
    if low < limit:
        threshold = (np.uint64(1 << 32) - limit) % limit
        while low < threshold:
            product = (next_u64(state) >> np.uint64(32)) * limit
            low = product & np.uint64(MASK32)
    return int(product >> np.uint64(32))


# ---- one round -------------------------------------------------------------------------
@kernel
def card_value(card: int) -> int:
    return min((card >> 2) + 1, 10)


@kernel
def draw(deck: I8, cur: I64, rng: U64, lazy: bool) -> int:
    """The next card; with ``lazy`` the shoe is shuffled as it is dealt (forward Fisher-Yates)."""
    position = cur[CUR_POS]
    size = deck.shape[0]
    if position >= size:
        cur[CUR_EXHAUSTED] = 1
        return 0
    if lazy:
        other = position + randbelow(rng, size - position)
        card = deck[other]
        deck[other] = deck[position]
        deck[position] = card
    cur[CUR_POS] = position + 1
    return int(deck[position])


@kernel
def best_total(hard: int, aces: int) -> int:
    return hard + 10 if (aces != 0) & (hard <= 11) else hard


@kernel
def _add(hands: I64, cards: I8, hand: int, card: int) -> int:
    count = hands[hand, H_COUNT]
    if count < MAX_CARDS:
        cards[hand, count] = card
    hands[hand, H_COUNT] = count + 1
    value = card_value(card)
    hands[hand, H_HARD] += value
    hands[hand, H_ACES] |= value == 1
    return best_total(hands[hand, H_HARD], hands[hand, H_ACES])


@inlined_kernel
def decide(moves: I8, hands: I64, cards: I8, hand: int, up: int, split: bool) -> int:
    """The policy's action, looked up in its decision tables (see policy.py)."""
    hard, aces = hands[hand, H_HARD], hands[hand, H_ACES]
    if hands[hand, H_COUNT] == 2:
        if split:
            return int(
                moves[MV_SPLIT + ((hands[hand, H_SPLIT_ACES] * 32 + hard) * 2 + aces) * 11 + up]
            )
        pair = (cards[hand, 0] >> 2) * 13 + (cards[hand, 1] >> 2)
        return int(moves[MV_FIRST + pair * 11 + up])
    return int(moves[MV_LATER + (hard * 2 + aces) * 11 + up])


@inlined_kernel
def _play_hand(
    ip: I64,
    moves: I8,
    hands: I64,
    cards: I8,
    hand: int,
    up: int,
    split: bool,
    deck: I8,
    cur: I64,
    rng: U64,
    lazy: bool,
    action: int,
) -> bool:
    """Decide (``action`` first, unless -1) and draw until the hand is finished; True when
    the policy splits it."""
    while hands[hand, H_STATUS] == DECIDING:
        if action < 0:
            action = decide(moves, hands, cards, hand, up, split)
        if action == STAND:
            hands[hand, H_STATUS] = STOOD
        elif action == SURRENDER:
            hands[hand, H_STATUS] = SURRENDERED
        elif action == SURRENDER20:
            hands[hand, H_STATUS] = SURRENDERED20
        elif action == SPLIT:
            return True
        else:
            if action == DOUBLE:
                hands[hand, H_UNITS] *= 2
            total = _add(hands, cards, hand, draw(deck, cur, rng, lazy))
            if total > 21:
                hands[hand, H_STATUS] = BUSTED
            elif total == 21 or action == DOUBLE:
                hands[hand, H_STATUS] = STOOD
        action = -1
    return False


@kernel
def _start_hand(hands: I64, cards: I8, hand: int, card: int, split: int) -> None:
    hands[hand, H_COUNT] = 0
    hands[hand, H_HARD] = 0
    hands[hand, H_ACES] = 0
    hands[hand, H_UNITS] = 1
    hands[hand, H_STATUS] = DECIDING
    hands[hand, H_SPLIT] = split
    hands[hand, H_SPLIT_ACES] = 0
    _add(hands, cards, hand, card)


@kernel
def _may_split_again(ip: I64, hands: I64, cards: I8, hand: int, held: int) -> bool:
    """A split hand's two cards make a pair the rules let it split again (engine: paths)."""
    one, two = int(cards[hand, 0]), int(cards[hand, 1])
    same_rank = (one >> 2) == (two >> 2)
    pair = same_rank if ip[IP_PAIR_BY_RANK] else card_value(one) == card_value(two)
    aces_ok = hands[hand, H_SPLIT_ACES] == 0 or ip[IP_RESPLIT_ACES] == 1
    return hands[hand, H_COUNT] == 2 and pair and aces_ok and held < ip[IP_MAX_HANDS]


@kernel
def _split_at(hands: I64, cards: I8, hand: int, last: int) -> None:
    """Split ``hand``: its second card starts a new hand right after it (later hands move
    up one place, ``last`` being the spot's last hand), it keeps the first."""
    for moved in range(last, hand, -1):
        for field in range(H_FIELDS):
            hands[moved + 1, field] = hands[moved, field]
        for slot in range(MAX_CARDS):
            cards[moved + 1, slot] = cards[moved, slot]
    one, two = int(cards[hand, 0]), int(cards[hand, 1])
    aces = 1 if (one >> 2) == 0 else 0
    _start_hand(hands, cards, hand, one, 1)
    _start_hand(hands, cards, hand + 1, two, 1)
    hands[hand, H_SPLIT_ACES] = aces
    hands[hand + 1, H_SPLIT_ACES] = aces


@inlined_kernel
def _play_spot(
    ip: I64,
    moves: I8,
    hands: I64,
    cards: I8,
    spot_hands: I64,
    spot: int,
    up: int,
    deck: I8,
    cur: I64,
    rng: U64,
    lazy: bool,
) -> None:
    first = MAX_HANDS * spot
    if hands[first, H_STATUS] != DECIDING:
        return
    if not _play_hand(ip, moves, hands, cards, first, up, False, deck, cur, rng, lazy, -1):
        return
    _split_at(hands, cards, first, first)
    spot_hands[spot] = 2
    hand = first
    while hand < first + spot_hands[spot]:
        total = _add(hands, cards, hand, draw(deck, cur, rng, lazy))
        action = -1
        if _may_split_again(ip, hands, cards, hand, spot_hands[spot]):
            action = int(moves[MV_RESPLIT + card_value(int(cards[hand, 0])) * 11 + up])
            if action == SPLIT:
                _split_at(hands, cards, hand, first + spot_hands[spot] - 1)
                spot_hands[spot] += 1
                continue
        one_card = hands[hand, H_SPLIT_ACES] and ip[IP_SPLIT_ACES_ONE_CARD]
        if action < 0 and (total == 21 or one_card):
            hands[hand, H_STATUS] = STOOD
        else:
            _play_hand(ip, moves, hands, cards, hand, up, True, deck, cur, rng, lazy, action)
        hand += 1


@inlined_kernel
def _settle_spot(
    ip: I64,
    fp: F64,
    hands: I64,
    spot_hands: I64,
    spot: int,
    dealer_total: int,
    dealer_natural: bool,
) -> float:
    """Net main-game result of the spot per initial unit (engine: settlement.path_terms)."""
    payout = 0.0
    stake = 0.0
    for index in range(spot_hands[spot]):
        hand = MAX_HANDS * spot + index
        units = float(hands[hand, H_UNITS])
        status = hands[hand, H_STATUS]
        stake += units
        if (status <= BUSTED) & (not dealer_natural):
            total = best_total(hands[hand, H_HARD], hands[hand, H_ACES])
            # Without branches: win, push and loss are hard for the processor to predict.
            alive = 1.0 if status == STOOD else 0.0
            win = 1.0 if (dealer_total > 21) | (total > dealer_total) else 0.0
            push = 1.0 if total == dealer_total else 0.0
            pay = units * alive * (win * (1.0 + fp[FP_WIN]) + push)
        elif status == SURRENDERED:
            pay = units * fp[FP_SURRENDER]
        elif status == SURRENDERED20:
            pay = units * fp[FP_DECLINE]
        elif status == NATURAL:
            pay = units if dealer_natural else units * (1.0 + fp[FP_BLACKJACK])
        elif dealer_natural:
            # No hole card: a dealer blackjack takes only the original bet (DECISIONS rule 18).
            pay = units - (1.0 if index == 0 else 0.0) if ip[IP_ORIGINAL_BETS_ONLY] else 0.0
        elif status == BUSTED:
            pay = 0.0
        else:
            total = best_total(hands[hand, H_HARD], hands[hand, H_ACES])
            if dealer_total > 21 or total > dealer_total:
                pay = units * (1.0 + fp[FP_WIN])
            elif total == dealer_total:
                pay = units
            else:
                pay = 0.0
        payout += pay
    return payout - stake


@kernel
def _wheel_number(rng: U64, wheel_ks: U64, cur: I64) -> np.uint64:
    """53 random bits: pre-drawn ones while they last, else from the generator."""
    index = cur[CUR_WHEEL]
    if index < wheel_ks.shape[0]:
        cur[CUR_WHEEL] = index + 1
        drawn: np.uint64 = wheel_ks[index]
        return drawn
    return next_u64(rng) >> np.uint64(11)


@inlined_kernel
def spin(sides: SideArrays, bet: int, rng: U64, wheel_ks: U64, cur: I64) -> float:
    """One Bonus Spin Xtreme feature; payout per unit wagered (engine: core.wheel)."""
    inner_cum, inner_total, inner_count = sides[6], sides[7], sides[8]
    inner_pay, inner_power = sides[9], sides[10]
    outer_cum, outer_pay, outer_count = sides[11], sides[12], sides[13]
    drawn = (_wheel_number(rng, wheel_ks, cur) * np.uint64(inner_total[bet])) >> np.uint64(53)
    wedge = 0
    while wedge < inner_count[bet] - 1 and drawn >= np.uint64(inner_cum[bet, wedge]):
        wedge += 1
    pay: float = inner_pay[bet, wedge]
    if inner_power[bet, wedge]:
        chance = float(_wheel_number(rng, wheel_ks, cur)) / TWO_POW_53
        outer = 0
        while outer < outer_count[bet] - 1 and chance >= outer_cum[bet, outer]:
            outer += 1
        pay += outer_pay[bet, outer]
    return pay


@inlined_kernel
def settle_side_bets(
    sides: SideArrays,
    max_round: I64,
    round_in_shoe: int,
    spot_cards: I64,
    spots: int,
    dealer: I8,
    dealer_count: int,
    dealer_total: int,
    rng: U64,
    wheel_ks: U64,
    cur: I64,
    out_side: F64,
) -> None:
    """Payout per unit of every side bet on every spot, in the engine's order (bet, then spot)."""
    kind, table, pend, pay, trig, bust_pay = (
        sides[0],
        sides[1],
        sides[2],
        sides[3],
        sides[4],
        sides[5],
    )
    up, hole = int(dealer[0]), int(dealer[1])
    for bet in range(kind.shape[0]):
        available = max_round[bet] == 0 or round_in_shoe <= max_round[bet]
        for spot in range(spots):
            if not available:
                out_side[bet, spot] = UNAVAILABLE
                continue
            one, two = spot_cards[spot, 0], spot_cards[spot, 1]
            method = kind[bet]
            result = 0.0
            if method == PAIR_TABLE:
                result = pay[bet, table[bet, one * 52 + two] + 1]
            elif method == TABLE:
                code = int(table[bet, one * 2704 + two * 52 + up])
                if code <= -2:
                    code = int(pend[bet, -2 - code, hole])
                result = pay[bet, code + 1]
            elif method == BUST:
                bust = 1.0 if dealer_total > 21 else 0.0
                result = bust * bust_pay[bet, min(dealer_count, bust_pay.shape[1] - 1)]
            else:
                where = one * 52 + two if method == WHEEL_SPOT else up * 52 + hole
                if trig[bet, where]:
                    result = spin(sides, bet, rng, wheel_ks, cur)
            out_side[bet, spot] = result


@inlined_kernel
def play_round(
    game: Game, deck: I8, rng: U64, lazy: bool, wheel_ks: U64, round_in_shoe: int, work: Work
) -> int:
    """Play one round from the shoe at ``cur``; returns the number of dealer cards."""
    ip, fp, moves, sides, max_round = game
    hands, cards, spot_hands, spot_cards, dealer, out_main, out_side, cur, _, _ = work
    spots = ip[IP_SPOTS]
    for spot in range(spots):
        card = draw(deck, cur, rng, lazy)
        _start_hand(hands, cards, MAX_HANDS * spot, card, 0)
        spot_hands[spot] = 1
        spot_cards[spot, 0] = card
    up = draw(deck, cur, rng, lazy)
    up_value = card_value(up)
    for spot in range(spots):
        card = draw(deck, cur, rng, lazy)
        _add(hands, cards, MAX_HANDS * spot, card)
        spot_cards[spot, 1] = card
        if hands[MAX_HANDS * spot, H_HARD] == 11 and hands[MAX_HANDS * spot, H_ACES]:
            hands[MAX_HANDS * spot, H_STATUS] = NATURAL
    dealer[0] = up
    hard = up_value
    aces = 1 if up_value == 1 else 0
    count = 1
    peeked_natural = False
    if ip[IP_PEEK]:
        hole = draw(deck, cur, rng, lazy)
        dealer[1] = hole
        count = 2
        hard += card_value(hole)
        aces |= 1 if card_value(hole) == 1 else 0
        peeked_natural = ((ip[IP_PEEK_MASK] >> up_value) & 1) == 1 and hard == 11 and aces == 1
    if not peeked_natural:
        for spot in range(spots):
            _play_spot(ip, moves, hands, cards, spot_hands, spot, up_value, deck, cur, rng, lazy)
        if count == 1:
            dealer[1] = draw(deck, cur, rng, lazy)
            count = 2
            hard += card_value(dealer[1])
            aces |= 1 if card_value(dealer[1]) == 1 else 0
        if not (hard == 11 and aces):
            while True:
                total = best_total(hard, aces)
                soft = aces == 1 and hard <= 11
                if total < 17 or (total == 17 and soft and ip[IP_H17]):
                    card = draw(deck, cur, rng, lazy)
                    if count < MAX_CARDS:
                        dealer[count] = card
                    count += 1
                    hard += card_value(card)
                    aces |= 1 if card_value(card) == 1 else 0
                else:
                    break
    dealer_natural = count == 2 and hard == 11 and aces == 1
    dealer_total = best_total(hard, aces)
    for spot in range(spots):
        out_main[spot] = _settle_spot(ip, fp, hands, spot_hands, spot, dealer_total, dealer_natural)
    if ip[IP_SIDES]:
        settle_side_bets(sides, max_round, round_in_shoe, spot_cards, spots, dealer, count,
                         dealer_total, rng, wheel_ks, cur, out_side)  # fmt: skip
    return count


@kernel
def _burn(ip: I64, deck: I8, cur: I64, rng: U64, lazy: bool) -> None:
    """Reveal the first card and burn as many more as its value (DECISIONS rule 15)."""
    if ip[IP_BURN]:
        shown = draw(deck, cur, rng, lazy)
        for _ in range(card_value(shown)):
            draw(deck, cur, rng, lazy)


@kernel
def simulate_chunk(
    game: Game, deck: I8, rng: U64, quota: int, work: Work, stats: F64, counts: I64
) -> None:
    """Play whole shoes, shuffled as dealt, until at least ``quota`` rounds; add to the sums."""
    ip = game[0]
    out_main, out_side, cur, shoe, no_ks = work[5], work[6], work[7], work[8], work[9]
    spots = ip[IP_SPOTS]
    bets = 1 + ip[IP_SIDES]
    reshuffle = ip[IP_RESHUFFLE] != 0
    cut = ip[IP_CUT]
    played = 0
    while played < quota:
        cur[CUR_POS] = 0
        cur[CUR_EXHAUSTED] = 0
        _burn(ip, deck, cur, rng, True)
        shoe[:, :] = 0.0
        round_in_shoe = 0
        while True:
            round_in_shoe += 1
            play_round(game, deck, rng, True, no_ks, round_in_shoe, work)
            if cur[CUR_EXHAUSTED]:
                counts[C_VOID] += 1  # the engine voids a round the shoe cannot finish
                break
            for spot in range(spots):
                net = out_main[spot]
                shoe[0, 0] += net
                stats[0, ST_HAND_SQ] += net * net
            shoe[1, 0] += spots
            for bet in range(bets - 1):
                if out_side[bet, 0] == UNAVAILABLE:
                    continue
                for spot in range(spots):
                    paid = out_side[bet, spot]
                    shoe[0, bet + 1] += paid
                    stats[bet + 1, ST_HAND_SQ] += paid * paid
                shoe[1, bet + 1] += spots
            played += 1
            if reshuffle or cur[CUR_POS] > cut:
                break
        for row in range(bets):
            y, n = shoe[0, row], shoe[1, row]
            stats[row, ST_Y] += y
            stats[row, ST_YY] += y * y
            stats[row, ST_N] += n
            stats[row, ST_NN] += n * n
            stats[row, ST_YN] += y * n
        counts[C_SHOES] += 1
    counts[C_ROUNDS] += played


@kernel
def play_shoe(
    game: Game,
    deck: I8,
    wheel_ks: U64,
    rng: U64,
    work: Work,
    rec_cards: I8,
    rec_hand: I64,
    rec_dealer: I8,
    rec_round: I64,
    rec_main: F64,
    rec_side: F64,
) -> int:
    """Play the stacked ``deck`` as the title's shoe (burn, cut card) and record every round,
    at most ``len(rec_round)`` rounds; returns the number played.

    ``rec_cards[r, spot, hand, k]`` the cards of each hand (-1 after the last);
    ``rec_hand[r, spot, hand, (count, status, units)]``; ``rec_dealer[r, k]``;
    ``rec_round[r, R_*]``; ``rec_main[r, spot]``; ``rec_side[r, bet, spot]``. Pre-drawn
    ``wheel_ks`` (53-bit numbers) drive the wheels, then ``rng``.
    """
    ip = game[0]
    hands, cards, spot_hands, _, dealer, out_main, out_side, cur, _, _ = work
    spots = ip[IP_SPOTS]
    cur[:] = 0
    _burn(ip, deck, cur, rng, False)
    burned = cur[CUR_POS]
    played = 0
    while played < rec_round.shape[0]:
        start = cur[CUR_POS]
        cards[:, :] = -1
        dealer[:] = -1
        count = play_round(game, deck, rng, False, wheel_ks, played + 1, work)
        record = rec_round[played]
        record[R_USED] = cur[CUR_POS] - start
        record[R_DEALER] = count
        record[R_ROUND] = played + 1
        record[R_VOID] = cur[CUR_EXHAUSTED]
        record[R_BURNED] = burned
        for slot in range(MAX_CARDS):
            rec_dealer[played, slot] = dealer[slot]
        record[R_HANDS] = 0
        for spot in range(spots):
            rec_main[played, spot] = out_main[spot]
            for bet in range(out_side.shape[0]):
                rec_side[played, bet, spot] = out_side[bet, spot]
            record[R_HANDS] += spot_hands[spot]
            for index in range(spot_hands[spot]):
                hand = MAX_HANDS * spot + index
                for slot in range(MAX_CARDS):
                    rec_cards[played, spot, index, slot] = cards[hand, slot]
                rec_hand[played, spot, index, 0] = hands[hand, H_COUNT]
                rec_hand[played, spot, index, 1] = hands[hand, H_STATUS]
                rec_hand[played, spot, index, 2] = hands[hand, H_UNITS]
        played += 1
        if cur[CUR_EXHAUSTED] or ip[IP_RESHUFFLE] or cur[CUR_POS] > ip[IP_CUT]:
            break
    return played
