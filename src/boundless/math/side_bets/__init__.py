"""Exact returns of a rule set's side bets, by enumeration of the cards each bet reads."""

from boundless.math.side_bets.counts import KIND_SCOPES, matched_distribution, scope_of
from boundless.math.side_bets.dealer_final_hands import FinalHand, dealer_final_hands
from boundless.math.side_bets.returns import (
    SideBetReport,
    side_bet_report,
    side_bet_returns,
    what_if,
)

__all__ = [
    "KIND_SCOPES",
    "FinalHand",
    "SideBetReport",
    "dealer_final_hands",
    "matched_distribution",
    "scope_of",
    "side_bet_report",
    "side_bet_returns",
    "what_if",
]
