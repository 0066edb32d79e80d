"""A rotated run of a compile-aware table (tables/rotate_variants.py): its variant list
rotates too, never longer than the fixed table's, every t-tuple still covered (checked
by the independent checker, coverage/), reaching the compile axes' (t+1)-tuples the
earlier runs did not compile; run 1 is the fixed table."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pairwise_param.coverage import measure
from pairwise_param.model import Model
from pairwise_param.tables.build import build_table, compile_view
from pairwise_param.tables.rotate import rotate
from pairwise_param.tables.rotate_variants import rotate_compile_aware
from tests.sizing import examples

AXES = {"norm": ["rms", "layer"], "dtype": ["bf16", "fp16", "fp32"], "w": [False, True], "b": [False, True],
        "scale": ["s", "c", "r", "f"], "shift": ["s", "c", "r", "f"], "padded": [False, True]}
COMPILED = ["norm", "dtype", "w", "b"]

#: the fault study's fused-norm compile model in small: five two-valued compile axes, 74
#: coverable triples of them, six variants fixed
FUSED = {"norm": ["rms", "layer"], "gate": [False, True], "glayout": ["none", "s", "c"], "w": [False, True],
         "b": [False, True], "eps": [1e-6, 1e-5], "scale": ["s", "c", "r"], "shift": ["s", "c", "r"]}
FUSED_RULES = ["gate == (glayout != 'none')", "w or not b"]
FUSED_COMPILE = ["norm", "gate", "w", "b", "eps"]


def _variants(model: Model, rows) -> set[tuple[int, ...]]:
    return {tuple(r[a] for a in model.compile_axes) for r in rows}


def _up_tuples(model: Model, rows) -> set[tuple[tuple[int, ...], tuple[int, ...]]]:
    """The compile axes' (t+1)-tuples the rows hold (t: the compile model's strength)."""
    k = compile_view(model)[0].strength + 1
    axes = model.compile_axes
    return {(s, tuple(r[axes[i]] for i in s)) for r in rows for s in itertools.combinations(range(len(axes)), k)}


def _feasible_up(model: Model) -> int:
    cmodel, cfeas = compile_view(model)
    valid = [c for c in itertools.product(*(range(s) for s in cmodel.sizes)) if cfeas.violates(c) is None]
    k = cmodel.strength + 1
    return len({(s, tuple(c[i] for i in s)) for c in valid for s in itertools.combinations(range(len(cmodel.sizes)), k)})


def _runs(model: Model, n: int):
    fixed = build_table(model)
    runs = [fixed.rows]
    tables = [fixed]
    for _ in range(n - 1):
        tables.append(rotate_compile_aware(model, fixed, runs))
        runs.append(tables[-1].rows)
    return fixed, tables


def _complete(model: Model, rows) -> bool:
    report = measure(model, [model.decode(r) for r in rows])
    return report.complete and not report.violations


def test_run_one_is_the_fixed_table_exactly():
    model = Model(AXES, constraints=["w or not b"], compile_axes=COMPILED)
    fixed = build_table(model)
    assert rotate_compile_aware(model, fixed, []) is fixed


def test_rotated_runs_rotate_the_variant_list_never_growing_it():
    model = Model(AXES, constraints=["w or not b"], compile_axes=COMPILED)
    fixed, tables = _runs(model, 4)
    k = len(_variants(model, fixed.rows))
    for table in tables[1:]:
        assert len(_variants(model, table.rows)) <= k
        assert table.rows != fixed.rows and len(table.rows) <= 1.1 * len(fixed.rows) + 1
        assert _complete(model, table.rows)
    # the variant list itself moved: some rotated run compiles a variant the fixed table does not
    assert any(_variants(model, t.rows) - _variants(model, fixed.rows) for t in tables[1:])
    # what the plain rotation would do with the same history: more variants than the fixed table
    plain = rotate(model, fixed, [fixed.rows]).table
    assert len(_variants(model, plain.rows)) > k


def test_the_union_of_compile_triples_grows_run_by_run_until_complete():
    """Fused norm in small: the fixed list holds part of the 74-ish compile triples; each
    rotated run adds triples until the union holds every feasible one."""
    model = Model(FUSED, constraints=FUSED_RULES, compile_axes=FUSED_COMPILE)
    fixed, tables = _runs(model, 4)
    total = _feasible_up(model)
    k = len(_variants(model, fixed.rows))
    union: set = set()
    sizes = []
    for table in tables:
        assert len(_variants(model, table.rows)) <= k and _complete(model, table.rows)
        union |= _up_tuples(model, table.rows)
        sizes.append(len(union))
    assert sizes[0] < total  # the fixed list cannot hold them all: there is room to grow
    for before, after in itertools.pairwise(sizes):
        assert after > before or before == total
    assert sizes[-1] == total


def test_must_include_rows_stay_first_in_every_rotated_run():
    include = [{"norm": "layer", "dtype": "fp32", "w": True, "b": True}]
    model = Model(AXES, constraints=["w or not b"], compile_axes=COMPILED, include=include)
    fixed, tables = _runs(model, 3)
    for table in tables:
        row = model.decode(table.rows[0])
        assert (row["norm"], row["dtype"], row["w"], row["b"]) == ("layer", "fp32", True, True)
        assert _complete(model, table.rows)
        assert len(_variants(model, table.rows)) <= len(_variants(model, fixed.rows))


_SCRIPT = """
from pairwise_param.model import Model
from pairwise_param.tables.build import build_table
from pairwise_param.tables.rotate_variants import rotate_compile_aware
from tests.tables.test_rotate_variants import FUSED, FUSED_COMPILE, FUSED_RULES
model = Model(FUSED, constraints=FUSED_RULES, compile_axes=FUSED_COMPILE)
fixed = build_table(model)
runs = [fixed.rows]
for _ in range(3):
    runs.append(rotate_compile_aware(model, fixed, runs).rows)
