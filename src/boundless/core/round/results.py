"""One position's outcome in plain data: what replays, views and the play record show."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from boundless.core.cards import Card
from boundless.core.round.actions import Source
from boundless.core.round.paths import SURRENDERED, HandStatus
from boundless.core.round.phases import SETTLED
from boundless.core.round.settlement import path_terms
from boundless.core.round.state import ExtraStakes, RoundState
from boundless.core.side_bets import PENDING

__all__ = [
    "ExtraStakes",
    "HandResult",
    "InsuranceResult",
    "PositionResult",
    "SideBetResult",
    "hand_json",
    "position_result",
]


@dataclass(frozen=True, slots=True)
class HandResult:
    spot: int
    cards: tuple[Card, ...]
    total: int
    bet_amount: int
    status: str
    outcome: str | None
    payout_amount: int | None
    autoplayed: bool
    fallback: bool
    decisions: tuple[tuple[str, str, int], ...]  # (action, source, step)
    rounded_off: Fraction = Fraction(0)  # part of a minor unit the payout lost to rounding down


@dataclass(frozen=True, slots=True)
class SideBetResult:
    key: str
    stake: int
    outcome: str | None  # "win", "lose", or None while pending
    pattern: str | None
    payout_amount: int | None
    wheel_labels: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class InsuranceResult:
    kind: str  # "insurance" or "even_money"
    stake: int
    outcome: str | None
    payout_amount: int | None


@dataclass(frozen=True, slots=True)
class PositionResult:
    player_id: str
    spot: int
    main_amount: int
    hands: tuple[HandResult, ...]
    insurance: InsuranceResult | None
    side_bets: tuple[SideBetResult, ...]
    staked_amount: int
    paid_amount: int


def position_result(round_: RoundState, position: int) -> PositionResult:
    """The position as it stands; outcomes are filled in once the round is settled."""
    book = round_.book
    rules = round_.rules
    spot = int(book.spot[position])
    main = int(book.main[position])
    settled = round_.phase == SETTLED
    path = round_.path_of(position) if book.node[position] >= 0 else None
    hands: list[HandResult] = []
    even_money = bool(book.even_money[position])
    if path is not None and main > 0:
        terms = path_terms(path, round_.dealer_hand, rules) if settled else None
        for index, hand in enumerate(path.hands):
            term = None if terms is None else terms[index]
            outcome = term.outcome if term is not None else None
            payout = term.payout(main) if term is not None else None
            rounded_off = term.rounded_off(main) if term is not None else Fraction(0)
            if even_money:
                rounded_off = Fraction(0)
                outcome = "even_money" if settled else None
                payout = rules.payouts.win.payout(main) if settled else None
            elif hand.status in SURRENDERED:
                outcome = "surrender" if hand.status == HandStatus.SURRENDERED else "surrender20"
            hands.append(
                HandResult(
                    spot=spot,
                    cards=hand.cards,
                    total=hand.total,
                    bet_amount=main * hand.stake_units,
                    status=hand.status,
                    outcome=outcome,
                    payout_amount=payout,
                    autoplayed=hand.autoplayed,
                    fallback=any(move.source == Source.FALLBACK for move in hand.moves),
                    decisions=tuple(
                        (move.action.word, move.source.word, move.step) for move in hand.moves
                    ),
                    rounded_off=rounded_off,
                )
            )
    insurance: InsuranceResult | None = None
    if even_money:
        # Even money costs nothing extra; its payout is the hand's (counted there once).
        insurance = InsuranceResult("even_money", 0, "taken", 0)
    elif book.insurance[position]:
        stake = int(book.insurance[position])
        won = round_.dealer_hand.blackjack
        known = round_.hole_revealed or settled
        insurance = InsuranceResult(
            "insurance",
            stake,
            ("win" if won else "lose") if known else None,
            (rules.insurance.pays.payout(stake) if won else 0) if known else None,
        )
    sides: list[SideBetResult] = []
    for column, key in enumerate(book.side_keys):
        stake = int(book.sides[position, column])
        if not stake:
            continue
        bet = rules.side_bet(key)
        assert bet is not None
        pattern = round_.side_patterns.get((spot, key), PENDING)
        if pattern is PENDING:
            sides.append(SideBetResult(key, stake, None, None, None))
            continue
        name = pattern if isinstance(pattern, str) else None
        if bet.wheel is not None:
            payout, labels = round_.wheel_results.get((position, key), (0, ()))
            outcome = "win" if payout else "lose"
            sides.append(SideBetResult(key, stake, outcome, name, payout, labels))
            continue
        odds = bet.pays.get(name) if name is not None else None
        payout = 0 if odds is None else odds.payout(stake)
        sides.append(SideBetResult(key, stake, "win" if odds else "lose", name, payout))
    return PositionResult(
        player_id=book.player_ids[int(book.player[position])],
        spot=spot,
        main_amount=main,
        hands=tuple(hands),
        insurance=insurance,
        side_bets=tuple(sides),
        staked_amount=book.staked_of(position),
        paid_amount=int(book.paid[position]),
    )


def hand_json(
    hand: HandResult, *, spot: bool = False, status: bool = False, fallback: bool = False
) -> dict[str, Any]:
    """A hand as JSON for the views (``status``) and the replay output (``spot``,
    ``fallback``): one builder, so both list the shared keys in the same order."""
    data: dict[str, Any] = {}
    if spot:
        data["spot"] = hand.spot
    data["cards"] = [str(card) for card in hand.cards]
    data["total"] = hand.total
    data["bet"] = hand.bet_amount
    if status:
        data["status"] = hand.status
    data["outcome"] = hand.outcome
    data["payout"] = hand.payout_amount
    data["autoplayed"] = hand.autoplayed
    if fallback:
        data["fallback"] = hand.fallback
    data["rounded_off"] = str(hand.rounded_off)
    data["decisions"] = [
        {"action": action, "by": source, "step": step} for action, source, step in hand.decisions
    ]
    return data
