"""The simulator in plain Python: readable, slow, and held equal to the kernel by the tests.

It reads the rule set, the chart (:meth:`StrategyChart.choose`), the core side-bet evaluators and
the core wheel directly, where the kernel reads the integer tables of
:mod:`boundless.math.simulation.spec`. Given the same stacked shoe and wheel numbers it must
record the same rounds as :func:`boundless.math.simulation.kernels.play_shoe`, and given the
same generator state the same sums as :func:`boundless.math.simulation.kernels.simulate_chunk`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from boundless.core.cards import ACE, Card
from boundless.core.hands import hand_total, is_natural
from boundless.core.round.paths import HandStatus
from boundless.core.round.settlement import side_bet_pattern
from boundless.core.rules import RuleSet, SideBetRules
from boundless.core.side_bets import SIDE_BET_KINDS
from boundless.core.strategy_chart import StrategyChart
from boundless.core.wheel import spin_bonus_wheel
from boundless.math.simulation.rng import py_next_u64, py_randbelow

Policy = Literal["basic", "autoplay"]
POLICIES: tuple[Policy, ...] = ("basic", "autoplay")
FINISHING = {
    "stand": HandStatus.STOOD,
    "surrender": HandStatus.SURRENDERED,
    "surrender20": HandStatus.SURRENDERED20,
}


@dataclass
class Hand:
    cards: list[Card]
    units: int = 1
    status: HandStatus = HandStatus.DECIDING  # never NEEDS_CARD: the reference deals at once
    from_split: bool = False
    split_aces: bool = False

    @property
    def total(self) -> int:
        return hand_total(self.cards)[0]


@dataclass
class RoundRecord:
    round_in_shoe: int
    cards_used: int
    hands: list[list[Hand]]  # per spot
    dealer: list[Card]
    main: list[float]  # net per initial unit, per spot
    side: dict[str, list[float] | None]  # payout per unit per spot; None: not offered
    void: bool = False


class ReferenceShoe:
    """Cards in order; with a generator state, shuffled as they are dealt (forward
    Fisher-Yates), exactly as the kernel does it."""

    def __init__(self, cards: Sequence[int], state: list[int] | None = None) -> None:
        self.cards = list(cards)
        self.state = state
        self.position = 0
        self.exhausted = False

    def draw(self) -> Card:
        if self.position >= len(self.cards):
            self.exhausted = True
            return Card(0)
        if self.state is not None:
            other = self.position + py_randbelow(self.state, len(self.cards) - self.position)
            self.cards[self.position], self.cards[other] = (
                self.cards[other],
                self.cards[self.position],
            )
        card = Card(self.cards[self.position])
        self.position += 1
        return card


@dataclass
class WheelNumbers:
    """53-bit numbers for the wheels: the pre-drawn ones first, then the generator's."""

    numbers: list[int] = field(default_factory=list)
    state: list[int] | None = None
    used: int = 0

    def next(self) -> int:
        if self.used < len(self.numbers):
            self.used += 1
            return self.numbers[self.used - 1]
        assert self.state is not None, "the pre-drawn wheel numbers ran out"
        return py_next_u64(self.state) >> 11

    def randbelow(self, bound: int) -> int:
        """What a RandomSource answers: ``floor(u * bound)`` for ``u = k / 2**53``."""
        return (self.next() * bound) >> 53

    def token_bytes(self, count: int) -> bytes:
        raise AssertionError("the wheels draw no bytes")


