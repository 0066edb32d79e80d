"""The binary strength-3/4 constructions (engine/recursive.py).

Every array is checked twice: by the engine's own ``verify.valid`` and by the
independent ``pairwise_param.coverage.measure`` (which shares no code with the
engine).  Sizes are asserted where the construction's theory fixes them
(Paley 12 rows for <= 11 columns, doubling N + M), so a regression to a
larger array fails here rather than in a benchmark.
"""

from __future__ import annotations

import itertools

import pytest

from pairwise_param.coverage import measure
from pairwise_param.engine import EngineOptions, generate
from pairwise_param.engine.algebraic import binary_rows_needed
from pairwise_param.engine.recursive import binary_t3, binary_t4, recursive
from pairwise_param.engine.requirements import requirements
from pairwise_param.engine.verify import valid
from pairwise_param.model import Model


def plain(sizes: list[int], t: int) -> Model:
    return Model({f"p{i}": list(range(s)) for i, s in enumerate(sizes)}, strength=t)


def both_checks(model: Model, rows: list[tuple[int, ...]]) -> None:
    im = model.index_model
    req = requirements(im, model.feasibility)
    assert valid(req, model.feasibility, rows)
    report = measure(model, [list(r) for r in rows])
    assert report.ok, report.summary()


def brute_covers(rows: list[tuple[int, ...]], t: int) -> bool:
    k = len(rows[0])
    for scope in itertools.combinations(range(k), t):
        if len({tuple(r[c] for c in scope) for r in rows}) < 2**t:
            return False
    return True


@pytest.mark.parametrize("k", [4, 5, 6, 9, 11, 12, 16, 20, 22, 30])
def test_binary_t3_covers(k):
    rows = binary_t3(k)
    assert all(len(r) == k and set(r) <= {0, 1} for r in rows)
    assert brute_covers(rows, 3)
    both_checks(plain([2] * k, 3), rows)


def test_binary_t3_sizes_follow_the_constructions():
    assert len(binary_t3(11)) == 12  # Paley p = 11 (Plackett-Burman 12)
    assert len(binary_t3(20)) == 12 + binary_rows_needed(10) == 18  # doubling of 10 columns
    for k in (12, 22, 40):
        half = (k + 1) // 2
        assert len(binary_t3(k)) <= len(binary_t3(half)) + binary_rows_needed(half)


@pytest.mark.parametrize("k", [5, 8, 12, 20])
def test_binary_t4_fold_over_covers(k):
    rows = binary_t4(k)
    assert rows is not None
    assert brute_covers(rows, 4)
    both_checks(plain([2] * k, 4), rows)
    if k <= 12:
        assert len(rows) == 24


def test_recursive_only_where_it_applies():
    assert recursive((2,) * 10, 2, True) is None  # strength 2 has its own optimal construction
    assert recursive((3,) + (2,) * 9, 3, True) is None  # not binary
    assert recursive((2,) * 10, 3, False) is None  # mixed strength
    got = recursive((2, 1, 2, 2, 2, 1), 3, True)  # one-value axes fold onto value 0
    assert got is not None
    both_checks(plain([2, 1, 2, 2, 2, 1], 3), got[0])


@pytest.mark.parametrize("sizes,t,at_most", [([2] * 20, 3, 18), ([2] * 12, 4, 24), ([2] * 11, 3, 12)])
def test_pipeline_keeps_the_construction(sizes, t, at_most):
    model = plain(sizes, t)
    g = generate(model.index_model, EngineOptions(), model.feasibility)
    assert len(g.rows) <= at_most
    both_checks(model, list(g.rows))


@pytest.mark.parametrize("k,q", [(6, 3), (12, 4), (20, 5), (26, 5), (40, 3)])
def test_product_t2_covers_and_keeps_constant_rows(k, q):
    from pairwise_param.engine.recursive import product_t2

    rows = product_t2(k, q)
    assert rows[:q] == [tuple([c] * k) for c in range(q)]
    assert brute_covers_v(rows, q)
    both_checks(plain([q] * k, 2), rows)


