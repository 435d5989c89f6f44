"""Exact value of splitting a pair with resplits, every card of every hand removed.

An analysis option beside the main analysis (whose split hands see only the pair cards; see
:mod:`.split_rounds`), used to check resplits against J. A. Nairn's exact splitting tables.
The strategy of a split hand is fixed and given by the caller: a function of the hand's own
cards (the pair card first), as in Nairn's tables, which play a fixed basic strategy.

**Order of play.** The first hand takes its second card; a pair card, while fewer than
``max_hands`` hands are out, starts a new hand waiting behind it and the hand draws again;
otherwise the hand is played out, then the next waiting hand takes its second card. Every
card drawn comes from the shoe as the hands before it left it.

**Dealer.** The dealer draws after the last hand, but a hand's value is worth the same
settled against the shoe as that hand left it: given the cards seen at any moment, the chance
of each dealer draw sequence from the unseen cards is a martingale over later draws, so the
hands played after it do not change its expectation (optional stopping). The recursion
therefore settles each hand as it ends and remembers only the shoe, the hands out and the
hands waiting, memoized on those.

**Dealer blackjack.** With ``no_dealer_blackjack`` (the dealer peeks under an ace or a ten,
as Nairn's tables assume), every chance is given that the hole card does not make a
blackjack: the player's draws and the dealer's totals alike. Without it a dealer's two-card 21
is valued as any other 21 (a player's 21 pushes, each hand loses only its own bet): neither a
peek game nor a no-hole-card game, so use it only where the up card cannot make a blackjack.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from boundless.math.exact.split_exact_dealer import dealer_finals

SplitStrategy = Callable[[tuple[int, ...]], str]  # a split hand's cards -> hit/stand/double
Shoe = tuple[int, ...]  # unseen cards of values 1 (ace) .. 10
ACTIONS = frozenset({"hit", "stand", "double"})


@dataclass(frozen=True, slots=True)
class ExactSplitRules:
    """The rules a split is valued under.

    ``shoe``: cards of each value 1 (ace) to 10 before the deal; ``up``: the dealer's up
    card; ``max_hands``: the most hands a split may make; ``resplit_aces``: whether split
    aces split again (else aces make two hands at most); ``split_aces_one_card``: split aces
    take one card each.
    """

    shoe: Shoe
    up: int
    hits_soft_17: bool
    max_hands: int
    resplit_aces: bool = True
    split_aces_one_card: bool = True
    no_dealer_blackjack: bool = True


def single_deck_shoe(decks: int = 1) -> Shoe:
    return (4 * decks,) * 9 + (16 * decks,)


def exact_split_value(rules: ExactSplitRules, pair: int, strategy: SplitStrategy) -> float:
    """Expected result of splitting a pair of ``pair`` against ``rules.up`` (in units of the
    first bet; every hand's bet counts, a double twice)."""
    check_split(rules, pair)
    shoe = list(rules.shoe)
    shoe[rules.up - 1] -= 1
    shoe[pair - 1] -= 2
    return _ExactSplit(rules, pair, strategy).waiting(tuple(shoe), 2, 2)


def standing_values(finals: Sequence[float]) -> list[float]:
    """A standing total's expected result (index: total 0..21) given the dealer's chances of
    ending on 17 to 21 and of busting (``finals[5]``)."""
    values = []
    for total in range(22):
        above = sum(finals[dealer - 17] for dealer in range(max(total + 1, 17), 22))
        below = sum(finals[dealer - 17] for dealer in range(17, min(total, 22)))
        values.append(finals[5] + below - above)
    return values


def check_split(rules: ExactSplitRules, pair: int) -> None:
    """Refuse a shoe or a pair the split cannot be valued on (one line each)."""
    if len(rules.shoe) != 10 or min(rules.shoe) < 0:
        raise ValueError("the shoe must give a count of 0 or more for each value 1 to 10")
    if not 1 <= pair <= 10 or not 1 <= rules.up <= 10:
        raise ValueError(f"card values are 1 (ace) to 10, got pair {pair}, up {rules.up}")
    if rules.max_hands < 2:
        raise ValueError(f"a split makes at least 2 hands, got max_hands {rules.max_hands}")
    needed = [0] * 10
    needed[rules.up - 1] += 1
    needed[pair - 1] += 2
    if any(have < need for have, need in zip(rules.shoe, needed, strict=True)):
        raise ValueError(f"the shoe has no pair of {pair} beside an up card {rules.up}")


class _ExactSplit:
    def __init__(self, rules: ExactSplitRules, pair: int, strategy: SplitStrategy) -> None:
        self.rules = rules
        self.pair = pair
        self.strategy = strategy
        self.most_hands = rules.max_hands if pair != 1 or rules.resplit_aces else 2
        self.one_card = pair == 1 and rules.split_aces_one_card
        self.blackjack_card = 0
        if rules.no_dealer_blackjack and rules.up in (1, 10):
            self.blackjack_card = 11 - rules.up
        self.memo: dict[tuple[Shoe, int, int], float] = {}
        self.stand_memo: dict[Shoe, list[float]] = {}
        self.action_memo: dict[tuple[int, ...], str] = {}

    def draw_chances(self, shoe: Shoe) -> list[float]:
        """Chance of each value as the next card (given no dealer blackjack if so ruled)."""
        unseen = sum(shoe)
        other = unseen - shoe[self.blackjack_card - 1] if self.blackjack_card else unseen
        if other < 2:  # the hole card and the next card cannot both be drawn
            raise ValueError("the shoe runs out of cards before the split is played out")
        if not self.blackjack_card:
            return [count / unseen for count in shoe]
        keep = (other - 1) / other
        chances = [count / (unseen - 1) * keep for count in shoe]
        chances[self.blackjack_card - 1] = shoe[self.blackjack_card - 1] / (unseen - 1)
        return chances

    def stand_values(self, shoe: Shoe) -> list[float]:
        """A standing total's expected result (index: total 0..21) against this shoe."""
        values = self.stand_memo.get(shoe)
        if values is not None:
            return values
        if sum(shoe) - (shoe[self.blackjack_card - 1] if self.blackjack_card else 0) < 1:
            raise ValueError("the shoe runs out of cards before the split is played out")
        counts = np.array(shoe, dtype=np.int64)
        finals = list(dealer_finals(counts, self.rules.up, self.rules.hits_soft_17))
        if self.blackjack_card:
            finals[4] -= shoe[self.blackjack_card - 1] / sum(shoe)
            kept = sum(finals)
            finals = [chance / kept for chance in finals]
        values = standing_values([float(chance) for chance in finals])
        self.stand_memo[shoe] = values
        return values

    def action(self, cards: tuple[int, ...]) -> str:
        chosen = self.action_memo.get(cards)
        if chosen is None:
            chosen = self.strategy(cards)
            if chosen not in ACTIONS or (chosen == "double" and len(cards) != 2):
                raise ValueError(f"split hand {cards}: the strategy chose {chosen!r}")
            self.action_memo[cards] = chosen
        return chosen

    def waiting(self, shoe: Shoe, hands_out: int, waiting: int) -> float:
        """Expected result of the ``waiting`` hands still holding only the pair card."""
        if waiting == 0:
            return 0.0
        key = (shoe, hands_out, waiting)
        value = self.memo.get(key)
        if value is not None:
            return value
        value = 0.0
        pair = self.pair
        for card, chance in enumerate(self.draw_chances(shoe), start=1):
            if chance == 0.0:
                continue
            after = (*shoe[: card - 1], shoe[card - 1] - 1, *shoe[card:])
            if card == pair and hands_out < self.most_hands:
                value += chance * self.waiting(after, hands_out + 1, waiting + 1)
            else:
                hard = pair + card
                soft = (pair == 1 or card == 1) and hard <= 11
                hand = (pair, card)
                value += chance * self.play(after, hand, hard, soft, 1, hands_out, waiting)
        self.memo[key] = value
        return value

    def play(
        self,
        shoe: Shoe,
        cards: tuple[int, ...],
        hard: int,
        soft: bool,
        bet: int,
        hands_out: int,
        waiting: int,
    ) -> float:
        """Expected result from here of a hand holding ``cards`` (``hard`` their sum, an ace
        counted 1; ``soft``: an ace counts 11) and of the hands after it."""
        if hard > 21:
            return -bet + self.waiting(shoe, hands_out, waiting - 1)
        total = hard + 10 if soft else hard
        settled = total == 21 or bet == 2 or self.one_card
        chosen = "stand" if settled else self.action(cards)
        if chosen == "stand":
            stand = self.stand_memo.get(shoe) or self.stand_values(shoe)
            return bet * stand[total] + self.waiting(shoe, hands_out, waiting - 1)
        bet_after = 2 if chosen == "double" else 1
        value = 0.0
        for card, chance in enumerate(self.draw_chances(shoe), start=1):
            if chance:
                after = (*shoe[: card - 1], shoe[card - 1] - 1, *shoe[card:])
                new_hard = hard + card
                new_soft = (soft or card == 1) and new_hard <= 11
                hand = (*cards, card)
                value += chance * self.play(
                    after, hand, new_hard, new_soft, bet_after, hands_out, waiting
                )
        return value
