"""Nairn's split-once value computed his way, in a chosen float type.

His program (https://github.com/nairnj/Blackjack, ``source/Hand.cpp`` ``approxSplitExval``,
``source/Dealer.cpp`` ``HitDealer`` and ``getPlayerExVals``) works in C ``float``: each card
weight is a float ratio, each dealer sequence a float product, each sum a float sum. Run in
``numpy.float32`` this recursion shows what his single precision does to a printed value; run
in ``numpy.float64`` it is the exact value of splitting once. Up cards 2 to 9 only (no
blackjack conditioning), no resplits.
"""

from __future__ import annotations

from typing import Any

from nairn_basic_strategy import NairnSplitStrategy


def nairn_split_once(up: int, hits_soft_17: bool, pair: int, doubling: str, real: Any) -> Any:
    """Two hands times one split hand's value, the pair's two cards and the up card removed."""
    strategy = NairnSplitStrategy(up, hits_soft_17, doubling)
    deck = [4] * 9 + [16]
    deck[up - 1] -= 1
    deck[pair - 1] -= 2
    stand_memo: dict[tuple[int, ...], list[Any]] = {}

    def hit_dealer(hard: int, ace: bool, reach: Any, finals: list[Any]) -> None:
        unseen = sum(deck)
        for value in range(1, 11):
            if not deck[value - 1]:
                continue
            weight = real(deck[value - 1]) / real(unseen)
            deck[value - 1] -= 1
            new_hard, new_ace = hard + value, ace or value == 1
            soft = new_ace and new_hard < 12
            total = new_hard + 10 if soft else new_hard
            if total < 17 or (hits_soft_17 and soft and total == 17):
                hit_dealer(new_hard, new_ace, reach * weight, finals)
            else:
                finals[5 if total > 21 else total - 17] += reach * weight
            deck[value - 1] += 1

    def stand_values() -> list[Any]:
        # His order: values of <=16, 17, ..., 21 built down from 21's
        key = tuple(deck)
        if key not in stand_memo:
            p = [real(0)] * 6
            hit_dealer(up, up == 1, real(1), p)
            values = [real(0)] * 6
            values[5] = p[5] + p[3] + p[2] + p[1] + p[0]
            values[4] = values[5] - p[4] - p[3]
            values[3] = values[4] - p[3] - p[2]
            values[2] = values[3] - p[2] - p[1]
            values[1] = values[2] - p[1] - p[0]
            values[0] = values[1] - p[0]
            stand_memo[key] = values
        return stand_memo[key]

    def play(cards: tuple[int, ...], bet: int) -> Any:
        value = real(0)
        unseen = sum(deck)
        for card in range(1, 11):
            if not deck[card - 1]:
                continue
            weight = real(deck[card - 1]) / real(unseen)
            deck[card - 1] -= 1
            hand = (*cards, card)
            hard = sum(hand)
            total = hard + 10 if 1 in hand and hard < 12 else hard
            new_bet = bet
            chosen = "stand"
            if total <= 21 and bet == 1 and not (pair == 1 and len(hand) == 2):
                chosen = strategy(hand)
                if chosen == "double":
                    new_bet = 2
            if chosen in ("hit", "double"):
                value += weight * play(hand, new_bet)
            else:
                result = real(-1) if total > 21 else stand_values()[max(total - 16, 0)]
                value += real(new_bet) * weight * result
            deck[card - 1] += 1
        return value

    return real(2) * play((pair,), 1)
