"""The engine's own check (engine/verify.py) against a brute force written here.

The bitset path (pair scopes) and the set path (larger scopes) must agree
with a direct count on random row sets, with and without constraints and
mixed strength: a wrong "valid" would let a broken construction through.
"""

from __future__ import annotations

import itertools
import random

import pytest

from pairwise_param.engine.requirements import requirements
from pairwise_param.engine.verify import valid
from pairwise_param.model import Model


def case(seed: int):
    rng = random.Random(seed)
    n = rng.randint(3, 6)
    sizes = [rng.randint(1, 3) for _ in range(n)]
    forbid = None
    cons = []
    if rng.random() < 0.5:
        a, b = sorted(rng.sample(range(n), 2))
        sizes[a] = sizes[b] = 3  # a forbidden pair never empties an axis
        forbid = (a, b, rng.randrange(sizes[a]), rng.randrange(sizes[b]))
        cons.append(eval(f"lambda p{a}, p{b}: not (p{a} == {forbid[2]} and p{b} == {forbid[3]})"))
    subs = []
    if n >= 4 and rng.random() < 0.4:
        subs.append(([f"p{a}" for a in sorted(rng.sample(range(n), 3))], 3))
    model = Model({f"p{i}": list(range(s)) for i, s in enumerate(sizes)}, strength=2, constraints=cons, sub_models=subs)

    def ok(row):
        return forbid is None or not (row[forbid[0]] == forbid[2] and row[forbid[1]] == forbid[3])

    product = [r for r in itertools.product(*(range(s) for s in sizes)) if ok(r)]
    rows = [rng.choice(product) for _ in range(rng.randint(1, 12))]
    return model, product, rows, ok


def brute_valid(model, product, rows, ok) -> bool:
    if not all(ok(r) for r in rows):
        return False
    for scope in model.index_model.interactions:
        possible = {tuple(r[a] for a in scope) for r in product}
        have = {tuple(r[a] for a in scope) for r in rows}
        if possible - have:
            return False
    return True


@pytest.mark.parametrize("seed", range(60))
def test_valid_agrees_with_brute_force(seed):
    model, product, rows, ok = case(seed)
    req = requirements(model.index_model, model.feasibility)
    assert valid(req, model.feasibility, rows) == brute_valid(model, product, rows, ok)
    full = valid(req, model.feasibility, product)  # the whole valid product covers everything
    assert full


def test_valid_rejects_a_missing_pair_and_a_bad_cell():
    model = Model({f"p{i}": [0, 1, 2] for i in range(4)})
    req = requirements(model.index_model, model.feasibility)
    rows = list(itertools.product(range(3), repeat=4))
    assert valid(req, model.feasibility, rows)
    without = [r for r in rows if not (r[1] == 2 and r[3] == 0)]
    assert not valid(req, model.feasibility, without)
    assert not valid(req, model.feasibility, rows + [(0, 0, 0, 3)])


def strong_case(seed: int):
    """Strength 3-4 (the row-bitset path with shared scope prefixes), with an
    optional forbidden pair (blocked tuples inside larger scopes)."""
    rng = random.Random(1000 + seed)
    n = rng.randint(4, 7)
    t = rng.randint(3, 4)
    sizes = [rng.randint(1, 3) for _ in range(n)]
    forbid = None
    cons = []
    if rng.random() < 0.5:
        a, b = sorted(rng.sample(range(n), 2))
        sizes[a] = sizes[b] = 3
        forbid = (a, b, rng.randrange(3), rng.randrange(3))
        cons.append(eval(f"lambda p{a}, p{b}: not (p{a} == {forbid[2]} and p{b} == {forbid[3]})"))
    model = Model({f"p{i}": list(range(s)) for i, s in enumerate(sizes)}, strength=t, constraints=cons)

    def ok(row):
        return forbid is None or not (row[forbid[0]] == forbid[2] and row[forbid[1]] == forbid[3])

    product = [r for r in itertools.product(*(range(s) for s in sizes)) if ok(r)]
    # mostly the whole product minus a few rows: near-valid arrays, where a wrong check shows
    rows = [r for r in product if rng.random() > 0.08]
    return model, product, rows or product[:1], ok


@pytest.mark.parametrize("seed", range(40))
def test_valid_agrees_with_brute_force_at_strength_3_and_4(seed):
    model, product, rows, ok = strong_case(seed)
    req = requirements(model.index_model, model.feasibility)
    assert valid(req, model.feasibility, rows) == brute_valid(model, product, rows, ok)
    assert valid(req, model.feasibility, product)


def test_valid_rejects_one_missing_triple():
    model = Model({f"p{i}": [0, 1] for i in range(5)}, strength=3)
    req = requirements(model.index_model, model.feasibility)
    rows = list(itertools.product(range(2), repeat=5))
    assert valid(req, model.feasibility, rows)
    without = [r for r in rows if not (r[1] == 1 and r[3] == 0 and r[4] == 1)]
    assert not valid(req, model.feasibility, without)