class ReferenceGame:
    def __init__(
        self, rules: RuleSet, chart: StrategyChart | None, policy: Policy, spots: int
    ) -> None:
        self.rules = rules
        self.chart = chart
        self.hit_to_12 = policy == "autoplay" and rules.autoplay.policy == "hit_until_over_11"
        self.spots = spots

    # ---- decisions (core.round.paths.legal_actions and core.round.autoplay, read plainly) --
    def split_offered(self, hand: Hand, up: Card, first_decision: bool, held: int) -> bool:
        """A split at the first decision, or a split hand's pair split again while the spot
        holds fewer than ``split.max_hands`` hands (aces only by ``split.resplit_aces``)."""
        split = self.rules.split
        if not split.allowed or len(hand.cards) != 2:
            return False
        if hand.from_split:
            if held >= split.max_hands or (hand.split_aces and not split.resplit_aces):
                return False
        elif not first_decision:
            return False
        one, two = hand.cards[0], hand.cards[1]
        pair = one.rank == two.rank if split.pair_by == "rank" else one.value == two.value
        if pair and split.offered == "basic_strategy_pairs":
            assert self.chart is not None
            return self.chart.says_split(one.value, up.value)
        return pair

    def legal(self, hand: Hand, up: Card, first_decision: bool, held: int = 1) -> set[str]:
        rules = self.rules
        split_offered = self.split_offered(hand, up, first_decision, held)
        if split_offered and rules.split.decline_refund is not None:
            return {"split", "surrender20"}
        if hand.split_aces and rules.split.split_aces_one_card:
            return {"stand", "split"} if split_offered else {"stand"}
        legal = {"hit", "stand"}
        double = rules.double
        if (
            double.allowed
            and len(hand.cards) == 2
            and (not hand.from_split or double.after_split)
            and (not hand.split_aces or double.on_split_aces)
        ):
            legal.add("double")
        if split_offered:
            legal.add("split")
        if rules.surrender.allowed and first_decision and up.value in rules.surrender.up_values:
            legal.add("surrender")
        return legal

    def choose(self, hand: Hand, up: Card, first_decision: bool, held: int = 1) -> str:
        if self.hit_to_12:
            return "hit" if hand.total <= 11 else "stand"
        legal = self.legal(hand, up, first_decision, held)
        assert self.chart is not None
        pair_value = hand.cards[0].value if "split" in legal else None
        move = self.chart.choose(hand.cards, up.value, frozenset(legal), pair_value)
        if move not in legal:
            return "surrender20" if "surrender20" in legal else "stand"
        return str(move)

    # ---- play ------------------------------------------------------------------------
    def play_hand(
        self,
        hand: Hand,
        up: Card,
        shoe: ReferenceShoe,
        held: int = 1,
        move: str | None = None,
    ) -> bool:
        """Play until finished (``move`` first, when given) with the spot holding ``held``
        hands; True when the policy splits the (unsplit) hand."""
        while hand.status == HandStatus.DECIDING:
            first = not hand.from_split and len(hand.cards) == 2
            move = move or self.choose(hand, up, first, held)
            if move == "split":
                return True
            if move in FINISHING:
                hand.status = FINISHING[move]
                continue
            if move == "double":
                hand.units *= 2
            hand.cards.append(shoe.draw())
            if hand.total > 21:
                hand.status = HandStatus.BUST
            elif hand.total == 21 or move == "double":
                hand.status = HandStatus.STOOD
            move = None
        return False

    def play_spot(self, hands: list[Hand], up: Card, shoe: ReferenceShoe) -> None:
        hand = hands[0]
        if hand.status != HandStatus.DECIDING or not self.play_hand(hand, up, shoe):
            return
        aces = hand.cards[0].rank == ACE
        hands[:] = [Hand([card], from_split=True, split_aces=aces) for card in hand.cards]
        index = 0
        while index < len(hands):
            split_hand = hands[index]
            split_hand.cards.append(shoe.draw())
            move = None
            if self.split_offered(split_hand, up, False, len(hands)):
                move = self.choose(split_hand, up, False, len(hands))
                if move == "split":
                    # The new hand goes right after this one, which is played first.
                    again = [
                        Hand([card], from_split=True, split_aces=aces) for card in split_hand.cards
                    ]
                    hands[index : index + 1] = again
                    continue
            if move is None and (
                split_hand.total == 21 or (aces and self.rules.split.split_aces_one_card)
            ):
                split_hand.status = HandStatus.STOOD
            else:
                self.play_hand(split_hand, up, shoe, len(hands), move)
            index += 1

    def dealer_draws(self, cards: list[Card]) -> bool:
        total, soft = hand_total(cards)
        if is_natural(cards):
            return False
        return total < 17 or (total == 17 and soft and self.rules.dealer.hits_soft_17)

    def play_round(self, shoe: ReferenceShoe, round_in_shoe: int, wheel: WheelNumbers) -> (
        RoundRecord
    ):  # fmt: skip
        rules = self.rules
        start = shoe.position
        firsts = [shoe.draw() for _ in range(self.spots)]
        up = shoe.draw()
        seconds = [shoe.draw() for _ in range(self.spots)]
        spots = [[Hand([one, two])] for one, two in zip(firsts, seconds, strict=True)]
        for hands in spots:
            if is_natural(hands[0].cards):
                hands[0].status = HandStatus.BLACKJACK
        dealer = [up]
        peek = rules.dealer.hole_card == "peek"
        if peek:
            dealer.append(shoe.draw())
        if not (peek and up.value in rules.dealer.peek_up_values and is_natural(dealer)):
            for hands in spots:
                self.play_spot(hands, up, shoe)
            if not peek:
                dealer.append(shoe.draw())
            while self.dealer_draws(dealer):
                dealer.append(shoe.draw())
        main = [self.settle(hands, dealer) for hands in spots]
        side = self.side_bets(firsts, seconds, dealer, round_in_shoe, wheel)
        return RoundRecord(
            round_in_shoe, shoe.position - start, spots, dealer, main, side, shoe.exhausted
        )

    def settle(self, hands: list[Hand], dealer: list[Card]) -> float:
        """Net result per initial unit (DECISIONS rules 9, 18, 20, 21)."""
        rules = self.rules
        dealer_total = hand_total(dealer)[0]
        dealer_natural = is_natural(dealer)
        payout = 0.0
        stake = 0.0
        for index, hand in enumerate(hands):
            units = float(hand.units)
            stake += units
            if hand.status == HandStatus.SURRENDERED:
                refund = rules.surrender.refund
                pay = units * (refund.numerator / refund.denominator)
            elif hand.status == HandStatus.SURRENDERED20:
                decline = rules.split.decline_refund
                assert decline is not None
                pay = units * (decline.numerator / decline.denominator)
            elif hand.status == HandStatus.BLACKJACK:
                odds = rules.payouts.blackjack
                pay = units if dealer_natural else units * (1.0 + odds.win / odds.per)
            elif dealer_natural:
                original_only = rules.dealer.hole_card == "none"
                pay = units - (1.0 if index == 0 else 0.0) if original_only else 0.0
            elif hand.status == HandStatus.BUST:
                pay = 0.0
            elif dealer_total > 21 or hand.total > dealer_total:
                odds = rules.payouts.win
                pay = units * (1.0 + odds.win / odds.per)
            elif hand.total == dealer_total:
                pay = units
            else:
                pay = 0.0
            payout += pay
        return payout - stake

    def side_bets(
        self,
        firsts: list[Card],
        seconds: list[Card],
        dealer: list[Card],
        round_in_shoe: int,
        wheel: WheelNumbers,
    ) -> dict[str, list[float] | None]:
        results: dict[str, list[float] | None] = {}
        for bet in self.rules.side_bets:
            if bet.max_round is not None and round_in_shoe > bet.max_round:
                results[bet.key] = None
                continue
            results[bet.key] = [
                self.side_bet(bet, (one, two), dealer, wheel)
                for one, two in zip(firsts, seconds, strict=True)
            ]
        return results

    def side_bet(
        self, bet: SideBetRules, player: tuple[Card, Card], dealer: list[Card], wheel: WheelNumbers
    ) -> float:
        pattern = side_bet_pattern(bet, player, dealer[0], dealer)
        if pattern is None:
            return 0.0
        if SIDE_BET_KINDS[bet.kind].uses_wheel:
            assert bet.wheel is not None
            wager = bet.min_amount
            return spin_bonus_wheel(bet.wheel, wager, wheel).payout_amount / wager
        odds = bet.pays[str(pattern)]
        return 1.0 + odds.win / odds.per


