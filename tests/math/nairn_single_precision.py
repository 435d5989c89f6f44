"""Nairn's exact splitting program re-run in a chosen float type.

His program (https://github.com/nairnj/Blackjack, ``source/Hand.cpp`` ``collectHands`` and
``handExactSplitExval``, ``source/PlayHand.cpp``, ``source/Dealer.cpp`` ``HitDealer`` and
``getPlayerExVals``) works in C ``float``: it lists the split hand's possible final hands once
(by their cards, with how many card orders reach each and how many of those start with a pair
card), then deals every combination of hands, resplitting on a pair card while hands are
left, and settles all of them against the dealer from the last shoe. Each card weight is a
float ratio, each dealer sequence a float product, each sum a float sum, in his order. Run in
``numpy.float32`` this shows what his single precision does to a printed value; in
``numpy.float64`` it is the exact value. Up cards 2 to 9 only (no blackjack conditioning).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nairn_basic_strategy import NairnSplitStrategy


@dataclass
class FinalHand:
    drawn: tuple[int, ...]  # the cards after the split card, in the first order found
    orders: int  # card orders that end on these cards
    pair_first: int  # of those, orders whose first card is a pair card
    bets: Any  # bets summed over the orders
    pair_first_bets: Any


def nairn_split(
    up: int, hits_soft_17: bool, pair: int, max_hands: int, doubling: str, real: Any
) -> Any:
    if up in (1, 10):
        raise ValueError("this re-run leaves out the blackjack conditioning of ace and ten up")
    strategy = NairnSplitStrategy(up, hits_soft_17, doubling)
    deck = [4] * 9 + [16]
    deck[up - 1] -= 1
    deck[pair - 1] -= 2
    finals: list[FinalHand] = []
    found: dict[tuple[int, ...], FinalHand] = {}

    def list_hands(drawn: tuple[int, ...], bet: Any) -> None:
        for card in range(10, 0, -1):
            if not deck[card - 1]:
                continue
            deck[card - 1] -= 1
            cards = (pair, *drawn, card)
            hard = sum(cards)
            total = hard + 10 if 1 in cards and hard < 12 else hard
            new_bet, chosen = bet, "stand"
            if total < 21 and bet < 1.5 and not (pair == 1 and len(cards) == 2):
                chosen = strategy(cards)
                if chosen == "double":
                    new_bet = real(2)
            if chosen != "stand":
                list_hands((*drawn, card), new_bet)
            else:
                key = tuple(sorted((*drawn, card)))
                first_is_pair = (*drawn, card)[0] == pair
                if key not in found:
                    found[key] = FinalHand((*drawn, card), 0, 0, real(0), real(0))
                    finals.append(found[key])
                hand = found[key]
                hand.orders += 1
                hand.bets += new_bet
                if first_is_pair:
                    hand.pair_first += 1
                    hand.pair_first_bets += new_bet
            deck[card - 1] += 1

    list_hands((), real(1))
    stand_memo: dict[tuple[int, ...], list[Any]] = {}

    def hit_dealer(hard: int, ace: bool, reach: Any, p: list[Any]) -> None:
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
                hit_dealer(new_hard, new_ace, reach * weight, p)
            else:
                p[5 if total > 21 else total - 17] += reach * weight
            deck[value - 1] += 1

    def stand_values() -> list[Any]:
        key = tuple(deck)
        if key not in stand_memo:
            p = [real(0)] * 6
            hit_dealer(up, up == 1, real(1), p)
            values = [real(0)] * 6  # his order: 21's value first, then down to <= 16
            values[5] = p[5] + p[3] + p[2] + p[1] + p[0]
            values[4] = values[5] - p[4] - p[3]
            values[3] = values[4] - p[3] - p[2]
            values[2] = values[3] - p[2] - p[1]
            values[1] = values[2] - p[1] - p[0]
            values[0] = values[1] - p[0]
            stand_memo[key] = values
        return stand_memo[key]

    def take(card: int) -> Any:
        weight = real(deck[card - 1]) / real(sum(deck))
        deck[card - 1] -= 1
        return weight

    def take_hand(drawn: tuple[int, ...], orders: int) -> Any:
        if any(deck[card - 1] < drawn.count(card) for card in set(drawn)):
            return None
        weight = real(1)
        for card in drawn:
            weight = weight * take(card)
        return weight * real(orders)

    settled: list[tuple[int, Any]] = []  # (total, bet per hand) of the hands played

    def deal(hand: int, hands: int) -> Any:
        value = real(0)
        if hands < max_hands and deck[pair - 1]:
            weight = take(pair)
            value += weight * deal(hand, hands + 1)
            deck[pair - 1] += 1
        for final in finals:
            resplit = hands < max_hands and final.pair_first > 0
            orders = final.orders - final.pair_first if resplit else final.orders
            if orders == 0:
                continue
            weight = take_hand(final.drawn, orders)
            if weight is None:
                continue
            bets = final.bets - final.pair_first_bets if resplit else final.bets
            hard = pair + sum(final.drawn)
            total = hard + 10 if 1 in (pair, *final.drawn) and hard < 12 else hard
            settled.append((total, bets / real(orders)))
            if hand == hands - 1:
                stand = stand_values()
                round_value = real(0)
                for total_j, bet_j in settled:
                    if total_j > 21:
                        round_value -= real(1)
                    else:
                        round_value += bet_j * stand[max(total_j - 16, 0)]
                value += weight * round_value
            else:
                value += weight * deal(hand + 1, hands)
            settled.pop()
            for card in final.drawn:
                deck[card - 1] += 1
        return value

    return deal(0, 2)
