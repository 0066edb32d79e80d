"""``cover()`` and ``CoveringArray``: value equality, the hand-off to ``parametrize``,
and the rules every face shares (default strength, repeated include rows)."""

from __future__ import annotations

import pytest

from pairwise_param import Model, cover, pairwise
from pairwise_param.cli.modelfile import parse_model
from pairwise_param.errors import InvalidArgument
from pairwise_param.tables.build import build_table
from pairwise_param.tables.covering import CoveringArray

AXES = {"dtype": ["fp16", "bf16", "fp32"], "padded": [False, True], "bias": [0, 1, 2]}


# -- defect 4: value equality --------------------------------------------------------------
def test_two_covers_of_one_model_are_equal_and_hash_alike() -> None:
    a, b = cover(AXES), cover(AXES)
    assert a is not b
    assert a == b and hash(a) == hash(b)
    assert len({a, b}) == 1


def test_different_rows_or_models_are_not_equal() -> None:
    base = cover(AXES)
    assert base != cover(AXES, strength=3)  # other rows
    assert base != cover({**AXES, "bias": [0, 1, 3]})  # same shape, other values: other fingerprint
    assert base != list(base)  # a CoveringArray is not a list of dicts
    assert (base == object()) is False


# -- defect 3: one default strength --------------------------------------------------------
def test_one_axis_defaults_to_strength_one_everywhere() -> None:
    axes = {"a": [1, 2]}
    assert Model(axes).strength == 1
    rows = cover(axes)  # used to raise a StrengthError
    assert rows.model.strength == 1 and [r["a"] for r in rows] == [1, 2]

    @pairwise(a=[1, 2])
    def test_x(a: int) -> None: ...

    spec = test_x.pytestmark[0].args[0]  # type: ignore[attr-defined]
    assert spec.strength is None and spec.model("t").strength == 1
    assert parse_model({"axes": {"a": [1, 2]}}).model.strength == 1  # used to raise
    assert Model(AXES).strength == 2 and cover(AXES).model.strength == 2


def test_strategies_rows_take_a_one_axis_mapping() -> None:
    hypothesis = pytest.importorskip("hypothesis")
    from pairwise_param.strategies import rows

    seen: list[dict[str, int]] = []

    @hypothesis.settings(max_examples=10, database=None)
    @hypothesis.given(rows({"a": [1, 2]}))
    def draw(row: dict[str, int]) -> None:
        seen.append(row)

    draw()  # used to raise a StrengthError for the one-axis model
    assert seen and all(r["a"] in (1, 2) for r in seen)


# -- defect 2: repeated include rows, one rule ------------------------------------------------
def test_repeated_include_rows_are_kept_once_by_cover_and_the_plugin() -> None:
    include = [{"dtype": "fp32", "bias": 2}, {"dtype": "fp32", "bias": 2}, {"padded": True}]
    model = Model(AXES, include=include)
    assert len(model.include) == 2  # the model keeps one of the two equal rows
    rows = cover(AXES, include=include)
    assert len(set(rows.index_rows)) == len(rows)
    assert rows[0]["dtype"] == "fp32" and rows[0]["bias"] == 2 and rows[1]["padded"] is True
    # the plugin's table holds the very same rows
    assert build_table(model, "cover").rows == rows.index_rows


def test_partial_include_rows_completed_alike_appear_once() -> None:
    include = [{"dtype": "fp16"}, {"dtype": "fp16", "padded": False}]
    rows = cover(AXES, include=include)
    assert len(set(rows.index_rows)) == len(rows)
    assert build_table(Model(AXES, include=include), "cover").rows == rows.index_rows


# -- the hand-off to a plain parametrize -------------------------------------------------------
def test_argnames_argvalues_and_ids() -> None:
    rows = cover({"n,k": [(1, 8), (2, 16)], "dtype": ["fp16", "bf16"]})
    assert rows.argnames == ("n", "k", "dtype")
    assert rows.argvalues() == [(r["n"], r["k"], r["dtype"]) for r in rows]
    ids = rows.ids()
    assert len(set(ids)) == len(ids) == len(rows)
    assert all("dtype=" in i for i in ids)


def test_parametrize_mark_runs_without_the_plugin(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_plain="""
        from pairwise_param import cover

        TABLE = cover({"dtype": ["fp16", "bf16"], "padded": [False, True], "bias": [0, 1, 2]})

        @TABLE.parametrize()
        def test_kernel(dtype, padded, bias):
            assert (dtype, padded, bias) in TABLE.argvalues()
        """
    )
    result = pytester.runpytest("-p", "no:pairwise_param", "-q")
    result.assert_outcomes(passed=6)


def test_a_covering_array_is_a_sequence_of_rows() -> None:
    rows = cover(AXES)
    assert isinstance(rows, CoveringArray)
    as_list = list(rows)
    assert rows[0] == as_list[0] and rows[-1] == as_list[-1]
    assert rows[1:3] == as_list[1:3]


# -- the constraint language is the model's, so every entry point takes it ----------------------
RULES = [
    {"if": {"dtype": "fp32"}, "then": {"bias": {"not": [2]}}},
    {"never": {"dtype": "bf16", "padded": True}},
    "not (padded and bias == 0)",
]


def _allowed(row: dict) -> bool:
    return (
        not (row["dtype"] == "fp32" and row["bias"] == 2)
        and not (row["dtype"] == "bf16" and row["padded"])
        and not (row["padded"] and row["bias"] == 0)
    )


def test_declarative_rules_in_cover_and_pairwise() -> None:
    rows = cover(AXES, constraints=RULES)
    assert rows and all(_allowed(r) for r in rows)
    labels = [c.label for c in rows.model.constraints]
    assert labels[0].startswith("if ") and labels[1].startswith("never ") and labels[2].startswith(RULES[2])

    @pairwise(constraints=RULES, **AXES)
    def test_x(dtype: str, padded: bool, bias: int) -> None: ...

    spec = test_x.pytestmark[0].args[0]  # type: ignore[attr-defined]
    assert build_table(spec.model("t"), "cover").rows == rows.index_rows


def test_full_mode_gives_the_rows_the_plugin_runs_in_full_mode() -> None:
    import itertools

    from pairwise_param import invalid

    axes = {"dtype": ["fp16", "bf16", "fp32"], "bias": [0, 1, 2], "xnorm": [False, True]}

    def no_fp32_bias2(dtype: str, bias: int) -> bool:
        return not (dtype == "fp32" and bias == 2)

    full = cover(axes, constraints=[no_fp32_bias2], mode="full")
    every = [dict(zip(axes, r)) for r in itertools.product(*axes.values())]
    assert list(full) == [r for r in every if no_fp32_bias2(r["dtype"], r["bias"])]
    assert full.method == "full" and full.infeasible == []
    model = Model(axes, constraints=[no_fp32_bias2])
    assert build_table(model, "full").rows == full.index_rows
    # with invalid values: the valid part's full product, then each invalid value with every valid row
    bad = cover({**axes, "bias": [0, 1, invalid(-1)]}, mode="full")
    assert bad.valid_count == 12 and bad.invalid_count == 6
    assert all(c is not None and c.value == -1 for c in bad.invalid[12:])
    with pytest.raises(InvalidArgument, match="mode='exhaustive' is not a pairwise mode; use one of: cover, full"):
        cover(axes, mode="exhaustive")
