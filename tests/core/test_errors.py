"""Every error a user can trigger: its type, its builtin base, and a message
that names the test, the axis and the value."""

from __future__ import annotations

import pickle

import pytest

from pairwise_param import Model, cover
from pairwise_param import errors as E

WHERE = "test_kernel[demo]"


def raises(exc_type, *fragments, where=WHERE):
    """Context manager: ``exc_type`` is raised and its message contains every fragment."""

    class _Check:
        def __enter__(self):
            self._cm = pytest.raises(exc_type)
            self.info = self._cm.__enter__()
            return self.info

        def __exit__(self, *exc):
            handled = self._cm.__exit__(*exc)
            msg = str(self.info.value)
            for f in fragments:
                assert f in msg, f"{f!r} not in {msg!r}"
            if where is not None:
                assert msg.startswith(f"in {where}: "), msg
                assert self.info.value.where == where
            return handled

    return _Check()


# -- the hierarchy ----------------------------------------------------------------
@pytest.mark.parametrize(
    "cls, builtin",
    [
        (E.InvalidArgument, TypeError),
        (E.InvalidModel, ValueError),
        (E.EmptyAxis, ValueError),
        (E.DuplicateValue, ValueError),
        (E.UnhashableValue, ValueError),
        (E.UnhashableValue, TypeError),
        (E.DuplicateAxis, ValueError),
        (E.UnknownAxis, ValueError),
        (E.InvalidConstraint, ValueError),
        (E.StrengthError, ValueError),
        (E.UnsatisfiableConstraints, ValueError),
        (E.InvalidInclude, ValueError),
        (E.RowOutsideModel, ValueError),
        (E.InvalidRunFile, ValueError),
        (E.RunsDisagree, ValueError),
        (E.AxisCollision, ValueError),
    ],
)
def test_every_error_is_a_pairwise_error_and_a_builtin(cls, builtin):
    assert issubclass(cls, E.PairwiseError)
    assert issubclass(cls, builtin)
    assert cls.__doc__, f"{cls.__name__} needs a docstring saying when it is raised"


def test_all_names_are_exported_from_errors():
    for name in E.__all__:
        assert isinstance(getattr(E, name), type)


@pytest.mark.parametrize("cls", [getattr(E, n) for n in E.__all__])
@pytest.mark.parametrize("where", [None, WHERE])
def test_errors_pickle_roundtrip(cls, where):
    # pytest-xdist sends exceptions between processes.
    err = cls("axis 'dtype' has no values", where=where)
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is cls
    assert str(back) == str(err)
    assert back.where == where
    assert back.detail == err.detail


def test_real_error_pickles():
    with pytest.raises(E.EmptyAxis) as info:
        Model({"dtype": []}, where=WHERE)
    back = pickle.loads(pickle.dumps(info.value))
    assert str(back) == str(info.value)


# -- axes ---------------------------------------------------------------------
def test_empty_axis():
    with raises(E.EmptyAxis, "'bias_mode'", "no values"):
        Model({"dtype": ["fp16"], "bias_mode": []}, where=WHERE)


def test_empty_axis_is_value_error_for_callers_that_catch_builtins():
    with pytest.raises(ValueError):
        cover({"a": []})


def test_duplicate_value():
    with raises(E.DuplicateValue, "'bias_mode'", "value 2", "positions 1 and 2"):
        Model({"bias_mode": [0, 2, 2]}, where=WHERE)


def test_duplicate_string_value():
    with raises(E.DuplicateValue, "'dtype'", "'fp16'"):
        Model({"dtype": ["fp16", "bf16", "fp16"]}, where=WHERE)


def test_one_and_true_are_distinct_values():
    # Documented: values are identified by type and value, so 1 and True (or 0
    # and 0.0) are two values of one axis, as pytest would run them as two cases.
    m = Model({"flag": [1, True, 0, 0.0, False]}, strength=1)
    assert len(m.axes[0]) == 5
    rows = cover({"flag": [1, True]}, strength=1)
    assert [type(r["flag"]) for r in rows] == [int, bool]


def test_one_and_true_are_distinct_inside_tuples():
    m = Model({"shape": [(1, 2), (True, 2)]}, strength=1)
    assert len(m.axes[0]) == 2


