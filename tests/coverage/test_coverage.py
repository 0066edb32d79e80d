"""The coverage module on hand-computed cases."""

from __future__ import annotations

import ast
import enum
import inspect
import itertools
import json
import pathlib
import random
import subprocess
import sys

import pytest

import pairwise_param.coverage as coverage_module
from pairwise_param import Model, cover
from pairwise_param.coverage import (
    Combination,
    CoverageReport,
    audit_rows,
    extendable,
    measure,
    model_from_rows,
)
from pairwise_param.errors import (
    InvalidArgument,
    InvalidConstraint,
    RowOutsideModel,
    UnsatisfiableConstraints,
)

AXES = {"a": [0, 1], "b": ["x", "y"], "c": [0, 1, 2]}

# A complete pairwise list for 2x2x3 (6 rows) ...
COMPLETE = [
    {"a": 0, "b": "x", "c": 0},
    {"a": 1, "b": "y", "c": 0},
    {"a": 0, "b": "y", "c": 1},
    {"a": 1, "b": "x", "c": 1},
    {"a": 0, "b": "x", "c": 2},
    {"a": 1, "b": "y", "c": 2},
]
# ... and the same with the last row changed so that exactly {b=y, c=2} is missing.
ONE_MISSING = COMPLETE[:5] + [{"a": 1, "b": "x", "c": 2}]


def model(**kw):
    return Model(AXES, **kw)


# -- counts -------------------------------------------------------------------------
def test_complete_list():
    r = measure(model(), COMPLETE)
    assert (r.overall.total, r.overall.coverable, r.overall.covered) == (16, 16, 16)
    assert r.percent == 100.0 and r.complete and r.ok
    assert r.overall.missing == () and r.overall.infeasible == ()


def test_known_missing_pair():
    r = measure(model(), ONE_MISSING)
    assert r.overall.covered == 15 and r.overall.coverable == 16
    assert r.percent == pytest.approx(93.75)
    assert not r.complete and not r.ok
    (miss,) = r.overall.missing
    assert miss.as_dict() == {"b": "y", "c": 2}
    assert miss.index == ((1, 2), (1, 2))
    assert str(miss) == "{b=y, c=2}"


def test_cumulative_by_hand():
    r = measure(model(), ONE_MISSING)
    assert r.overall.cumulative == (3, 6, 9, 12, 14, 15)
    assert r.curve == tuple(100.0 * c / 16 for c in (3, 6, 9, 12, 14, 15))
    assert r.curve[-1] == r.percent


@pytest.mark.parametrize(
    "t, coverable, covered",
    [(1, 7, 7), (2, 16, 15), (3, 12, 6)],
)
def test_strengths_one_to_three(t, coverable, covered):
    r = measure(model(), ONE_MISSING, strengths=[1, 2, 3])
    lv = r.level(t)
    assert (lv.strength, lv.coverable, lv.covered) == (t, coverable, covered)
    assert lv.scope_count == {1: 3, 2: 3, 3: 1}[t]


def test_t3_missing_listed():
    r = measure(model(), ONE_MISSING, strengths=3)
    lv = r.level(3)
    present = {(row["a"], row["b"], row["c"]) for row in ONE_MISSING}
    assert {tuple(m.values) for m in lv.missing} == {
        (a, b, c) for a in (0, 1) for b in "xy" for c in (0, 1, 2)
    } - present
    assert len(lv.missing) == 6


def test_strength_beyond_the_axes_is_not_applicable():
    r = measure(model(), ONE_MISSING, strengths=[2, 4, 7])
    for t in (4, 7):
        lv = r.level(t)
        assert not lv.applicable and lv.percent is None and lv.curve == ()
        assert lv.coverable == lv.covered == 0
    assert r.percent == pytest.approx(93.75)  # the model's own level is unaffected
    assert "t=4: not applicable" in r.summary()
    json.dumps(r.to_dict())


def test_level_not_measured():
    r = measure(model(), COMPLETE)
    with pytest.raises(InvalidArgument, match="strength=3"):
        r.level(3)


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True, []])
def test_bad_strengths(bad):
    with pytest.raises(InvalidArgument):
        measure(model(), COMPLETE, strengths=bad)


def test_no_rows():
    r = measure(model(), [])
    assert r.rows == 0 and r.overall.covered == 0 and r.percent == 0.0
    assert len(r.overall.missing) == 16 and r.overall.cumulative == ()


