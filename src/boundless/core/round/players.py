"""What players do in a round: bets, insurance, decisions (verify / can / do).

:class:`PlayerRound` is the surface a round offers its players, shared by the single-process
:class:`~boundless.core.round.round.SharedRound` and the
:class:`~boundless.core.round.follower.FollowerRound`. Every ``x`` verifies, builds a private
event and applies it; ``verify_x`` raises and changes nothing; ``can_x`` answers with a bool.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Concatenate, ParamSpec, TypeVar

import numpy as np

from boundless.core.errors import (
    InsufficientCoinsError,
    InvalidBetError,
    PhaseError,
    RulesError,
    UnknownPositionError,
)
from boundless.core.round import events as ev
from boundless.core.round.actions import Action
from boundless.core.round.apply import apply_event, final_payouts
from boundless.core.round.betting import verify_bets
from boundless.core.round.bulk import (
    awaiting_decision,
    deciding_on_spot,
    verify_decisions_many,
    verify_insurance_many,
)
from boundless.core.round.checks import (
    can_of,
    find_position,
    legal_now,
    require,
    verify_decide,
    verify_insurance,
)
from boundless.core.round.phases import BETTING, DECISIONS, INSURANCE
from boundless.core.round.state import RoundState
from boundless.core.round.steps import StepPlan

Args = ParamSpec("Args")
EventT = TypeVar("EventT", bound=ev.Event)


def _verified_then_applied(
    verify: Callable[Concatenate[PlayerRound, Args], EventT],
) -> Callable[Concatenate[PlayerRound, Args], EventT]:
    """The ``x`` of a ``verify_x`` that returns its event: same arguments, then applies it."""
    name = verify.__name__  # looked up on the round: a subclass's stricter check applies too

    def verified_then_applied(
        self: PlayerRound, /, *args: Args.args, **kwargs: Args.kwargs
    ) -> EventT:
        event: EventT = getattr(self, name)(*args, **kwargs)
        return self._applied(event)

    verified_then_applied.__doc__ = verify.__doc__
    return verified_then_applied


class PlayerRound(RoundState):
    """A round's state plus the calls its players make."""

    def _applied(self, event: EventT) -> EventT:
        """Apply ``event`` and hand it back: the last step of every ``x``."""
        self._apply(event)
        return event

    def _apply(self, event: ev.Event, plan: StepPlan | None = None) -> None:
        apply_event(self, event, plan)

    def position(self, player_id: str, spot: int) -> int:
        return find_position(self, player_id, spot)

    # ---- betting -------------------------------------------------------------------------
    def verify_place_bets(
        self,
        player_ids: Sequence[str],
        spots: Sequence[int] | np.ndarray,
        main_amounts: Sequence[int] | np.ndarray,
        side_amounts: Mapping[str, Sequence[int] | np.ndarray] | None = None,
        free_amounts: Sequence[int] | np.ndarray | None = None,
    ) -> ev.BetsPlaced:
        """Check a batch of bets; returns the event that placing them would apply.

        ``place_bets`` takes the same arguments and applies that event."""
        require(self, BETTING)
        player_ids = tuple(player_ids)  # the event keeps this very tuple (see factorize)
        count = len(player_ids)
        spots_array = np.asarray(spots, dtype=np.int64)
        main_array = np.asarray(main_amounts, dtype=np.int64)
        keys = self.book.side_keys
        sides = np.zeros((count, max(1, len(keys))), dtype=np.int64)
        for key, amounts in (side_amounts or {}).items():
            if key not in keys:
                raise InvalidBetError(f"unknown side bet {key!r} (this title has {list(keys)})")
            sides[:, keys.index(key)] = np.asarray(amounts, dtype=np.int64)
        free = (
            np.full(count, -1, dtype=np.int64)
            if free_amounts is None
            else np.asarray(free_amounts, dtype=np.int64)
        )
        if not (len(spots_array) == len(main_array) == len(free) == count):
            raise RulesError("bet columns have different lengths")
        verify_bets(
            self.rules,
            self.book,
            self.available_side_bets(),
            player_ids,
            spots_array,
            main_array,
            sides,
            free,
        )
        return ev.BetsPlaced(
            player_ids,
            ev.frozen_array(spots_array),
            ev.frozen_array(main_array),
            keys,
            ev.frozen_array(sides[:, : len(keys)] if keys else np.zeros((count, 0))),
            ev.frozen_array(free),
        )

    place_bets = _verified_then_applied(verify_place_bets)

    def verify_place_bet(
        self,
        player_id: str,
        spot: int,
        main_amount: int,
        side_amounts: Mapping[str, int] | None = None,
        free_amount: int | None = None,
    ) -> ev.BetsPlaced:
        """One player's bet on one spot (``place_bet`` applies it). ``free_amount``: their coins
        outside this round."""
        sides = {key: [amount] for key, amount in (side_amounts or {}).items()}
        free = None if free_amount is None else [free_amount]
        return self.verify_place_bets([player_id], [spot], [main_amount], sides, free)

    can_place_bet = can_of(verify_place_bet)

    place_bet = _verified_then_applied(verify_place_bet)

    def set_free_coins(self, player_ids: Sequence[str], amounts: Sequence[int]) -> ev.FreeCoinsSet:
        """Refresh players' coins outside this round (their wallet may have moved elsewhere)."""
        if self.over:
            raise PhaseError("the round is over")
        for player_id, amount in zip(player_ids, amounts, strict=True):
            if self.book.player_index(player_id) is None:
                raise UnknownPositionError(f"player {player_id!r} has no bet in this round")
            if amount < 0:
                raise InsufficientCoinsError(f"player {player_id!r}: free coins cannot be negative")
        return self._applied(ev.FreeCoinsSet(tuple(player_ids), ev.frozen_array(list(amounts))))

    # ---- insurance -----------------------------------------------------------------------
    def verify_take_insurance(self, player_id: str, spot: int = 1) -> ev.InsuranceTaken:
        """Check insurance for this spot; returns the event ``take_insurance`` applies."""
        return self._insurance(player_id, spot, even_money=False)

    can_take_insurance = can_of(verify_take_insurance)

    take_insurance = _verified_then_applied(verify_take_insurance)

    def verify_take_even_money(self, player_id: str, spot: int = 1) -> ev.InsuranceTaken:
        """Check even money for this spot; returns the event ``take_even_money`` applies."""
        return self._insurance(player_id, spot, even_money=True)

    can_take_even_money = can_of(verify_take_even_money)

    take_even_money = _verified_then_applied(verify_take_even_money)

    def _insurance(self, player_id: str, spot: int, even_money: bool) -> ev.InsuranceTaken:
        position = verify_insurance(self, player_id, spot, even_money=even_money)
        return ev.InsuranceTaken(ev.frozen_array([position]), even_money=even_money)

    def take_insurance_many(self, positions: np.ndarray) -> ev.InsuranceTaken:
        """Bulk insurance (bots, load tests): every position must be eligible and covered."""
        require(self, INSURANCE)
        positions = np.asarray(positions, dtype=np.int64)
        verify_insurance_many(self, positions)
        return self._applied(ev.InsuranceTaken(ev.frozen_array(positions), even_money=False))

    # ---- decisions -----------------------------------------------------------------------
    def legal_actions(self, player_id: str, spot: int = 1) -> frozenset[Action]:
        """Actions this player may take now on this spot, coins considered."""
        return legal_now(self, player_id, spot)

    def verify_decide(self, player_id: str, spot: int, action: Action | str) -> int:
        return verify_decide(self, player_id, spot, action)

    can_decide = can_of(verify_decide)

    def decide(self, player_id: str, spot: int, action: Action | str) -> ev.DecisionsMade:
        """Record the player's decision for this step; it executes when the step closes."""
        position = self.verify_decide(player_id, spot, action)
        chosen = action if isinstance(action, Action) else Action.from_word(action)
        event = ev.DecisionsMade(
            spot, self.step, ev.frozen_array([position]), ev.frozen_array([int(chosen)])
        )
        return self._applied(event)

    def decide_many(self, positions: np.ndarray, actions: np.ndarray) -> ev.DecisionsMade:
        """Bulk decisions (bots, load tests): all legal or none applied."""
        require(self, DECISIONS)
        positions = np.asarray(positions, dtype=np.int64)
        actions = np.asarray(actions, dtype=np.int64)
        if len(positions) != len(actions):
            raise RulesError("positions and actions differ in length")
        if len(positions):
            verify_decisions_many(self, positions, actions)
        event = ev.DecisionsMade(
            self.current_spot, self.step, ev.frozen_array(positions), ev.frozen_array(actions)
        )
        return self._applied(event)

    def positions_awaiting_decision(self) -> np.ndarray:
        """Positions on the open step whose hand in play waits for a decision (none given yet)."""
        if self.phase != DECISIONS or self.paused:
            return np.zeros(0, dtype=np.int64)
        return awaiting_decision(self)

    def undecided_count(self) -> int:
        return len(self.positions_awaiting_decision())

    @property
    def needs_decisions(self) -> bool:
        """Whether the open step has hands to decide (else it can close at once)."""
        if self.phase != DECISIONS:
            return False
        return bool(deciding_on_spot(self, self.current_spot)[1].any())

    # ---- money ---------------------------------------------------------------------------
    def verify_cancel(self) -> None:
        if self.over:
            raise PhaseError(f"the round is already {self.phase}")

    can_cancel = can_of(verify_cancel)

    def cancel(self, reason: str = "operator cancel") -> ev.RoundCancelled:
        """Void the round: every position gets back exactly what it staked."""
        self.verify_cancel()
        return self._applied(ev.RoundCancelled(reason))

    def final_payouts(self) -> np.ndarray:
        """What each position is owed in total once the round is settled (stakes included)."""
        return final_payouts(self)
