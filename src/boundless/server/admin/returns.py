"""The realised return of each title against its exact figure, with a 95% band.

Over settled rounds, the *initial* stakes (main bets, side bets, insurance) are what the exact
figures are per unit of; doubles and splits are part of the main game's figure, so their
extra stakes are not units of their own. Hence

* realised return = (payouts - extra stakes) / initial stakes = 1 - house result / initial stakes
  (the ledger's payouts over its stakes, counted per initial unit);
* exact return = sum over kinds of (initial stakes of the kind x its exact return) / initial
  stakes: the figure for the mix of bets actually placed;
* 95% band = exact +- 1.96 sqrt(sum over kinds of variance x sum over rounds of the round's
  stakes of the kind squared) / initial stakes. A round is the unit, not a bet: every position
  of a round shares its cards (a shared title deals one hand to all its players, and one
  dealer's blackjack decides every insurance), so a round's stakes of one kind win or lose
  together. Taken bet by bet, as if independent, the band of a table of ``n`` equal bettors
  on one hand would be ``sqrt(n)`` times too narrow. Rounds and kinds are taken as independent
  (rounds of one shoe share it; a player's insurance pays when the main hand loses), and on a
  title with several spots the spots' hands are only partly alike, so there the band is wider
  than the true one: it errs towards calling a table's return normal.

The main game's exact figure is that of the table's basic-strategy chart: players who play
otherwise (or take even money) move the realised figure, which is what the band shows.
"""

from __future__ import annotations

import math
from typing import Any

from boundless.server.admin.exact_figures import TitleFigures
from boundless.server.admin.ledger_figures import TitleLedger

Z_95 = 1.959963984540054
EXTRA_KINDS = frozenset({"double", "split"})


def title_return(ledger: TitleLedger, figures: TitleFigures | None) -> dict[str, Any]:
    """One title's row of the console's returns table (JSON-ready)."""
    initial = {kind: s for kind, s in ledger.stakes.items() if kind not in EXTRA_KINDS}
    initial_total = sum(s.total for s in initial.values())
    row: dict[str, Any] = {
        "title": ledger.title,
        "rounds": ledger.rounds,
        "cancelled_rounds": ledger.cancelled_rounds,
        "staked": ledger.staked,
        "initial_staked": initial_total,
        "paid": ledger.paid,
        "house_result": ledger.house_result,
        "stakes_by_kind": {kind: s.total for kind, s in sorted(ledger.stakes.items())},
        "realised_return": None,
        "exact_return": None,
        "band_low": None,
        "band_high": None,
        "within_band": None,
    }
    if initial_total <= 0:
        return row
    realised = 1 - ledger.house_result / initial_total
    row["realised_return"] = realised
    if figures is None:
        return row
    missing = sorted(kind for kind in initial if kind not in figures.kinds)
    if missing:
        row["missing_figures"] = missing
        return row
    expected = sum(s.total * figures.kinds[kind].rtp for kind, s in initial.items())
    variance = sum(s.squares * figures.kinds[kind].variance for kind, s in initial.items())
    exact = expected / initial_total
    half = Z_95 * math.sqrt(variance) / initial_total
    row.update(
        exact_return=exact,
        band_low=exact - half,
        band_high=exact + half,
        within_band=exact - half <= realised <= exact + half,
    )
    return row
