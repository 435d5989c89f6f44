"""Applying events to a round's state: the only code that changes a round.

Each handler checks that the event fits the round's phase (a log out of order raises
:class:`EventLogError`) and then updates the public cards, the position columns, the path
nodes and the payments. The pieces a handler is made of (deal the spots, execute a step, reveal
the dealer, settle) are functions too, so the follower round (:mod:`.follow`) builds its own
handlers for the table's public events from the same pieces.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from boundless.core.cards import ACE, Card
from boundless.core.errors import EventLogError
from boundless.core.hands import is_natural
from boundless.core.round import events as ev
from boundless.core.round.actions import NO_DECISION, Action
from boundless.core.round.paths import HandStatus, initial_path
from boundless.core.round.phases import (
    BETTING,
    CANCELLED,
    DEALER,
    DECISIONS,
    INSURANCE,
    SETTLED,
    SETTLING,
)
from boundless.core.round.settlement import (
    main_payouts,
    odds_payout,
    side_bet_pattern,
    surrender_term,
    term_payouts,
)
from boundless.core.round.state import ExtraStakes, Payment, PaymentStage, RoundState
from boundless.core.round.steps import StepPlan, plan_step
from boundless.core.side_bets import PENDING


def apply_event(state: RoundState, event: ev.Event, plan: StepPlan | None = None) -> None:
    """Apply one event of the round's own log and append it. ``plan``: the step plan the
    caller already made for this very ``StepClosed`` (it is planned again otherwise)."""
    if state.over and not isinstance(event, ev.RoundOpened):
        raise EventLogError(f"{type(event).__name__} after the round ended")
    if isinstance(event, ev.StepClosed):
        _on_StepClosed(state, event, plan)
    else:
        HANDLERS[type(event)](state, event)
    state.events.append(event)


def pay(state: RoundState, stage: PaymentStage, positions: np.ndarray, amounts: np.ndarray) -> None:
    keep = amounts != 0
    if not keep.any():
        return
    positions, amounts = positions[keep], amounts[keep]
    np.add.at(state.book.paid, positions, amounts)
    # Paid coins are the player's again at once: a later double or split may use them.
    np.add.at(state.book.free, state.book.player[positions], amounts)
    state.payments.append(Payment(stage, positions, amounts))


def _on_RoundOpened(state: RoundState, event: ev.RoundOpened) -> None:
    state.round_in_shoe = event.round_in_shoe
    state.offered_side_bets = event.offered_side_bets


def _on_BetsPlaced(state: RoundState, event: ev.BetsPlaced) -> None:
    players = state.book.ensure_players(event.player_ids)
    free = state.book.free
    totals = event.main_amounts + (event.side_amounts.sum(axis=1) if event.side_keys else 0)
    given = event.free_amounts >= 0
    free[players[given]] = event.free_amounts[given]
    np.subtract.at(free, players, totals)
    width = max(1, len(state.book.side_keys))
    sides = np.zeros((len(players), width), dtype=np.int64)
    if event.side_keys:
        sides[:, : len(event.side_keys)] = event.side_amounts
    state.book.add_positions(
        players,
        np.asarray(event.spots),
        np.asarray(event.main_amounts),
        sides,
        np.full(len(players), -1, dtype=np.int64),
    )


def _on_FreeCoinsSet(state: RoundState, event: ev.FreeCoinsSet) -> None:
    players = state.book.ensure_players(event.player_ids)
    state.book.free[players] = event.free_amounts


def _on_CardsDealt(state: RoundState, event: ev.CardsDealt) -> None:
    if state.phase != BETTING:
        raise EventLogError("cards dealt outside betting")
    deal_spots(state, event.spot_cards, event.up_card, event.hole_card)
    if insurance_opens(state, bool((state.book.main > 0).any())):
        state.phase = INSURANCE
    else:
        _after_insurance(state)


def deal_spots(
    state: RoundState,
    spot_cards: tuple[tuple[int, Card, Card], ...],
    up_card: Card,
    hole_card: Card | None,
) -> None:
    """The dealt cards: each spot's two cards, the up card (and the hole card, if known)."""
    state.up_card = up_card
    state.hidden_hole = hole_card
    state.dealer_cards = (up_card,)
    spots = state.book.spot
    seated = state.book.main > 0
    for spot, first, second in spot_cards:
        cards = (first, second)
        state.spot_cards[spot] = cards
        state.step_cards[spot] = []
        state.step_takers[spot] = []
        on_spot = np.flatnonzero(spots == spot)
        state.spot_positions[spot] = on_spot
        seated_node = state.nodes.add(initial_path(cards, True), spot)
        empty_node = state.nodes.add(initial_path(cards, False), spot)
        state.book.node[on_spot] = np.where(seated[on_spot], seated_node, empty_node)
    _resolve_side_bets(state, PaymentStage.SIDE_BETS_INITIAL, final=False)


