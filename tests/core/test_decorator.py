"""``@pairwise`` and the mark contract, without an inner pytest session."""

from __future__ import annotations

import pytest

import pairwise_param
from pairwise_param import PairwiseSpec, pairwise
from pairwise_param.decorator import PLUGIN_FIXTURE, RESERVED
from pairwise_param.errors import DuplicateAxis, InvalidArgument, PairwiseError, StrengthError


def spec_of(fn: object) -> PairwiseSpec:
    marks = [m for m in getattr(fn, "pytestmark", []) if m.name == "pairwise"]
    assert len(marks) == 1
    (spec,) = marks[0].args
    assert isinstance(spec, PairwiseSpec)
    return spec


def test_exported() -> None:
    assert pairwise_param.pairwise is pairwise
    assert "pairwise" in pairwise_param.__all__ and "PairwiseSpec" in pairwise_param.__all__


def test_one_mark_with_frozen_spec_and_the_plugin_fixture() -> None:
    @pairwise({"n,k": [(1, 2), (3, 4)], "mode": ["a", "b"]}, dtype=["fp16", "bf16"], strength=2, seed=3)
    def test_x(n, k, mode, dtype):  # type: ignore[no-untyped-def]
        pass

    spec = spec_of(test_x)
    assert list(spec.axes) == ["n,k", "mode", "dtype"]  # mapping first, then keywords
    assert spec.axes["dtype"] == ("fp16", "bf16")
    assert spec.argnames == ("n", "k", "mode", "dtype")
    assert (spec.strength, spec.seed, spec.effort, spec.mode) == (2, 3, 0, None)
    with pytest.raises(TypeError):
        spec.axes["x"] = (1,)  # type: ignore[index]
    with pytest.raises(AttributeError):
        spec.strength = 3  # type: ignore[misc]
    model = spec.model("test_mod.py::test_x")
    assert model.argnames == ("n", "k", "mode", "dtype")
    assert spec.model(strength=3).strength == 3
    uses = [m for m in test_x.pytestmark if m.name == "usefixtures"]  # type: ignore[attr-defined]
    assert uses and uses[0].args == (PLUGIN_FIXTURE,)


def test_values_are_frozen_from_any_iterable() -> None:
    @pairwise(a=range(3), b=(x for x in "xy"))
    def test_x(a, b):  # type: ignore[no-untyped-def]
        pass

    assert spec_of(test_x).axes == {"a": (0, 1, 2), "b": ("x", "y")}


def test_single_axis_defaults_to_strength_1() -> None:
    @pairwise(a=[1, 2, 3])
    def test_x(a):  # type: ignore[no-untyped-def]
        pass

    assert spec_of(test_x).model().strength == 1


@pytest.mark.parametrize("name", RESERVED)
def test_reserved_name_used_as_axis(name: str) -> None:
    values = [[1, 2]] if name == "sub_models" else [1, 2]
    if name == "indirect":
        values = [True, False]
    # a list of ids is accepted on a table of one axis (as parametrize's ids=[...])
    more = {"b": [0, 1]} if name == "ids" else {}
    with pytest.raises(InvalidArgument) as info:

        @pairwise(a=[1, 2], **more, **{name: values})
        def test_x(a):  # type: ignore[no-untyped-def]
            pass

    msg = str(info.value)
    assert msg.startswith("in tests.test_decorator::test_reserved_name_used_as_axis.<locals>.test_x:") or (
        "test_x" in msg
    )
    assert f"{name!r} is an option of @pairwise, not an axis" in msg or "pairs" in msg
    assert f"@pairwise({{{name!r}:" in msg


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"mode": "fast"}, "mode='fast' is not a pairwise mode; use one of: cover, full"),
        ({"effort": -1}, r"effort must be an int >= 0 .*got effort=-1"),  # EngineOptions decides
        ({"strength": True}, "'strength' is an option"),
        ({"constraints": lambda a: True}, "must be a list of predicates"),
        ({"ids": {"a": "x"}}, r"ids\['a'\]='x' must be a callable"),
        ({"indirect": ["b"]}, "names 'b', which is not an axis"),
        ({"sub_models": [("a", 2, 3)]}, "sub_models entries are"),
    ],
)
def test_bad_options(kwargs: dict, match: str) -> None:
    with pytest.raises(InvalidArgument, match=match):

        @pairwise(a=[1, 2], **kwargs)
        def test_x(a):  # type: ignore[no-untyped-def]
            pass


def test_axis_in_mapping_and_keyword_is_an_error() -> None:
    with pytest.raises(DuplicateAxis, match="'a' is given both in the mapping and as a keyword"):

        @pairwise({"a": [1]}, a=[2])
        def test_x(a):  # type: ignore[no-untyped-def]
            pass


