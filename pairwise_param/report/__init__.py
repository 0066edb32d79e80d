"""The suite report: what a pytest suite covers (``pairwise-param report``).

* :mod:`~pairwise_param.report.collect` -- pytest's collection, in-process, recorded;
* :mod:`~pairwise_param.report.analyze` -- per test: option tables, counts, t-way coverage;
* :mod:`~pairwise_param.report.types` -- the result types;
* :mod:`~pairwise_param.report.render` -- terminal / Markdown / JSON text;
* :mod:`~pairwise_param.report.schema` -- the JSON Schema of the JSON report
  (``report.schema.json`` is its checked-in copy);
* :mod:`~pairwise_param.report.plot` -- cumulative coverage charts (matplotlib extra).
"""

from pairwise_param.report.analyze import (
    analyze,
    cumulative_series,
    has_key_column,
    is_shape_like,
    measure_table,
)
from pairwise_param.report.collect import CollectedItem, Collection, CollectionError, MarkInfo, collect
from pairwise_param.report.types import (
    AxisReport,
    StrengthCoverage,
    SuiteReport,
    TableReport,
    TestReport,
    Totals,
)

__all__ = [
    "AxisReport",
    "CollectedItem",
    "Collection",
    "CollectionError",
    "MarkInfo",
    "StrengthCoverage",
    "SuiteReport",
    "TableReport",
    "TestReport",
    "Totals",
    "analyze",
    "collect",
    "cumulative_series",
    "has_key_column",
    "is_shape_like",
    "measure_table",
]
