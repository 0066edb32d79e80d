"""The rotation property, through the plugin's path (``Rotation.table_for``), checked
by brute force (issue 38): over full, cover, constrained and include models and random
histories, every run of a table

* in full mode is the full product of the rows no constraint forbids, in order (never
  rotated);
* in cover mode holds every feasible t-tuple (a t-tuple some allowed row holds), no
  forbidden row, each include row's cells in its row, no repeated row, at most
  floor(1.1 x) the fixed table's rows, and the same rows when asked again.

The checker below enumerates the full product itself and evaluates the constraints as
plain Python on the values: it imports neither the engine, nor ``measure``, nor
``verified``.  Sized by the repo's Hypothesis profile (``tests/sizing.py``).
"""

from __future__ import annotations

import itertools
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from sizing import examples

from pairwise_param import Model
from pairwise_param.plugin.rotation import Rotation
from pairwise_param.runs.history import History, HistoryTable
from pairwise_param.tables.build import build_table

TEST = "t.py::test_k"


class Case:
    """A model drawn as plain data: the checker's source of truth."""

    def __init__(self, sizes: list[int], strength: int, never: tuple[int, int] | None,
                 include: dict[str, int] | None, mode: str) -> None:
        self.sizes, self.strength, self.never, self.include, self.mode = sizes, strength, never, include, mode
        self.axes = {f"a{k}": [f"v{k}.{i}" for i in range(s)] for k, s in enumerate(sizes)}

    def model(self) -> Model:
        constraints: list[Any] = []
        if self.never is not None:
            x, y = self.never
            constraints.append({"never": {"a0": self.axes["a0"][x], "a1": self.axes["a1"][y]}})
        include = [] if self.include is None else [{k: self.axes[k][v] for k, v in self.include.items()}]
        return Model(self.axes, strength=self.strength, constraints=constraints, include=include)

    def allowed(self, values: tuple[str, ...]) -> bool:
        if self.never is None:
            return True
        x, y = self.never
        return not (values[0] == self.axes["a0"][x] and values[1] == self.axes["a1"][y])

    def product(self) -> list[tuple[str, ...]]:
        return [v for v in itertools.product(*self.axes.values()) if self.allowed(v)]


@st.composite
def cases(draw: st.DrawFn) -> tuple[Case, list[list[tuple[int, ...]]]]:
    sizes = draw(st.lists(st.integers(1, 4), min_size=2, max_size=5))
    strength = draw(st.integers(1, min(3, len(sizes))))
    never = None
    if draw(st.booleans()) and sizes[0] > 1 and sizes[1] > 1:
        never = (draw(st.integers(0, sizes[0] - 1)), draw(st.integers(0, sizes[1] - 1)))
    include = None
    if draw(st.booleans()):
        axis = draw(st.integers(2, len(sizes) - 1)) if len(sizes) > 2 else 0
        include = {f"a{axis}": draw(st.integers(0, sizes[axis] - 1))}
    mode = draw(st.sampled_from(["cover", "cover", "full"]))
    case = Case(sizes, strength, never, include, mode)
    allowed = [tuple(r) for r in itertools.product(*(range(s) for s in sizes))
               if case.allowed(tuple(case.axes[f"a{k}"][x] for k, x in enumerate(r)))]
    runs = [draw(st.lists(st.sampled_from(allowed), min_size=1, max_size=8)) for _ in range(draw(st.integers(0, 4)))]
    return case, runs


@settings(max_examples=examples(40), deadline=None)
@given(cases())
def test_every_rotated_run_is_complete_allowed_and_bounded(drawn: tuple[Case, list[list[tuple[int, ...]]]]) -> None:
    case, runs = drawn
    model = case.model()
    fixed = build_table(model, case.mode)
    entry = HistoryTable(TEST, 0, model.fingerprint(), model.strength, tuple(model.sizes),
                         tuple(case.axes), tuple(tuple(run) for run in runs))
    history = History({(TEST, 0): entry})
    table = Rotation(None, history, "").table_for(TEST, 0, model, fixed, mode=case.mode)
    again = Rotation(None, history, "").table_for(TEST, 0, model, fixed, mode=case.mode)
    assert table.rows == again.rows
    names = list(case.axes)
    rows = [tuple(case.axes[names[k]][x] for k, x in enumerate(r)) for r in table.rows]
    product = case.product()
    if case.mode == "full":
        assert rows == product  # the full product, in order: never rotated
        return
    assert all(case.allowed(r) for r in rows)
    assert len(set(rows)) == len(rows)
    assert len(rows) <= max(len(fixed.rows), math.floor(len(fixed.rows) * 1.1 + 1e-9))
    if case.include is not None:
        assert all(rows[0][int(k[1:])] == case.axes[k][v] for k, v in case.include.items())
    t = case.strength
    for scope in itertools.combinations(range(len(names)), t):
        feasible = {tuple(r[a] for a in scope) for r in product}
        held = {tuple(r[a] for a in scope) for r in rows}
        assert feasible <= held, f"scope {scope}: {sorted(feasible - held)} not covered"