def test_unhashable_values_are_accepted_by_position():
    # dicts of shape kwargs, lists, tuples holding them: identified by position, handed back as given
    cfgs = [{"m": 1, "n": 2}, {"m": 4, "n": 8}]
    m = Model({"cfg": cfgs, "shape": [(8, 8), [16, 32], (1, [2])]}, where=WHERE)
    assert m.axes[0].values[0] is cfgs[0]
    assert m.axes[1].values[1] == [16, 32]
    assert m.axes[0].index_of({"m": 4, "n": 8}) == 1  # include rows find them by equality


def test_unhashable_value_repeated_is_a_duplicate():
    with raises(E.DuplicateValue, "'cfg'", "twice", "positions 0 and 2"):
        Model({"cfg": [{"a": 1}, {"a": 2}, {"a": 1}]}, where=WHERE)


def test_unhashable_value_without_equality_says_how_to_pass_it():
    class Tensorish:
        __hash__ = None  # type: ignore[assignment]

        def __eq__(self, other: object) -> bool:
            raise RuntimeError("the truth value of a tensor is ambiguous")

        def __repr__(self) -> str:
            return "Tensorish()"

    with raises(E.UnhashableValue, "'x'", "value #1", "cannot be compared", "indirect="):
        Model({"x": [Tensorish(), Tensorish()]}, where=WHERE)
    with pytest.raises(TypeError, match="'x'"):  # UnhashableValue is also a TypeError
        Model({"x": [Tensorish(), Tensorish()]})


def test_duplicate_axis_names_in_pairs():
    with raises(E.DuplicateAxis, "'dtype'", "twice"):
        Model([("dtype", [1]), ("dtype", [2])], where=WHERE)


def test_duplicate_name_across_grouped_axis():
    with raises(E.DuplicateAxis, "'k'"):
        Model({"n,k,m": [(1, 2, 3)], "k": [4]}, where=WHERE)


def test_duplicate_name_between_two_grouped_axes():
    with raises(E.DuplicateAxis, "'m'"):
        Model({"n,m": [(1, 2)], "m,k": [(3, 4)]}, where=WHERE)


def test_grouped_axis_repeating_a_name():
    with raises(E.DuplicateAxis, "'n,n'"):
        Model({"n,n": [(1, 2)]}, where=WHERE)


def test_grouped_axis_value_of_wrong_arity():
    with raises(E.InvalidArgument, "'n,k,m'", "tuples of 3", "(1, 2)"):
        Model({"n,k,m": [(1, 2, 3), (1, 2)]}, where=WHERE)


@pytest.mark.parametrize("values", ["abc", b"ab", {"a": 1}, 3])
def test_axis_values_not_a_list(values):
    with raises(E.InvalidArgument, "'x'"):
        Model({"x": values}, where=WHERE)


@pytest.mark.parametrize("name", ["", " ", 3, "a,,b"])
def test_bad_axis_name(name):
    with pytest.raises(E.InvalidArgument):
        Model({name: [1]})


def test_no_axes():
    with raises(E.InvalidArgument, "at least one axis"):
        Model({}, where=WHERE)


def test_axes_not_a_mapping():
    with raises(E.InvalidArgument, "mapping"):
        Model("dtype", where=WHERE)  # type: ignore[arg-type]


# -- strength -----------------------------------------------------------------------
@pytest.mark.parametrize("t", [0, -1, 4])
def test_strength_out_of_range(t):
    with raises(E.StrengthError, f"strength={t}", "1..3", "dtype"):
        Model({"dtype": [1, 2], "bias": [0, 1], "xnorm": [0, 1]}, strength=t, where=WHERE)


@pytest.mark.parametrize("t", ["2", 2.0, True])
def test_strength_not_an_int(t):
    with raises(E.InvalidArgument, f"strength={t!r}"):
        Model({"a": [1, 2], "b": [1, 2]}, strength=t, where=WHERE)


def test_strength_error_is_value_error_and_not_type_error():
    with pytest.raises(ValueError) as info:
        cover({"a": [1]}, strength=2)
    assert not isinstance(info.value, TypeError)


