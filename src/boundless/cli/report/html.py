"""The report as one self-contained HTML file: inline CSS, the chart as a base64 PNG.

Every piece of text is escaped with :func:`html.escape`; nothing is read from outside the file
when it is opened, so it can be archived or mailed as it is.
"""

from __future__ import annotations

import base64
from html import escape

from boundless.cli.report.sections import Section, Table

STYLE = """
body { font-family: Georgia, 'Times New Roman', serif; max-width: 60rem; margin: 2rem auto;
       padding: 0 1.5rem; color: #111; line-height: 1.45; }
h1 { border-bottom: 2px solid #333; padding-bottom: .3rem; }
h2 { margin-top: 2.2rem; border-bottom: 1px solid #999; }
h3 { margin-bottom: .3rem; }
table { border-collapse: collapse; margin: .6rem 0 1rem; font-family: Menlo, Consolas, monospace;
        font-size: .85rem; }
caption { text-align: left; font-style: italic; padding-bottom: .2rem; }
th, td { border: 1px solid #bbb; padding: .2rem .55rem; text-align: right; }
th:first-child, td:first-child { text-align: left; }
th { background: #eee; }
table.text td, table.text th { text-align: left; }
li { margin-bottom: .25rem; }
img { max-width: 100%; border: 1px solid #ccc; }
footer { margin-top: 3rem; font-size: .8rem; color: #555; }
@media print { h2 { page-break-after: avoid; } table, img { page-break-inside: avoid; } }
"""


def _table(table: Table) -> str:
    caption = f"<caption>{escape(table.caption)}</caption>" if table.caption else ""
    head = "".join(f"<th>{escape(cell)}</th>" for cell in table.header)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>" for row in table.rows
    )
    kind = ' class="text"' if table.text_columns else ""
    return f"<table{kind}>{caption}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _section(section: Section, level: int) -> str:
    parts = [f"<h{level}>{escape(section.heading)}</h{level}>"]
    parts += [f"<p>{escape(paragraph)}</p>" for paragraph in section.paragraphs]
    if section.items:
        parts.append(
            "<ul>" + "".join(f"<li>{escape(item)}</li>" for item in section.items) + "</ul>"
        )
    parts += [_table(table) for table in section.tables]
    if section.image_png is not None:
        data = base64.b64encode(section.image_png).decode("ascii")
        parts.append(f'<img src="data:image/png;base64,{data}" alt="{escape(section.image_alt)}">')
    parts += [_section(sub, min(level + 1, 6)) for sub in section.subsections]
    return "<section>" + "\n".join(parts) + "</section>"


def report_html(title: str, sections: list[Section], footer: str) -> str:
    body = "\n".join(_section(section, 2) for section in sections)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>"
        f"<h1>{escape(title)}</h1>\n{body}\n<footer>{escape(footer)}</footer></body></html>\n"
    )
