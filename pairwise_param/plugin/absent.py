"""Axis values whose skip mark is already true at collection are left out of the table.

``pytest.param(torch.bfloat16, marks=pytest.mark.skipif(not has_bf16(), reason=...))``
skips every row that holds the value.  In a full product that costs only the
value's own rows; in a covering table those rows were also the only ones to
cover some pairs of the OTHER axes, which then never run.  So, in cover mode,
a value whose mark is ``skip`` or a ``skipif`` with a true non-string
condition is treated as absent BEFORE the table is built: the model gets one
extra rule forbidding the value, the engine covers every pair of what can
run, and the value's tuples are reported as not coverable, with the mark's
reason, in the summary's list of tuples no row holds.

Kept as today (the value stays, its rows are skipped at run time):

* ``skipif`` whose conditions are strings (pytest evaluates them per item),
  or all false;
* full mode (every row of the product is collected anyway, and the skipped
  items show up as skipped: ``--pairwise-mode=full`` keeps pytest's counts);
* when leaving the values out leaves no row at all (every value of an axis
  skipped, or the constraints need the value): every row would be skipped
  anyway, so the skip marks say it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from pairwise_param.constraints import AXIS_NAMES_ATTR
from pairwise_param.coverage.reach import absent_values
from pairwise_param.decorator import PairwiseSpec
from pairwise_param.errors import PairwiseError
from pairwise_param.model import Model
from pairwise_param.tables.build import exhaustive
from pairwise_param.values import value_key, value_label

__all__ = ["Absent", "model_for", "split_infeasible"]

#: (axis index, value index, reason)
Absent = tuple[int, int, str]


def _rule(axis_name: str, value: Any) -> Any:
    """A constraint forbidding one value of one axis (bound by the axis name,
    which for a grouped axis ``"n,k"`` is no identifier)."""
    key = value_key(value)

    def predicate(**row: Any) -> bool:
        return value_key(row[axis_name]) != key

    label = f"skipped at collection: {axis_name}={value_label(value)}"
    predicate.__name__ = label
    predicate.__qualname__ = label
    setattr(predicate, AXIS_NAMES_ATTR, (axis_name,))
    return predicate


def model_for(spec: PairwiseSpec, nodeid: str, strength: int | None, mode: str) -> tuple[Model, Model | None, tuple[Absent, ...]]:
    """(model to build the table from, the model with every value -- or None when
    they are the same --, the values left out).  See the module docstring."""
    model = spec.model(nodeid, strength=strength)
    if exhaustive(mode) or not spec.value_params:
        return model, None, ()
    absent: list[Absent] = []
    rules = []
    values = list(spec.axes.values())
    for (a, pos), reason in absent_values(spec.axes, spec.value_params).items():
        absent.append((a, pos, reason))
        rules.append(_rule(model.axes[a].name, values[a][pos]))
    if not absent:
        return model, None, ()
    try:
        reduced = dataclasses.replace(spec, constraints=(*spec.constraints, *rules)).model(nodeid, strength=strength)
    except PairwiseError:
        return model, None, ()  # nothing can run without them: every row is skipped anyway
    return reduced, model, tuple(absent)


def split_infeasible(
    original: Model | None, infeasible: Sequence[tuple[Sequence[int], Sequence[int]]]
) -> tuple[list[tuple[Sequence[int], Sequence[int]]], list[tuple[Sequence[int], Sequence[int]]]]:
    """(tuples the user's constraints forbid, tuples lost only to values left out):
    a tuple is the latter when the model with every value could hold it."""
    if original is None:
        return list(infeasible), []
    forbidden: list[tuple[Sequence[int], Sequence[int]]] = []
    absent: list[tuple[Sequence[int], Sequence[int]]] = []
    n = len(original.axes)
    for scope, values in infeasible:
        cells: list[int | None] = [None] * n
        for a, v in zip(scope, values):
            cells[a] = v
        ok = original.feasibility.violates(cells) is None and original.feasibility.completable(cells)
        (absent if ok else forbidden).append((scope, values))
    return forbidden, absent
