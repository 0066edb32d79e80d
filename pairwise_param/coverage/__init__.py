"""t-way coverage of ANY list of rows, independent of the engine.

:func:`measure` reports, per strength t, how many t-tuples of values could be
covered, how many are, which are missing, which no valid row can contain,
which rows break a constraint or fall outside the model, and how coverage
grows row after row.  This package checks the engine, so it never imports
:mod:`pairwise_param.engine` (a test asserts it).

Modules: :mod:`~pairwise_param.coverage.types` (result types),
:mod:`~pairwise_param.coverage.view` (rows -> indices, the own exact
feasibility search), :mod:`~pairwise_param.coverage.measure` (measuring),
:mod:`~pairwise_param.coverage.infer` (models inferred from observed rows).
"""

from pairwise_param.coverage.infer import audit_rows, model_from_rows
from pairwise_param.coverage.measure import extendable, measure
from pairwise_param.coverage.types import (
    Combination,
    CoverageReport,
    LevelCoverage,
    OutOfModel,
    Violation,
    fails_under,
)

__all__ = [
    "Combination",
    "CoverageReport",
    "LevelCoverage",
    "OutOfModel",
    "Violation",
    "audit_rows",
    "extendable",
    "fails_under",
    "measure",
    "model_from_rows",
]