print(runs)
"""


def test_same_history_same_rows_in_every_process():
    root = Path(__file__).resolve().parents[2]
    got = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(root)}
        out = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, cwd=root, capture_output=True, text=True,
                             check=True)
        got.add(out.stdout)
    assert len(got) == 1


@st.composite
def compile_models(draw):
    """Axes (4..6, 2..3 values), 2..4 compile axes, strength 2 or 3, a constraint among
    the compile axes and one between a compile axis and another (the latter can tie a
    tuple to some variants: the rotated list must not lose it)."""
    n = draw(st.integers(4, 6))
    sizes = draw(st.lists(st.integers(2, 3), min_size=n, max_size=n))
    axes = {f"a{i}": list(range(s)) for i, s in enumerate(sizes)}
    names = list(axes)
    k = draw(st.integers(2, min(4, n - 1)))
    compile_axes = sorted(draw(st.permutations(names))[:k], key=names.index)
    others = [a for a in names if a not in compile_axes]
    t = draw(st.sampled_from([2, 2, 3]))
    rules = []
    if draw(st.booleans()):
        rules.append(f"not ({compile_axes[0]} == 0 and {compile_axes[1]} == 1)")
    if draw(st.booleans()):
        rules.append(f"not ({compile_axes[-1]} == 1 and {others[0]} == 0)")
    include = [{compile_axes[0]: 1, others[0]: 1}] if draw(st.booleans()) else []
    return axes, compile_axes, t, rules, include


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(compile_models())
def test_rotated_runs_never_compile_more_variants_and_cover_everything(case):
    axes, compile_axes, t, rules, include = case
    model = Model(axes, strength=t, constraints=rules, compile_axes=compile_axes, include=include)
    fixed = build_table(model)
    assert rotate_compile_aware(model, fixed, []) is fixed
    k = len(_variants(model, fixed.rows))
    runs = [fixed.rows]
    for _ in range(3):
        table = rotate_compile_aware(model, fixed, runs)
        assert len(_variants(model, table.rows)) <= k
        assert _complete(model, table.rows)
        assert len(set(table.rows)) == len(table.rows)
        for inc, row in zip(model.include, table.rows):
            assert all(v is None or v == x for v, x in zip(inc, row))
        runs.append(table.rows)


def test_a_tuple_tied_to_some_variants_is_never_lost():
    """x=2 needs c0=c1=c2=1: a moved list without such a variant loses (x=2, ...) tuples;
    the next try keeps the fixed variants that held them, and the run still rotates."""
    model = Model({"c0": [0, 1], "c1": [0, 1], "c2": [0, 1], "c3": [0, 1], "x": [0, 1, 2], "y": [0, 1]},
                  constraints=["x != 2 or (c0 == 1 and c1 == 1 and c2 == 1)"], compile_axes=["c0", "c1", "c2", "c3"])
    fixed, tables = _runs(model, 2)
    rotated = tables[1]
    assert len(_variants(model, rotated.rows)) <= len(_variants(model, fixed.rows))
    assert _variants(model, rotated.rows) != _variants(model, fixed.rows)
    assert _complete(model, rotated.rows)


def test_a_rotated_run_keeps_the_fixed_tables_method_and_full_count():
    model = Model(FUSED, constraints=FUSED_RULES, compile_axes=FUSED_COMPILE)
    fixed = build_table(model, count=True)
    rotated = rotate_compile_aware(model, fixed, [fixed.rows])
    assert _variants(model, rotated.rows) != _variants(model, fixed.rows)  # a moved list, its own build
    assert (rotated.method, rotated.full_count, rotated.full_exact) == (fixed.method, fixed.full_count, True)
