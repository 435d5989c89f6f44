"""Checks on the players' calls, as functions of a round's state: each raises a precise
:class:`RulesError` and changes nothing. The verify/can/do methods and the views use these."""

from __future__ import annotations

from collections.abc import Callable
from typing import Concatenate, ParamSpec, TypeVar

from boundless.core.errors import (
    IllegalActionError,
    InsufficientCoinsError,
    PhaseError,
    RulesError,
    UnknownPositionError,
)
from boundless.core.money import format_amount
from boundless.core.round.actions import NO_DECISION, Action
from boundless.core.round.paths import HandStatus, legal_actions
from boundless.core.round.phases import DECISIONS, INSURANCE, Phase
from boundless.core.round.state import RoundState

Args = ParamSpec("Args")
RoundT = TypeVar("RoundT", bound=RoundState)


def succeeds(check: Callable[..., object], *args: object, **kwargs: object) -> bool:
    """The ``can_x`` of a ``verify_x``: whether it passes (it never changes anything)."""
    try:
        check(*args, **kwargs)
    except RulesError:
        return False
    return True


def can_of(
    verify: Callable[Concatenate[RoundT, Args], object],
) -> Callable[Concatenate[RoundT, Args], bool]:
    """The ``can_x`` method of a ``verify_x`` method: same arguments, a bool."""
    name = verify.__name__  # looked up on the round: a subclass's stricter check applies too

    def can(self: RoundT, /, *args: Args.args, **kwargs: Args.kwargs) -> bool:
        return succeeds(getattr(self, name), *args, **kwargs)

    can.__doc__ = f"Whether ``{name}`` passes with these arguments (nothing changes)."
    return can


def require(state: RoundState, *phases: Phase) -> None:
    if state.paused:
        raise PhaseError("the round is paused; no bets or decisions are accepted")
    if state.phase not in phases:
        raise PhaseError(f"not possible in the {state.phase} phase (needs {'/'.join(phases)})")


def find_position(state: RoundState, player_id: str, spot: int) -> int:
    position = state.position_on(player_id, spot)
    if position is None:
        raise UnknownPositionError(f"player {player_id!r} has no bet on spot {spot}")
    return position


def parse_action(action: Action | str, where: str) -> Action:
    if isinstance(action, Action):
        return action
    try:
        return Action.from_word(action)
    except ValueError as error:
        raise IllegalActionError(f"{where}: {error}") from None


# ---- insurance -----------------------------------------------------------------------------
def verify_insurance(state: RoundState, player_id: str, spot: int, even_money: bool) -> int:
    """The position that may take insurance (or even money) now; raises otherwise."""
    require(state, INSURANCE)
    position = find_position(state, player_id, spot)
    book = state.book
    main = int(book.main[position])
    if main <= 0:
        raise IllegalActionError(f"player {player_id!r} spot {spot}: no main bet to insure")
    if book.insurance[position] or book.even_money[position]:
        raise IllegalActionError(f"player {player_id!r} spot {spot}: already answered")
    blackjack = state.path_of(position).hands[0].status == HandStatus.BLACKJACK
    offers_even_money = blackjack and state.rules.insurance.blackjack_offer == "even_money"
    if even_money and not offers_even_money:
        raise IllegalActionError(
            f"player {player_id!r} spot {spot}: even money is only offered to a blackjack"
        )
    if not even_money and offers_even_money:
        raise IllegalActionError(
            f"player {player_id!r} spot {spot}: a blackjack is offered even money, not insurance"
        )
    if not even_money:
        cost = state.rules.insurance.cost.of(main)
        free = state.free_coins(position)
        if cost > free:
            raise InsufficientCoinsError(
                f"player {player_id!r} spot {spot}: insurance costs {format_amount(cost)}, "
                f"free coins are {format_amount(free)}"
            )
    return position


def insurance_offer(state: RoundState, player_id: str, spot: int) -> str | None:
    """``"even_money"``, ``"insurance"`` or None: what the position may answer now."""
    if state.phase != INSURANCE or state.paused:
        return None
    if succeeds(verify_insurance, state, player_id, spot, True):
        return "even_money"
    if succeeds(verify_insurance, state, player_id, spot, False):
        return "insurance"
    return None


# ---- decisions -----------------------------------------------------------------------------
def rule_legal(state: RoundState, position: int) -> frozenset[Action]:
    """The actions the rules allow the position's hand in play (coins not considered)."""
    return legal_actions(state.path_of(position), state.context())


def legal_now(state: RoundState, player_id: str, spot: int) -> frozenset[Action]:
    """Actions this player may take now on this spot, coins considered."""
    if state.phase != DECISIONS or state.paused:
        return frozenset()
    position = find_position(state, player_id, spot)
    if spot != state.current_spot or state.book.pending[position] != NO_DECISION:
        return frozenset()
    allowed = set(rule_legal(state, position))
    if not allowed:
        return frozenset()
    free = state.free_coins(position)
    main = state.main_stake(position)
    hand_units = state.path_of(position).hand.stake_units
    if free < main * hand_units:
        allowed.discard(Action.DOUBLE)
    if free < main:
        allowed.discard(Action.SPLIT)
    return frozenset(allowed)


def verify_decision(state: RoundState, position: int, action: Action) -> None:
    spot = state.spot_of(position)
    where = f"player {state.player_of(position)!r} spot {spot}"
    if spot != state.current_spot:
        raise PhaseError(f"{where}: decisions are for spot {state.current_spot} now")
    path = state.path_of(position)
    if not path.needs_decision:
        raise IllegalActionError(
            f"{where}: cannot {action.word}: no hand of this position awaits a decision"
        )
    if state.book.pending[position] != NO_DECISION:
        raise IllegalActionError(f"{where}: already decided at step {state.step}")
    hand_label = f"hand {path.current + 1}" if len(path.hands) > 1 else "hand"
    legal = rule_legal(state, position)
    if action not in legal:
        options = ", ".join(sorted(item.word for item in legal))
        raise IllegalActionError(
            f"{where} {hand_label} {'-'.join(map(str, path.hand.cards))}: "
            f"{action.word} is not allowed now (allowed: {options})"
        )
    if action in (Action.DOUBLE, Action.SPLIT):
        # Unaffordable now: rejected (rule 5). The fall-backs of rules 12 and 22 apply only
        # when coins run short between the decision and the step's execution.
        units = path.hand.stake_units if action == Action.DOUBLE else 1
        cost = state.main_stake(position) * units
        free = state.free_coins(position)
        if cost > free:
            raise InsufficientCoinsError(
                f"{where}: {action.word} costs {format_amount(cost)}, "
                f"free coins are {format_amount(free)}"
            )


def verify_decide(state: RoundState, player_id: str, spot: int, action: Action | str) -> int:
    """The position deciding ``action`` now; raises if it may not."""
    require(state, DECISIONS)
    position = find_position(state, player_id, spot)
    chosen = parse_action(action, f"player {player_id!r} spot {spot}")
    verify_decision(state, position, chosen)
    return position
