"""The model: value kinds, grouped axes, constraints on partial rows, include
rows, sub-models and the fingerprint."""

from __future__ import annotations

import enum
import json
import os
import subprocess
import sys
import textwrap

import pytest

from pairwise_param import Model, cover
from pairwise_param.coverage import measure
from pairwise_param.model import value_label


class FakeDtype:
    """Stands in for ``torch.dtype``: no ``__name__``, a custom repr, hashable
    by identity (as torch's dtypes are)."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return f"torch.{self._name}"


float16, bfloat16, float32 = FakeDtype("float16"), FakeDtype("bfloat16"), FakeDtype("float32")


class Mode(enum.Enum):
    NONE = 0
    ROW = 1
    FULL = 2


# -- values -------------------------------------------------------------------
def test_values_keep_the_users_objects_and_order():
    axes = {
        "dtype": [float16, bfloat16, float32],
        "mode": [Mode.FULL, Mode.NONE, Mode.ROW],
        "opt": [None, 1, "x"],
        "shape": [(1, 2), (3, 4)],
    }
    m = Model(axes)
    assert m.axes[0].values == (float16, bfloat16, float32)
    assert m.axes[1].values == (Mode.FULL, Mode.NONE, Mode.ROW)
    rows = cover(axes)
    for row in rows:
        assert any(row["dtype"] is d for d in axes["dtype"])  # the very objects, not copies
        assert row["mode"] in axes["mode"]
        assert row["opt"] in axes["opt"]
        assert type(row["shape"]) is tuple
    assert measure(rows.model, rows).ok


def test_value_labels():
    assert value_label(Mode.ROW) == "ROW"
    assert value_label(None) == "None"
    assert value_label("fp16") == "fp16"
    assert value_label((1, 2)) == "(1, 2)"
    assert value_label(float16) == "torch.float16"


def test_none_is_a_value():
    rows = cover({"bias": [None, 0], "x": [1, 2]})
    assert {r["bias"] for r in rows} == {None, 0}


def test_constraint_sees_enum_and_dtype_like_values():
    def no_fp32_full(dtype, mode):
        return not (dtype is float32 and mode is Mode.FULL)

    rows = cover(
        {"dtype": [float16, float32], "mode": list(Mode), "x": [0, 1]}, constraints=[no_fp32_full]
    )
    assert all(no_fp32_full(r["dtype"], r["mode"]) for r in rows)
    assert [{k: value_label(v) for k, v in t.items()} for t in rows.infeasible] == [
        {"dtype": "torch.float32", "mode": "FULL"}
    ]


def test_single_value_axis():
    rows = cover({"a": [1], "b": [1, 2]})
    assert len(rows) == 2


# -- grouped axes ----------------------------------------------------------------
SHAPES = [(1, 8, 16), (4, 16, 16), (8, 8, 64), (16, 32, 32)]


def test_grouped_axis_names_and_flattened_rows():
    m = Model({"n,k,m": SHAPES, "dtype": ["fp16", "bf16"]})
    assert m.names == ("n,k,m", "dtype")
    assert m.argnames == ("n", "k", "m", "dtype")
    assert m.sizes == (4, 2)
    assert m.axis_index("k") == 0 and m.axis_index("n,k,m") == 0
    rows = cover({"n,k,m": SHAPES, "dtype": ["fp16", "bf16"]})
    assert len(rows) == 8
    assert set(rows[0]) == {"n", "k", "m", "dtype"}


def test_grouped_axis_spaces_in_name():
    m = Model({" n , k ": [(1, 2)], "x": [0]})
    assert m.names[0] == "n,k" and m.argnames[:2] == ("n", "k")


def test_constraints_on_parts_of_a_grouped_axis():
    def small_n_needs_big_m(n, m):
        return n > 1 or m >= 16

    def no_big_m_in_fp32(m, dtype):
        return not (m > 32 and dtype == "fp32")

    axes = {"n,k,m": SHAPES, "dtype": ["fp16", "fp32"], "xnorm": [0, 1]}
    rows = cover(axes, constraints=[small_n_needs_big_m, no_big_m_in_fp32])
    for r in rows:
        assert small_n_needs_big_m(r["n"], r["m"]) and no_big_m_in_fp32(r["m"], r["dtype"])
    assert {(r["n"], r["k"], r["m"]) for r in rows} == set(SHAPES)
    assert rows.infeasible == [{"n,k,m": (8, 8, 64), "dtype": "fp32"}]
    report = measure(rows.model, rows)
    assert report.ok


def test_constraint_on_two_parts_has_one_axis_scope():
    m = Model({"n,k,m": SHAPES, "x": [0, 1]}, constraints=[lambda n, m: n * m <= 256])
    assert [e.scope for e in m.exclusions] == [(0,)]
    assert m.exclusions[0].forbidden == frozenset({(2,), (3,)})


def test_include_by_parts_and_by_whole():
    axes = {"n,k,m": SHAPES, "dtype": ["fp16", "bf16"]}
    rows = cover(axes, include=[{"n": 8, "k": 8, "m": 64, "dtype": "bf16"}, {"n,k,m": (4, 16, 16)}])
    assert rows[0] == {"n": 8, "k": 8, "m": 64, "dtype": "bf16"}
    assert (rows[1]["n"], rows[1]["k"], rows[1]["m"]) == (4, 16, 16)


# -- constraints ------------------------------------------------------------------
def test_constraints_are_tabulated_per_scope_and_merged():
    m = Model(
        {"a": [0, 1, 2], "b": [0, 1], "c": [0, 1]},
        constraints=[lambda a, b: a != 2 or b == 0, lambda b, a: not (a == 0 and b == 1), lambda c: c == 0],
    )
    scopes = {e.scope: e.forbidden for e in m.exclusions}
    assert scopes == {(0, 1): frozenset({(2, 1), (0, 1)}), (2,): frozenset({(1,)})}


def test_constraint_with_keyword_only_and_default_params():
    def pred(a, *, b, scale=2):
        return a * scale != b

    m = Model({"a": [0, 1], "b": [0, 2]}, constraints=[pred])
    assert m.exclusions[0].forbidden == frozenset({(0, 0), (1, 1)})


def test_constraint_returning_non_bool_is_an_error():
    """Issue 35 replaced truthiness (``lambda a: a`` forbade a == 0) with one rule: a
    predicate returns a bool; ``bool(...)`` says truthiness on purpose."""
    from pairwise_param.errors import InvalidConstraint

    with pytest.raises(InvalidConstraint, match=r"lambda a: a returned 0 \(int, not a bool\)"):
        Model({"a": [0, 1], "b": [0, 1]}, constraints=[lambda a: a])
    m = Model({"a": [0, 1], "b": [0, 1]}, constraints=[lambda a: bool(a)])  # forbids a == 0
    assert m.exclusions[0].forbidden == frozenset({(0,)})


def test_constraint_labels_show_source():
    m = Model({"dtype": ["fp16", "fp32"], "b": [0, 1]}, constraints=[lambda dtype, b: not (dtype == "fp32" and b)])
    assert "dtype == \"fp32\"" in m.constraints[0].label


# -- sub-models ---------------------------------------------------------------------
def test_sub_model_interactions():
    m = Model(
        {"a": [0, 1], "b": [0, 1], "c": [0, 1], "d": [0, 1]}, sub_models=[(("a", "b", "c"), 3)]
    )
    inter = m.index_model.interactions
    assert (0, 1, 2) in inter
    assert (0, 1) not in inter  # contained in (0, 1, 2)
    assert (0, 3) in inter and (2, 3) in inter


def test_sub_model_rows_cover_the_triples():
    axes = {"a": [0, 1, 2], "b": [0, 1], "c": [0, 1, 2], "d": [0, 1]}
    rows = cover(axes, sub_models=[(("a", "b", "c"), 3)])
    assert {(r["a"], r["b"], r["c"]) for r in rows} == {(a, b, c) for a in range(3) for b in range(2) for c in range(3)}
    report = measure(rows.model, rows, strengths=[2, 3])
    assert report.complete and report.level(2).complete
    assert report.overall.strength is None and "{a,b,c}@3" in report.overall.name


def test_sub_model_by_grouped_part_name():
    m = Model({"n,k,m": SHAPES, "x": [0, 1], "y": [0, 1]}, sub_models=[(("k", "x", "y"), 3)])
    assert m.sub_models[0].axes == (0, 1, 2)


# -- fingerprint -------------------------------------------------------------------
def _model_source() -> str:
    return textwrap.dedent(
        """
        import enum
        from pairwise_param import Model

        class Mode(enum.Enum):
            A = 1
            B = 2

        class Obj:
            def __init__(self, n):
                self.n = n
            def __eq__(self, other):
                return isinstance(other, Obj) and other.n == self.n
            def __hash__(self):
                return hash(self.n)

        m = Model(
            {"s": ["x", "y", "z"], "t": [(1, 2), None, ("a",), frozenset({"p", "q", "r"})], "e": [Mode.B, Mode.A],
             "o": [Obj(1), Obj(2)], "n,k": [(1, 2), (3, 4)]},
            constraints=[lambda s, e: not (s == "x" and e is Mode.A)],
            include=[{"s": "y"}],
            sub_models=[(("s", "t", "e"), 3)],
        )
        print(m.fingerprint())
        """
    )


def test_fingerprint_is_stable_across_processes_and_hash_seeds():
    prints = set()
    for seed in ("0", "1", "4242"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        out = subprocess.run(
            [sys.executable, "-c", _model_source()], env=env, capture_output=True, text=True, check=True
        )
        prints.add(out.stdout.strip())
    assert len(prints) == 1
    (fp,) = prints
    assert len(fp) == 64 and int(fp, 16) >= 0


def test_fingerprint_is_a_pure_function_of_the_model():
    def build():
        return Model({"a": [1, 2], "b": ["x", "y"]}, constraints=[lambda a, b: not (a == 1 and b == "y")])

    assert build().fingerprint() == build().fingerprint()


@pytest.mark.parametrize(
    "other",
    [
        {"axes": {"a": [1, 2], "b": ["x", "z"]}},  # a different value, same sizes
        {"axes": {"a": [2, 1], "b": ["x", "y"]}},  # value order
        {"axes": {"a": [1, 2], "c": ["x", "y"]}},  # axis name
        {"axes": {"a": [1, 2], "b": ["x", "y"]}, "strength": 1},
        {"axes": {"a": [1, 2], "b": ["x", "y"]}, "constraints": [lambda a: a == 1]},
        {"axes": {"a": [1, 2], "b": ["x", "y"]}, "include": [{"a": 2}]},
        {"axes": {"a": [1, True], "b": ["x", "y"]}},  # 1 vs True
        {"axes": {"a": [1, 2], "b": ["x", "y"], "c": [0]}},
    ],
)
def test_fingerprint_differs_for_different_models(other):
    base = Model({"a": [1, 2], "b": ["x", "y"]})
    axes = other.pop("axes")
    assert Model(axes, **other).fingerprint() != base.fingerprint()


def test_fingerprint_ignores_memory_addresses():
    class Plain:  # default repr shows id()
        pass

    a = Model({"o": [Plain()], "x": [0, 1]}).fingerprint()
    b = Model({"o": [Plain()], "x": [0, 1]}).fingerprint()
    assert a == b


def test_index_model_canonical_is_json():
    m = Model({"a": [1, 2], "b": ["x", "y"]}, constraints=[lambda a, b: a == 1 or b == "x"], include=[{"b": "y"}])
    blob = json.dumps(m.index_model.canonical())
    assert '"include": [[-1, 1]]' in blob


def test_repr_and_full_product():
    m = Model({"dtype": [1, 2, 3], "b": [0, 1]})
    assert m.full_product == 6
    assert repr(m) == "Model(dtype[3], b[2], strength=2, constraints=0)"


def test_grouped_axis_accepts_list_rows_like_parametrize():
    """Issue 10 section 4: ``{"n,k": [[1, 512], [8, 64]]}`` is what parametrize takes; the rows
    are the same rows as tuples (a wrong length still names the row)."""
    from pairwise_param.errors import InvalidArgument

    as_lists = cover({"n,k": [[1, 512], [8, 64]], "a": [0, 1]})
    as_tuples = cover({"n,k": [(1, 512), (8, 64)], "a": [0, 1]})
    assert list(as_lists) == list(as_tuples) and len(as_lists) == 4
    with pytest.raises(InvalidArgument, match=r"grouped axis 'n,k' needs tuples of 2 values, value #1"):
        Model({"n,k": [[1, 512], [8, 64, 2]]})


@pytest.mark.parametrize("values", [{"a", "b", "c"}, frozenset({1, 2, 3})], ids=["set", "frozenset"])
def test_unordered_axis_values_are_refused(values):
    """Regression (issue 17): a set's order follows PYTHONHASHSEED, so its rows
    and ids changed between xdist workers ("Different tests were collected")."""
    from pairwise_param.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match=r"axis 'x' values are a (set|frozenset).*give a list"):
        cover({"x": values, "y": [1, 2]})
    # an ordered view of a set is fine, and a frozenset is still a valid *value*
    assert len(cover({"x": sorted(values), "y": [1, 2]})) == 2 * len(values)
    assert len(cover({"x": [frozenset({1, 2}), frozenset({3})], "y": [1, 2]})) == 4


def test_lambdas_sharing_a_source_line_each_get_their_own_label():
    """Regression (issue 17): every lambda on one line was labelled with the
    first one's text, so errors named the wrong constraint."""
    from pairwise_param.errors import InvalidConstraint

    cs = [lambda a, b: a != b, lambda a, c: a < c, lambda b: b > 1, lambda c: 1 // (c - 3)]
    m = Model({"a": [1, 2], "b": [1, 2, 3], "c": [2, 4]}, constraints=cs[:3])
    assert [c.label for c in m.constraints] == ["lambda a, b: a != b", "lambda a, c: a < c", "lambda b: b > 1"]
    with pytest.raises(InvalidConstraint, match=r"constraint lambda c: 1 // \(c - 3\) raised ZeroDivisionError"):
        Model({"a": [1, 2], "b": [1, 2, 3], "c": [3, 4]}, constraints=cs)
    nested = lambda x: (lambda y: y + x)
    from pairwise_param.constraints import describe_predicate

    assert describe_predicate(nested(1)) == "lambda y: y + x"


@pytest.mark.parametrize("option", ["constraints", "include", "sub_models"])
def test_none_means_none_for_optional_lists(option):
    """Regression (issue 17): cover(..., include=None) raised a raw TypeError."""
    axes = {"a": [1, 2], "b": [1, 2, 3]}
    assert cover(axes, **{option: None}) == cover(axes)


def test_axis_names_need_not_be_identifiers():
    """Regression (issue 17): declarative rules over `bias-mode`, `my axis` or
    `if` raised "ValueError: ... is not a valid parameter name".  Such axes
    are supported; Python predicates (and expressions) can only name the
    identifier-safe ones."""
    from pairwise_param.errors import UnknownAxis

    axes = {"bias-mode": [0, 1], "my axis": [1, 2], "if": [1, 2], "ok": [0, 1]}
    t = cover(axes, constraints=[{"never": {"bias-mode": 1, "if": 2}}, lambda ok: ok in (0, 1), "ok in [0, 1]"])
    assert t.model.constraints[0].label == "never bias-mode=1, if=2"
    assert not any(r["bias-mode"] == 1 and r["if"] == 2 for r in t)
    assert measure(t.model, list(t)).complete
    with pytest.raises(UnknownAxis, match="unknown axis 'my_axis'; did you mean 'my axis'"):
        cover(axes, constraints=[{"never": {"my_axis": 1}}])


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ("dtype == 'fp61'", "axis 'dtype' has no value 'fp61'"),
        ("not (dtype == 'fp32' and b in [2, 5])", "axis 'b' has no value 5"),
        ("3 == b", "axis 'b' has no value 3"),
        ("b < 'x'", "axis 'b': lt 'x' compares with none of its values"),
        ({"never": {"dtype": "fp61"}}, "axis 'dtype' has no value 'fp61'"),  # the same rule, declarative
    ],
)
def test_a_value_no_axis_holds_is_an_error_in_expressions_too(rule, message):
    """Regression (issue 17): `dtype == 'fp61'` in an expression was accepted
    and constrained nothing, while the same typo in a declarative rule was an error."""
    from pairwise_param.errors import InvalidConstraint

    with pytest.raises(InvalidConstraint, match=message):
        cover({"dtype": ["fp16", "fp32"], "b": [0, 1, 2]}, constraints=[rule])
    assert len(cover({"dtype": ["fp16", "fp32"], "b": [0, 1, 2]}, constraints=["dtype != 'fp16' or b in [0, 1]"])) == 5


