"""The basic-strategy chart of a rule set, derived from the exact hand values.

The chart is *total-dependent*: a cell holds one decision for every hand with that hard or
soft total (or that pair) against that up card. Each cell is chosen to maximise the return
averaged over every hand that reaches it, weighted by how often play reaches that hand from
a full shoe (split hands included); the weights depend on the rest of the chart, so the
derivation starts from "hit 16/soft 17 or less" and repeats until the chart stops changing
(it settles in two or three rounds). Cells are decided top-down so a hit always leads to
cells already decided. The second choice of a cell (double-else-hit, surrender-else-stand,
...) is the best fall-back averaged over the hands that cannot take the first choice (ties
between first choices go to the better fall-back). A cell no hand can reach (hard 4 when
2-2 is always split) falls back to the chance of being dealt the hand, then to the
starting rule.

Pair cells are derived as if the pair may always be split. Where a title offers a split only
on the chart's split cells (``split.offered = "basic_strategy_pairs"``) the engine offers it
where the pair cell holds P or Rp, and the chart's player then splits (the engine passes
``split`` and ``surrender20`` as the legal words, and the cell's first legal move is split).
"""

from __future__ import annotations

from collections.abc import Sequence

from boundless.core.rules import RuleSet
from boundless.core.strategy_chart import StrategyChart
from boundless.math.exact.fast import FastAnalysis
from boundless.math.exact.params import GameParams


def derive_basic_strategy(rules: RuleSet, *, shoe: Sequence[int] | None = None) -> StrategyChart:
    """The total-dependent basic-strategy chart for ``rules`` (its full shoe unless given)."""
    result = FastAnalysis(GameParams.from_rules(rules, shoe), rules.key).analyse()
    assert result.chart is not None
    return result.chart
