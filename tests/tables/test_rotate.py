"""Rotating tables (pairwise_param.tables.rotate): every run complete at t, at most
1.1x the fixed rows, deterministic, and covering what the history missed."""

from __future__ import annotations

import itertools
import math
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sizing import examples

from pairwise_param import Model, measure
from pairwise_param.errors import InvalidArgument
from pairwise_param.tables import rotate_plan as rotate_module
from pairwise_param.tables.build import build_table, verified
from pairwise_param.tables.rotate import SLACK, cycle_rows, level_scopes, max_rows, rotate

WVSPLITK = {"dtype": ["bf16", "fp16"], "padded_a": [False, True], "padded_b": [False, True],
            "bias_mode": [0, 1, 2], "xnorm": [False, True]}


def covered(model: Model, runs: list[list[tuple[int, ...]]], strength: int) -> float:
    rows = [model.decode(r) for run in runs for r in run]
    percent = measure(model, rows, strengths=[strength]).level(strength).percent
    assert percent is not None
    return percent


def rotated_runs(model: Model, count: int) -> list[list[tuple[int, ...]]]:
    fixed = build_table(model)
    runs: list[list[tuple[int, ...]]] = [list(fixed.rows)]
    for _ in range(count - 1):
        runs.append(list(rotate(model, fixed, runs).table.rows))
    return runs


def test_wvsplitk_reaches_every_triple_at_the_lower_bound() -> None:
    """The issue's example: 6-row pairwise tables, 104 triples; a 3-way table has 15
    rows, so ceil(15 / 6) = 3 runs is the bound, and rotation meets it."""
    model = Model(WVSPLITK)
    runs = rotated_runs(model, 3)
    assert [len(r) for r in runs] == [6, 6, 6]
    assert covered(model, runs[:2], 3) < 100.0
    assert covered(model, runs, 3) == 100.0
    for run in runs:
        assert measure(model, [model.decode(r) for r in run]).complete


def test_the_fixed_table_never_gets_there() -> None:
    model = Model(WVSPLITK)
    fixed = build_table(model)
    assert covered(model, [list(fixed.rows)] * 5, 3) < 60.0


def test_cycles_restart_and_the_next_strength_keeps_filling() -> None:
    model = Model(WVSPLITK)
    runs = rotated_runs(model, 9)
    assert covered(model, runs, 4) == 100.0  # 48 rows of the full product, in 9 runs of 6
    # after the first 3-way cycle the (t+1) history starts over
    assert cycle_rows(model, runs[:3], 3) == []
    assert len(cycle_rows(model, runs[:2], 3)) == 12


def test_same_history_same_rows_and_a_new_history_new_rows() -> None:
    model = Model(WVSPLITK)
    fixed = build_table(model)
    history = [list(fixed.rows)]
    a = rotate(model, fixed, history).table.rows
    b = rotate(Model(WVSPLITK), build_table(Model(WVSPLITK)), [list(r) for r in history]).table.rows
    assert a == b
    assert rotate(model, fixed, [list(fixed.rows), list(a)]).table.rows != a


def test_constraints_include_rows_and_sub_models_are_kept() -> None:
    model = Model(
        {"dtype": ["fp16", "bf16", "fp32"], "k": [1, 2, 3], "flag": [False, True], "s": ["x", "y"], "b": [0, 1, 2]},
        constraints=[lambda dtype, k: not (dtype == "fp32" and k == 3)],
        include=[{"dtype": "bf16", "k": 2}],
        sub_models=[(("dtype", "k", "flag"), 3)],
    )
    fixed = build_table(model)
    runs = [list(fixed.rows)]
    for _ in range(3):
        table = rotate(model, fixed, runs).table
        assert verified(model, table)
        assert table.rows[0][:2] == (1, 1)
        assert len(table.rows) <= max_rows(len(fixed.rows))
        report = measure(model, [model.decode(r) for r in table.rows])
        assert report.complete and not report.violations
        runs.append(list(table.rows))
    assert covered(model, runs, 3) > covered(model, [list(fixed.rows)], 3)


def test_a_planned_cycle_reaches_every_triple_within_the_bound_plus_two() -> None:
    """A(7) x B(6) x C(6) is the scope of the most triples (252): one 42-row pairwise
    table covers 42 of them, so a cycle needs 6 runs, and the planned (Latin) runs
    take disjoint layers of it; a constraint ties A to D, as gate layout to has_gate."""
    axes = {"a": list(range(7)), "b": list(range(6)), "c": list(range(6)), "d": [False, True], "e": [0, 1, 2],
            "f": [0, 1]}
    model = Model(axes, constraints=[lambda a, d: d == (a != 0)])
    fixed = build_table(model)
    t3 = build_table(Model(axes, strength=3, constraints=[lambda a, d: d == (a != 0)]))
    bound = math.ceil(len(t3.rows) / len(fixed.rows))
    runs: list[list[tuple[int, ...]]] = [list(fixed.rows)]
    while covered(model, runs, 3) < 100.0:
        assert len(runs) < bound + 2, f"{len(runs)} runs: {covered(model, runs, 3):.1f}% 3-way, bound {bound}"
        table = rotate(model, fixed, runs).table
        assert verified(model, table) and len(table.rows) <= max_rows(len(fixed.rows))
        report = measure(model, [model.decode(r) for r in table.rows])
        assert report.complete and not report.violations
        runs.append(list(table.rows))
    # the planned runs' first 42 rows are disjoint layers of the (a, b, c) triples
    layers = [{(r[0], r[1], r[2]) for r in run[:42]} for run in runs[1:]]
    assert all(len(x) == 42 for x in layers)
    assert all(not (x & y) for x, y in itertools.combinations(layers, 2))


