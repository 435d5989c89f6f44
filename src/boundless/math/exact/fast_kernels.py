"""numba kernels for the exact main-game analysis (validation lives in :mod:`.fast`).

Same definitions as :mod:`boundless.math.exact.reference_values` (tested equal): values are
blackjack-free parts; context 0 is an unsplit hand and context ``1 + 10 (k - 1) + (p - 1)``
a split hand of the pair value ``p`` that knows of ``k`` other split cards
(:func:`boundless.math.exact.params.split_context`). Moves are coded 0 hit, 1 stand,
2 double (3 split, 4 surrender appear only in chart cells and are never allowed past the
first decision).
"""

from __future__ import annotations

import numpy as np

from boundless.core.arrays import BoolArray, FloatArray, IntArray
from boundless.math.kernel_jit import kernel

HIT, STAND, DOUBLE = 0, 1, 2
OUTCOMES = 7
TIE = 1e-12  # means closer than this are equal (the reference's exact ties)
BLACKJACK = 6

ColumnSpace = tuple[
    IntArray,
    IntArray,
    IntArray,
    IntArray,
    IntArray,
    IntArray,
    BoolArray,
    BoolArray,
    BoolArray,
    bool,
]
"""What both column kernels read: the hand space's ``counts, size, total, soft, child``, the
shoe's ``base``, ``valid[context, hand]``, ``contexts_on``, ``double_split[context]`` and
whether split aces take one card."""


@kernel
def _stand(
    chances: FloatArray,
    total: int,
    win: float,
    all_bets: bool,
    parts: FloatArray,
) -> tuple[float, float]:
    """Blackjack-free mean and mean square of standing on ``total``; fills ``parts[7]``."""
    mean = 0.0
    square = 0.0
    for outcome in range(OUTCOMES):
        parts[outcome] = 0.0
    for outcome in range(5):
        dealer_total = 17 + outcome
        if total > dealer_total:
            result = win
        elif total == dealer_total:
            result = 0.0
        else:
            result = -1.0
        parts[outcome] = chances[outcome] * result
        mean += parts[outcome]
        square += chances[outcome] * result * result
    parts[5] = chances[5] * win
    mean += parts[5]
    square += chances[5] * win * win
    if all_bets:
        parts[BLACKJACK] = -chances[BLACKJACK]
        mean -= chances[BLACKJACK]
        square += chances[BLACKJACK]
    return mean, square


@kernel
def _bust_weight(
    left: IntArray,
    per_card_after: float,
    value: int,
    blackjack_card: int,
    excluded: bool,
) -> float:
    """Chance that no dealer blackjack follows a bust (1 where blackjack is not split off).

    ``per_card_after`` is one over the cards left after the busting card.
    """
    if not excluded or blackjack_card < 0:
        return 1.0
    completing = int(left[blackjack_card]) - (1 if value == blackjack_card else 0)
    return 1.0 - completing * per_card_after


@kernel
def _state_ok(
    counts: IntArray,
    size: IntArray,
    hand: int,
    context: int,
    base: IntArray,
    left: IntArray,
) -> bool:
    """Whether ``hand`` is a state in ``context``; fills ``left`` with the shoe it sees."""
    if context == 0 and size[hand] < 2:
        return False
    pair = (context - 1) % 10
    if context > 0 and counts[hand, pair] == 0:
        return False
    for value in range(10):
        left[value] = base[value] - counts[hand, value]
        if context > 0 and value == pair:
            left[value] -= (context - 1) // 10 + 1
        if left[value] < 0:
            return False
    return True