def _no_fp32_big(dtype, b):
    return not (dtype == "fp32" and b in (2, 9))


def test_python_predicates_comparing_with_a_constant_no_value_equals_warn():
    from pairwise_param.errors import PairwiseWarning

    axes = {"dtype": ["fp16", "fp32"], "b": [0, 1, 2]}
    with pytest.warns(PairwiseWarning, match=r"compares 'dtype' with 'fp61', which no value of its axis equals"):
        cover(axes, constraints=[lambda dtype, b: not (dtype == "fp61" and b == 2)])
    with pytest.warns(PairwiseWarning, match=r"_no_fp32_big\(dtype, b\) compares 'b' with 9"):
        cover(axes, constraints=[_no_fp32_big])
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # Python's ==: True == 1 holds, so this is no typo; names and non-literals are not judged
        cover({"flag": [True, False], "b": [0, 1]}, constraints=[lambda flag: flag != 1, lambda b: b in (0, 1)])
        limit = 7
        cover(axes, constraints=[lambda b: b != limit])


def _pigeonhole(n):
    names = [f"p{i}" for i in range(n)]
    cons = [{"never": {a: v, b: v}} for i, a in enumerate(names) for b in names[i + 1:] for v in range(n - 1)]
    return {a: list(range(n - 1)) for a in names}, cons