# -- constraints -------------------------------------------------------------------
def test_unknown_axis_in_constraint_with_suggestion():
    with raises(E.UnknownAxis, "'dtyp'", "did you mean 'dtype'", "dtype, bias_mode"):
        Model(
            {"dtype": ["fp16", "fp32"], "bias_mode": [0, 1]},
            constraints=[lambda dtyp, bias_mode: True],
            where=WHERE,
        )


def test_unknown_axis_without_close_match():
    with raises(E.UnknownAxis, "'zzz'") as info:
        Model({"dtype": [1, 2]}, strength=1, constraints=[lambda zzz: True], where=WHERE)
    assert "did you mean" not in str(info.value)


def test_constraint_parameter_with_default_is_not_an_axis():
    m = Model({"a": [1, 2], "b": [1, 2]}, constraints=[lambda a, limit=1: a > limit])
    assert m.axes[0].values == (1, 2)
    assert len(m.exclusions) == 1


def test_constraint_with_star_args():
    def pred(*args):
        return True

    with raises(E.InvalidConstraint, "pred", "*args"):
        Model({"a": [1, 2], "b": [1]}, constraints=[pred], where=WHERE)


def test_constraint_with_star_kwargs():
    def pred(a, **rest):
        return True

    with raises(E.InvalidConstraint, "pred", "rest"):
        Model({"a": [1, 2], "b": [1]}, constraints=[pred], where=WHERE)


def test_constraint_naming_no_axis():
    with raises(E.InvalidConstraint, "names no axis"):
        Model({"a": [1, 2], "b": [1]}, constraints=[lambda: True], where=WHERE)


def test_constraint_neither_callable_nor_rule():
    with raises(E.InvalidArgument, "neither a predicate over axis names nor a rule"):
        Model({"a": [1, 2], "b": [1]}, constraints=[42], where=WHERE)


def test_constraint_rule_with_a_typo_names_the_test_and_the_entry():
    # a declarative rule is compiled by the model, so its errors name the test and the entry
    with raises(E.InvalidConstraint, "constraints[1]: axis 'a' has no value 3"):
        Model({"a": [1, 2], "b": [1]}, constraints=["a != 2 or b == 1", {"never": {"a": 3}}], where=WHERE)


def test_constraints_given_as_single_callable():
    with raises(E.InvalidArgument, "list of predicates"):
        Model({"a": [1, 2], "b": [1]}, constraints=lambda a: True, where=WHERE)  # type: ignore[arg-type]


def test_constraint_raising_names_values():
    def picky(dtype, bias_mode):
        if dtype == "fp32":
            raise KeyError("no fp32 here")
        return True

    with raises(E.InvalidConstraint, "picky", "KeyError", "dtype='fp32'", "bias_mode=0") as info:
        Model({"dtype": ["fp16", "fp32"], "bias_mode": [0, 1]}, constraints=[picky], where=WHERE)
    assert isinstance(info.value.__cause__, KeyError)


def test_unsatisfiable_constraints_name_the_constraints_and_axes():
    def only_fp16(dtype):
        return dtype == "fp16"

    def never_fp16(dtype, xnorm):
        return dtype != "fp16"

    def harmless(bias):
        return True

    with raises(E.UnsatisfiableConstraints, "only_fp16(dtype)", "never_fp16(dtype, xnorm)", "over dtype") as info:
        Model(
            {"dtype": ["fp16", "bf16"], "xnorm": [0, 1], "bias": [0, 1]},
            constraints=[only_fp16, never_fp16, harmless],
            where=WHERE,
        )
    assert "harmless" not in str(info.value)


def test_unsatisfiable_through_a_chain():
    # Each constraint alone is satisfiable; together no row is.
    with pytest.raises(E.UnsatisfiableConstraints):
        Model(
            {"a": [0, 1], "b": [0, 1], "c": [0, 1]},
            constraints=[lambda a, b: a != b, lambda b, c: b != c, lambda a, c: a != c],
        )


# -- include rows -----------------------------------------------------------------
AXES = {"dtype": ["fp16", "bf16", "fp32"], "bias_mode": [0, 1, 2], "xnorm": [False, True]}


def no_fp32_bias2(dtype, bias_mode):
    return not (dtype == "fp32" and bias_mode == 2)