@kernel
def _dealer_row(removal: IntArray, removal_plus: IntArray, hand: int, context: int) -> int:
    """The removal whose dealer chances settle ``hand`` in ``context``."""
    if context == 0:
        return int(removal[hand])
    return int(removal_plus[(context - 1) // 10, hand, (context - 1) % 10])


@kernel
def _forced(
    size: IntArray,
    total: IntArray,
    hand: int,
    context: int,
    aces_one_card: bool,
) -> int:
    """-1 when the hand decides, else the only move (a lone split card draws)."""
    if size[hand] == 1:
        return HIT
    if total[hand] >= 21:
        return STAND
    if context > 0 and (context - 1) % 10 == 0 and aces_one_card and size[hand] == 2:
        return STAND
    return -1


@kernel
def _chart_move(
    first: IntArray,
    second: IntArray,
    soft: int,
    total: int,
    can_double: bool,
) -> int:
    row = 1 if soft == 1 and total >= 12 else 0
    cell_total = min(total, 21) if row == 1 else max(4, min(total, 21))
    for move in (int(first[row, cell_total]), int(second[row, cell_total])):
        if move in (HIT, STAND) or (move == DOUBLE and can_double):
            return move
    return HIT if total < 17 else STAND


# Columns of the packed per-state figures: the chosen move's mean and mean square, then
# those of standing, hitting (and playing on) and doubling. One state fills one cache line.
MEAN, SQUARE, STAND_MEAN, STAND_SQUARE, HIT_MEAN, HIT_SQUARE, DOUBLE_MEAN, DOUBLE_SQUARE = range(8)


@kernel
def evaluate_hands(
    counts: IntArray,
    size: IntArray,
    total: IntArray,
    soft: IntArray,
    child: IntArray,
    removal: IntArray,
    removal_plus: IntArray,
    chances: FloatArray,
    base: IntArray,
    win: float,
    blackjack_card: int,
    excluded: bool,
    all_bets: bool,
    contexts_on: BoolArray,
    double_first: bool,
    double_split: BoolArray,
    aces_one_card: bool,
    optimal: bool,
    unsplit_decisions: bool,
    first: IntArray,
    second: IntArray,
    figures: FloatArray,
    move_taken: IntArray,
    valid: BoolArray,
) -> None:
    """Every state's figures for one up card, under optimal play or a fixed chart column.

    ``chances[removal, outcome]``; fills ``figures[context, hand, column]`` and the move
    taken at each state. ``unsplit_decisions`` (optimal play only) is CDZ-: a split hand
    chooses its move by the means of the unsplit hand of its cards (context 0, computed
    first) and is then worth that move on its own shoe.
    """
    hands = counts.shape[0]
    left = np.zeros(10, dtype=np.int64)
    work = np.zeros(OUTCOMES)
    figures[:, :, :] = 0.0
    for context in range(contexts_on.shape[0]):
        if not contexts_on[context]:
            continue
        for hand in range(hands):
            ok = _state_ok(counts, size, hand, context, base, left)
            valid[context, hand] = ok
            if not ok:
                continue
            cards_left = 0
            for value in range(10):
                cards_left += left[value]
            per_card = 1.0 / cards_left
            per_card_after = 1.0 / (cards_left - 1) if cards_left > 1 else 0.0
            dealer = chances[_dealer_row(removal, removal_plus, hand, context)]
            row = figures[context, hand]
            s_mean, s_square = _stand(dealer, total[hand], win, all_bets, work)
            row[STAND_MEAN] = s_mean
            row[STAND_SQUARE] = s_square
            forced = _forced(size, total, hand, context, aces_one_card)
            can_double = size[hand] == 2 and (
                double_first if context == 0 else double_split[context]
            )
            h_mean = h_square = d_mean = d_square = 0.0
            if forced != STAND:
                for value in range(10):
                    if left[value] == 0:
                        continue
                    chance = left[value] * per_card
                    after = child[hand, value]
                    if after < 0:
                        weight = chance * _bust_weight(
                            left, per_card_after, value, blackjack_card, excluded
                        )
                        h_mean -= weight
                        h_square += weight
                        if can_double:
                            d_mean -= weight
                            d_square += weight
                    else:
                        h_mean += chance * figures[context, after, MEAN]
                        h_square += chance * figures[context, after, SQUARE]
                        if can_double:
                            d_mean += chance * figures[context, after, STAND_MEAN]
                            d_square += chance * figures[context, after, STAND_SQUARE]
            row[HIT_MEAN] = h_mean
            row[HIT_SQUARE] = h_square
            row[DOUBLE_MEAN] = 2.0 * d_mean
            row[DOUBLE_SQUARE] = 4.0 * d_square
            if forced >= 0:
                move = forced
            elif optimal:
                # Exact ties go to the earlier move (stand, hit, double) as in the reference;
                # a difference within rounding is a tie.
                twin = unsplit_decisions and context > 0
                judged = figures[0, hand] if twin else row
                judged_double = can_double and (double_first or not twin)
                move = STAND
                best = judged[STAND_MEAN]
                if judged[HIT_MEAN] > best + TIE:
                    move, best = HIT, judged[HIT_MEAN]
                if judged_double and judged[DOUBLE_MEAN] > best + TIE:
                    move = DOUBLE
            else:
                move = _chart_move(first, second, soft[hand], total[hand], can_double)
            if move == STAND:
                row[MEAN], row[SQUARE] = s_mean, s_square
            elif move == HIT:
                row[MEAN], row[SQUARE] = h_mean, h_square
            else:
                row[MEAN], row[SQUARE] = 2.0 * d_mean, 4.0 * d_square
            move_taken[context, hand] = move


@kernel
def split_parts(
    counts: IntArray,
    size: IntArray,
    total: IntArray,
    child: IntArray,
    removal_plus: IntArray,
    chances: FloatArray,
    base: IntArray,
    valid: BoolArray,
    contexts_on: BoolArray,
    move_taken: IntArray,
    win: float,
    all_bets: bool,
    parts: FloatArray,
) -> None:
    """Split hands' means split by the dealer's final outcome, ``parts[context, start,
    outcome]``: from the lone split card (start 0) and from the pair it makes (start 1).

    Follows the chance of reaching each state from the start and adds what each way of
    ending contributes. A bust is split by the dealer's chances before the busting card
    (the cross term's approximation; the reference does the same).
    """
    hands = counts.shape[0]
    left = np.zeros(10, dtype=np.int64)
    work = np.zeros(OUTCOMES)
    flow = np.zeros(hands)
    parts[:, :, :] = 0.0
    for context in range(1, contexts_on.shape[0]):
        if not contexts_on[context]:
            continue
        pair = (context - 1) % 10
        known = (context - 1) // 10
        for start in range(2):
            flow[:] = 0.0
            for hand in range(hands):
                if size[hand] == start + 1 and counts[hand, pair] == start + 1:
                    flow[hand] = 1.0
            out = parts[context, start]
            for hand in range(hands - 1, -1, -1):
                reach = flow[hand]
                if reach == 0.0 or not valid[context, hand]:
                    continue
                _state_ok(counts, size, hand, context, base, left)
                dealer = chances[removal_plus[known, hand, pair]]
                move = move_taken[context, hand]
                if move == STAND:
                    _stand(dealer, total[hand], win, all_bets, work)
                    for outcome in range(OUTCOMES):
                        out[outcome] += reach * work[outcome]
                    continue
                cards_left = 0
                for value in range(10):
                    cards_left += left[value]
                per_card = 1.0 / cards_left
                stake = 2.0 if move == DOUBLE else 1.0
                for value in range(10):
                    if left[value] == 0:
                        continue
                    chance = reach * left[value] * per_card
                    after = child[hand, value]
                    if after < 0:
                        for outcome in range(OUTCOMES):
                            if outcome < BLACKJACK or all_bets:
                                out[outcome] -= stake * chance * dealer[outcome]
                    elif move == HIT:
                        flow[after] += chance
                    else:
                        _stand(chances[removal_plus[known, after, pair]], total[after], win,
                               all_bets, work)  # fmt: skip
                        for outcome in range(OUTCOMES):
                            out[outcome] += stake * chance * work[outcome]


@kernel
def dealt_chances(
    counts: IntArray,
    base: IntArray,
    dealt: FloatArray,
) -> None:
    """Chance that the player's first cards are each hand (any order), from ``base``."""
    cards_total = 0
    for value in range(10):
        cards_total += base[value]
    for hand in range(counts.shape[0]):
        chance = 1.0
        drawn = 0
        for value in range(10):
            for copy in range(counts[hand, value]):
                if base[value] - copy <= 0 or chance == 0.0:
                    chance = 0.0
                else:
                    chance *= (
                        (base[value] - copy) / (cards_total - drawn) * (drawn + 1) / (copy + 1)
                    )
                drawn += 1
        dealt[hand] = chance


@kernel
def reach_weights(
    space: ColumnSpace,
    first: IntArray,
    second: IntArray,
    root_weight: FloatArray,
    root_hit_flow: FloatArray,
    split_flow: FloatArray,
    played_on: FloatArray,
    weight: FloatArray,
) -> None:
    """How often a hard/soft cell decides at each state when play follows a chart column.

    ``root_weight[hand]``: first decisions the total cell takes; ``root_hit_flow[hand]``:
    first decisions that hit; ``split_flow[context]``: how often its lone split card is
    reached, ``played_on[context]`` the share of its pair-value draws played on (not split
    again).
    """
    counts, size, total, soft, child, base, valid, contexts_on, double_split, aces_one_card = space
    hands = counts.shape[0]
    contexts = contexts_on.shape[0]
    left = np.zeros(10, dtype=np.int64)
    flow = np.zeros((contexts, hands))
    weight[:, :] = 0.0
    for context in range(contexts):
        if not contexts_on[context]:
            continue
        for hand in range(hands - 1, -1, -1):
            if not valid[context, hand]:
                continue
            arriving = flow[context, hand]
            if context == 0 and size[hand] == 2:
                weight[0, hand] = root_weight[hand]
                going = root_hit_flow[hand]
            elif context > 0 and size[hand] == 1:
                going = split_flow[context]
            else:
                going = 0.0
                if arriving != 0.0:
                    forced = _forced(size, total, hand, context, aces_one_card)
                    if forced < 0:
                        weight[context, hand] = arriving
                        can_double = size[hand] == 2 and context > 0 and double_split[context]
                        forced = _chart_move(first, second, soft[hand], total[hand], can_double)
                    if forced == HIT:
                        going = arriving
            if going == 0.0:
                continue
            _state_ok(counts, size, hand, context, base, left)
            cards_left = 0
            for value in range(10):
                cards_left += left[value]
            lone = context > 0 and size[hand] == 1
            for value in range(10):
                after = child[hand, value]
                if left[value] > 0 and after >= 0:
                    amount = going * left[value] / cards_left
                    if lone and value == (context - 1) % 10:
                        amount *= played_on[context]
                    flow[context, after] += amount


@kernel
def improve_cells(
    space: ColumnSpace,
    group_start: IntArray,
    group_members: IntArray,
    figures: FloatArray,
    surrender_mean: FloatArray,
    root_double: bool,
    root_surrender: bool,
    routed: BoolArray,
    weight: FloatArray,
    dealt: FloatArray,
    blackjack_card: int,
    excluded: bool,
    code_first: IntArray,
    code_second: IntArray,
    code_allowed: BoolArray,
    baseline: IntArray,
    previous: IntArray,
    chosen: IntArray,
    value: FloatArray,
    hit_value: FloatArray,
) -> None:
    """Choose each hard/soft cell of one column, top-down; fill the chart's state values.

    Scores are weight-averaged means of the move each candidate code makes at each deciding
    state; ties go to the fall-back's score, then to the earlier code. ``previous`` holds the
    codes the last call chose (-1: none) with its ``value``/``hit_value`` still in place:
    while the codes come out the same, those values are still right and are kept.
    """
    counts, size, total, _soft, child, base, valid, contexts_on, double_split, aces_one_card = space
    hands = counts.shape[0]
    left = np.zeros(10, dtype=np.int64)
    groups = group_start.shape[0] - 1
    candidates = code_first.shape[0]
    contexts = contexts_on.shape[0]
    most = contexts * (group_start[1:] - group_start[:-1]).max()
    share = np.zeros(most)
    fallback_share = np.zeros(most)
    means = np.zeros((most, 5))
    options = np.zeros((most, 2), dtype=np.bool_)
    plain = np.zeros(most, dtype=np.int64)
    unchanged = previous[0] >= 0
    for group in range(groups):
        begin, end = group_start[group], group_start[group + 1]
        deciding = 0
        weighted = False
        for context in range(contexts):
            if not contexts_on[context]:
                continue
            for position in range(begin, end):
                hand = group_members[position]
                if not valid[context, hand]:
                    continue
                if unchanged:
                    h_mean = hit_value[context, hand]
                else:
                    _state_ok(counts, size, hand, context, base, left)
                    h_mean = _hit_mean(left, child, hand, context, value, blackjack_card, excluded)
                    hit_value[context, hand] = h_mean
                root = context == 0 and size[hand] == 2
                if (root and not routed[hand]) or (
                    not root and _forced(size, total, hand, context, aces_one_card) >= 0
                ):
                    continue
                share[deciding] = weight[context, hand]
                fallback_share[deciding] = dealt[hand] if context == 0 else 0.0
                weighted = weighted or share[deciding] > 0.0
                means[deciding, 0] = h_mean
                means[deciding, 1] = figures[context, hand, STAND_MEAN]
                means[deciding, 2] = figures[context, hand, DOUBLE_MEAN]
                means[deciding, 4] = surrender_mean[hand] if root else 0.0
                options[deciding, 0] = size[hand] == 2 and (
                    root_double if root else double_split[context]
                )
                options[deciding, 1] = root and root_surrender
                plain[deciding] = HIT if total[hand] < 17 else STAND
                deciding += 1
        if not weighted:
            # Play never reaches this row: weigh the unsplit hands by their chance to be dealt.
            for index in range(deciding):
                share[index] = fallback_share[index]
                weighted = weighted or share[index] > 0.0
        best_code = baseline[group]
        if weighted:
            best_code = -1
            best_primary = 0.0
            best_secondary = 0.0
            for code in range(candidates):
                if not code_allowed[code]:
                    continue
                first_move, second_move = code_first[code], code_second[code]
                primary = 0.0
                secondary = 0.0
                for index in range(deciding):
                    if share[index] == 0.0:
                        continue
                    can_double, can_surrender = options[index, 0], options[index, 1]
                    second_ok = second_move >= 0 and _allowed(
                        second_move, can_double, can_surrender
                    )
                    if _allowed(first_move, can_double, can_surrender):
                        move = first_move
                    elif second_ok:
                        move = second_move
                    else:
                        move = plain[index]
                    if second_move < 0:
                        fallback = move
                    else:
                        fallback = second_move if second_ok else plain[index]
                    primary += share[index] * means[index, move]
                    secondary += share[index] * means[index, fallback]
                if (
                    best_code < 0
                    or primary > best_primary + TIE
                    or (abs(primary - best_primary) <= TIE and secondary > best_secondary + TIE)
                ):
                    best_code, best_primary, best_secondary = code, primary, secondary
        chosen[group] = best_code
        if unchanged and best_code == previous[group]:
            continue
        unchanged = False
        for context in range(contexts):
            if not contexts_on[context]:
                continue
            for position in range(begin, end):
                hand = group_members[position]
                if (context == 0 and size[hand] == 2) or not valid[context, hand]:
                    continue
                move = _forced(size, total, hand, context, aces_one_card)
                if move < 0:
                    can_double = size[hand] == 2 and context > 0 and double_split[context]
                    move = _chart_move_codes(
                        code_first[best_code], code_second[best_code], total[hand], can_double
                    )
                if move == STAND:
                    value[context, hand] = figures[context, hand, STAND_MEAN]
                elif move == HIT:
                    value[context, hand] = hit_value[context, hand]
                else:
                    value[context, hand] = figures[context, hand, DOUBLE_MEAN]
    if unchanged:
        return
    for context in range(1, contexts):
        if not contexts_on[context]:
            continue
        for hand in range(hands):
            if size[hand] != 1 or not valid[context, hand]:
                continue
            _state_ok(counts, size, hand, context, base, left)
            h_mean = _hit_mean(left, child, hand, context, value, blackjack_card, excluded)
            value[context, hand] = h_mean
            hit_value[context, hand] = h_mean


@kernel
def _hit_mean(
    left: IntArray,
    child: IntArray,
    hand: int,
    context: int,
    value: FloatArray,
    blackjack_card: int,
    excluded: bool,
) -> float:
    cards_left = 0
    for card in range(10):
        cards_left += left[card]
    per_card = 1.0 / cards_left
    per_card_after = 1.0 / (cards_left - 1) if cards_left > 1 else 0.0
    h_mean = 0.0
    for card in range(10):
        if left[card] == 0:
            continue
        chance = left[card] * per_card
        after = child[hand, card]
        if after < 0:
            h_mean -= chance * _bust_weight(left, per_card_after, card, blackjack_card, excluded)
        else:
            h_mean += chance * value[context, after]
    return h_mean


@kernel
def _chart_move_codes(
    first_move: int,
    second_move: int,
    total: int,
    can_double: bool,
) -> int:
    for move in (first_move, second_move):
        if move in (HIT, STAND) or (move == DOUBLE and can_double):
            return move
    return HIT if total < 17 else STAND


@kernel
def _allowed(
    move: int,
    can_double: bool,
    can_surrender: bool,
) -> bool:
    return move in (HIT, STAND) or (move == DOUBLE and can_double) or (move == 4 and can_surrender)