def test_max_rows_is_the_slack_of_the_fixed_table() -> None:
    assert SLACK == 1.1 and max_rows(6) == 6 and max_rows(10) == 11 and max_rows(20) == 22 and max_rows(9, 1.5) == 13


def test_bad_history_and_slack_are_named() -> None:
    model = Model(WVSPLITK, where="test_k")
    fixed = build_table(model)
    with pytest.raises(InvalidArgument, match=r"history row \[0, 0, 0, 3, 0\] is not a row"):
        rotate(model, fixed, [[(0, 0, 0, 3, 0)]])
    with pytest.raises(InvalidArgument, match="slack=0.5"):
        rotate(model, fixed, [], slack=0.5)


def test_level_scopes() -> None:
    assert level_scopes(3, 4) == () and len(level_scopes(5, 3)) == 10


# -- properties --------------------------------------------------------------------
@st.composite
def models(draw: st.DrawFn) -> tuple[Model, list[list[tuple[int, ...]]]]:
    sizes = draw(st.lists(st.integers(1, 4), min_size=2, max_size=6))
    axes = {f"a{k}": list(range(s)) for k, s in enumerate(sizes)}
    strength = draw(st.integers(1, min(3, len(sizes))))
    constraints: list[Any] = []
    if draw(st.booleans()) and sizes[0] > 1 and sizes[1] > 1:
        x, y = draw(st.integers(0, sizes[0] - 1)), draw(st.integers(0, sizes[1] - 1))
        constraints.append({"never": {"a0": x, "a1": y}})
    include: list[dict[str, int]] = []
    if draw(st.booleans()):
        include.append({"a0": sizes[0] - 1})
    model = Model(axes, strength=strength, constraints=constraints, include=include)
    seed = draw(st.integers(0, 2**16))
    rng = random.Random(seed)
    feasible = [r for r in itertools.product(*(range(s) for s in sizes)) if model.feasibility.violates(r) is None]
    runs = [rng.sample(feasible, min(len(feasible), rng.randint(1, 6))) for _ in range(draw(st.integers(0, 3)))]
    return model, runs


@settings(max_examples=examples(60))
@given(models())
def test_every_rotated_table_covers_every_t_tuple(case: tuple[Model, list[list[tuple[int, ...]]]]) -> None:
    model, runs = case
    fixed = build_table(model)
    got = rotate(model, fixed, runs, moves=400)
    table = got.table
    assert verified(model, table)  # the engine's side of the check
    report = measure(model, [model.decode(r) for r in table.rows])  # the independent one
    assert report.complete and not report.violations and not report.out_of_model
    assert len(table.rows) <= max(len(fixed.rows), math.floor(len(fixed.rows) * 1.1))
    for inc, row in zip(model.include, table.rows):
        assert all(v is None or v == x for v, x in zip(inc, row))
    assert rotate(model, fixed, runs, moves=400).table.rows == table.rows  # deterministic


@settings(max_examples=examples(30))
@given(models())
def test_rotation_covers_no_fewer_new_tuples_than_the_fixed_table(
    case: tuple[Model, list[list[tuple[int, ...]]]]
) -> None:
    model, runs = case
    fixed = build_table(model)
    t1 = model.strength + 1
    if t1 > len(model.sizes):
        return
    history = cycle_rows(model, runs, t1)
    before = covered(model, [history], t1) if history else 0.0
    with_fixed = covered(model, [history, list(fixed.rows)], t1)
    with_rotated = covered(model, [history, list(rotate(model, fixed, runs, moves=400).table.rows)], t1)
    assert with_rotated >= with_fixed - 1e-9 and with_rotated >= before


@settings(max_examples=examples(40))
@given(models())
def test_planned_runs_cover_every_t_tuple(case: tuple[Model, list[list[tuple[int, ...]]]]) -> None:
    """The same properties with a planned run wherever one can be made (2 layers up)."""
    model, runs = case
    fixed = build_table(model)
    saved = rotate_module.PLAN_LAYERS
    rotate_module.PLAN_LAYERS = 2
    try:
        table = rotate(model, fixed, runs, moves=400).table
        again = rotate(model, fixed, runs, moves=400).table
    finally:
        rotate_module.PLAN_LAYERS = saved
    assert verified(model, table)
    report = measure(model, [model.decode(r) for r in table.rows])
    assert report.complete and not report.violations and not report.out_of_model
    assert len(table.rows) <= max_rows(len(fixed.rows))
    for inc, row in zip(model.include, table.rows):
        assert all(v is None or v == x for v, x in zip(inc, row))
    assert again.rows == table.rows
