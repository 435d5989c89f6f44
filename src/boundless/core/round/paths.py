"""The private play of one position as a pure state: hands, stakes, the hand in play.

Positions on a spot that made the same decisions hold the same :class:`PathState`, so the
round keeps one state per distinct decision path and positions only point at it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from boundless.core.cards import ACE, Card
from boundless.core.hands import BLACKJACK_TOTAL, best_total, is_natural, is_pair
from boundless.core.round.actions import Action, Source
from boundless.core.rules import RuleSet
from boundless.core.strategy_chart import StrategyChart


class HandStatus(StrEnum):
    NEEDS_CARD = "needs_card"
    DECIDING = "deciding"
    STOOD = "stood"
    BUST = "bust"
    SURRENDERED = "surrendered"
    SURRENDERED20 = "surrendered20"
    BLACKJACK = "blackjack"


FINISHED: frozenset[HandStatus] = frozenset(
    {
        HandStatus.STOOD,
        HandStatus.BUST,
        HandStatus.SURRENDERED,
        HandStatus.SURRENDERED20,
        HandStatus.BLACKJACK,
    }
)
SURRENDERED = frozenset({HandStatus.SURRENDERED, HandStatus.SURRENDERED20})


@dataclass(frozen=True, slots=True)
class Move:
    action: Action
    source: Source
    step: int


@dataclass(frozen=True, slots=True)
class HandState:
    cards: tuple[Card, ...]
    status: HandStatus
    stake_units: int = 1
    from_split: bool = False
    split_aces: bool = False
    doubled: bool = False
    moves: tuple[Move, ...] = ()

    @property
    def total(self) -> int:
        return best_total(self.cards)

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    @property
    def autoplayed(self) -> bool:
        return any(move.source == Source.AUTOPLAY for move in self.moves)


@dataclass(frozen=True, slots=True)
class PathState:
    """``current`` indexes the hand in play; it equals ``len(hands)`` once all are finished."""

    hands: tuple[HandState, ...]
    current: int
    cards_taken: int = 0

    @property
    def finished(self) -> bool:
        return self.current >= len(self.hands)

    @property
    def hand(self) -> HandState:
        return self.hands[self.current]

    @property
    def needs_decision(self) -> bool:
        return not self.finished and self.hand.status == HandStatus.DECIDING

    @property
    def stake_units(self) -> int:
        """Total stake of all hands as a multiple of the main bet."""
        return sum(hand.stake_units for hand in self.hands)


def initial_path(cards: tuple[Card, Card], is_seated: bool) -> PathState:
    """The path every seated position on a spot starts from."""
    if not is_seated:
        return PathState(hands=(), current=0)
    status: HandStatus = HandStatus.BLACKJACK if is_natural(cards) else HandStatus.DECIDING
    hand = HandState(cards=cards, status=status)
    return PathState(hands=(hand,), current=1 if status == HandStatus.BLACKJACK else 0)


@dataclass(frozen=True, slots=True)
class DecisionContext:
    """What besides the path decides which actions are legal."""

    rules: RuleSet
    up_card: Card
    chart: StrategyChart | None


def _is_first_decision(path: PathState) -> bool:
    return len(path.hands) == 1 and not path.hands[0].moves and len(path.hands[0].cards) == 2


def _one_card_aces(hand: HandState, rules: RuleSet) -> bool:
    """Split aces that take one card each: their only decision is whether to split again."""
    return hand.split_aces and rules.split.split_aces_one_card


def may_split_again(path: PathState, rules: RuleSet) -> bool:
    """Whether the rules' hand limit and ace switch let the split hand in play split again
    (the pair and the chart are checked apart; ruling 32)."""
    split = rules.split
    return len(path.hands) < split.max_hands and (not path.hand.split_aces or split.resplit_aces)


def split_is_offered(path: PathState, context: DecisionContext) -> bool:
    rules = context.rules
    if not (rules.split.allowed and path.needs_decision):
        return False
    hand = path.hand
    if len(hand.cards) != 2:
        return False
    # A split hand with two cards has made no decision since its second card (ruling 32).
    if not (may_split_again(path, rules) if hand.from_split else _is_first_decision(path)):
        return False
    if not is_pair(hand.cards, rules.split.pair_by):
        return False
    if rules.split.offered == "basic_strategy_pairs":
        if context.chart is None:
            return False
        return context.chart.says_split(hand.cards[0].value, context.up_card.value)
    return True


def legal_actions(path: PathState, context: DecisionContext) -> frozenset[Action]:
    """The actions the rules allow for the hand in play, before looking at coins."""
    if not path.needs_decision:
        return frozenset()
    rules = context.rules
    hand = path.hand
    offered = split_is_offered(path, context)
    if offered and rules.split.decline_refund is not None:
        return frozenset({Action.SPLIT, Action.SURRENDER20})
    if _one_card_aces(hand, rules):
        return frozenset({Action.STAND, Action.SPLIT} if offered else {Action.STAND})
    actions = {Action.HIT, Action.STAND}
    if (
        rules.double.allowed
        and len(hand.cards) == 2
        and (not hand.from_split or rules.double.after_split)
        and (not hand.split_aces or rules.double.on_split_aces)
    ):
        actions.add(Action.DOUBLE)
    if offered:
        actions.add(Action.SPLIT)
    if (
        rules.surrender.allowed
        and _is_first_decision(path)
        and context.up_card.value in rules.surrender.up_values
    ):
        actions.add(Action.SURRENDER)
    return frozenset(actions)


def extra_stake_units(path: PathState, action: Action) -> int:
    """Additional main-bet multiples the action costs (doubling a doubled hand never happens)."""
    if action == Action.DOUBLE:
        return path.hand.stake_units
    if action == Action.SPLIT:
        return 1
    return 0


def coin_fallback(path: PathState) -> Action:
    """DECISIONS rule 12: without coins for a double or split, hit on 11 or less, else stand."""
    return Action.HIT if path.hand.total <= 11 else Action.STAND


def apply_action(path: PathState, action: Action, source: Source, step: int) -> PathState:
    """The path after the decision, before any card (the caller checked legality)."""
    hand = path.hand
    move = Move(action, source, step)
    moves = (*hand.moves, move)
    if action == Action.HIT:
        return _with_hand(path, replace(hand, moves=moves))
    if action == Action.STAND:
        return _advance(_with_hand(path, replace(hand, status=HandStatus.STOOD, moves=moves)))
    if action == Action.DOUBLE:
        doubled = replace(hand, stake_units=hand.stake_units * 2, doubled=True, moves=moves)
        return _with_hand(path, doubled)
    if action == Action.SPLIT:
        aces = hand.cards[0].rank == ACE
        first, second = (
            HandState(
                cards=(card,),
                status=HandStatus.NEEDS_CARD,
                from_split=True,
                split_aces=aces,
                moves=moves if index == 0 else (),
            )
            for index, card in enumerate(hand.cards)
        )
        # A resplit hand goes right after the hand it came from, which is played first.
        at = path.current
        hands = (*path.hands[:at], first, second, *path.hands[at + 1 :])
        return replace(path, hands=hands)
    status: HandStatus = (
        HandStatus.SURRENDERED if action == Action.SURRENDER else HandStatus.SURRENDERED20
    )
    return _advance(_with_hand(path, replace(hand, status=status, moves=moves)))


def takes_card(after: PathState, action: Action | None) -> bool:
    """Whether a path takes this step's card, given its state after this step's decision.

    ``action`` is ``None`` for a hand that needed its second card without a decision. Standing
    on split hand 1 moves to hand 2, which takes the same step's card (DECISIONS rule 8).
    """
    if after.finished:
        return False
    if action in (Action.HIT, Action.DOUBLE):
        return True
    return after.hand.status == HandStatus.NEEDS_CARD


def receive_card(path: PathState, card: Card, rules: RuleSet) -> PathState:
    """Give the step card to the hand in play and finish it where the rules say so."""
    hand = path.hand
    cards = (*hand.cards, card)
    total = best_total(cards)
    status: HandStatus = HandStatus.DECIDING
    if total > BLACKJACK_TOTAL:
        status = HandStatus.BUST
    elif total == BLACKJACK_TOTAL or hand.doubled:
        status = HandStatus.STOOD
    elif _one_card_aces(hand, rules):
        # One card each, unless that card is another ace the rules let split again (ruling 33).
        again = card.rank == ACE and may_split_again(path, rules)
        status = HandStatus.DECIDING if again else HandStatus.STOOD
    updated = replace(hand, cards=cards, status=status)
    path = replace(_with_hand(path, updated), cards_taken=path.cards_taken + 1)
    return _advance(path) if updated.finished else path


def _with_hand(path: PathState, hand: HandState) -> PathState:
    hands = list(path.hands)
    hands[path.current] = hand
    return replace(path, hands=tuple(hands))


def _advance(path: PathState) -> PathState:
    return replace(path, current=path.current + 1)
