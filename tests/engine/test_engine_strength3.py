"""The strength-3/4 constructions over more than two values (engine/strength3.py).

Every array is checked by a brute-force count written here, by the engine's
own ``verify.valid`` and by the independent ``pairwise_param.coverage.measure``
(which shares no code with the engine).  Sizes are asserted where the
construction fixes them (doubling: N + (v-1)M; developed: m |G| + v).
"""

from __future__ import annotations

import itertools

import pytest

from pairwise_param.coverage import measure
from pairwise_param.engine import EngineOptions, generate
from pairwise_param.engine.requirements import requirements
from pairwise_param.engine.strength3 import developed, doubling_t3, group, strength34
from pairwise_param.engine.verify import valid
from pairwise_param.model import Model


def plain(sizes: list[int], t: int) -> Model:
    return Model({f"p{i}": list(range(s)) for i, s in enumerate(sizes)}, strength=t)


def brute_covers(rows: list[tuple[int, ...]], t: int, sizes: list[int]) -> bool:
    k = len(sizes)
    for scope in itertools.combinations(range(k), t):
        need = 1
        for c in scope:
            need *= sizes[c]
        if len({tuple(r[c] for c in scope) for r in rows}) < need:
            return False
    return True


def all_checks(sizes: list[int], t: int, rows: list[tuple[int, ...]]) -> None:
    assert all(len(r) == len(sizes) and all(0 <= x < s for x, s in zip(r, sizes)) for r in rows)
    assert brute_covers(rows, t, sizes)
    model = plain(sizes, t)
    assert valid(requirements(model.index_model, model.feasibility), model.feasibility, rows)
    report = measure(model, [list(r) for r in rows])
    assert report.ok, report.summary()


@pytest.mark.parametrize("k,v,n", [(10, 4, 64 + 3 * 16), (8, 3, 27 + 2 * 9), (12, 4, 64 + 3 * 19), (9, 5, 125 + 4 * 25), (20, 4, None)])
def test_doubling_covers_strength_3(k: int, v: int, n: int | None) -> None:
    rows = doubling_t3(k, v)
    assert rows is not None
    if n is not None:
        assert len(rows) <= n  # B polished where no OA fits (CA(2, 6, 4): 19 rows)
    all_checks([v] * k, 3, rows)


def test_doubling_needs_a_prime_power() -> None:
    assert doubling_t3(10, 6) is None


@pytest.mark.parametrize("v", [3, 4, 5, 7])
def test_agl_is_sharply_two_transitive(v: int) -> None:
    g = group(v)
    assert g is not None and len(g) == v * (v - 1)
    assert len({(p[0], p[1]) for p in g}) == v * (v - 1)  # each ordered pair of images once
    assert group(6) is None and group(2) is None


@pytest.mark.parametrize("v,k,t,limit,expect", [(3, 10, 3, 54, 45), (5, 7, 3, 205, 185), (3, 6, 3, 40, 33), (3, 6, 4, 165, None)])
def test_developed_starters_cover(v: int, k: int, t: int, limit: int, expect: int | None) -> None:
    g = group(v)
    assert g is not None
    rows = developed(v, k, t, g, limit, 1_200_000)
    assert rows is not None
    assert len(rows) <= limit and (len(rows) - v) % len(g) == 0
    if expect is not None:
        assert len(rows) <= expect
    all_checks([v] * k, t, rows)


def test_developed_respects_the_limit() -> None:
    g = group(3)
    assert g is not None
    assert developed(3, 10, 3, g, 20, 1_200_000) is None  # fewer starters than orbits: not tried


def test_strength34_folds_mixed_sizes_and_is_deterministic() -> None:
    sizes = (5, 4, 5, 3, 5, 5, 2)
    got = strength34(sizes, 3, True, 300)
    assert got is not None
    all_checks(list(sizes), 3, got[0])
    assert strength34(sizes, 3, True, 300) == got
    assert strength34((3,) * 10, 2, True, 100) is None  # strength 2 has its own constructions
    assert strength34((2,) * 10, 3, True, 100) is None  # binary: engine/recursive.py
    assert strength34((3,) * 10, 3, False, 100) is None  # mixed strength


@pytest.mark.parametrize("sizes,t,at_most", [([3] * 10, 3, 45), ([5] * 7, 3, 185), ([4] * 10, 3, 112)])
def test_pipeline_keeps_the_construction(sizes: list[int], t: int, at_most: int) -> None:
    model = plain(sizes, t)
    g = generate(model.index_model, EngineOptions(), model.feasibility)
    assert len(g.rows) <= at_most
    all_checks(sizes, t, list(g.rows))


def test_doubling_over_a_developed_array() -> None:
    """3^20 at t=3: A = the developed 3^10 (45 rows), B = a polished CA(2, 10, 3)."""
    got = strength34((3,) * 20, 3, True, 81)
    assert got is not None and got[1] == "doubling-t3(developed)"
    assert len(got[0]) <= 45 + 2 * 15
    all_checks([3] * 20, 3, got[0])


def test_an_effort_level_searches_the_starters_longer() -> None:
    """3^8 at t=4 from effort 1's limit (the improver's 156 rows): quick mode's
    units leave 153 rows, effort 1's reach 135 = 22 * 6 + 3 (the best known)."""
    quick = strength34((3,) * 8, 4, True, 155)
    assert quick is not None and len(quick[0]) > 135
    got = strength34((3,) * 8, 4, True, 155, effort=1)
    assert got is not None and len(got[0]) <= 135
    all_checks([3] * 8, 4, got[0])


def test_rows_are_the_same_under_every_hash_seed() -> None:
    import os
    import subprocess
    import sys

    code = (
        "from pairwise_param.engine.strength3 import strength34;"
        "print(strength34((3,) * 20, 3, True, 81), strength34((5,) * 7, 3, True, 205), strength34((3,) * 8, 4, True, 164))"
    )
    outs = {
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("0", "1", "4242")
    }
    assert len(outs) == 1 and "developed" in next(iter(outs))