# -- constraints ----------------------------------------------------------------------
def no_a1_c2(a, c):
    return not (a == 1 and c == 2)


def test_infeasible_tuples_under_a_constraint():
    r = measure(model(constraints=[no_a1_c2]), COMPLETE[:5], strengths=[2, 3])
    lv = r.level(2)
    assert [i.as_dict() for i in lv.infeasible] == [{"a": 1, "c": 2}]
    assert (lv.total, lv.coverable) == (16, 15)
    assert [m.as_dict() for m in lv.missing] == [{"b": "y", "c": 2}]
    assert sorted(tuple(i.values) for i in r.level(3).infeasible) == [(1, "x", 2), (1, "y", 2)]
    assert r.level(3).coverable == 10


def test_infeasible_by_a_chain_of_constraints():
    # a=0 forces b=x, b=x forbids c=0: so {a=0, c=0} is infeasible although
    # no single constraint names it.
    cons = [lambda a, b: not (a == 0 and b == "y"), lambda b, c: not (b == "x" and c == 0)]
    m = model(constraints=cons)
    r = measure(m, [])
    assert sorted(str(i) for i in r.overall.infeasible) == ["{a=0, b=y}", "{a=0, c=0}", "{b=x, c=0}"]
    assert r.overall.coverable == 13
    rows = cover(AXES, constraints=cons)
    assert sorted(map(str, measure(m, rows).overall.infeasible)) == sorted(map(str, r.overall.infeasible))
    assert {frozenset(t.items()) for t in rows.infeasible} == {
        frozenset(i.as_dict().items()) for i in r.overall.infeasible
    }
    assert measure(rows.model, rows).ok


def test_violating_rows_are_listed_and_not_counted():
    rows = COMPLETE  # the last row has a=1, c=2
    r = measure(model(constraints=[no_a1_c2]), rows)
    (v,) = r.violations
    assert v.row == 5 and v.constraint == "no_a1_c2(a, c)"
    assert dict(v.arguments) == {"a": 1, "c": 2} and v.error is None
    assert r.counted == (0, 1, 2, 3, 4)
    assert [m.as_dict() for m in r.overall.missing] == [{"b": "y", "c": 2}]
    assert r.overall.cumulative[-1] == r.overall.cumulative[-2]  # the bad row adds nothing
    assert not r.ok and "no_a1_c2(a, c) is false" in r.summary()


def test_violating_rows_counted_on_request():
    r = measure(model(constraints=[no_a1_c2]), COMPLETE, count_invalid=True)
    assert r.complete and r.violations and len(r.counted) == 6


def test_predicate_raising_on_a_value_outside_the_model():
    def strict(c):
        return {0: True, 1: True, 2: True}[c]

    r = measure(model(constraints=[strict]), [{"a": 0, "b": "x", "c": 9}])
    (v,) = r.violations
    assert v.error.startswith("KeyError") and "raised KeyError" in str(v)
    assert r.out_of_model[0].kind == "value"


def test_grouped_axis_constraints_and_rows():
    shapes = [(1, 8), (4, 16), (8, 64)]
    m = Model({"n,m": shapes, "dtype": ["fp16", "fp32"]}, constraints=[lambda m, dtype: not (m > 32 and dtype == "fp32")])
    rows = [
        {"n": 1, "m": 8, "dtype": "fp16"},
        {"n,m": (4, 16), "dtype": "fp32"},  # by axis name
        (8, 64, "fp16"),  # argument order, flattened
        ((1, 8), "fp32"),  # axis order
        (8, 64, "fp32"),  # breaks the constraint
        pytest.param(4, 16, "fp16"),
    ]
    r = measure(m, rows)
    assert [v.row for v in r.violations] == [4]
    assert [str(i) for i in r.overall.infeasible] == ["{n,m=(8, 64), dtype=fp32}"]
    assert r.complete and r.overall.coverable == 5


# -- row formats and cells outside the model -------------------------------------------
def test_rows_as_tuples_and_pytest_params():
    rows = [tuple(r.values()) for r in COMPLETE[:3]] + [pytest.param(*r.values(), id=f"r{i}") for i, r in enumerate(COMPLETE[3:])]
    assert measure(model(), rows).complete


def test_rows_of_a_single_argument_are_bare_values():
    m = Model({"dtype": ["fp16", (1,), "bf16"]}, strength=1)
    r = measure(m, ["fp16", pytest.param("bf16"), ((1,),)])
    assert r.complete and not r.out_of_model
    r = measure(m, [(1,)])  # a value of the axis, not a 1-tuple wrapper
    assert r.overall.covered == 1


