"""A strategy chart as people read it: a Rich table, CSV, HTML and a colour PNG."""

from __future__ import annotations

import csv
import html
import io
from pathlib import Path

from rich.console import Group
from rich.table import Table
from rich.text import Text

from boundless.core.rules import RuleSet
from boundless.core.strategy_chart import (
    HARD_ROWS,
    PAIR_ROWS,
    SOFT_ROWS,
    UP_COLUMNS,
    StrategyChart,
)

SECTIONS = (
    ("hard", "Hard totals", HARD_ROWS),
    ("soft", "Soft totals", SOFT_ROWS),
    ("pairs", "Pairs", PAIR_ROWS),
)
COLUMN_LABELS = tuple("A" if up == 1 else str(up) for up in UP_COLUMNS)
MEANINGS = {
    "H": "hit",
    "S": "stand",
    "Dh": "double, else hit",
    "Ds": "double, else stand",
    "P": "split",
    "Rh": "surrender, else hit",
    "Rs": "surrender, else stand",
    "Rp": "surrender, else split",
}
# Background colours by first choice; the second choice is told by the shade.
COLOURS = {
    "H": "#f4f4f4",
    "S": "#f7e36b",
    "Dh": "#5cb85c",
    "Ds": "#a3d977",
    "P": "#5b9bd5",
    "Rh": "#e06666",
    "Rs": "#f4a582",
    "Rp": "#c27ba0",
}


def _row_label(section: str, row: int) -> str:
    if section == "pairs":
        return "A,A" if row == 1 else f"{row},{row}"
    if section == "soft":
        other = row - 11
        return "A,A" if other == 1 else f"A,{other}"
    return str(row)


def _table_of(chart: StrategyChart, section: str) -> dict[tuple[int, int], str]:
    return {"hard": chart.hard, "soft": chart.soft, "pairs": chart.pairs}[section]


def chart_rows(chart: StrategyChart) -> list[tuple[str, str, list[str]]]:
    """(section, row label, cells by up card 2..10, A) for every row of the chart."""
    rows = []
    for section, _, row_keys in SECTIONS:
        table = _table_of(chart, section)
        for row in row_keys:
            cells = [table[(row, up)] for up in UP_COLUMNS]
            rows.append((section, _row_label(section, row), cells))
    return rows


def legend_lines() -> list[str]:
    return [f"{code:<2}  {meaning}" for code, meaning in MEANINGS.items()]


def chart_rich(chart: StrategyChart, title: str, note: str = "") -> Group:
    """Coloured Rich tables, one per section, and the legend (and the title's ``note``)."""
    parts: list[Table | Text] = [Text(f"Basic strategy: {title}", style="bold")]
    rows = chart_rows(chart)
    for section, heading, _ in SECTIONS:
        table = Table(title=heading, title_justify="left", show_lines=False, padding=(0, 1))
        table.add_column("hand", justify="right", style="bold")
        for label in COLUMN_LABELS:
            table.add_column(label, justify="center")
        for row_section, label, cells in rows:
            if row_section != section:
                continue
            styled = [Text(f"{cell:^3}", style=f"black on {COLOURS[cell]}") for cell in cells]
            table.add_row(label, *styled)
        parts.append(table)
    parts.append(Text("Dealer up card across the top.  " + "   ".join(legend_lines())))
    if note:
        parts.append(Text(note, style="italic"))
    return Group(*parts)


def chart_csv(chart: StrategyChart) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["table", "hand", *COLUMN_LABELS])
    for section, label, cells in chart_rows(chart):
        writer.writerow([section, label, *cells])
    return buffer.getvalue()