def insurance_opens(state: RoundState, any_seated: bool) -> bool:
    """Whether the deal opens the insurance window (``any_seated``: a main bet is on)."""
    assert state.up_card is not None
    return state.rules.insurance.offered and state.up_card.rank == ACE and any_seated


def dealer_peeks(state: RoundState) -> bool:
    """Whether the dealer checks the hole card for blackjack before the decisions."""
    assert state.up_card is not None
    dealer = state.rules.dealer
    return dealer.hole_card == "peek" and state.up_card.value in dealer.peek_up_values


def _on_InsuranceTaken(state: RoundState, event: ev.InsuranceTaken) -> None:
    positions = np.asarray(event.positions)
    main = state.book.main[positions]
    if event.even_money:
        state.book.even_money[positions] = True
        pay(state, PaymentStage.EVEN_MONEY, positions, odds_payout(main, state.rules.payouts.win))
        return
    cost = state.rules.insurance.cost.of_array(main)
    state.book.insurance[positions] = cost
    np.subtract.at(state.book.free, state.book.player[positions], cost)


def _on_InsuranceClosed(state: RoundState, event: ev.InsuranceClosed) -> None:
    _after_insurance(state)


def _after_insurance(state: RoundState) -> None:
    if dealer_peeks(state):
        assert state.up_card is not None and state.hidden_hole is not None
        if is_natural((state.up_card, state.hidden_hole)):
            reveal_natural(state, state.hidden_hole)
            return
    start_decisions(state)


def reveal_natural(state: RoundState, hole_card: Card) -> None:
    """The peek found a dealer blackjack: it shows, and the round goes to settlement."""
    assert state.up_card is not None
    state.hidden_hole = hole_card
    state.hole_revealed = True
    state.dealer_cards = (state.up_card, hole_card)
    state.phase = SETTLING


def start_decisions(state: RoundState) -> None:
    """No dealer blackjack (or no peek): pay naturals paid at once, open the first spot."""
    pay_blackjacks_at_once(state)
    open_next_spot(state, after=0)


def pay_blackjacks_at_once(state: RoundState) -> None:
    assert state.up_card is not None
    if state.up_card.value not in state.rules.payouts.blackjack_paid_at_once_up_values:
        return
    positions = np.flatnonzero(
        (state.book.main > 0) & ~state.book.even_money & (state.book.node >= 0)
    )
    natural_nodes = np.array(
        [
            bool(state.hands) and state.hands[0].status == HandStatus.BLACKJACK
            for state in state.nodes.states
        ],
        dtype=np.bool_,
    )
    chosen = positions[natural_nodes[state.book.node[positions]]]
    if len(chosen):
        payout = odds_payout(state.book.main[chosen], state.rules.payouts.blackjack)
        pay(state, PaymentStage.BLACKJACK_AT_ONCE, chosen, payout)


def open_next_spot(state: RoundState, after: int) -> None:
    for spot in sorted(state.spot_positions):
        if spot > after and spot_in_play(state, spot):
            open_step(state, spot, 1)
            return
    state.phase = DEALER
    state.current_spot = 0
    state.step = 0


def spot_in_play(state: RoundState, spot: int) -> bool:
    """Whether a position on ``spot`` still needs a card or a decision."""
    on_spot = state.spot_positions.get(spot)
    if on_spot is None:
        return False
    return bool(state.nodes.active[state.book.node[on_spot]].any())


def open_step(state: RoundState, spot: int, step: int) -> None:
    state.phase = DECISIONS
    state.current_spot = spot
    state.step = step


def _on_DecisionsMade(state: RoundState, event: ev.DecisionsMade) -> None:
    if state.phase != DECISIONS or event.spot != state.current_spot or event.step != state.step:
        raise EventLogError("decisions for a step that is not open")
    state.book.pending[np.asarray(event.positions)] = event.actions


