"""What the table decides for a hand whose player did not act, and coin fall-backs."""

from __future__ import annotations

from boundless.core.round.actions import Action
from boundless.core.round.paths import DecisionContext, PathState, coin_fallback, legal_actions
from boundless.core.strategy_chart import Move

_MOVE_ACTION: dict[Move, Action] = {
    "hit": Action.HIT,
    "stand": Action.STAND,
    "double": Action.DOUBLE,
    "split": Action.SPLIT,
    "surrender": Action.SURRENDER,
    "surrender20": Action.SURRENDER20,
}
COSTLY = frozenset({Action.DOUBLE, Action.SPLIT})


def autoplay_choices(path: PathState, context: DecisionContext) -> tuple[Action, Action]:
    """(choice when coins cover doubles and splits, choice when they do not)."""
    rules = context.rules
    if rules.autoplay.policy == "hit_until_over_11":
        # DECISIONS rule 13: hit while the best total (aces 11 unless that busts) is 11 or less.
        choice = Action.HIT if path.hand.total <= 11 else Action.STAND
        return choice, choice
    legal = legal_actions(path, context)
    rich = _chart_choice(path, context, legal)
    if rich not in COSTLY:
        return rich, rich
    return rich, second_choice(path, context, legal)


def second_choice(path: PathState, context: DecisionContext, legal: frozenset[Action]) -> Action:
    """The chart's fall-back when doubles and splits are unaffordable (DECISIONS rule 22)."""
    if Action.SPLIT in legal and Action.SURRENDER20 in legal:
        return Action.SURRENDER20
    return _chart_choice(path, context, legal - COSTLY)


def _chart_choice(path: PathState, context: DecisionContext, legal: frozenset[Action]) -> Action:
    chart = context.chart
    if chart is None:
        raise AssertionError("basic-strategy autoplay without a chart")
    words = frozenset(action.word for action in legal)
    hand = path.hand
    pair_value = hand.cards[0].value if Action.SPLIT in legal else None
    move = chart.choose(hand.cards, context.up_card.value, words, pair_value)
    action = _MOVE_ACTION[move]
    if action not in legal:
        # Only split/surrender20 is offered and the chart said something else: decline the split.
        return Action.SURRENDER20 if Action.SURRENDER20 in legal else Action.STAND
    return action


def fallback_for_player(path: PathState, context: DecisionContext) -> Action:
    """A player's double or split that coins no longer cover when the step executes."""
    if context.rules.fallbacks.insufficient_coins == "hit_if_11_or_less_else_stand":
        return coin_fallback(path)
    return second_choice(path, context, legal_actions(path, context))
