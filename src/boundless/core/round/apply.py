"""Applying events to a round: the only code that changes a round's state.

Each handler checks that the event fits the round's phase (a log out of order raises
:class:`EventLogError`) and then updates the public cards, the position columns, the path
nodes and the payments. Operations in ``round.py`` build events; replay only calls these.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from boundless.core.cards import ACE
from boundless.core.errors import EventLogError
from boundless.core.hands import is_natural
from boundless.core.round import events as ev
from boundless.core.round.actions import NO_DECISION, Action
from boundless.core.round.paths import initial_path
from boundless.core.round.phases import (
    BETTING,
    CANCELLED,
    DEALER,
    DECISIONS,
    INSURANCE,
    SETTLED,
    SETTLING,
)
from boundless.core.round.results import ExtraStakes
from boundless.core.round.settlement import (
    main_payouts,
    odds_payout,
    side_bet_pattern,
    surrender_term,
)
from boundless.core.round.steps import plan_step
from boundless.core.side_bets import PENDING

if TYPE_CHECKING:
    from boundless.core.round.round import SharedRound


def apply_event(round_: SharedRound, event: ev.Event) -> None:
    if round_.over and not isinstance(event, ev.RoundOpened):
        raise EventLogError(f"{type(event).__name__} after the round ended")
    HANDLERS[type(event)](round_, event)


def _on_RoundOpened(round_: SharedRound, event: ev.RoundOpened) -> None:
    round_.round_in_shoe = event.round_in_shoe
    round_.offered_side_bets = event.offered_side_bets


def _on_BetsPlaced(round_: SharedRound, event: ev.BetsPlaced) -> None:
    players = round_.book.ensure_players(event.player_ids)
    free = round_.book.free
    totals = event.main_amounts + (event.side_amounts.sum(axis=1) if event.side_keys else 0)
    given = event.free_amounts >= 0
    free[players[given]] = event.free_amounts[given]
    np.subtract.at(free, players, totals)
    width = max(1, len(round_.book.side_keys))
    sides = np.zeros((len(players), width), dtype=np.int64)
    if event.side_keys:
        sides[:, : len(event.side_keys)] = event.side_amounts
    round_.book.add_positions(
        players,
        np.asarray(event.spots),
        np.asarray(event.main_amounts),
        sides,
        np.full(len(players), -1, dtype=np.int64),
    )


def _on_FreeCoinsSet(round_: SharedRound, event: ev.FreeCoinsSet) -> None:
    players = round_.book.ensure_players(event.player_ids)
    round_.book.free[players] = event.free_amounts


def _on_CardsDealt(round_: SharedRound, event: ev.CardsDealt) -> None:
    if round_.phase != BETTING:
        raise EventLogError("cards dealt outside betting")
    round_.up_card = event.up_card
    round_._hole_card = event.hole_card
    round_.dealer_cards = (event.up_card,)
    spots = round_.book.spot
    seated = round_.book.main > 0
    for spot, first, second in event.spot_cards:
        cards = (first, second)
        round_.spot_cards[spot] = cards
        round_.step_cards[spot] = []
        round_.step_takers[spot] = []
        on_spot = np.flatnonzero(spots == spot)
        round_._spot_positions[spot] = on_spot
        seated_node = round_.nodes.add(initial_path(cards, True), spot)
        empty_node = round_.nodes.add(initial_path(cards, False), spot)
        round_.book.node[on_spot] = np.where(seated[on_spot], seated_node, empty_node)
    _resolve_side_bets(round_, "side_bets_initial", final=False)
    insurance = round_.rules.insurance
    if insurance.offered and event.up_card.rank == ACE and seated.any():
        round_.phase = INSURANCE
    else:
        _after_insurance(round_)


def _on_InsuranceTaken(round_: SharedRound, event: ev.InsuranceTaken) -> None:
    positions = np.asarray(event.positions)
    main = round_.book.main[positions]
    if event.even_money:
        round_.book.even_money[positions] = True
        round_._pay("even_money", positions, odds_payout(main, round_.rules.payouts.win))
        return
    cost = round_.rules.insurance.cost.of_array(main)
    round_.book.insurance[positions] = cost
    np.subtract.at(round_.book.free, round_.book.player[positions], cost)


def _on_InsuranceClosed(round_: SharedRound, event: ev.InsuranceClosed) -> None:
    _after_insurance(round_)


def _after_insurance(round_: SharedRound) -> None:
    assert round_.up_card is not None
    dealer = round_.rules.dealer
    if dealer.hole_card == "peek" and round_.up_card.value in dealer.peek_up_values:
        assert round_._hole_card is not None
        if is_natural((round_.up_card, round_._hole_card)):
            round_.hole_revealed = True
            round_.dealer_cards = (round_.up_card, round_._hole_card)
            round_.phase = SETTLING
            return
    _pay_blackjacks_at_once(round_)
    _open_next_spot(round_, after=0)


def _pay_blackjacks_at_once(round_: SharedRound) -> None:
    assert round_.up_card is not None
    if round_.up_card.value not in round_.rules.payouts.blackjack_paid_at_once_up_values:
        return
    positions = np.flatnonzero(
        (round_.book.main > 0) & ~round_.book.even_money & (round_.book.node >= 0)
    )
    natural_nodes = np.array(
        [
            bool(state.hands) and state.hands[0].status == "blackjack"
            for state in round_.nodes.states
        ],
        dtype=np.bool_,
    )
    chosen = positions[natural_nodes[round_.book.node[positions]]]
    if len(chosen):
        payout = odds_payout(round_.book.main[chosen], round_.rules.payouts.blackjack)
        round_._pay("blackjack_at_once", chosen, payout)


def _open_next_spot(round_: SharedRound, after: int) -> None:
    active = round_.nodes.active
    for spot in sorted(round_._spot_positions):
        if spot <= after:
            continue
        if active[round_.book.node[round_._spot_positions[spot]]].any():
            round_.phase = DECISIONS
            round_.current_spot = spot
            round_.step = 1
            return
    round_.phase = DEALER
    round_.current_spot = 0
    round_.step = 0


def _on_DecisionsMade(round_: SharedRound, event: ev.DecisionsMade) -> None:
    if round_.phase != DECISIONS or event.spot != round_.current_spot or event.step != round_.step:
        raise EventLogError("decisions for a step that is not open")
    round_.book.pending[np.asarray(event.positions)] = event.actions


def _on_StepClosed(round_: SharedRound, event: ev.StepClosed) -> None:
    if round_.phase != DECISIONS or event.spot != round_.current_spot or event.step != round_.step:
        raise EventLogError("a step closed that is not open")
    cached = round_._plan
    round_._plan = None
    if cached is not None and cached[:2] == (event.spot, event.step):
        plan = cached[2]
    else:
        plan = plan_step(round_, event.spot, event.step)
    if plan.takes_card != (event.card is not None):
        raise EventLogError(f"step {event.step} card does not match the decisions")
    book = round_.book
    positions = plan.positions
    if len(positions):
        np.subtract.at(book.free, book.player[positions], plan.extra)
        book.extra[positions] += plan.extra
        costly = plan.extra > 0
        if costly.any():
            round_.extra_stakes.append(
                ExtraStakes(
                    event.spot,
                    event.step,
                    positions[costly],
                    plan.extra[costly],
                    plan.actions[costly],
                )
            )
        children = np.array(
            [
                round_.nodes.child(parent, action, source, event.step, event.card, round_.rules)
                for parent, action, source in plan.groups
            ],
            dtype=np.int64,
        )
        book.node[positions] = children[plan.group_of]
        surrendered = np.isin(plan.actions, (int(Action.SURRENDER), int(Action.SURRENDER20)))
        if surrendered.any():
            chosen = positions[surrendered]
            refunds = np.array(
                [
                    surrender_term(round_.path_of(p).hands[0], round_.rules).payout(
                        int(book.main[p])
                    )
                    for p in chosen.tolist()
                ],
                dtype=np.int64,
            )
            round_._pay("surrender", chosen, refunds)
    book.pending[round_._spot_positions[event.spot]] = NO_DECISION
    if event.card is not None:
        round_.step_cards[event.spot].append(event.card)
        round_.step_takers[event.spot].append(plan.takers)
    if round_.nodes.active[book.node[round_._spot_positions[event.spot]]].any():
        round_.step += 1
    else:
        _open_next_spot(round_, after=event.spot)


def _on_DealerCardsDrawn(round_: SharedRound, event: ev.DealerCardsDrawn) -> None:
    if round_.phase != DEALER:
        raise EventLogError("dealer cards outside the dealer phase")
    assert round_.up_card is not None
    if round_._hole_card is not None:
        round_.dealer_cards = (round_.up_card, round_._hole_card, *event.cards)
    else:
        round_.dealer_cards = (round_.up_card, *event.cards)
    round_.hole_revealed = True
    round_.phase = SETTLING


def _on_WheelSpun(round_: SharedRound, event: ev.WheelSpun) -> None:
    if round_.phase != SETTLING:
        raise EventLogError("a wheel spun before the dealer finished")
    amounts = event.payout_amounts.tolist()
    for position, amount, labels in zip(
        event.positions.tolist(), amounts, event.labels, strict=True
    ):
        round_.wheel_results[(position, event.side_key)] = (amount, labels)


def _on_RoundSettled(round_: SharedRound, event: ev.RoundSettled) -> None:
    if round_.phase != SETTLING:
        raise EventLogError("settlement before the dealer finished")
    _resolve_side_bets(round_, "side_bets", final=True)
    final = final_payouts(round_)
    owed = final - round_.book.paid
    round_._pay("settlement", np.arange(len(round_.book), dtype=np.int64), owed)
    round_.phase = SETTLED


def _on_RoundPaused(round_: SharedRound, event: ev.RoundPaused) -> None:
    round_.paused = True


def _on_RoundResumed(round_: SharedRound, event: ev.RoundResumed) -> None:
    round_.paused = False


def _on_RoundCancelled(round_: SharedRound, event: ev.RoundCancelled) -> None:
    refund = round_.book.staked() - round_.book.paid
    round_._pay("cancel_refund", np.arange(len(round_.book), dtype=np.int64), refund)
    round_.paused = False
    round_.phase = CANCELLED


# ---- side bets and final payouts -----------------------------------------------------
def _resolve_side_bets(round_: SharedRound, stage: str, final: bool) -> None:
    """Pay every side bet whose result is known; ``final`` means the dealer hand is done."""
    if not round_.book.side_keys or round_.up_card is None:
        return
    dealer = round_.dealer_cards if final else None
    for spot, cards in round_.spot_cards.items():
        on_spot = round_._spot_positions[spot]
        for column, key in enumerate(round_.book.side_keys):
            if (spot, key) in round_.side_patterns and round_.side_patterns[
                (spot, key)
            ] is not PENDING:
                continue
            bet = round_.rules.side_bet(key)
            assert bet is not None
            stakes = round_.book.sides[on_spot, column]
            if not stakes.any():
                continue
            if bet.wheel is not None and not final:
                continue  # the feature is played after the round (wheel bets settle last)
            pattern = side_bet_pattern(bet, cards, round_.up_card, dealer)
            round_.side_patterns[(spot, key)] = pattern
            if pattern is PENDING:
                continue
            round_._pay(stage, on_spot, _side_payouts(round_, key, column, on_spot, pattern))


def _side_payouts(
    round_: SharedRound, key: str, column: int, positions: np.ndarray, pattern: object
) -> np.ndarray:
    """Payouts of one side bet for positions of one spot whose pattern is known."""
    bet = round_.rules.side_bet(key)
    assert bet is not None
    stakes = round_.book.sides[positions, column]
    if bet.wheel is None:
        return odds_payout(stakes, bet.pays.get(pattern) if isinstance(pattern, str) else None)
    if pattern is None:
        return np.zeros_like(stakes)
    return np.array(
        [
            round_.wheel_results.get((p, key), (0, ()))[0] if stake else 0
            for p, stake in zip(positions.tolist(), stakes.tolist(), strict=True)
        ],
        dtype=np.int64,
    )


def final_payouts(round_: SharedRound) -> np.ndarray:
    """What each position is owed in total once the round is settled (stakes included)."""
    book = round_.book
    dealer = round_.dealer_hand
    total = np.zeros(len(book), dtype=np.int64)
    seated = np.flatnonzero((book.main > 0) & ~book.even_money)
    total[seated] = main_payouts(
        round_.nodes.states, book.node[seated], book.main[seated], dealer, round_.rules
    )
    even = np.flatnonzero(book.even_money)
    total[even] = odds_payout(book.main[even], round_.rules.payouts.win)
    if dealer.blackjack:
        total += odds_payout(book.insurance, round_.rules.insurance.pays)
    for spot in round_.spot_cards:
        on_spot = round_._spot_positions[spot]
        for column, key in enumerate(book.side_keys):
            pattern = round_.side_patterns.get((spot, key))
            if pattern is not PENDING:
                total[on_spot] += _side_payouts(round_, key, column, on_spot, pattern)
    return total


HANDLERS: dict[type[Any], Callable[[Any, Any], None]] = {
    ev.RoundOpened: _on_RoundOpened,
    ev.BetsPlaced: _on_BetsPlaced,
    ev.FreeCoinsSet: _on_FreeCoinsSet,
    ev.CardsDealt: _on_CardsDealt,
    ev.InsuranceTaken: _on_InsuranceTaken,
    ev.InsuranceClosed: _on_InsuranceClosed,
    ev.DecisionsMade: _on_DecisionsMade,
    ev.StepClosed: _on_StepClosed,
    ev.DealerCardsDrawn: _on_DealerCardsDrawn,
    ev.WheelSpun: _on_WheelSpun,
    ev.RoundSettled: _on_RoundSettled,
    ev.RoundPaused: _on_RoundPaused,
    ev.RoundResumed: _on_RoundResumed,
    ev.RoundCancelled: _on_RoundCancelled,
}
