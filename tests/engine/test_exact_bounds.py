"""``benchmarks/exact_bounds.py``: its proven bounds are sound and, on the whole model, exact.

The benchmark claims "no valid covering array has fewer rows"; these tests hold
it to that against an exhaustive search on tiny constrained models (the
smallest set of valid rows covering every coverable pair, by brute force), and
against the engine on a model of the constrained set.
"""

from __future__ import annotations

import importlib.util
import itertools
import sys
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("highspy")  # the dev extra installs it; a bare install may not

_BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def eb() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pairwise_exact_bounds", _BENCH / "exact_bounds.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses need the module registered
    spec.loader.exec_module(mod)
    return mod


def _brute_minimum(eb: ModuleType, m: object) -> int:
    """The fewest valid full rows covering every coverable t-tuple, by trying every set."""
    valid = eb.Coverable(eb.index_rules(m))
    sizes = m.sizes  # type: ignore[attr-defined]
    t = m.strength  # type: ignore[attr-defined]
    rows = [r for r in itertools.product(*(range(s) for s in sizes)) if valid(dict(enumerate(r)))]
    scopes = list(itertools.combinations(range(len(sizes)), t))
    targets = {(s, tuple(r[a] for a in s)) for r in rows for s in scopes}
    for k in range(1, len(rows) + 1):
        for chosen in itertools.combinations(rows, k):
            if len({(s, tuple(r[a] for a in s)) for r in chosen for s in scopes}) == len(targets):
                return k
    raise AssertionError("the valid rows themselves cover every coverable tuple")


def _model(eb: ModuleType, sizes: list[int], rules: list[tuple[int, int, int, list[int]]], t: int) -> object:
    cm = sys.modules["constrained_models"]
    axes = tuple((f"x{i}", tuple(str(v) for v in range(s))) for i, s in enumerate(sizes))
    named = tuple(
        (((f"x{a}", str(v)),), (f"x{q}", tuple(str(w) for w in allowed))) for a, v, q, allowed in rules
    )
    return cm.ConstrainedModel("tiny", axes, named, t, "test")


@st.composite
def tiny_models(draw: st.DrawFn) -> tuple[list[int], list[tuple[int, int, int, list[int]]]]:
    sizes = draw(st.sampled_from([[2, 2, 2], [3, 2, 2], [2, 2, 2, 2], [3, 3, 2], [3, 2, 2, 2]]))
    n = len(sizes)
    rules = []
    for _ in range(draw(st.integers(0, 2))):
        a, q = draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True))
        v = draw(st.integers(0, sizes[a] - 1))
        allowed = draw(st.lists(st.integers(0, sizes[q] - 1), min_size=1, max_size=sizes[q] - 1, unique=True))
        rules.append((a, v, q, sorted(allowed)))
    return sizes, rules


@settings(max_examples=25, deadline=None)
@given(tiny_models())
def test_the_whole_model_ilp_is_the_exhaustive_minimum_and_projections_never_exceed_it(
    eb: ModuleType, case: tuple[list[int], list[tuple[int, int, int, list[int]]]]
) -> None:
    sizes, rules = case
    m = _model(eb, sizes, rules, 2)
    valid = eb.Coverable(eb.index_rules(m))
    truth = _brute_minimum(eb, m)
    full = eb.projection_bound(m, range(len(sizes)), valid, 30.0)
    assert full is not None and full.exact and full.rows == truth == full.found
    assert eb.scope_bound(m, valid) <= truth
    for k in range(3, len(sizes)):
        for axes in itertools.combinations(range(len(sizes)), k):
            b = eb.projection_bound(m, axes, valid, 30.0)
            assert b is None or b.rows <= truth


def test_a_projection_proves_more_than_one_scope_and_the_engine_meets_it(eb: ModuleType) -> None:
    """RoPE's partial-rotary options: the engine's cheap bound says 9, the exact
    bound 10, and quick mode's 10 rows are therefore the fewest possible."""
    m = next(x for x in sys.modules["constrained_models"].CONSTRAINED if x.label == "rope partial")
    valid = eb.Coverable(eb.index_rules(m))
    assert eb.scope_bound(m, valid) == 9
    b = eb.projection_bound(m, range(len(m.sizes)), valid, 30.0)
    assert b is not None and b.exact and b.rows == 10
    rows, ok = eb._engine_rows(m, 0)
    assert (rows, ok) == (10, True)


def test_a_projection_with_too_few_sub_rows_is_skipped(eb: ModuleType) -> None:
    m = _model(eb, [2, 2, 2], [], 2)
    valid = eb.Coverable(eb.index_rules(m))
    assert eb.projection_bound(m, (0, 1, 2), valid, 5.0, beat=8) is None
    b = eb.projection_bound(m, (0, 1, 2), valid, 5.0, beat=3)
    assert b is not None and b.rows == 4
