"""Unit tests of the covering-array engine (pairwise_param.engine).

Every generated array is checked against a brute force over the full product
written here (it shares no code with the engine): rows are valid, every
coverable tuple is covered, and the infeasible tuples reported are exactly the
tuples no valid row contains.
"""

from __future__ import annotations

import itertools
import os
import random
import subprocess
import sys
import textwrap
from math import comb
from pathlib import Path

import pytest

from pairwise_param.engine import EngineOptions, generate
from pairwise_param.engine.algebraic import algebraic, binary_pairwise, binary_rows_needed, bush
from pairwise_param.engine.density import density
from pairwise_param.engine.gf import field, prime_power
from pairwise_param.engine.improve import improve, remove_redundant
from pairwise_param.engine.ipog import ipog
from pairwise_param.engine.requirements import requirements
from pairwise_param.model import Model

ROOT = Path(__file__).resolve().parents[2]


# -- brute force ----------------------------------------------------------------


def scopes_of(n: int, strength: int, subs=()) -> set[tuple[int, ...]]:
    scopes = set(itertools.combinations(range(n), strength))
    for axes, t in subs:
        scopes.update(itertools.combinations(sorted(axes), t))
    return scopes


def brute_check(sizes, scopes, rows, valid_row, include=()):
    """Assert rows are valid and cover every coverable tuple; return the set
    of infeasible (scope, values) tuples found over the full product."""
    n = len(sizes)
    valid_rows = [r for r in itertools.product(*(range(s) for s in sizes)) if valid_row(r)]
    infeasible = set()
    for row in rows:
        assert len(row) == n
        assert all(0 <= x < s for x, s in zip(row, sizes)), row
        assert valid_row(row), f"row {row} breaks a constraint"
    for inc, row in zip(include, rows):
        assert all(v is None or v == x for v, x in zip(inc, row)), (inc, row)
    for scope in sorted(scopes):
        possible = {tuple(r[a] for a in scope) for r in valid_rows}
        have = {tuple(r[a] for a in scope) for r in rows}
        missing = possible - have
        assert not missing, f"scope {scope}: {sorted(missing)[:5]} not covered"
        for combo in itertools.product(*(range(sizes[a]) for a in scope)):
            if combo not in possible:
                infeasible.add((scope, combo))
    return infeasible


def plain_model(sizes, strength=2, **kw) -> Model:
    return Model({f"p{i}": list(range(s)) for i, s in enumerate(sizes)}, strength=strength, **kw)


def run(model: Model, effort: int = 0, seed: int = 0):
    return generate(model.index_model, EngineOptions(effort=effort, seed=seed), model.feasibility)


def no_constraint(row) -> bool:
    return True


# -- finite fields and algebraic constructions -------------------------------------


@pytest.mark.parametrize("q", [2, 3, 4, 5, 7, 8, 9, 16, 25, 27])
def test_field_axioms(q):
    add, mul = field(q)
    for a in range(q):
        assert add[0][a] == a and mul[1][a] == a and mul[0][a] == 0
        if a:
            assert sorted(mul[a][b] for b in range(1, q)) == list(range(1, q))  # invertible
    for a, b, c in itertools.product(range(q), repeat=3):
        if (a + b + c) % 3 == 0:  # a sample keeps this quick on q=27
            assert mul[a][add[b][c]] == add[mul[a][b]][mul[a][c]]


def test_prime_power():
    assert prime_power(8) == (2, 3) and prime_power(9) == (3, 2) and prime_power(7) == (7, 1)
    assert prime_power(6) is None and prime_power(12) is None and prime_power(1) is None