def test_cover_output_in_all_its_forms():
    rows = cover({"n,k": [(1, 2), (3, 4)], "x": [0, 1, 2]}, constraints=[lambda n, x: n == 1 or x != 2])
    m = rows.model
    for form in (list(rows), rows.values(), [tuple(r.values()) for r in rows]):
        assert measure(m, form).ok


def test_out_of_model_cells_are_listed():
    rows = [
        {"a": 0, "b": "z", "c": 0},  # unknown value
        {"a": 1, "b": "y"},  # missing c
        {"a": 1, "b": "x", "c": 1, "d": 5},  # unknown argument
    ]
    r = measure(model(), rows)
    got = [(o.row, o.name, o.value, o.kind) for o in r.out_of_model]
    assert got == [(0, "b", "z", "value"), (1, "c", None, "missing"), (2, "d", 5, "argument")]
    # The known cells still count: {a=0, c=0} from row 0, {a=1, b=y} from row 1.
    covered = {str(c) for c in r.overall.missing}
    assert "{a=0, c=0}" not in covered and "{a=1, b=y}" not in covered
    assert r.overall.covered == 1 + 1 + 3
    assert not r.ok


def test_out_of_model_raise():
    with pytest.raises(RowOutsideModel, match="'b' has no value z"):
        measure(Model(AXES, where="test_x"), [{"a": 0, "b": "z", "c": 0}], unknown="raise")


def test_true_is_not_one():
    r = measure(model(), [{"a": True, "b": "x", "c": 0}])
    assert r.out_of_model[0].value is True


def test_list_value_matches_tuple_value():
    m = Model({"shape": [(1, 2), (3, 4)], "x": [0]})
    r = measure(m, [{"shape": [1, 2], "x": 0}, {"shape": [3, 4], "x": 0}])
    assert r.complete and not r.out_of_model


@pytest.mark.parametrize("rows", [[3], [(0, "x")], [(0, "x", 0, 1)]])
def test_malformed_rows(rows):
    with pytest.raises(InvalidArgument, match="row 0"):
        measure(model(), rows)


def test_measure_argument_checks():
    with pytest.raises(InvalidArgument, match="Model"):
        measure(AXES, COMPLETE)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="unknown"):
        measure(model(), COMPLETE, unknown="ignore")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument):
        measure(model(), {"a": 0})


# -- sub-models (mixed strength) -------------------------------------------------------
def test_mixed_strength_overall_level():
    m = Model(
        {"a": [0, 1], "b": [0, 1], "c": [0, 1], "d": [0, 1]}, sub_models=[(("a", "b", "c"), 3)]
    )
    r = measure(m, [])
    # 6 pair scopes of 4 combos + 1 triple scope of 8
    assert r.overall.strength is None and r.overall.total == 6 * 4 + 8
    assert r.overall.name == "t=2 + {a,b,c}@3"
    assert r.level(2).total == 24
    rows = cover({"a": [0, 1], "b": [0, 1], "c": [0, 1], "d": [0, 1]}, sub_models=[(("a", "b", "c"), 3)])
    assert measure(rows.model, rows).ok


# -- the report -----------------------------------------------------------------------
class Color(enum.Enum):
    RED = 1


class Dtype:
    def __repr__(self):
        return "torch.float16"


def test_to_dict_is_json():
    m = Model({"e": [Color.RED, None], "d": [Dtype(), 1.5], "s": [(1, "a"), "x"]}, constraints=[lambda e, s: e is None or s == "x"])
    r = measure(m, [{"e": Color.RED, "d": 1.5, "s": (1, "a")}])
    d = json.loads(json.dumps(r.to_dict()))
    assert d["model"]["axes"]["e"] == ["RED", None]
    assert d["model"]["axes"]["d"] == ["torch.float16", 1.5]
    assert d["model"]["axes"]["s"] == [[1, "a"], "x"]
    assert d["violations"][0]["arguments"] == {"e": "RED", "s": [1, "a"]}
    assert d["overall"]["infeasible"] == [{"e": "RED", "s": [1, "a"]}]
    assert d["percent"] == r.percent and d["rows"] == 1
    short = r.to_dict(limit=1)
    assert len(short["overall"]["missing"]) == 1 and short["overall"]["missing_count"] == d["overall"]["missing_count"]