def brute_covers_v(rows: list[tuple[int, ...]], v: int) -> bool:
    k = len(rows[0])
    return all(len({(r[a], r[b]) for r in rows}) == v * v for a, b in itertools.combinations(range(k), 2))


def test_product_wins_on_5_20_and_folds_mixed_sizes():
    got = recursive((5,) * 20, 2, True)
    assert got is not None and len(got[0]) == 45
    mixed = (5, 4, 3) * 7
    got = recursive(mixed, 2, True)
    assert got is not None
    both_checks(plain(list(mixed), 2), got[0])
    model = plain([5] * 20, 2)
    g = generate(model.index_model, EngineOptions(), model.feasibility)
    assert len(g.rows) <= 45
    both_checks(model, list(g.rows))


@pytest.mark.parametrize("sizes", [(4,) * 30, (5,) * 40, (4, 3, 2) * 12 + (4,) * 6])
def test_product_with_covers_with_any_inner_array_holding_the_constant_rows(sizes):
    from pairwise_param.engine.recursive import product_t2, product_with

    seen: list[tuple[int, int]] = []

    def inner(k: int, v: int) -> list[tuple[int, ...]]:
        seen.append((k, v))
        return product_t2(k, v)  # its first v rows are the constant rows

    got = product_with(sizes, 10**6, inner)
    assert got is not None
    rows, how = got
    v = max(sizes)
    ((k2, _),) = seen
    assert k2 == -(-len(sizes) // (v + 1)) and how == f"product(OA(q={v}) x {v}^{k2})"
    assert len(rows) == v * v + len(product_t2(k2, v)) - v
    model = plain(list(sizes), 2)
    both_checks(model, rows)
    assert product_with(sizes, len(rows), inner) is None  # never built when it cannot be smaller


def test_product_with_leaves_ternary_and_short_models_alone():
    from pairwise_param.engine.recursive import product_t2, product_with

    assert product_with((3,) * 100, 10**6, product_t2) is None
    assert product_with((4,) * 5, 10**6, product_t2) is None


def test_pipeline_takes_the_product_on_4_100():
    model = plain([4] * 100, 2)
    g = generate(model.index_model, EngineOptions(), model.feasibility)
    assert len(g.rows) <= 43 and g.method.startswith("product(OA(q=4)")
    assert brute_covers_v([tuple(r) for r in g.rows], 4)


@pytest.mark.parametrize("ones", [1, 2])
@pytest.mark.parametrize("k", [3, 4, 10])
def test_one_value_axes_cost_no_rows_in_binary_tables(ones, k):
    """Issue 10 section 5: ``dtype=["f16"]`` next to k binary axes gave one row more than
    the k binary axes alone (the binary construction counted the constant column)."""
    from pairwise_param import cover

    binary = {f"a{i}": [0, 1] for i in range(k)}
    constants = {f"c{j}": [f"v{j}"] for j in range(ones)}
    alone = cover(binary)
    both = cover({**constants, **binary})
    assert len(both) == len(alone) == binary_rows_needed(k)
    assert all(row[f"c{j}"] == f"v{j}" for row in both for j in range(ones))
    report = measure(Model({**constants, **binary}), list(both))
    assert report.ok, report.summary()


@pytest.mark.parametrize("q, k", [(3, 4), (4, 5), (5, 6)])
def test_one_value_axes_cost_no_rows_in_orthogonal_arrays(q, k):
    from pairwise_param import cover

    axes = {f"a{i}": list(range(q)) for i in range(k)}
    assert len(cover({"seed": [0], **axes, "dtype": ["f16"]})) == len(cover(axes)) == q * q


def test_one_value_axes_below_strength_fall_back_to_the_product():
    from pairwise_param.engine.algebraic import algebraic

    assert algebraic((1, 2, 1), 2, True) is None
    rows = algebraic((2, 1, 2, 2), 2, True)
    assert rows is not None and all(r[1] == 0 for r in rows[0]) and len(rows[0]) == 4