@pytest.mark.parametrize(
    "q,t,k",
    [(2, 2, 3), (3, 2, 4), (4, 2, 5), (5, 2, 6), (7, 2, 8), (8, 2, 9), (9, 2, 10), (3, 3, 4), (4, 3, 6), (5, 3, 6), (8, 3, 10), (2, 3, 4), (4, 4, 5)],
)
def test_bush_is_orthogonal_array(q, t, k):
    rows = bush(q, t, k)
    assert rows is not None and len(rows) == q**t
    for scope in itertools.combinations(range(k), t):
        # Orthogonal: every t-tuple exactly once.
        assert len({tuple(r[a] for a in scope) for r in rows}) == q**t


def test_bush_refuses_too_many_columns():
    assert bush(3, 3, 5) is None  # odd q: at most q+1 columns at t=3
    assert bush(6, 2, 3) is None  # 6 is no prime power


@pytest.mark.parametrize("k", [2, 3, 4, 5, 10, 11, 35, 36, 56, 57, 100])
def test_binary_pairwise(k):
    rows = binary_pairwise(k)
    assert len(rows) == binary_rows_needed(k)
    for a, b in itertools.combinations(range(k), 2):
        assert len({(r[a], r[b]) for r in rows}) == 4


def test_binary_sizes():
    assert binary_rows_needed(100) == 10
    assert binary_rows_needed(3) == 4 and binary_rows_needed(4) == 5 and binary_rows_needed(10) == 6


@pytest.mark.parametrize(
    "sizes,t,expected",
    [([3] * 4, 2, 9), ([2] * 100, 2, 10), ([4] * 6, 3, 64), ([5, 5, 3, 4, 2], 2, 25), ([7] * 8, 2, 49), ([3, 3, 2, 3], 3, 27)],
)
def test_algebraic_sizes_and_validity(sizes, t, expected):
    rows, _ = algebraic(tuple(sizes), t, True)
    assert len(rows) == expected
    for scope in itertools.combinations(range(len(sizes)), t):
        want = 1
        for a in scope:
            want *= sizes[a]
        assert len({tuple(r[a] for a in scope) for r in rows}) == want


def test_algebraic_not_for_mixed_strength():
    assert algebraic((3, 3, 3, 3), 2, False) is None


@pytest.mark.parametrize(
    "sizes,t,expected",
    [([3] * 4, 2, 9), ([2] * 100, 2, 10), ([4] * 6, 3, 64), ([2, 2, 3, 2], 2, 6), ([3, 2, 2, 2, 2, 2], 2, 7)],
)
def test_generate_hits_optimum(sizes, t, expected):
    g = run(plain_model(sizes, t))
    assert len(g.rows) == expected
    if len(sizes) <= 8:
        assert not brute_check(sizes, scopes_of(len(sizes), t), g.rows, no_constraint)


# -- constructions under constraints, mixed strength, include rows ----------------


def random_case(seed: int):
    """A small random model: sizes, strength, forbidden combos, sub-models, include."""
    rng = random.Random(seed)
    n = rng.randint(3, 6)
    sizes = [rng.randint(1, 4) for _ in range(n)]
    strength = rng.choice([1, 2, 2, 2, 3]) if n >= 3 else 2
    forbids = []
    for _ in range(rng.randint(0, 4)):
        k = rng.choice([1, 2, 2, 3])
        axes = sorted(rng.sample(range(n), k))
        forbids.append((tuple(axes), tuple(rng.randrange(sizes[a]) for a in axes)))
    subs = []
    if rng.random() < 0.3 and n >= 4:
        axes = sorted(rng.sample(range(n), 3))
        subs.append((tuple(axes), 3))
    include = []
    return sizes, strength, forbids, subs, include, rng


def make_constraint(axes, vals):
    names = ", ".join(f"p{a}" for a in axes)
    cond = " and ".join(f"p{a} == {v}" for a, v in zip(axes, vals))
    return eval(f"lambda {names}: not ({cond})")