def test_constraints_too_hard_to_decide_fail_in_bounded_time(monkeypatch):
    """Regression (issue 17): a 12-axis pigeonhole model did not finish in 5
    minutes; now a clear ConstraintsTooHard naming the linked axes (seconds)."""
    from pairwise_param import feasibility
    from pairwise_param.errors import ConstraintsTooHard, InvalidModel, UnsatisfiableConstraints

    axes, cons = _pigeonhole(6)
    with pytest.raises(UnsatisfiableConstraints):  # small: decided exactly
        cover(axes, constraints=cons)
    monkeypatch.setattr(feasibility, "MAX_SEARCH_NODES", 2_000)
    monkeypatch.setattr(feasibility, "MAX_SAT_CONFLICTS", 1)  # the optional SAT back end, where installed
    with pytest.raises(ConstraintsTooHard, match=r"constraints over axes p0, p1, p2, p3, p4, p5 can all hold took more "
                       r"than 2,000 search steps( and then more than 1 SAT solver conflicts)?; simplify them") as info:
        Model(axes, constraints=cons, where="test_x")
    assert isinstance(info.value, InvalidModel) and info.value.where == "test_x"
    # the message names the way out that this installation lacks
    assert ("pairwise-param[solver]" in str(info.value)) != feasibility.sat_available()
    # a satisfiable model well inside the budget is unaffected
    assert len(cover({"a": [0, 1, 2], "b": [0, 1, 2], "c": [0, 1]}, constraints=["a != b"])) >= 6


