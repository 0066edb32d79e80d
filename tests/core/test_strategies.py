"""Hypothesis: @pairwise with @given, the rows() strategy, covering_examples()."""

from __future__ import annotations

import pytest

hypothesis = pytest.importorskip("hypothesis")

from hypothesis import find, given, settings
from hypothesis import strategies as st
from sizing import examples

from pairwise_param import Model
from pairwise_param.errors import InvalidArgument
from pairwise_param.strategies import covering_examples, rows

AXES = {"dtype": ["fp16", "bf16", "fp32"], "bias": [0, 1, 2], "x": [False, True]}


def no_fp32_bias2(dtype: str, bias: int) -> bool:
    return not (dtype == "fp32" and bias == 2)


@settings(max_examples=examples(60))
@given(row=rows(AXES, constraints=[no_fp32_bias2]))
def test_rows_respect_constraints(row: dict) -> None:
    assert set(row) == {"dtype", "bias", "x"}
    assert no_fp32_bias2(row["dtype"], row["bias"])


def test_rows_shrink_towards_first_values() -> None:
    found = find(rows(AXES, constraints=[no_fp32_bias2]), lambda r: True)
    assert found == {"dtype": "fp16", "bias": 0, "x": False}
    # the smallest row with bias=2 has the first *allowed* dtype
    found = find(rows(AXES, constraints=[no_fp32_bias2]), lambda r: r["bias"] == 2 and r["dtype"] != "fp16")
    assert found == {"dtype": "bf16", "bias": 2, "x": False}


def test_rows_reach_every_valid_row() -> None:
    model = Model({"a": [0, 1], "n,k": [(1, 2), (3, 4)]}, constraints=[lambda a, n: not (a == 1 and n == 3)])
    seen: set[tuple] = set()

    @settings(max_examples=examples(200), database=None)
    @given(rows(model))
    def collect(row: dict) -> None:
        seen.add((row["a"], row["n"], row["k"]))

    collect()
    assert seen == {(0, 1, 2), (0, 3, 4), (1, 1, 2)}


def test_rows_rejects_bad_input() -> None:
    with pytest.raises(InvalidArgument, match="expected a Model"):
        rows([1, 2])
    with pytest.raises(InvalidArgument, match="only with a mapping"):
        rows(Model(AXES), constraints=[no_fp32_bias2])


def test_covering_examples_run_first_then_explore() -> None:
    calls: list[tuple] = []

    @settings(max_examples=examples(15), database=None, phases=[hypothesis.Phase.explicit, hypothesis.Phase.generate])
    @covering_examples(AXES, constraints=[no_fp32_bias2], fill={"m": 1})
    @given(
        dtype=st.sampled_from(AXES["dtype"]),
        bias=st.sampled_from(AXES["bias"]),
        x=st.booleans(),
        m=st.integers(1, 64),
    )
    def check(dtype: str, bias: int, x: bool, m: int) -> None:
        calls.append((dtype, bias, x, m))

    check()
    from pairwise_param import cover

    table = [(r["dtype"], r["bias"], r["x"], 1) for r in cover(AXES, constraints=[no_fp32_bias2])]
    assert calls[: len(table)] == table  # full pairwise coverage first, in table order
    assert len(calls) > len(table)  # then Hypothesis explores


def test_covering_examples_whole_row_argument() -> None:
    calls: list[dict] = []

    @settings(max_examples=1, database=None, phases=[hypothesis.Phase.explicit])
    @covering_examples(Model(AXES, strength=3), argname="row")
    @given(row=rows(AXES))
    def check(row: dict) -> None:
        calls.append(row)

    check()
    assert len(calls) == 18  # t=3 over all three axes: the full product


def test_covering_examples_fill_clash() -> None:
    with pytest.raises(InvalidArgument, match="fill= names dtype"):
        covering_examples(AXES, fill={"dtype": "fp16"})


def test_pairwise_composes_with_given(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from hypothesis import given, settings, strategies as st
        from pairwise_param import pairwise

        CALLS = []

        @pairwise(dtype=["fp16", "bf16"], padded_a=[False, True], bias_mode=[0, 1, 2], xnorm=[False, True])
        @settings(max_examples=5, database=None)
        @given(m=st.integers(1, 64), n=st.integers(1, 64))
        def test_kernel(dtype, padded_a, bias_mode, xnorm, m, n):
            CALLS.append((dtype, padded_a, bias_mode, xnorm))
            assert 1 <= m <= 64 and 1 <= n <= 64

        def test_zz_every_row_was_fuzzed():
            assert len(set(CALLS)) == 6 and len(CALLS) >= 6 * 5
        """
    )
    result = pytester.runpytest("-p", "no:randomly")  # test_zz runs last
    result.assert_outcomes(passed=7)
    result.stdout.fnmatch_lines(["pairwise-param: 6 items from 1 table stand for 24 full-product items*"])


@pytest.mark.parametrize("pairwise_above", [True, False])
def test_axis_also_drawn_by_given_is_named_as_such(pytester: pytest.Pytester, pairwise_above: bool) -> None:
    # it said "axis 'dtype' is not an argument of the test ... add 'dtype' to the signature",
    # although 'dtype' is in the signature: @given draws it and hides it from pytest
    deco = [
        "@pairwise(dtype=['a', 'b'], bias=[0, 1])",
        "@given(dtype=st.sampled_from(['a', 'b']), m=st.integers(1, 4))",
    ]
    if not pairwise_above:
        deco.reverse()
    pytester.makepyfile(
        test_clash="from hypothesis import given, strategies as st\n"
        "from pairwise_param import pairwise\n\n" + "\n".join(deco) + "\n"
        "def test_c(dtype, bias, m):\n    pass\n"
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        ["*in test_clash.py::test_c: axis 'dtype' of @pairwise is also an argument of @given*"]
    )
    assert "add 'dtype' to the signature" not in result.stdout.str()