def chart_html(chart: StrategyChart, title: str, note: str = "") -> str:
    """A self-contained HTML page with the coloured chart and the legend."""
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>Basic strategy: {html.escape(title)}</title>",
        "<style>body{font-family:sans-serif}table{border-collapse:collapse;margin:1em 0}"
        "td,th{border:1px solid #999;padding:2px 6px;text-align:center;min-width:2em}"
        "th.hand{text-align:right}</style></head><body>",
        f"<h1>Basic strategy: {html.escape(title)}</h1>",
        "<p>Columns: the dealer's up card.</p>",
    ]
    if note:
        out.append(f"<p><em>{html.escape(note)}</em></p>")
    rows = chart_rows(chart)
    for section, heading, _ in SECTIONS:
        out.append(f"<h2>{heading}</h2><table><tr><th></th>")
        out.extend(f"<th>{label}</th>" for label in COLUMN_LABELS)
        out.append("</tr>")
        for row_section, label, cells in rows:
            if row_section != section:
                continue
            out.append(f'<tr><th class="hand">{html.escape(label)}</th>')
            out.extend(
                f'<td style="background:{COLOURS[cell]}" title="{MEANINGS[cell]}">{cell}</td>'
                for cell in cells
            )
            out.append("</tr>")
        out.append("</table>")
    out.append("<h2>Legend</h2><table>")
    out.extend(
        f'<tr><td style="background:{COLOURS[code]}">{code}</td><td>{meaning}</td></tr>'
        for code, meaning in MEANINGS.items()
    )
    out.append("</table></body></html>")
    return "\n".join(out) + "\n"


def chart_png(chart: StrategyChart, title: str, path: Path, note: str = "") -> None:
    """Draw the chart as a colour picture: three grids of cells and a legend."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch, Rectangle

    rows = chart_rows(chart)
    figure = Figure(figsize=(15, 9))
    FigureCanvasAgg(figure)
    axes = figure.subplots(1, 3, gridspec_kw={"width_ratios": [1, 1, 1]})
    for axis, (section, heading, row_keys) in zip(axes, SECTIONS, strict=True):
        section_rows = [(label, cells) for sec, label, cells in rows if sec == section]
        for y, (_, cells) in enumerate(section_rows):
            for x, cell in enumerate(cells):
                axis.add_patch(
                    Rectangle((x, y), 1, 1, facecolor=COLOURS[cell], edgecolor="#666666")
                )
                axis.text(x + 0.5, y + 0.5, cell, ha="center", va="center", fontsize=9)
        axis.set_xlim(0, len(COLUMN_LABELS))
        axis.set_ylim(len(section_rows), 0)
        axis.set_xticks([x + 0.5 for x in range(len(COLUMN_LABELS))], COLUMN_LABELS)
        axis.set_yticks([y + 0.5 for y in range(len(row_keys))], [r[0] for r in section_rows])
        axis.xaxis.tick_top()
        axis.set_title(heading, pad=24)
        axis.set_xlabel("dealer up card")
        axis.tick_params(length=0)
        for spine in axis.spines.values():
            spine.set_visible(False)
    figure.suptitle(f"Basic strategy: {title}", fontsize=14)
    handles = [
        Patch(facecolor=COLOURS[code], edgecolor="#666666", label=f"{code}: {meaning}")
        for code, meaning in MEANINGS.items()
    ]
    figure.legend(handles=handles, loc="lower center", ncol=4, frameon=False)
    if note:
        figure.text(0.5, 0.01, note, ha="center", fontsize=9, style="italic")
    figure.subplots_adjust(left=0.05, right=0.98, top=0.86, bottom=0.14, wspace=0.25)
    figure.savefig(path, dpi=120, format="png")  # exactly ``path``, whatever its name


def chart_note(rules: RuleSet) -> str:
    """What a reader of this title's chart must know beyond the legend."""
    if rules.split.offered == "basic_strategy_pairs" and rules.split.decline_refund:
        refund = rules.split.decline_refund
        return (
            "Pairs marked P or Rp are the only pairs this title lets you split; there the other "
            f"choice is to give the hand up for {refund.numerator}/{refund.denominator} of the "
            "bet (Surrender 20%), which Rp prefers to the split."
        )
    return ""