def _on_StepClosed(state: RoundState, event: ev.StepClosed, plan: StepPlan | None) -> None:
    if state.phase != DECISIONS or event.spot != state.current_spot or event.step != state.step:
        raise EventLogError("a step closed that is not open")
    if plan is None:
        plan = plan_step(state, event.spot, event.step)
    if plan.takes_card != (event.card is not None):
        raise EventLogError(f"step {event.step} card does not match the decisions")
    execute_step(state, event.spot, event.step, event.card, plan, plan.takers)
    if spot_in_play(state, event.spot):
        state.step += 1
    else:
        open_next_spot(state, after=event.spot)


def execute_step(
    state: RoundState,
    spot: int,
    step: int,
    card: Card | None,
    plan: StepPlan,
    takers: int,
) -> None:
    """Carry out a step's plan: extra stakes, new paths, surrender refunds, the step card.
    ``takers``: how many positions at the whole table took the card (shown publicly)."""
    book = state.book
    positions = plan.positions
    if len(positions):
        np.subtract.at(book.free, book.player[positions], plan.extra)
        book.extra[positions] += plan.extra
        costly = plan.extra > 0
        if costly.any():
            state.extra_stakes.append(
                ExtraStakes(
                    spot,
                    step,
                    positions[costly],
                    plan.extra[costly],
                    plan.actions[costly],
                )
            )
        children = np.array(
            [
                state.nodes.child(parent, action, source, step, card, state.rules)
                for parent, action, source in plan.groups
            ],
            dtype=np.int64,
        )
        book.node[positions] = children[plan.group_of]
        surrendered = np.isin(plan.actions, (int(Action.SURRENDER), int(Action.SURRENDER20)))
        if surrendered.any():
            _pay_surrenders(state, plan, children, surrendered)
    on_spot = state.spot_positions.get(spot)
    if on_spot is not None:
        book.pending[on_spot] = NO_DECISION
    if card is not None:
        state.step_cards.setdefault(spot, []).append(card)
        state.step_takers.setdefault(spot, []).append(takers)


def _pay_surrenders(
    state: RoundState, plan: StepPlan, children: np.ndarray, surrendered: np.ndarray
) -> None:
    """Refund the hands given up this step: per path, the hand that was in play (with a
    resplit it need not be the first)."""
    nodes = state.nodes
    groups = plan.group_of[surrendered]
    terms = {}
    for group in np.unique(groups).tolist():
        in_play = nodes.states[plan.groups[group][0]].current
        given_up = nodes.states[int(children[group])].hands[in_play]
        terms[group] = surrender_term(given_up, state.rules)
    chosen = plan.positions[surrendered]
    refunds = term_payouts(state.book.main[chosen], terms, groups, len(plan.groups))
    pay(state, PaymentStage.SURRENDER, chosen, refunds)


def _on_DealerCardsDrawn(state: RoundState, event: ev.DealerCardsDrawn) -> None:
    if state.phase != DEALER:
        raise EventLogError("dealer cards outside the dealer phase")
    assert state.up_card is not None
    if state.hidden_hole is not None:
        reveal_dealer(state, (state.up_card, state.hidden_hole, *event.cards))
    else:
        reveal_dealer(state, (state.up_card, *event.cards))


def reveal_dealer(state: RoundState, cards: tuple[Card, ...]) -> None:
    """The dealer's whole hand after the decisions (up card first); settlement is next."""
    state.dealer_cards = cards
    state.hole_revealed = True
    state.phase = SETTLING


def _on_WheelSpun(state: RoundState, event: ev.WheelSpun) -> None:
    if state.phase != SETTLING:
        raise EventLogError("a wheel spun before the dealer finished")
    amounts = event.payout_amounts.tolist()
    for position, amount, labels in zip(
        event.positions.tolist(), amounts, event.labels, strict=True
    ):
        state.wheel_results[(position, event.side_key)] = (amount, labels)


def _on_RoundSettled(state: RoundState, event: ev.RoundSettled) -> None:
    if state.phase != SETTLING:
        raise EventLogError("settlement before the dealer finished")
    settle_positions(state)


def settle_positions(state: RoundState) -> None:
    """Pay every position what it is still owed; the round is settled."""
    _resolve_side_bets(state, PaymentStage.SIDE_BETS, final=True)
    final = final_payouts(state)
    owed = final - state.book.paid
    pay(state, PaymentStage.SETTLEMENT, np.arange(len(state.book), dtype=np.int64), owed)
    state.phase = SETTLED