def test_include_breaking_a_constraint():
    with raises(E.InvalidInclude, "#1", "dtype=fp32", "bias_mode=2", "no_fp32_bias2"):
        Model(
            AXES,
            constraints=[no_fp32_bias2],
            include=[{"dtype": "fp16"}, {"dtype": "fp32", "bias_mode": 2}],
            where=WHERE,
        )


def test_include_that_cannot_be_completed():
    # Neither constraint is broken by {a=0} directly, but no row extends it.
    with raises(E.InvalidInclude, "a=0", "cannot be completed"):
        Model(
            {"a": [0, 1], "b": [0, 1], "c": [0, 1]},
            constraints=[lambda a, b: not (a == 0 and b == 0), lambda a, b: not (a == 0 and b == 1)],
            include=[{"a": 0}],
            where=WHERE,
        )


def test_include_unknown_axis_with_suggestion():
    with raises(E.InvalidInclude, "'bias_mod'", "did you mean 'bias_mode'"):
        Model(AXES, include=[{"bias_mod": 1}], where=WHERE)


def test_include_unknown_value():
    with raises(E.InvalidInclude, "#0", "'dtype'", "'int8'", "fp16, bf16, fp32"):
        Model(AXES, include=[{"dtype": "int8"}], where=WHERE)


def test_include_true_does_not_match_one():
    with raises(E.InvalidInclude, "'bias_mode'", "True"):
        Model(AXES, include=[{"bias_mode": True}], where=WHERE)


def test_include_not_a_mapping():
    with raises(E.InvalidArgument, "mappings"):
        Model(AXES, include=[("fp16", 0, False)], where=WHERE)


GROUPED = {"n,k,m": [(1, 8, 16), (1, 8, 32), (4, 16, 16)], "dtype": ["fp16", "bf16"]}


def test_include_partial_grouped_match_is_ambiguous():
    with raises(E.InvalidInclude, "n=1", "k=8", "'n,k,m'", "matches 2 values"):
        Model(GROUPED, include=[{"n": 1, "k": 8}], where=WHERE)


def test_include_grouped_part_matches_nothing():
    with raises(E.InvalidInclude, "n=2", "matches no value"):
        Model(GROUPED, include=[{"n": 2}], where=WHERE)


def test_include_grouped_whole_and_parts_disagree():
    with raises(E.InvalidInclude, "'n,k,m'", "m=16", "disagree"):
        Model(GROUPED, include=[{"n,k,m": (1, 8, 32), "m": 16}], where=WHERE)


def test_include_grouped_unique_partial_match_is_fine():
    m = Model(GROUPED, include=[{"n": 4}])
    assert m.include == ((2, None),)


# -- sub-models ------------------------------------------------------------------
def test_sub_model_unknown_axis():
    with raises(E.UnknownAxis, "sub-model", "'xnrom'", "did you mean 'xnorm'"):
        Model(AXES, sub_models=[(("dtype", "xnrom"), 2)], where=WHERE)


@pytest.mark.parametrize("t", [0, 3, "2", True])
def test_sub_model_strength(t):
    with raises(E.StrengthError, "sub-model", "1..2"):
        Model(AXES, sub_models=[(("dtype", "xnorm"), t)], where=WHERE)


@pytest.mark.parametrize("entry", [("dtype",), "dtype", 3, (3, 2)])
def test_sub_model_entry_malformed(entry):
    with pytest.raises(E.PairwiseError) as info:
        Model(AXES, sub_models=[entry], where=WHERE)
    assert str(info.value).startswith(f"in {WHERE}: ")


# -- options of cover() ----------------------------------------------------------
@pytest.mark.parametrize("effort", [-1, 1.5, "1", True])
def test_cover_bad_effort(effort):
    with pytest.raises(E.InvalidArgument, match="effort"):
        cover({"a": [1, 2], "b": [1, 2]}, effort=effort)


@pytest.mark.parametrize("seed", [1.5, "1", None])
def test_cover_bad_seed(seed):
    with pytest.raises(E.InvalidArgument, match="seed"):
        cover({"a": [1, 2], "b": [1, 2]}, seed=seed)


def test_messages_without_where_have_no_prefix():
    with pytest.raises(E.EmptyAxis) as info:
        Model({"a": []})
    assert str(info.value).startswith("axis 'a'")
    assert info.value.where is None