def test_the_sat_back_end_decides_exactly_where_the_search_gives_up(monkeypatch):
    """Issue 17: with the ``solver`` extra, a constraint group the bounded
    search gives up on is decided by SAT: exact infeasibility (9-axis
    pigeonhole: unsatisfiable, not "too hard"), and the same rows as the
    search gives where both can answer (the answers are exact yes/no)."""
    pytest.importorskip("pysat.solvers")
    from pairwise_param import feasibility
    from pairwise_param.errors import UnsatisfiableConstraints

    axes, cons = _pigeonhole(9)
    with pytest.raises(UnsatisfiableConstraints):
        Model(axes, constraints=cons)
    names = [f"p{i}" for i in range(5)]
    perm = {a: list(range(5)) for a in names}
    diff = [f"{a} != {b}" for i, a in enumerate(names) for b in names[i + 1:]]
    by_search = [tuple(r.values()) for r in cover(perm, constraints=diff)]
    monkeypatch.setattr(feasibility, "MAX_SEARCH_NODES", 50)
    by_sat = [tuple(r.values()) for r in cover(perm, constraints=diff)]
    assert by_sat == by_search
    assert all(len(set(r)) == 5 for r in by_sat)


def test_an_effort_of_hours_is_refused_with_an_explanation():
    """Regression (issue 17): effort=1000 ran for hours with no output."""
    from pairwise_param.engine import MAX_EFFORT
    from pairwise_param.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match=r"effort=1000 is above the largest level 16: .* could run for 666 minutes"):
        cover({"a": [1, 2], "b": [1, 2]}, effort=1000)
    assert len(cover({"a": [1, 2], "b": [1, 2]}, effort=MAX_EFFORT)) == 4


