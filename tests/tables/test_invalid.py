"""Invalid values (pairwise_param.tables.invalid): checked independently of the code that
builds the rows: the valid part covers every coverable t-tuple of valid values, every
(invalid value, valid value of another axis) pair is in a row unless constraints
forbid it, no row holds two invalid values, no row breaks a constraint."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sizing import examples

from pairwise_param import InvalidCase, cover, invalid
from pairwise_param.errors import EmptyAxis, InvalidArgument, InvalidInclude, UnsatisfiableConstraints
from pairwise_param.tables.invalid import Invalid, split_model


def _check(axes: dict[str, list[Any]], constraints: list[Any], strength: int, array: Any) -> None:
    """The independent check: brute force over the full product of the model."""
    names = list(axes)
    bare = {n: [v.value if isinstance(v, Invalid) else v for v in vals] for n, vals in axes.items()}
    bad = {(n, v.value) for n, vals in axes.items() for v in vals if isinstance(v, Invalid)}
    valid = {n: [v for v in vals if not isinstance(v, Invalid)] for n, vals in axes.items()}

    def ok(row: dict[str, Any]) -> bool:
        return all(c(**{k: row[k] for k in c.__code__.co_varnames[: c.__code__.co_argcount]}) for c in constraints)

    rows = list(array)
    cases = array.invalid
    assert len(rows) == len(cases)
    for row, case in zip(rows, cases):
        assert ok(row), row
        held = [(n, row[n]) for n in names if (n, row[n]) in bad]
        assert len(held) <= 1, f"two invalid values in one row: {row}"
        if case is None:
            assert not held
        else:
            assert held == [(case.axis, case.value)]
    valid_rows = [r for r, c in zip(rows, cases) if c is None]
    # the valid part: every t-tuple of valid values some valid row can hold
    all_valid = [dict(zip(names, combo)) for combo in itertools.product(*valid.values())]
    feasible_valid = [r for r in all_valid if ok(r)]
    for scope in itertools.combinations(names, strength):
        need = {tuple(r[n] for n in scope) for r in feasible_valid}
        have = {tuple(r[n] for n in scope) for r in valid_rows}
        assert need <= have, (scope, need - have)
    # the negative part: every (invalid, valid) pair some row with that one invalid value can hold
    for axis, value in bad:
        others = [valid[n] if n != axis else [value] for n in names]
        feasible = [r for r in (dict(zip(names, c)) for c in itertools.product(*others)) if ok(r)]
        mine = [r for r, c in zip(rows, cases) if c is not None and (c.axis, c.value) == (axis, value)]
        assert mine or not feasible
        for other in names:
            if other == axis:
                continue
            need = {r[other] for r in feasible}
            assert need <= {r[other] for r in mine}, (axis, value, other)
    assert array.valid_count == len(valid_rows)
    assert array.invalid_count == len(rows) - len(valid_rows)
    del bare


def test_example_pairs_and_one_invalid_per_row() -> None:
    axes = {"k": [64, 128, invalid(60, reason="k % 8")], "n": [1, 2, 3, invalid(0), invalid(5)],
            "dtype": ["f16", "bf16"]}
    array = cover(axes)
    _check(axes, [], 2, array)
    # 2-way valid table 3x2 -> 6 rows; k=60 needs 3 rows (n has 3 valid values), n=0 and n=5 2 each
    assert (array.valid_count, array.invalid_count) == (6, 7)
    assert InvalidCase("k", 60, "k % 8") in array.invalid
    assert "7 invalid-value rows" in repr(array)


def test_valid_part_is_the_table_without_the_invalid_values() -> None:
    with_bad = cover({"a": [1, 2, invalid(9)], "b": ["x", "y", "z"], "c": [True, False]})
    plain = cover({"a": [1, 2], "b": ["x", "y", "z"], "c": [True, False]})
    assert list(with_bad)[: with_bad.valid_count] == list(plain)


def test_constraints_respected_and_forbidden_pairs_reported() -> None:
    def no_bf16_with_big_n(n: int, dtype: str) -> bool:
        return not (dtype == "bf16" and n == 99)

    axes = {"n": [1, 2, invalid(99)], "dtype": ["f16", "bf16"], "bias": [0, 1]}
    array = cover(axes, constraints=[no_bf16_with_big_n])
    _check(axes, [no_bf16_with_big_n], 2, array)
    assert array.invalid_infeasible == [{"n": 99, "dtype": "bf16"}]


def test_include_row_with_one_invalid_value_goes_to_its_part() -> None:
    array = cover({"a": [1, 2, invalid(3)], "b": [0, 1]}, include=[{"a": 3, "b": 1}])
    negative = [r for r, c in zip(array, array.invalid) if c is not None]
    assert negative[0] == {"a": 3, "b": 1}


def test_errors_name_axis_and_value() -> None:
    with pytest.raises(EmptyAxis, match="axis 'a' has only invalid values"):
        cover({"a": [invalid(1)], "b": [0, 1]})
    with pytest.raises(UnsatisfiableConstraints, match="invalid value a=3"):
        cover({"a": [1, invalid(3)], "b": [0, 1]}, constraints=[lambda a: a != 3])
    with pytest.raises(InvalidInclude, match="holds 2 invalid values"):
        cover({"a": [1, invalid(3)], "b": [0, invalid(7)]}, include=[{"a": 3, "b": 7}])
    with pytest.raises(InvalidArgument, match="already invalid"):
        invalid(invalid(3))
    with pytest.raises(InvalidArgument, match="reason must be a string"):
        invalid(3, reason=4)  # type: ignore[arg-type]


def test_deterministic_and_fingerprint_knows_which_values_are_invalid() -> None:
    a = cover({"a": [1, 2, invalid(3)], "b": [0, 1, 2]})
    b = cover({"a": [1, 2, invalid(3)], "b": [0, 1, 2]})
    c = cover({"a": [1, invalid(2), 3], "b": [0, 1, 2]})
    assert a == b and a.index_rows == b.index_rows
    assert a.fingerprint != c.fingerprint


def test_parametrize_marks_the_invalid_rows() -> None:
    array = cover({"a": [1, invalid(3)], "b": [0, 1]})
    mark = array.parametrize()
    marked = [p for p in mark.args[1] if hasattr(p, "marks") and p.marks]
    assert len(marked) == array.invalid_count == 2
    assert all(m.marks[0].name == "pairwise_invalid" and m.marks[0].kwargs["value"] == 3 for m in marked)


def test_split_model_grouped_axis() -> None:
    split = split_model({"n,k": [(1, 64), invalid((1, 60))], "d": ["a", "b"]})
    assert split.cases == ((0, 1, None),) and split.describe(0) == "n,k=(1, 60)"


def _rule(c: int) -> Any:
    def rule(x0: int, x1: int) -> bool:
        return (x0 + x1) % 4 != c

    return rule


@st.composite
def _models(draw: st.DrawFn) -> tuple[dict[str, list[Any]], list[Any], int]:
    n = draw(st.integers(2, 4))
    axes: dict[str, list[Any]] = {}
    for i in range(n):
        size = draw(st.integers(1, 3))
        values: list[Any] = list(range(size))
        bad = draw(st.integers(0, 2))
        values += [invalid(100 + j) for j in range(bad)]
        axes[f"x{i}"] = values
    strength = draw(st.integers(1, min(3, n)))
    constraints: list[Any] = []
    if draw(st.booleans()):
        constraints.append(_rule(draw(st.integers(0, 3))))
    return axes, constraints, strength


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_models())
def test_property_negative_part(spec: tuple[dict[str, list[Any]], list[Any], int]) -> None:
    axes, constraints, strength = spec
    try:
        array = cover(axes, constraints=constraints, strength=strength)
    except UnsatisfiableConstraints:
        return  # a model (or an invalid value) no row satisfies: an error, never a silent drop
    _check(axes, constraints, strength, array)
