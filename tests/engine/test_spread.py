"""engine/spread.py: same rows, same t-coverage, more (t+1)-tuples; and the compile-aware
tables (engine/variants.py) that use it.  Coverage is checked by :mod:`pairwise_param.coverage`
or by counting here, never by the engine's own verify."""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pairwise_param.coverage import measure
from pairwise_param.engine import EngineOptions
from pairwise_param.engine.pipeline import run
from pairwise_param.engine.requirements import requirements
from pairwise_param.engine.spread import spread
from pairwise_param.engine.variants import _restricted, compile_aware, compile_model
from pairwise_param.feasibility import Feasibility
from pairwise_param.model import Model
from tests.sizing import examples


def _held(rows, scopes):
    return {(s, tuple(r[a] for a in s)) for r in rows for s in scopes}


def _up(n, t):
    return list(itertools.combinations(range(n), t + 1))


# the fault study's fused-norm compile model (five binary compile axes, a bias needs a weight)
STUDY = {"norm_type": ["rms", "layer"], "dtype": ["bf16", "fp32"], "eps": [1e-6, 1e-5],
         "has_gate": [False, True], "gate_layout": ["none", "B1C", "BLC"], "has_weight": [False, True],
         "has_bias": [False, True], "scale_layout": ["B1C", "BLC"], "shift_layout": ["B1C", "BLC"],
         "padded": [False, True]}
STUDY_RULES = [lambda has_gate, gate_layout: has_gate == (gate_layout != "none"),
               lambda has_weight, has_bias: has_weight or not has_bias]
STUDY_COMPILE = ["norm_type", "dtype", "has_gate", "has_weight", "has_bias"]


def test_the_variant_list_covers_more_compile_triples_with_as_many_variants():
    """The compile model's array as the pipeline builds it holds 53 of the 74 coverable
    compile triples; every 6-row array of it holds 50 to 56 (all 416 enumerated, see
    benchmarks/README.md), and the spread one holds 56."""
    model = Model(STUDY, constraints=STUDY_RULES, compile_axes=STUDY_COMPILE).index_model
    feas = Feasibility(model.sizes, model.exclusions)
    cmodel = compile_model(model, feas)
    cfeas = Feasibility(cmodel.sizes, cmodel.exclusions)
    built = list(run(cmodel, EngineOptions(), cfeas).rows)
    infeasible = frozenset(requirements(model, feas).infeasible())
    _, variants = compile_aware(model, EngineOptions(), feas, infeasible)
    chosen = variants.rows[:variants.planned]
    triples = _up(5, 2)
    assert len(chosen) == len(built) == 6
    assert _held(chosen, cmodel.interactions) == _held(built, cmodel.interactions)  # every pair still there
    assert (len(_held(built, triples)), len(_held(chosen, triples))) == (53, 56)


def test_the_rows_cover_more_triples_of_all_axes_in_as_many_rows():
    """Fused norm's suite model (tests/engine/test_variants.py's FUSED): under the same 7
    variants, the table's rows hold more triples of all axes than the rows the pipeline
    builds for the restricted model, in as many rows."""
    from tests.engine.test_variants import FUSED, FUSED_COMPILE, FUSED_RULES

    model = Model(FUSED, constraints=FUSED_RULES, compile_axes=FUSED_COMPILE)
    im = model.index_model
    feas = Feasibility(im.sizes, im.exclusions)
    infeasible = frozenset(requirements(im, feas).infeasible())
    generated, variants = compile_aware(im, EngineOptions(), feas, infeasible)
    restricted, rfeas = _restricted(im, variants.rows)
    built = run(restricted, EngineOptions(), rfeas).rows
    three = [measure(model, [model.decode(r) for r in rows], strengths=3).levels[0].covered
             for rows in (built, generated.rows)]
    assert len(generated.rows) == len(built) and three[1] > three[0]
    assert measure(model, [model.decode(r) for r in generated.rows]).complete


@st.composite
def arrays(draw):
    """A constrained model and the pipeline's covering array of it."""
    n = draw(st.integers(3, 6))
    sizes = tuple(draw(st.lists(st.integers(2, 4), min_size=n, max_size=n)))
    t = draw(st.sampled_from([1, 2, 2, 2]))
    axes = {f"a{i}": list(range(s)) for i, s in enumerate(sizes)}
    rules = []
    if draw(st.booleans()):
        rules.append("not (a0 == 0 and a1 == 1)")
    if n > 3 and draw(st.booleans()):
        rules.append("a2 != 1 or a3 == 1")
    include = [{"a0": 1, "a2": 0}] if draw(st.booleans()) else []
    model = Model(axes, strength=t, constraints=rules, include=include)
    im = model.index_model
    feas = Feasibility(im.sizes, im.exclusions)
    return model, im, feas, list(run(im, EngineOptions(), feas).rows), t


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(arrays())
def test_a_spread_keeps_size_coverage_and_include_rows_and_never_covers_fewer_tuples_one_up(case):
    model, im, feas, rows, t = case
    moved = spread(im.sizes, im.interactions, feas, rows, frozen=len(im.include))
    assert len(moved) == len(rows) and len(set(moved)) == len(moved)
    assert moved[:len(im.include)] == rows[:len(im.include)]
    report = measure(model, [model.decode(r) for r in moved], strengths=[t, t + 1] if t + 1 <= len(im.sizes) else [t])
    assert report.complete and not report.violations
    if t + 1 <= len(im.sizes):
        assert len(_held(moved, _up(len(im.sizes), t))) >= len(_held(rows, _up(len(im.sizes), t)))
    assert spread(im.sizes, im.interactions, feas, rows, frozen=len(im.include)) == moved  # deterministic


def test_no_work_units_no_move_and_nothing_one_up_no_move():
    model = Model(STUDY, constraints=STUDY_RULES).index_model
    feas = Feasibility(model.sizes, model.exclusions)
    rows = list(run(model, EngineOptions(), feas).rows)
    assert spread(model.sizes, model.interactions, feas, rows, units=0) == rows
    whole = [tuple(r) for r in itertools.product(range(2), range(3))]
    assert spread((2, 3), ((0, 1),), Feasibility((2, 3), ()), whole) == whole  # t+1 > axes: nothing to spread