def test_a_predicate_that_returns_none_is_an_error_naming_it_the_row_and_the_value():
    """Regression (issue 35): a ``def`` predicate missing its final ``return True`` returned
    None for bf16, which Python reads as False: bf16 silently never ran and the report said
    100%.  Now the model refuses it, naming the predicate, the row and the value."""
    from pairwise_param.errors import InvalidConstraint

    def ok(dtype, fused):
        if dtype == "bf16" and fused:
            return False
        if dtype == "fp16":
            return True

    with pytest.raises(InvalidConstraint) as info:
        cover({"dtype": ["fp16", "bf16"], "fused": [False, True], "act": ["relu", "gelu"]}, constraints=[ok])
    text = str(info.value)
    assert "constraint ok(dtype, fused) returned None" in text
    assert "dtype='bf16', fused=False" in text
    assert "return True" in text


def test_a_predicate_must_return_a_bool_numpy_bool_allowed():
    """The one rule (docs/constraints): True/False or numpy.bool_; any other value is an error."""
    from pairwise_param.errors import InvalidConstraint

    axes = {"a": [0, 1, 2], "b": ["x", "y"]}
    with pytest.raises(InvalidConstraint, match=r"returned 0 \(int, not a bool\) when called with a=0"):
        cover(axes, constraints=[lambda a: a])
    with pytest.raises(InvalidConstraint, match=r"returned 'x' \(str, not a bool\)"):
        cover(axes, constraints=[lambda a, b: a == 0 or b])
    assert len(cover(axes, constraints=[lambda a: bool(a)])) == 4
    np = pytest.importorskip("numpy")
    rows = cover(axes, constraints=[lambda a: np.int64(a) > 0])
    assert {r["a"] for r in rows} == {1, 2}
