"""Exact returns of a rule set's side bets.

``side_bet_returns(rules)`` gives one :class:`SideBetReport` per side bet, keyed by the bet's key.
The method: exact enumeration of the cards each bet reads over a freshly shuffled shoe of
``rules.shoe.decks`` decks (see :mod:`boundless.math.side_bets.counts`), the pay table applied to
the highest-paying matched pattern (DECISIONS.md rule 4), and for Bonus Spin Xtreme the exact
wheel return (:mod:`boundless.core.wheel`) times the chance of its trigger.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from boundless.core.rules import RuleSet, SideBetRules, rule_set_from_data
from boundless.core.side_bets import SIDE_BET_KINDS, best_paying_pattern
from boundless.core.side_bets.boo_bucks_bets import WHEEL_TRIGGER_BY_TARGET
from boundless.core.wheel import (
    jackpot_cap_wager_amount,
    wheel_return,
    wheel_second_moment,
)
from boundless.math.side_bets.counts import matched_distribution, scope_of


@dataclass(frozen=True, slots=True)
class SideBetReport:
    """The exact figures of one side bet; every return is per unit staked, stake included."""

    key: str
    kind: str
    rtp: Fraction
    pattern_probabilities: dict[str, Fraction]
    variance: Fraction
    assumptions: tuple[str, ...] = field(default=())
    wager_amount: int | None = None

    @property
    def house_edge(self) -> Fraction:
        return 1 - self.rtp

    @property
    def win_probability(self) -> Fraction:
        return sum(self.pattern_probabilities.values(), Fraction(0))

    @property
    def standard_deviation(self) -> float:
        return math.sqrt(self.variance)

    def to_json(self) -> dict[str, object]:
        return {
            "key": self.key,
            "kind": self.kind,
            "return": float(self.rtp),
            "house_edge": float(self.house_edge),
            "standard_deviation": self.standard_deviation,
            "patterns": {
                name: float(chance) for name, chance in self.pattern_probabilities.items()
            },
            "assumptions": list(self.assumptions),
            "wager_amount": self.wager_amount,
        }


def _common_assumptions(rules: RuleSet) -> list[str]:
    decks = rules.shoe.decks
    text = [
        f"Exact enumeration over a freshly shuffled {decks}-deck shoe ({52 * decks} cards), "
        "ordered draws without replacement; cards of other hands and seats are unseen, so "
        "they average out.",
        "Only the highest-paying matched pattern pays (DECISIONS.md rule 4).",
    ]
    if not rules.shoe.reshuffle_every_round:
        text.append(
            "Off-the-top figure: by exchangeability it is also the average over every round "
            "of the shoe, up to the small effect of how many rounds the cut card allows."
        )
    return text


def _pays_report(bet: SideBetRules, rules: RuleSet) -> SideBetReport:
    scope = scope_of(bet.kind)
    distribution = matched_distribution(
        bet.kind, bet.variant, rules.shoe.decks, scope, rules.dealer.hits_soft_17
    )
    chances = {pattern: Fraction(0) for pattern in bet.pays}
    rtp = second = Fraction(0)
    for matched, chance in distribution.items():
        best = best_paying_pattern(matched, bet.pays)
        if best is None:
            continue
        odds = bet.pays[best]
        multiple = 1 + Fraction(odds.win, odds.per)
        chances[best] += chance
        rtp += chance * multiple
        second += chance * multiple**2
    assumptions = _common_assumptions(rules)
    if any(odds.per != 1 for odds in bet.pays.values()):
        assumptions.append("Stakes are assumed to make every pay whole (no rounding down).")
    if scope == "dealer_final":
        rule = "hits" if rules.dealer.hits_soft_17 else "stands on"
        assumptions.append(
            f"The dealer {rule} soft 17 and draws from the shoe less only the dealer's own "
            "cards: cards players draw before the dealer are ignored (the standard assumption; "
            "exact when no player draws). A dealer blackjack is not a bust, so it loses the bet."
        )
    if bet.kind == "jack_a_tack" and bet.variant == "with_dealer":
        assumptions.append("The four-jack pays read the dealer's hole card.")
    return SideBetReport(
        key=bet.key,
        kind=bet.kind,
        rtp=rtp,
        pattern_probabilities=chances,
        variance=second - rtp**2,
        assumptions=tuple(assumptions),
    )


def _wheel_report(bet: SideBetRules, rules: RuleSet) -> SideBetReport:
    assert bet.wheel is not None
    trigger = WHEEL_TRIGGER_BY_TARGET[bet.target]
    scope = scope_of(bet.kind, trigger)
    distribution = matched_distribution(bet.kind, bet.variant, rules.shoe.decks, scope)
    chance = sum(
        (item for matched, item in distribution.items() if trigger in matched), Fraction(0)
    )
    wager = bet.min_amount
    per_trigger = wheel_return(bet.wheel, wager)
    rtp = chance * per_trigger
    variance = chance * wheel_second_moment(bet.wheel, wager) - rtp**2
    at_max = chance * wheel_return(bet.wheel, bet.max_amount)
    cap = jackpot_cap_wager_amount(bet.wheel)
    assumptions = _common_assumptions(rules)
    assumptions.append(
        f"Return at the minimum wager {wager}: jackpot chances grow with the wager, so the "
        f"multiplier wedges' share shrinks; at the maximum wager {bet.max_amount} it is "
        f"{float(at_max):.10f}."
    )
    assumptions.append(
        f"Trigger {trigger!r} (target {bet.target!r}) with probability {float(chance):.10f}; "
        f"the wheel returns {float(per_trigger):.10f} times the wager per feature."
    )
    if cap is not None and bet.max_amount > cap:
        assumptions.append(
            f"WARNING: above a wager of {float(cap):.2f} the jackpot chances are capped at 1."
        )
    if bet.wheel.example:
        assumptions.append("The wheel is an example configuration, not a document's figures.")
    return SideBetReport(
        key=bet.key,
        kind=bet.kind,
        rtp=rtp,
        pattern_probabilities={trigger: chance},
        variance=variance,
        assumptions=tuple(assumptions),
        wager_amount=wager,
    )


def side_bet_report(bet: SideBetRules, rules: RuleSet) -> SideBetReport:
    """The exact figures of one side bet of ``rules``."""
    if SIDE_BET_KINDS[bet.kind].uses_wheel:
        return _wheel_report(bet, rules)
    return _pays_report(bet, rules)


def side_bet_returns(rules: RuleSet) -> dict[str, SideBetReport]:
    """Exact report of every side bet of the rule set, keyed by the bet's key."""
    return {bet.key: side_bet_report(bet, rules) for bet in rules.side_bets}


def what_if(
    rules: RuleSet,
    changes: Mapping[str, Mapping[str, object]] | None = None,
    side_bets: Sequence[Mapping[str, object]] | None = None,
) -> RuleSet:
    """A validated copy of ``rules`` with some fields of its sections changed, e.g.
    ``{"shoe": {"decks": 1}}``, and optionally another side-bet list (TOML-shaped tables)."""
    data = rules.model_dump(mode="json")
    for section, fields in (changes or {}).items():
        data[section] = {**data[section], **fields}
    if side_bets is not None:
        data["side_bets"] = [dict(bet) for bet in side_bets]
    return rule_set_from_data(data, source=f"{rules.key} (what-if)")
