"""The table's bets on each spot on a cluster: each gateway's ``bets_closed`` report carries its
own positions' totals (``spot_bets``), the coordinator sums the reports it counted at the bet
close and publishes the table's totals once, in the round's ``slices`` event; every gateway then
shows the same ``public.spot_bets`` as ``serve`` would.

A report without the field (a gateway of an older release) counts as zero, and the published
totals then say they are partial (``spot_bets_partial``) rather than pass for the whole table.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, cast

from boundless.core.round.views import add_spot_bets
from boundless.server.cluster.bus import JsonBody

FIGURES = ("positions", "main", "side")
SpotBets = dict[str, dict[str, int]]


def report_spot_bets(body: Mapping[str, Any]) -> SpotBets | None:
    """A report's ``spot_bets``, checked; None when it has none or a malformed one."""
    value = body.get("spot_bets")
    if not isinstance(value, dict):
        return None
    checked: SpotBets = {}
    for spot, figures in value.items():
        if not (isinstance(spot, str) and spot.isdigit() and isinstance(figures, dict)):
            return None
        amounts = [figures.get(key) for key in FIGURES]
        if not all(type(amount) is int and amount >= 0 for amount in amounts):
            return None
        checked[spot] = dict(zip(FIGURES, cast(list[int], amounts), strict=True))
    return checked


def table_spot_bets(reports: Mapping[str, JsonBody], gateways: Iterable[str]) -> JsonBody:
    """The fields the coordinator adds to ``slices``: the counted gateways' totals summed."""
    parts = [report_spot_bets(reports[gateway]) for gateway in sorted(gateways)]
    published: dict[str, object] = {"spot_bets": add_spot_bets(part for part in parts if part)}
    if any(part is None for part in parts):
        published["spot_bets_partial"] = True
    return published


def published_spot_bets(slices: Mapping[str, Any]) -> dict[str, Any] | None:
    """What a gateway adds to its public state from a ``slices`` event (None: nothing, as from
    a coordinator of an older release)."""
    totals = report_spot_bets(slices)
    if totals is None:
        return None
    view: dict[str, Any] = {"spot_bets": totals}
    if slices.get("spot_bets_partial") is True:
        view["spot_bets_partial"] = True
    return view
