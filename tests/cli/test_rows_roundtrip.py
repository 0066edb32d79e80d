"""Rows files round-trip exactly: what ``generate`` writes (CSV or JSON),
``check`` reads back as the very values of the model (issue 38 item 14)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sizing import examples

from pairwise_param.cli import main
from pairwise_param.cli.main import ExitCode
from pairwise_param.cli.rows import read_rows, rows_csv, rows_json
from pairwise_param.tables.covering import cover
from pairwise_param.values import same_value


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return int(code), out, err


@pytest.mark.parametrize("fmt", ["csv", "json"])
@pytest.mark.parametrize(
    "axes",
    [
        {"a": [0.0, -0.0], "b": [1, 2]},  # CSV wrote -0.0 as "0.0": check said 50%
        {"a": [float("nan"), 1.5, float("inf"), float("-inf")], "b": [1, 2]},  # JSON wrote "nan"
        {"a": [[0.0, float("nan")], [-0.0, float("nan")]], "b": ["NaN", "nan"]},
    ],
    ids=["signed-zero", "non-finite", "nested"],
)
def test_check_of_generates_own_output_is_complete(
    axes: dict[str, list[Any]], fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "model.json"
    model.write_text(json.dumps({"strength": 2, "axes": axes}))
    code, out, err = _run(capsys, "generate", str(model), "--format", fmt)
    assert code == ExitCode.OK, err
    rows = tmp_path / f"rows.{fmt}"
    rows.write_text(out)
    code, out, err = _run(capsys, "check", str(model), str(rows))
    assert code == ExitCode.OK, out + err
    assert "(100%)" in out and "OUTSIDE MODEL" not in out, out


def test_json_rows_spell_non_finite_floats_as_json_numbers_not_strings(tmp_path: Path) -> None:
    array = cover({"a": [float("nan"), float("inf"), -0.0], "b": [1, 2]})
    doc = json.loads(rows_json(array))
    cells = [r["a"] for r in doc["rows"]]
    assert all(isinstance(c, float) for c in cells), cells
    assert any(math.isnan(c) for c in cells) and math.inf in cells
    assert doc["model"]["axes"]["a"][1] == math.inf


# -- the property: any value kind a model file can hold -----------------------------------------
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from([0.0, -0.0, float("nan"), "NaN", "nan", "-0.0", "0.0", "true", "1", "null", "", " ", '"x"'])
    | st.text(max_size=6)
)
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=3).map(tuple), max_leaves=4)


def _ident(value: Any) -> Any:
    """A hashable identity with the rule ``same_value`` uses (NaN is itself, -0.0 is not 0.0)."""
    if isinstance(value, tuple):
        return ("tuple", tuple(_ident(v) for v in value))
    if isinstance(value, float):
        return ("float", repr(value))
    return (type(value).__name__, value)


_AXIS = st.lists(_VALUES, min_size=1, max_size=4, unique_by=_ident)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(a=_AXIS, b=_AXIS, fmt=st.sampled_from(["csv", "json"]))
@example(a=[None], b=["\r0"], fmt="csv")  # a lone carriage return: the csv module left it unquoted
@example(a=[""], b=["", "x"], fmt="csv")  # a row of empty strings is no blank line
def test_rows_files_round_trip_every_value_kind(a: list[Any], b: list[Any], fmt: str, tmp_path_factory: Any) -> None:
    array = cover({"a": a, "b": b}, mode="full")
    text = rows_csv(array) if fmt == "csv" else rows_json(array)
    path = tmp_path_factory.mktemp("rows") / f"rows.{fmt}"
    path.write_bytes(text.encode("utf-8"))
    back = read_rows(path, array.model)
    assert len(back) == len(array)
    for row, got in zip(array, back):
        for name in ("a", "b"):
            assert same_value(got[name], row[name]), (name, row[name], got[name], text)