def play_shoe_reference(
    game: ReferenceGame,
    deck: Sequence[int],
    wheel: WheelNumbers,
    max_rounds: int,
    *,
    burn: bool,
    reshuffle: bool,
    cut_index: int,
) -> tuple[int, list[RoundRecord]]:
    """Play a stacked shoe like the table (burn, cut card); returns (cards burned, rounds)."""
    shoe = ReferenceShoe(deck)
    burn_shoe(shoe, burn)
    burned = shoe.position
    rounds: list[RoundRecord] = []
    while len(rounds) < max_rounds:
        record = game.play_round(shoe, len(rounds) + 1, wheel)
        rounds.append(record)
        if record.void or reshuffle or shoe.position > cut_index:
            break
    return burned, rounds


def burn_shoe(shoe: ReferenceShoe, burn: bool) -> None:
    """Reveal the first card and burn as many more as its value (DECISIONS rule 15)."""
    if burn:
        shown = shoe.draw()
        for _ in range(shown.value):
            shoe.draw()


def simulate_chunk_reference(
    game: ReferenceGame,
    deck: Sequence[int],
    state: list[int],
    quota: int,
    *,
    burn: bool,
    reshuffle: bool,
    cut_index: int,
) -> tuple[list[list[float]], list[int]]:
    """The kernel's :func:`simulate_chunk` sums (rows: main, then side bets; columns
    ``ST_*``) and counts (rounds, shoes, void rounds), summed in the same order."""
    keys = [bet.key for bet in game.rules.side_bets]
    stats = [[0.0] * 6 for _ in range(1 + len(keys))]
    counts = [0, 0, 0]
    cards = list(deck)
    wheel = WheelNumbers(state=state)
    played = 0
    while played < quota:
        shoe = ReferenceShoe(cards, state)
        burn_shoe(shoe, burn)
        shoe_y = [0.0] * (1 + len(keys))
        shoe_n = [0.0] * (1 + len(keys))
        round_in_shoe = 0
        while True:
            round_in_shoe += 1
            record = game.play_round(shoe, round_in_shoe, wheel)
            if record.void:
                counts[2] += 1
                break
            for net in record.main:
                shoe_y[0] += net
                stats[0][0] += net * net
            shoe_n[0] += game.spots
            for row, key in enumerate(keys, start=1):
                paid = record.side[key]
                if paid is None:
                    continue
                for value in paid:
                    shoe_y[row] += value
                    stats[row][0] += value * value
                shoe_n[row] += game.spots
            played += 1
            if reshuffle or shoe.position > cut_index:
                break
        cards = shoe.cards
        for row in range(1 + len(keys)):
            y, n = shoe_y[row], shoe_n[row]
            stats[row][1] += y
            stats[row][2] += y * y
            stats[row][3] += n
            stats[row][4] += n * n
            stats[row][5] += y * n
        counts[1] += 1
    counts[0] += played
    return stats, counts
