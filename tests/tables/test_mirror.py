"""Mirror jobs' tables (tables/mirror.py): each complete at t, different job to job, their
union covering more (t+1)-tuples than one table; the same in every process; compile-aware
models keep the fixed table's variants.  Coverage is checked by pairwise_param.coverage
(the independent checker), not by the rotation's own bookkeeping."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pairwise_param import Model, measure
from pairwise_param.errors import InvalidArgument
from pairwise_param.tables.build import build_table
from pairwise_param.tables.mirror import mirror_table


def _tuples(rows: list[tuple[int, ...]] | tuple[tuple[int, ...], ...], k: int) -> set[tuple[tuple[int, int], ...]]:
    return {tuple((a, r[a]) for a in scope) for r in rows for scope in itertools.combinations(range(len(r)), k)}


SKINNY = {"dtype": ["f16", "bf16"], "padded_a": [False, True], "padded_b": [False, True], "bias_mode": [0, 1, 2],
          "xnorm": [False, True]}


def test_jobs_are_complete_different_and_their_union_covers_more_triples() -> None:
    model = Model(SKINNY)
    fixed = build_table(model)
    assert mirror_table(model, fixed, 0) is fixed
    jobs = [mirror_table(model, fixed, k) for k in range(3)]
    for job in jobs:
        report = measure(model, [model.decode(r) for r in job.rows])
        assert report.complete and not report.violations
    assert jobs[1].rows != jobs[0].rows and jobs[2].rows != jobs[1].rows
    one = len(_tuples(jobs[0].rows, 3))
    two = len(_tuples(jobs[0].rows + jobs[1].rows, 3))
    three = len(_tuples(jobs[0].rows + jobs[1].rows + jobs[2].rows, 3))
    assert one < two < three
    # job K is computed alone, from the model: the same rows in every call (every process)
    assert mirror_table(model, build_table(Model(SKINNY)), 2).rows == jobs[2].rows


def test_compile_aware_jobs_compile_no_more_variants_than_the_fixed_table() -> None:
    model = Model({**SKINNY, "layout": ["nt", "tn", "nn"]}, compile_axes=["dtype", "bias_mode", "layout"])
    fixed = build_table(model)
    variants = {tuple(r[a] for a in model.compile_axes) for r in fixed.rows}
    for k in (1, 2):
        job = mirror_table(model, fixed, k)
        assert len({tuple(r[a] for a in model.compile_axes) for r in job.rows}) <= len(variants)
        assert measure(model, [model.decode(r) for r in job.rows]).complete


def test_a_job_number_below_one_is_named() -> None:
    model = Model(SKINNY)
    with pytest.raises(InvalidArgument, match="mirror job 0 does not exist"):
        mirror_table(model, build_table(model), -1)


@settings(max_examples=12, deadline=None, derandomize=True)
@given(st.lists(st.integers(2, 4), min_size=3, max_size=5), st.integers(1, 2))
def test_every_job_covers_every_pair_and_adds_no_fewer_triples(sizes: list[int], job: int) -> None:
    model = Model({f"x{i}": list(range(s)) for i, s in enumerate(sizes)})
    fixed = build_table(model)
    tables = [mirror_table(model, fixed, k) for k in range(job + 1)]
    for t in tables:
        assert measure(model, [model.decode(r) for r in t.rows]).complete
    before = _tuples([r for t in tables[:-1] for r in t.rows], 3)
    after = _tuples([r for t in tables for r in t.rows], 3)
    assert len(after) >= len(before)
