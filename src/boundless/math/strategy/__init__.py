"""The basic-strategy chart of a rule set: derived exactly, shipped beside the title file."""

from boundless.math.exact.basic_strategy import derive_basic_strategy
from boundless.math.strategy.charts import (
    CHART_SUFFIX,
    chart_header,
    chart_path,
    chart_text,
    write_chart,
)

__all__ = [
    "CHART_SUFFIX",
    "chart_header",
    "chart_path",
    "chart_text",
    "derive_basic_strategy",
    "write_chart",
]
