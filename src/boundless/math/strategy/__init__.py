"""The basic-strategy chart of a rule set: derived exactly, shipped beside the title file."""

from boundless.math.exact.basic_strategy import derive_basic_strategy
from boundless.math.strategy.charts import (
    chart_header,
    chart_path,
    chart_text,
    with_chart,
    write_chart,
)
from boundless.titles import CHART_SUFFIX

__all__ = [
    "CHART_SUFFIX",
    "chart_header",
    "chart_path",
    "chart_text",
    "derive_basic_strategy",
    "with_chart",
    "write_chart",
]