def build_model(seed: int, with_include: bool):
    sizes, strength, all_forbids, subs, _, rng = random_case(seed)
    n = len(sizes)
    product = list(itertools.product(*(range(s) for s in sizes)))
    forbids: list = []
    for f in all_forbids:  # keep a forbid only while some row stays valid
        if any(not any(all(r[a] == v for a, v in zip(ax, vs)) for ax, vs in [*forbids, f]) for r in product):
            forbids.append(f)

    def valid_row(row):
        return not any(all(row[a] == v for a, v in zip(axes, vals)) for axes, vals in forbids)

    valid_rows = [r for r in itertools.product(*(range(s) for s in sizes)) if valid_row(r)]
    if not valid_rows:
        return None
    include = []
    if with_include:
        for _ in range(rng.randint(1, 2)):
            base = rng.choice(valid_rows)
            include.append({f"p{a}": base[a] for a in range(n) if rng.random() < 0.6})
    model = Model(
        {f"p{i}": list(range(s)) for i, s in enumerate(sizes)},
        strength=strength,
        constraints=[make_constraint(a, v) for a, v in forbids],
        include=include,
        sub_models=[([f"p{a}" for a in axes], t) for axes, t in subs],
    )
    inc_rows = [tuple(row.get(f"p{a}") for a in range(n)) for row in include]
    return model, sizes, scopes_of(n, strength, subs), valid_row, inc_rows


@pytest.mark.parametrize("seed", range(40))
def test_random_models_cover_and_report_infeasible_exactly(seed):
    built = build_model(seed, with_include=seed % 2 == 1)
    if built is None:
        pytest.skip("no valid row")
    model, sizes, _, valid_row, include = built
    g = run(model)
    infeasible = brute_check(sizes, model.index_model.interactions, g.rows, valid_row, include)
    assert set(g.infeasible) == infeasible
    assert len(set(g.infeasible)) == len(g.infeasible)


def test_constructions_directly_under_constraints():
    """IPOG and the density greedy each cover everything on their own."""
    for seed in range(25):
        built = build_model(seed, with_include=True)
        if built is None:
            continue
        model, sizes, _, valid_row, include = built
        im = model.index_model
        req = requirements(im, model.feasibility)
        rows = ipog(im, req, model.feasibility)
        brute_check(sizes, im.interactions, rows, valid_row, include)
        if all(len(s) == 2 for s in im.interactions):
            drows = density(im, req, model.feasibility)
            brute_check(sizes, im.interactions, drows, valid_row, include)


def test_constrained_3_13_like_anchor():
    model = Model(
        {f"p{i}": [0, 1, 2] for i in range(13)},
        constraints=[lambda p0, p1: not (p0 == 0 and p1 == 0), lambda p2, p3: not (p2 == 2 and p3 != 2)],
    )
    g = run(model)
    infeasible = set(g.infeasible)
    assert ((0, 1), (0, 0)) in infeasible and ((2, 3), (2, 0)) in infeasible
    assert len(infeasible) == 3
    for row in g.rows:
        assert not (row[0] == 0 and row[1] == 0) and not (row[2] == 2 and row[3] != 2)
    for a, b in itertools.combinations(range(13), 2):
        have = {(r[a], r[b]) for r in g.rows}
        for x, y in itertools.product(range(3), repeat=2):
            assert (x, y) in have or ((a, b), (x, y)) in infeasible


def test_mixed_strength_sub_model():
    model = plain_model([3, 3, 3, 2, 2, 2], 2, sub_models=[(["p0", "p1", "p2"], 3)])
    g = run(model)
    assert len(g.rows) >= 27
    brute_check([3, 3, 3, 2, 2, 2], scopes_of(6, 2, [((0, 1, 2), 3)]), g.rows, no_constraint)


def test_include_rows_first_and_completed():
    model = plain_model([3, 3, 3, 3], include=[{"p0": 2, "p1": 2}, {"p0": 0, "p1": 1, "p2": 2, "p3": 0}])
    g = run(model)
    assert g.rows[0][:2] == (2, 2) and g.rows[1] == (0, 1, 2, 0)
    brute_check([3] * 4, scopes_of(4, 2), g.rows, no_constraint, [(2, 2, None, None), (0, 1, 2, 0)])