def _on_RoundPaused(state: RoundState, event: ev.RoundPaused) -> None:
    state.paused = True


def _on_RoundResumed(state: RoundState, event: ev.RoundResumed) -> None:
    state.paused = False


def _on_RoundCancelled(state: RoundState, event: ev.RoundCancelled) -> None:
    refund = state.book.staked() - state.book.paid
    pay(state, PaymentStage.CANCEL_REFUND, np.arange(len(state.book), dtype=np.int64), refund)
    state.paused = False
    state.phase = CANCELLED


# ---- side bets and final payouts -----------------------------------------------------
def _resolve_side_bets(state: RoundState, stage: PaymentStage, final: bool) -> None:
    """Pay every side bet whose result is known; ``final`` means the dealer hand is done."""
    if not state.book.side_keys or state.up_card is None:
        return
    dealer = state.dealer_cards if final else None
    for spot, cards in state.spot_cards.items():
        on_spot = state.spot_positions[spot]
        for column, key in enumerate(state.book.side_keys):
            if (spot, key) in state.side_patterns and state.side_patterns[
                (spot, key)
            ] is not PENDING:
                continue
            bet = state.rules.side_bet(key)
            assert bet is not None
            stakes = state.book.sides[on_spot, column]
            if not stakes.any():
                continue
            if bet.wheel is not None and not final:
                continue  # the feature is played after the round (wheel bets settle last)
            pattern = side_bet_pattern(bet, cards, state.up_card, dealer)
            state.side_patterns[(spot, key)] = pattern
            if pattern is PENDING:
                continue
            pay(state, stage, on_spot, _side_payouts(state, key, column, on_spot, pattern))


def _side_payouts(
    state: RoundState, key: str, column: int, positions: np.ndarray, pattern: object
) -> np.ndarray:
    """Payouts of one side bet for positions of one spot whose pattern is known."""
    bet = state.rules.side_bet(key)
    assert bet is not None
    stakes = state.book.sides[positions, column]
    if bet.wheel is None:
        return odds_payout(stakes, bet.pays.get(pattern) if isinstance(pattern, str) else None)
    if pattern is None:
        return np.zeros_like(stakes)
    return np.array(
        [
            state.wheel_results.get((p, key), (0, ()))[0] if stake else 0
            for p, stake in zip(positions.tolist(), stakes.tolist(), strict=True)
        ],
        dtype=np.int64,
    )


def final_payouts(state: RoundState) -> np.ndarray:
    """What each position is owed in total once the round is settled (stakes included)."""
    book = state.book
    dealer = state.dealer_hand
    total = np.zeros(len(book), dtype=np.int64)
    seated = np.flatnonzero((book.main > 0) & ~book.even_money)
    total[seated] = main_payouts(
        state.nodes.states, book.node[seated], book.main[seated], dealer, state.rules
    )
    even = np.flatnonzero(book.even_money)
    total[even] = odds_payout(book.main[even], state.rules.payouts.win)
    if dealer.blackjack:
        total += odds_payout(book.insurance, state.rules.insurance.pays)
    for spot in state.spot_cards:
        on_spot = state.spot_positions[spot]
        for column, key in enumerate(book.side_keys):
            pattern = state.side_patterns.get((spot, key))
            if pattern is not PENDING:
                total[on_spot] += _side_payouts(state, key, column, on_spot, pattern)
    return total


HANDLERS: dict[type[Any], Callable[[Any, Any], None]] = {
    # StepClosed is applied with its plan by apply_event
    ev.RoundOpened: _on_RoundOpened,
    ev.BetsPlaced: _on_BetsPlaced,
    ev.FreeCoinsSet: _on_FreeCoinsSet,
    ev.CardsDealt: _on_CardsDealt,
    ev.InsuranceTaken: _on_InsuranceTaken,
    ev.InsuranceClosed: _on_InsuranceClosed,
    ev.DecisionsMade: _on_DecisionsMade,
    ev.DealerCardsDrawn: _on_DealerCardsDrawn,
    ev.WheelSpun: _on_WheelSpun,
    ev.RoundSettled: _on_RoundSettled,
    ev.RoundPaused: _on_RoundPaused,
    ev.RoundResumed: _on_RoundResumed,
    ev.RoundCancelled: _on_RoundCancelled,
}