def test_report_is_frozen():
    r = measure(model(), COMPLETE)
    assert isinstance(r, CoverageReport)
    with pytest.raises(AttributeError):
        r.rows = 3  # type: ignore[misc]
    assert isinstance(r.overall.missing, tuple)
    assert Combination(("a",), (0,), ((0,), (0,))).as_dict() == {"a": 0}


def test_cumulative_monotone_and_ends_at_percent():
    rng = random.Random(7)
    axes = {f"x{i}": list(range(3)) for i in range(6)}
    rows = [{k: rng.randrange(3) for k in axes} for _ in range(25)]
    r = measure(Model(axes, constraints=[lambda x0, x1: x0 != x1]), rows, strengths=[1, 2, 3])
    for lv in r.levels:
        cum = lv.cumulative
        assert len(cum) == 25
        assert all(a <= b for a, b in itertools.pairwise(cum))
        assert cum[-1] == lv.covered and lv.curve[-1] == pytest.approx(lv.percent)


def test_larger_model_at_t3():
    # 100 rows x 20 axes of 4 values at t=3: per-scope counting (this runs in a
    # fraction of a second; speed itself is checked by the benchmarks).
    rng = random.Random(0)
    axes = {f"x{i}": list(range(4)) for i in range(20)}
    rows = [{k: rng.randrange(4) for k in axes} for _ in range(100)]
    m = Model(axes, strength=3, constraints=[lambda x0, x1: x0 != x1, lambda x1, x2, x3: x1 + x2 + x3 < 8])
    r = measure(m, rows)
    assert r.overall.total == 1140 * 64
    assert r.overall.covered + len(r.overall.missing) == r.overall.coverable
    assert r.overall.coverable + len(r.overall.infeasible) == r.overall.total


# -- extendable -------------------------------------------------------------------------
def test_extendable():
    cons = [lambda a, b: not (a == 0 and b == "y"), lambda b, c: not (b == "x" and c == 0)]
    m = model(constraints=cons)
    assert extendable(m, {"a": 0})
    assert not extendable(m, {"a": 0, "c": 0})
    assert extendable(m, {})
    with pytest.raises(RowOutsideModel):
        extendable(m, {"a": 5})


def test_extendable_with_part_of_a_grouped_axis():
    m = Model(
        {"n,m": [(1, 8), (1, 64), (4, 64)], "dtype": ["fp16", "fp32"]},
        constraints=[lambda m, dtype: not (m == 8 and dtype == "fp32"), lambda n, dtype: not (n == 4 and dtype == "fp32")],
    )
    assert extendable(m, {"n": 1, "dtype": "fp32"})  # (1, 64) works
    assert not extendable(m, {"n": 4, "dtype": "fp32"})
    assert not extendable(m, {"n": 1, "m": 8, "dtype": "fp32"})
    with pytest.raises(RowOutsideModel, match="n=2"):
        extendable(m, {"n": 2})


def test_constraint_raising_during_search_is_reported():
    calls = []

    def flaky(a):
        calls.append(a)
        if len(calls) > 2:  # fine while the model tabulates it, then fails
            raise RuntimeError("boom")
        return True

    m = Model({"a": [0, 1], "b": [0]}, constraints=[flaky])
    with pytest.raises(InvalidConstraint, match="boom"):
        measure(m, [{"a": 0, "b": 0}])


# -- observed rows ----------------------------------------------------------------------
def test_model_from_dict_rows():
    rows = [{"dtype": "bf16", "n": 1}, {"dtype": "fp16", "n": True}, {"dtype": "bf16", "n": 2}]
    m = model_from_rows(rows)
    assert m.names == ("dtype", "n")
    assert m.axes[0].values == ("bf16", "fp16")
    assert m.axes[1].values == (1, True, 2)  # 1 and True stay distinct


def test_model_from_tuple_rows_and_grouped_names():
    rows = [("fp16", 1, 8), ("bf16", 4, 16), ("fp16", 4, 16)]
    m = model_from_rows(rows, ["dtype", "n,m"])
    assert m.names == ("dtype", "n,m") and m.axes[1].values == ((1, 8), (4, 16))
    m = model_from_rows(rows, "dtype,n,m")
    assert m.names == ("dtype", "n", "m")


def test_model_from_rows_freezes_lists():
    m = model_from_rows([{"shape": [1, 2]}, {"shape": [1, 2]}, {"shape": [3]}])
    assert m.axes[0].values == ((1, 2), (3,))
    assert m.strength == 1  # lowered to the number of axes