# Regression (issue 8, defect 5): errors raised while @pairwise(...) is applied name the test,
# as the docs promise -- also those about the axes themselves, which used to be raised by the
# call pairwise(...) before the test was known.
@pytest.mark.parametrize(
    ("args", "kwargs", "error"),
    [
        (({"a": [1]},), {"a": [2]}, DuplicateAxis),
        (([("a", [1])],), {}, InvalidArgument),
        ((), {}, InvalidArgument),
        ((), {"a": (pytest.param(1, 2),)}, InvalidArgument),
        ((), {"a": [1], "effort": -1}, InvalidArgument),
        ((), {"a": [1], "constraints": [42]}, InvalidArgument),
    ],
)
def test_every_decoration_error_names_the_test(args: tuple, kwargs: dict, error: type) -> None:
    decorate = pairwise(*args, **kwargs)  # nothing is checked before the test is known
    with pytest.raises(error) as info:

        @decorate
        def test_named_here(a):  # type: ignore[no-untyped-def]
            pass

    assert str(info.value).startswith("in "), str(info.value)
    assert info.value.where is not None and info.value.where.endswith("test_named_here")


def test_no_axis_and_bad_mapping() -> None:
    with pytest.raises(InvalidArgument, match="at least one axis"):

        @pairwise()
        def test_x():  # type: ignore[no-untyped-def]
            pass

    with pytest.raises(InvalidArgument, match="mapping of axis name -> values"):

        @pairwise([("a", [1])])  # type: ignore[arg-type]
        def test_y():  # type: ignore[no-untyped-def]
            pass


def test_model_errors_are_deferred_to_collection() -> None:
    # building the spec does not validate values: that happens per test at collection
    @pairwise(a=[1, 1], b=[2, 3], strength=5)
    def test_x(a, b):  # type: ignore[no-untyped-def]
        pass

    with pytest.raises(PairwiseError, match="in here:"):
        spec_of(test_x).model("here")

    def test_y(a, b):  # type: ignore[no-untyped-def]
        pass

    spec = spec_of(pairwise(a=[1, 2], b=[2, 3], strength=5)(test_y))
    with pytest.raises(StrengthError):
        spec.model()


def test_errors_pickle_for_xdist() -> None:
    import pickle

    err = InvalidArgument("bad", where="t.py::test")
    again = pickle.loads(pickle.dumps(err))
    assert str(again) == str(err) and again.where == "t.py::test"


def test_importing_pairwise_param_does_not_import_pytest_or_hypothesis() -> None:
    import subprocess
    import sys

    code = (
        "import sys, pairwise_param, pairwise_param.plugin.hooks as _p\n"
        "bad = [m for m in ('hypothesis', 'torch', 'numpy') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    code = "import sys, pairwise_param\nassert 'pytest' not in sys.modules and '_pytest' not in sys.modules\n"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_options_are_declared_once() -> None:
    # the signature of @pairwise and the fields of PairwiseSpec follow decorator.OPTIONS
    import dataclasses
    import inspect

    from pairwise_param.decorator import OPTIONS, PairwiseSpec

    params = inspect.signature(pairwise).parameters
    keyword_only = [p for p in params.values() if p.kind is p.KEYWORD_ONLY]
    assert [p.name for p in keyword_only] == [o.name for o in OPTIONS] == list(RESERVED)
    assert [p.default for p in keyword_only] == [o.default for o in OPTIONS]
    fields = [f for f in dataclasses.fields(PairwiseSpec) if f.name not in ("axes", "value_params", "invalid")]
    assert [f.name for f in fields] == list(RESERVED)
    assert [f.default for f in fields] == [o.default for o in OPTIONS]


# -- issue 38 item 18: the decorator's own mistakes get our words, not pytest's ------------
def test_a_bare_pairwise_says_to_call_it() -> None:
    # was: the test became `apply(obj)`, and pytest said "fixture 'obj' not found"
    with pytest.raises(InvalidArgument, match=r"test_bare: @pairwise is used without arguments; call it"):
        @pairwise  # type: ignore[arg-type]
        def test_bare(a, b):  # type: ignore[no-untyped-def]
            pass


@pytest.mark.parametrize(
    ("typo", "value", "option"),
    [("strenght", 3, "strength"), ("constraint", ["a != b"], "constraints"), ("sub_model", [], "sub_models"),
     ("includes", [{"a": 1}], "include")],
)
def test_a_misspelt_option_gets_a_did_you_mean(typo: str, value: object, option: str) -> None:
    # was: "axis 'strenght' of @pairwise is not an argument of the test ...; add 'strenght' to the signature"
    with pytest.raises(InvalidArgument) as info:
        @pairwise(a=[1, 2], b=[1, 2], **{typo: value})  # type: ignore[arg-type]
        def test_x(a, b):  # type: ignore[no-untyped-def]
            pass
    text = str(info.value)
    assert f"{typo!r} is not an option of @pairwise; did you mean {option}={value!r}?" in text
    assert "test_x" in text and "its arguments: a, b" in text


def test_an_axis_that_looks_like_an_option_but_is_an_argument_is_an_axis() -> None:
    @pairwise(a=[1, 2], speed=[1, 2], constraint=["x", "y"])
    def test_x(a, speed, constraint):  # type: ignore[no-untyped-def]
        pass

    assert tuple(spec_of(test_x).axes) == ("a", "speed", "constraint")


def test_close_option_is_the_did_you_mean_of_the_options_table() -> None:
    from pairwise_param.decorator import OPTIONS
    from pairwise_param.decorator_options import close_option

    assert all(close_option(o.name) is o for o in OPTIONS)
    assert close_option("dtype") is None and close_option("padded") is None
