"""Effort levels, work bounds, the stall stop and the setup gate (engine/budget.py)."""

from __future__ import annotations

import pytest

from pairwise_param.coverage import measure
from pairwise_param.engine import LEVELS, EngineOptions, generate
from pairwise_param.engine.budget import (
    QUICK_MAX,
    QUICK_MIN,
    QUICK_PER_TUPLE,
    QUICK_SMALL_MIN,
    QUICK_STALL,
    budget_for,
)
from pairwise_param.engine.improve import search, setup_cost
from pairwise_param.engine.ipog import ipog
from pairwise_param.engine.requirements import requirements
from pairwise_param.errors import InvalidArgument
from pairwise_param.model import Model


def plain(sizes: list[int], t: int = 2) -> Model:
    return Model({f"p{i}": list(range(s)) for i, s in enumerate(sizes)}, strength=t)


def test_named_levels_are_their_ints():
    for name, level in LEVELS.items():
        opts = EngineOptions(effort=name)
        assert opts.effort == level and opts.level == level
    assert EngineOptions(effort=2).level == 2
    assert EngineOptions(effort="quick") == EngineOptions(effort=0)


@pytest.mark.parametrize("bad", [-1, True, 1.5, "fast", None])
def test_bad_effort_is_refused_with_the_names(bad):
    with pytest.raises(InvalidArgument, match="effort") as info:
        EngineOptions(effort=bad)
    assert "quick" in str(info.value)


@pytest.mark.parametrize("bad", [-5, 2.0, True, "10"])
def test_bad_work_is_refused(bad):
    with pytest.raises(InvalidArgument, match="work"):
        EngineOptions(work=bad)


def test_quick_budget_scales_with_the_model():
    small = requirements(plain([3] * 4).index_model, plain([3] * 4).feasibility)
    mid_model = plain([4] * 15 + [3] * 17 + [2] * 29)
    mid = requirements(mid_model.index_model, mid_model.feasibility)
    # A model below the floor gets its share (at least QUICK_SMALL_MIN) and a stall window.
    assert budget_for(small, 0).units == max(QUICK_SMALL_MIN, QUICK_PER_TUPLE * small.coverable_count())
    assert budget_for(small, 0).units < QUICK_MIN
    assert budget_for(small, 0).stall == QUICK_STALL
    assert budget_for(mid, 0).stall == 0
    assert budget_for(mid, 0).units == min(QUICK_MAX, QUICK_PER_TUPLE * mid.coverable_count())
    assert budget_for(mid, 0).units > budget_for(small, 0).units
    assert budget_for(mid, 2).units == 2 * budget_for(mid, 1).units
    assert budget_for(mid, 1).stall > 0
    assert budget_for(mid, 1, work=1234).units == 1234


def test_stall_stops_a_search_early_and_deterministically():
    model = plain([3] * 13)
    im = model.index_model
    req = requirements(im, model.feasibility)
    start = ipog(im, req, model.feasibility)
    budget = 40_000_000
    a = search(req, model.feasibility, start, (), budget, 0, 9, stall=2_000_000)
    b = search(req, model.feasibility, start, (), budget, 0, 9, stall=2_000_000)
    assert a == b
    assert a.work < budget  # 9 rows are out of reach: only the stall can stop it
    assert a.work - a.found_at < 2_000_000 + 100_000  # one move of slack past the window
    assert measure(model, [list(r) for r in a.rows]).ok


def test_gate_skips_a_search_that_cannot_pay():
    model = plain([3] * 30)
    im = model.index_model
    req = requirements(im, model.feasibility)
    start = ipog(im, req, model.feasibility)
    cost = setup_cost(req, len(start))
    out = search(req, model.feasibility, start, (), cost - 1, 0)
    assert out.rows == [tuple(r) for r in start] and out.work == 0
    assert search(req, model.feasibility, start, (), cost * 4, 0).work >= cost


def test_work_bound_is_reported_and_respected():
    model = plain([3] * 13)
    opts = EngineOptions(effort=1, work=300_000)
    g = generate(model.index_model, opts, model.feasibility)
    assert 0 < g.work <= 300_000 + 10_000
    assert g == generate(model.index_model, opts, model.feasibility)
    assert measure(model, [list(r) for r in g.rows]).ok