def test_strength_one_and_size_one_axes():
    g = run(plain_model([4, 1, 3, 2], 1))
    assert len(g.rows) == 4
    g = run(plain_model([1, 1, 3], 2))
    assert len(g.rows) == 3


# -- improver ----------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(12))
def test_improver_never_grows_and_stays_valid(seed):
    built = build_model(seed + 100, with_include=seed % 3 == 0)
    if built is None:
        pytest.skip("no valid row")
    model, sizes, _, valid_row, include = built
    im = model.index_model
    req = requirements(im, model.feasibility)
    start = ipog(im, req, model.feasibility)
    out = improve(req, model.feasibility, start, im.include, 200_000, seed)
    assert len(out) <= len(start)
    brute_check(sizes, im.interactions, out, valid_row, include)


def test_improver_shrinks_a_bloated_array():
    sizes = [3] * 5
    model = plain_model(sizes)
    im = model.index_model
    req = requirements(im, model.feasibility)
    full = list(itertools.product(range(3), repeat=5))  # 243 rows
    slim = remove_redundant(req, [list(r) for r in full], 0)
    assert len(slim) < 243
    out = improve(req, model.feasibility, full, (), 2_000_000, 1, lower_bound=9)
    assert len(out) <= 12
    brute_check(sizes, scopes_of(5, 2), out, no_constraint)


def test_effort_reaches_lower_bound_and_stops():
    sizes = [4, 3, 3, 2, 2, 2]
    g0 = run(plain_model(sizes))
    g1 = run(plain_model(sizes), effort=1)
    assert len(g1.rows) <= len(g0.rows)
    assert len(g1.rows) == 12
    brute_check(sizes, scopes_of(6, 2), g1.rows, no_constraint)


# -- determinism -------------------------------------------------------------------

SCRIPT = textwrap.dedent(
    """
    import pairwise_param as pp
    axes = {"dtype": ["fp16", "bf16", "fp32"], "bias": ["none", "row", "col"],
            "layout": ["nn", "nt", "tn", "tt"], "pad": [False, True], "act": ["relu", "gelu", "silu"],
            "k": [1, 2, 3, 4, 5], "m": ["a", "b", "c"]}
    cons = [lambda dtype, bias: not (dtype == "fp32" and bias == "col"),
            lambda layout, pad: not (layout == "tt" and pad)]
    rows = pp.cover(axes, constraints=cons, include=[{"dtype": "bf16", "k": 5}])
    print(repr([sorted(r.items()) for r in rows]))
    rows = pp.cover({f"p{i}": list(range(3)) for i in range(9)}, strength=3, sub_models=[(["p0", "p1", "p2", "p3"], 4)])
    print(repr(rows.index_rows))
    rows = pp.cover({f"q{i}": ["a", "b", "c"] for i in range(7)}, effort=1, seed=5)
    print(repr(rows.index_rows), rows.method)
    rows = pp.cover({f"s{i}": list(range(6)) for i in range(10)})  # a cover starter's seeded search
    print(repr(rows.index_rows), rows.method)
    rows = pp.cover(axes, constraints=cons, compile_axes=["dtype", "bias", "pad", "act"],
                    include=[{"dtype": "bf16", "k": 5}])  # compile-aware: variants and rows spread
    print(repr(rows.index_rows), rows.method)
    """
)


def test_deterministic_across_hash_seeds():
    outs = []
    for hs in ("0", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=hs, PYTHONPATH=str(ROOT))
        res = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True)
        outs.append(res.stdout)
    assert outs[0] == outs[1] and outs[0].strip()


def test_same_output_twice_in_process():
    m = plain_model([4, 3, 3, 2, 2, 5])
    assert run(m, 0).rows == run(m, 0).rows
    assert comb(6, 2) == len(m.index_model.interactions)