def test_model_from_rows_errors():
    with pytest.raises(InvalidArgument, match="argnames"):
        model_from_rows([("a", 1)])
    with pytest.raises(InvalidArgument, match="at least one row"):
        model_from_rows([])
    with pytest.raises(InvalidArgument, match="row 1"):
        model_from_rows([("a", 1), ("b",)], "x,y")


def test_audit_rows():
    r = audit_rows([tuple(row.values()) for row in ONE_MISSING], "a,b,c")
    assert r.percent == pytest.approx(93.75)
    assert [str(m) for m in r.overall.missing] == ["{b=y, c=2}"]
    r = audit_rows([pytest.param("fp16", 0), pytest.param("bf16", 1)], ["dtype", "x"], strengths=[1, 2, 3])
    assert r.level(1).percent == 100.0 and r.level(2).percent == 50.0 and not r.level(3).applicable


# -- independence and import hygiene -------------------------------------------------------
def test_coverage_does_not_use_the_engine():
    package = pathlib.Path(coverage_module.__file__).parent
    files = sorted(package.glob("*.py"))
    assert len(files) >= 4, files  # the package's modules, not an empty glob
    imported = set()
    for node in (n for f in files for n in ast.walk(ast.parse(f.read_text()))):
        if isinstance(node, ast.ImportFrom):
            imported.add(node.module or "")
            imported.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            imported.update(a.name for a in node.names)
    assert not any("engine" in name for name in imported), imported
    assert not any(name.endswith(("Feasibility", "table", "covering")) for name in imported), imported
    code = (
        "import sys, pairwise_param.coverage as c, pairwise_param.model as m; "
        "c.measure(m.Model({'a': [1, 2], 'b': [1, 2]}), [{'a': 1, 'b': 1}]); "
        "loaded = sorted(n for n in sys.modules if n.startswith(('pairwise_param.engine', 'pairwise_param.constraints.Feas'))); "
        "assert not loaded, loaded"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_core_imports_no_torch_or_numpy():
    code = (
        "import sys, pairwise_param, pairwise_param.coverage, pairwise_param.model; "
        "heavy = {'torch', 'numpy', 'triton'} & set(sys.modules); "
        "assert not heavy, heavy"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# -- the exact search against brute force ---------------------------------------------
def _random_small_model(rng: random.Random) -> Model:
    n = rng.randint(2, 5)
    axes = {f"x{i}": list(range(rng.randint(1, 3) if i else 3)) for i in range(n)}
    names = list(axes)
    constraints = []
    for _ in range(rng.randint(1, 4)):
        scope = rng.sample(names, rng.randint(2, min(3, n)))
        forbidden = {tuple(rng.choice(axes[a]) for a in scope) for _ in range(rng.randint(1, 2))}

        def pred(*, _scope=tuple(scope), _forbidden=frozenset(forbidden), **kw):
            return tuple(kw[a] for a in _scope) not in _forbidden

        # A signature naming the scope's axes, as a hand-written `def` would.
        pred.__signature__ = inspect.Signature(
            [inspect.Parameter(a, inspect.Parameter.KEYWORD_ONLY) for a in scope]
        )
        constraints.append(pred)
    return Model(axes, strength=rng.randint(1, n), constraints=constraints)


@pytest.mark.parametrize("seed", range(40))
def test_infeasible_tuples_match_brute_force(seed):
    rng = random.Random(seed)
    try:
        m = _random_small_model(rng)
    except UnsatisfiableConstraints:  # a few draws: nothing to compare
        return
    names = [a.name for a in m.axes]
    valid = [
        row
        for row in itertools.product(*(range(len(a.values)) for a in m.axes))
        if all(c.predicate(**{p: m.axes[names.index(p)].values[row[names.index(p)]] for p in c.params}) for c in m.constraints)
    ]
    t = m.strength
    expected = set()
    for scope in itertools.combinations(range(len(names)), t):
        present = {tuple(r[a] for a in scope) for r in valid}
        for combo in itertools.product(*(range(len(m.axes[a].values)) for a in scope)):
            if combo not in present:
                expected.add((scope, combo))
    r = measure(m, [dict(zip(names, (m.axes[a].values[v] for a, v in enumerate(row)))) for row in valid])
    assert {c.index for c in r.overall.infeasible} == expected
    assert r.ok  # the full set of valid rows covers every coverable tuple
    for row in valid[:5]:
        assert extendable(m, {names[a]: m.axes[a].values[v] for a, v in enumerate(row) if a % 2 == 0})
