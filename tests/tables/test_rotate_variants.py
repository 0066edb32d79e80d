"""A rotated run of a compile-aware table compiles no variant the fixed table does not
(tables/rotate_variants.py), while its rows still rotate and cover every t-tuple."""

from __future__ import annotations

from pairwise_param.coverage import measure
from pairwise_param.model import Model
from pairwise_param.tables.build import build_table
from pairwise_param.tables.rotate import rotate
from pairwise_param.tables.rotate_variants import rotate_compile_aware

AXES = {"norm": ["rms", "layer"], "dtype": ["bf16", "fp16", "fp32"], "w": [False, True], "b": [False, True],
        "scale": ["s", "c", "r", "f"], "shift": ["s", "c", "r", "f"], "padded": [False, True]}
COMPILED = ["norm", "dtype", "w", "b"]


def _variants(model: Model, rows) -> set[tuple[int, ...]]:
    return {tuple(r[a] for a in model.compile_axes) for r in rows}


def test_rotated_runs_keep_the_fixed_tables_variants_and_rotate_the_rows():
    model = Model(AXES, constraints=["w or not b"], compile_axes=COMPILED)
    fixed = build_table(model)
    runs: list = []
    for _ in range(2):
        rotated = rotate_compile_aware(model, fixed, runs)
        assert _variants(model, rotated.rows) <= _variants(model, fixed.rows)
        assert rotated.rows != fixed.rows and len(rotated.rows) <= 1.1 * len(fixed.rows) + 1
        report = measure(model, [model.decode(r) for r in rotated.rows])
        assert report.complete and not report.violations
        runs.append(rotated.rows)
    # what the plain rotation would do with the same history: more variants than the fixed table
    plain = rotate(model, fixed, runs[:1]).table
    assert len(_variants(model, plain.rows)) > len(_variants(model, fixed.rows))
