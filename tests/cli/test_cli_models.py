"""``pairwise-param generate`` and ``check`` with JSON and TOML model files,
and the model-file format itself (declarative and expression constraints)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from pairwise_param.cli import main
from pairwise_param.cli.main import ExitCode
from pairwise_param.cli.modelfile import load_model, parse_model
from pairwise_param.coverage import measure
from pairwise_param.errors import InvalidConstraint, InvalidModel, PairwiseError, StrengthError

TOML = """
name = "krc options"
strength = 2

[axes]
dtype = ["bf16", "fp16", "fp32"]
padded_a = [false, true]
bias_mode = [0, 1, 2]
xnorm = [false, true]

[[constraints]]
if = { dtype = "fp32" }
then = { bias_mode = { not = [2] } }

[[constraints]]
never = { dtype = "bf16", xnorm = true, padded_a = true }
"""

JSON_MODEL = {
    "strength": 2,
    "axes": {"dtype": ["bf16", "fp16", "fp32"], "padded_a": [False, True], "bias_mode": [0, 1, 2],
             "xnorm": [False, True]},
    "constraints": [
        "not (dtype == 'fp32' and bias_mode == 2)",
        {"never": {"dtype": "bf16", "xnorm": True, "padded_a": True}},
    ],
}


@pytest.fixture(params=["toml", "json"])
def model_file(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    if request.param == "toml":
        path = tmp_path / "model.toml"
        path.write_text(TOML)
    else:
        path = tmp_path / "model.json"
        path.write_text(json.dumps(JSON_MODEL))
    return path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return int(code), out, err


def test_generate_csv_rows_cover_and_respect_constraints(model_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "generate", str(model_file))
    assert code == ExitCode.OK
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == ["dtype", "padded_a", "bias_mode", "xnorm"]
    assert not any(r["dtype"] == "fp32" and r["bias_mode"] == "2" for r in rows)
    assert not any(r["dtype"] == "bf16" and r["xnorm"] == "true" and r["padded_a"] == "true" for r in rows)
    assert f"{len(rows)} rows, strength 2, 4 axes, full product 29" in err  # the feasible product, as @pairwise counts it
    assert "infeasible" in err and "{dtype=fp32, bias_mode=2}" in err
    # and the same rows check out against the same model: exit 0
    rows_file = model_file.with_name("rows.csv")
    rows_file.write_text(out)
    code, out, _ = run(capsys, "check", str(model_file), str(rows_file))
    assert code == ExitCode.OK, out
    assert "t=2:" in out and "(100%), 1 infeasible" in out


def test_generate_full_mode_is_the_full_product_minus_forbidden_rows(
    model_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import itertools

    code, out, err = run(capsys, "generate", str(model_file), "--mode", "full")
    assert code == ExitCode.OK
    rows = [tuple(r.values()) for r in csv.DictReader(io.StringIO(out))]
    every = list(itertools.product(["bf16", "fp16", "fp32"], ["false", "true"], ["0", "1", "2"], ["false", "true"]))
    allowed = [r for r in every if not (r[0] == "fp32" and r[2] == "2") and r[:2] + r[3:] != ("bf16", "true", "true")]
    assert rows == allowed  # lexicographic in the model's value order
    assert f"{len(allowed)} rows, strength 2" in err and "method full" in err
    code, _, err = run(capsys, "generate", str(model_file), "--mode", "fast")
    assert code == ExitCode.USAGE_ERROR and "invalid choice: 'fast'" in err


def test_generate_json_and_markdown(model_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "generate", str(model_file), "--format", "json", "--strength", "3", "--seed", "7")
    assert code == ExitCode.OK
    doc = json.loads(out)
    assert doc["schema"] == "pairwise-param/rows" and doc["schema_version"] == 1
    assert doc["model"]["strength"] == 3 and doc["seed"] == 7
    assert doc["argnames"] == ["dtype", "padded_a", "bias_mode", "xnorm"]
    spec = load_model(model_file, strength=3)
    rows = [{k: v for k, v in r.items()} for r in doc["rows"]]
    assert measure(spec.model, rows, strengths=3).complete
    # deterministic: same output twice
    assert run(capsys, "generate", str(model_file), "--format", "json", "--strength", "3", "--seed", "7")[1] == out
    # JSON rows feed back into check
    rows_file = model_file.with_name("rows.json")
    rows_file.write_text(out)
    code, _, _ = run(capsys, "check", str(model_file), str(rows_file), "--strength", "2,3")
    assert code == ExitCode.OK

    code, out, _ = run(capsys, "generate", str(model_file), "--format", "markdown")
    lines = out.splitlines()
    assert lines[0] == "| # | dtype | padded_a | bias_mode | xnorm |"
    assert lines[1] == "|--:|---|---|---|---|"
    assert lines[2].startswith("| 1 | ")


def test_check_reports_missing_violating_and_unknown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "m.toml"
    model.write_text(TOML)
    rows = tmp_path / "rows.csv"
    # 2 rows only, one breaks the fp32/bias 2 rule, one holds an unknown dtype
    rows.write_text("dtype,padded_a,bias_mode,xnorm\nfp32,false,2,false\nfp8,true,0,true\n")
    code, out, _ = run(capsys, "check", str(model), str(rows), "--show-missing")
    assert code == ExitCode.COVERAGE_BELOW
    assert "VIOLATION row 1" in out  # rows numbered from 1 (issue 38 item 19)
    assert "OUTSIDE MODEL row 2: 'dtype' has no value fp8" in out
    assert "missing: {" in out
    code, out, _ = run(capsys, "check", str(model), str(rows), "--format", "json", "--fail-under", "0")
    doc = json.loads(out)
    assert code == ExitCode.COVERAGE_BELOW  # violations fail even with --fail-under 0
    assert doc["schema"] == "pairwise-param/check" and doc["exit_code"] == code
    assert doc["violations"][0]["row"] == 0 and doc["out_of_model"][0]["value"] == "fp8"


def test_check_fail_under(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "m.json"
    model.write_text(json.dumps({"axes": {"a": ["x", "y"], "b": [0, 1]}}))
    rows = tmp_path / "rows.json"
    rows.write_text(json.dumps([{"a": "x", "b": 0}, {"a": "y", "b": 1}, {"a": "x", "b": 1}]))  # 3 of 4 pairs
    code, out, _ = run(capsys, "check", str(model), str(rows))
    assert code == ExitCode.COVERAGE_BELOW and "t=2: 3/4 covered (75.0%)" in out
    assert run(capsys, "check", str(model), str(rows), "--fail-under", "75")[0] == ExitCode.OK


@pytest.mark.parametrize(
    "content, suffix, message",
    [
        ("{not json", ".json", "not valid JSON"),
        ("axes = [", ".toml", "not valid TOML"),
        ('{"axes": {"a": [1, 2]}, "strenght": 2}', ".json", "did you mean 'strength'"),
        ('{"axes": {"a": [1, 2], "b": [1]}, "constraints": ["__import__(\'os\')"]}', ".json", "Call is not allowed"),
        ('{"axes": {"a": [1, 2], "b": [1]}, "constraints": [{"never": {"a": 3}}]}', ".json", "axis 'a' has no value 3"),
        ('{"axes": {"a": [1, 2], "b": [1]}, "constraints": [{"never": {"c": 1}}]}', ".json", "unknown axis 'c'"),
        ('{"axes": {"a": [1, 2]}, "strength": 2}', ".json", "strength=2 is out of range"),
        # an order bound comparable with none of the axis's values could never match: before,
        # it silently matched nothing, so this "then" forbade every row with a=1
        (
            '{"axes": {"a": [1, 2], "b": [1.5, 2]}, "constraints": [{"if": {"a": 1}, "then": {"b": {"lt": "x"}}}]}',
            ".json",
            "axis 'b': lt 'x' compares with none of its values (1.5, 2), so it could never match",
        ),
    ],
)
def test_bad_model_files_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, suffix: str, message: str
) -> None:
    path = tmp_path / f"m{suffix}"
    path.write_text(content)
    code, out, err = run(capsys, "generate", str(path))
    assert code == ExitCode.USAGE_ERROR
    assert message in err and str(path) in err and out == ""


def test_missing_files_are_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "generate", str(tmp_path / "nope.toml"))
    assert code == ExitCode.USAGE_ERROR and "model file not found" in err
    model = tmp_path / "m.json"
    model.write_text('{"axes": {"a": [1, 2], "b": [1, 2]}}')
    code, _, err = run(capsys, "check", str(model), str(tmp_path / "rows.csv"))
    assert code == ExitCode.USAGE_ERROR and "rows file not found" in err
    bad = tmp_path / "rows.csv"
    bad.write_text("a,z\n1,2\n")
    code, _, err = run(capsys, "check", str(model), str(bad))
    assert code == ExitCode.USAGE_ERROR and "'z' are not arguments of the model" in err


def test_model_format_details() -> None:
    spec = parse_model(
        {
            "axes": [{"name": "dtype", "values": ["a", "b"]}, {"name": "n,k", "values": [[1, 8], [2, 16]]}],
            "sub_models": [{"axes": ["dtype", "n,k"], "strength": 2}],
            "constraints": [
                {"if": "dtype == 'b'", "then": {"n": {"lt": 2}}},
                {"always": [{"dtype": "a"}, {"k": [8, 16]}]},
            ],
            "include": [{"dtype": "b", "n,k": [1, 8]}],
            "effort": 1,
            "seed": 3,
        },
        where="inline",
    )
    m = spec.model
    assert m.names == ("dtype", "n,k") and m.axes[1].values == ((1, 8), (2, 16))
    assert (spec.effort, spec.seed) == (1, 3)
    assert len(m.constraints) == 2 and spec.constraint_labels[0].startswith("if dtype == 'b' then")
    assert m.feasibility.violates([1, 1]) is not None  # dtype b with n=2 is forbidden
    with pytest.raises(InvalidConstraint, match="not allowed"):
        parse_model({"axes": {"a": [1, 2]}, "constraints": ["a.__class__ == 1"]}, strength=1)
    with pytest.raises(InvalidModel, match="no 'axes'"):
        parse_model({"strength": 2})
    with pytest.raises(StrengthError):
        parse_model({"axes": {"a": [1]}}, strength=2)
    assert issubclass(InvalidConstraint, PairwiseError)


def test_true_and_one_stay_apart() -> None:
    spec = parse_model(
        {"axes": {"flag": [True, False], "mode": [1, 0]}, "constraints": [{"never": {"flag": True, "mode": 1}}]}
    )
    m = spec.model
    # only (True, 1) is forbidden, not (True, True) lookalikes: exactly one exclusion tuple
    assert [sorted(ex.forbidden) for ex in m.exclusions] == [[(0, 0)]]


def test_examples_model_files(capsys: pytest.CaptureFixture[str]) -> None:
    root = Path(__file__).resolve().parents[2] / "examples" / "models"
    if not root.exists():
        pytest.skip("examples/models not present")
    code, _, _ = run(capsys, "check", str(root / "wvsplitkrc.toml"), str(root / "handwritten_rows.csv"))
    assert code == ExitCode.COVERAGE_BELOW  # the hand-written list misses {bias_mode=1, xnorm=False}
    code, out, _ = run(capsys, "generate", str(root / "fused_norm.json"), "--format", "json")
    assert code == ExitCode.OK and json.loads(out)["rows"][0] == {
        "dtype": "bf16", "bias_mode": 2, "xnorm": True, "n": 1, "k": 64, "m": 64,
    } or json.loads(out)["rows"][0]["dtype"] == "bf16"


def test_order_matcher_on_mixed_axis_still_skips_incomparable_values(tmp_path: Path) -> None:
    # "auto" < 4 is not comparable: that value simply does not match (no error), as documented
    path = tmp_path / "m.json"
    path.write_text(json.dumps({
        "axes": {"n": [1, "auto", 8], "b": [0, 1]},
        "constraints": [{"if": {"n": {"lt": 4}}, "then": {"b": 0}}],
    }))
    model = load_model(str(path)).model
    assert model.feasibility.violates((0, 1)) is not None  # n=1, b=1 forbidden
    assert model.feasibility.violates((1, 1)) is None  # n="auto", b=1 allowed


def test_check_names_the_rows_file_when_a_row_is_malformed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "m.json"
    model.write_text('{"axes": {"a": [1, 2], "b": [1, 2], "c": [1, 2]}}')
    rows = tmp_path / "rows.json"
    rows.write_text("[[1, 2]]")
    code, out, err = run(capsys, "check", str(model), str(rows))
    assert code == ExitCode.USAGE_ERROR and out == ""
    # the error is in the rows file, not in the model file (it said "in m.json: row 0 ...")
    assert f"in {rows}: row 0 has 2 values" in err
    assert f"in {model}" not in err


def test_one_format_registry_for_every_command() -> None:
    # the parser's --format choices are the registry's, and every registered format renders
    from pairwise_param.cli import formats
    from pairwise_param.cli.main import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")  # argparse's subparsers action
    for command in ("report", "check", "generate"):
        fmt = next(a for a in sub.choices[command]._actions if a.dest == "format")  # type: ignore[union-attr]
        assert tuple(fmt.choices) == formats.names(command) and fmt.default == formats.names(command)[0]
    assert formats.names("report") == ("terminal", "markdown", "json")
    assert formats.names("check") == ("terminal", "json")
    assert formats.names("generate") == ("csv", "json", "markdown")
    with pytest.raises(ValueError, match="registered twice"):
        formats.register("check", "json", "again")(lambda result, output: "")
    from pairwise_param.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match="unknown format 'xml' for check"):
        formats.render("check", "xml", None, formats.Output())


@pytest.mark.parametrize(
    ("extra", "message"),
    [({"effort": -1}, r"effort must be an int >= 0 .*got effort=-1"), ({"seed": "x"}, "seed must be an int")],
)
def test_model_file_engine_options_are_checked_by_engine_options(extra: dict, message: str) -> None:
    from pairwise_param.errors import InvalidModel

    with pytest.raises(InvalidModel, match=message):
        parse_model({"axes": {"a": [1, 2], "b": [1]}, **extra}, where="m.toml")


@pytest.mark.parametrize(("flag", "value"), [("--effort", "-1"), ("--seed", "x"), ("--effort", "1.5")])
def test_cli_engine_options_are_checked_by_engine_options(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, flag: str, value: str
) -> None:
    model = tmp_path / "m.json"
    model.write_text('{"axes": {"a": [1, 2], "b": [1, 2]}}')
    code, _, err = run(capsys, "generate", str(model), flag, value)
    assert code == ExitCode.USAGE_ERROR
    assert f"argument {flag}" in err and ("must be an int" in err or "expected an int" in err or "is no effort level" in err)


def test_generate_csv_then_check_is_exact_when_strings_look_like_other_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Regression (issue 17): an axis mixing "true"/true or "1"/1 failed the
    round trip (50% coverage, exit 1); the writer now quotes the string."""
    axes = {"flag": ["true", True, False], "n": ["1", 1, '"1"', 2], "s": ["a", "b"]}
    path = tmp_path / "model.json"
    path.write_text(json.dumps({"strength": 2, "axes": axes}))
    code, out, _ = run(capsys, "generate", str(path), "--format", "csv")
    assert code == 0
    cells = {c for r in list(csv.reader(io.StringIO(out)))[1:] for c in r}
    assert {"true", '"true"', "1", '"1"', '"\\"1\\""'} <= cells
    rows = tmp_path / "rows.csv"
    rows.write_text(out)
    code, out, _ = run(capsys, "check", str(path), str(rows), "--format", "json")
    assert code == 0
    doc = json.loads(out)
    assert doc["overall"] == 1.0 or doc.get("covered") == doc.get("total"), doc


_HOSTILE = [
    ('{"axes": {"a": ' + "[" * 100_000 + "]" * 100_000 + "}}", ".json", "nest too deeply"),
    ("[axes]\na = " + "[" * 100_000 + "]" * 100_000, ".toml", "nest too deeply"),
    ('{"axes": {"a": [' + "[" * 40 + "1" + "]" * 40 + ", 2]}}", ".json", "axis 'a': a value nests lists more than 32"),
    ('{"axes": {"a": [' + "9" * 5000 + ', 1], "b": [1, 2]}}', ".json", "an integer has too many digits"),
    ("[axes]\na = [" + "9" * 5000 + ", 1]\nb = [1, 2]", ".toml", "an integer has too many digits"),
    ('{"axes": {"a": [1, 2], "b": [1, 2]}, "constraints": ["' + "not " * 3000 + 'a == 1"]}', ".json",
     "longer than 10000 characters"),
    ('{"axes": {"a": [1, 2], "b": [1, 2]}, "constraints": ["' + "not " * 2000 + 'a == 1"]}', ".json",
     "nests more than 100 levels deep"),
    ('{"axes": {"a": [1, 2], "b": [1, 2]}, "constraints": ["' + "-" * 3000 + '1 == a"]}', ".json",
     "nests more than 100 levels deep"),
    ('{"axes": {"a": [1, 2], "b": [1, 2]}, "constraints": ["' + "(" * 3000 + "a == 1" + ")" * 3000 + '"]}',
     ".json", "cannot parse expression"),
]


@pytest.mark.parametrize(("content", "suffix", "message"), _HOSTILE, ids=[
    "deep-json", "deep-toml", "deep-value", "bigint-json", "bigint-toml", "long-expr", "deep-not", "deep-minus",
    "deep-parens",
])
def test_hostile_model_files_are_usage_errors_not_tracebacks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, suffix: str, message: str
) -> None:
    """Regression (issue 17): RecursionError, int-to-str ValueError, and an
    error echoing kilobytes of expression; now exit 2 naming the file."""
    path = tmp_path / f"m{suffix}"
    path.write_text(content)
    code, out, err = run(capsys, "generate", str(path))
    assert code == ExitCode.USAGE_ERROR, err
    assert message in err and str(path) in err and out == ""
    assert "Traceback" not in err and len(err) < 1000


def test_binary_model_and_rows_files_are_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    code, _, err = run(capsys, "generate", str(path))
    assert code == ExitCode.USAGE_ERROR and "model file is not UTF-8 text (byte 0xff at offset 0)" in err
    good = tmp_path / "g.json"
    good.write_text('{"axes": {"a": [1, 2], "b": [1, 2]}}')
    rows = tmp_path / "rows.csv"
    rows.write_bytes(b"a,b\n\xff,1\n")
    code, _, err = run(capsys, "check", str(good), str(rows))
    assert code == ExitCode.USAGE_ERROR and "rows file is not UTF-8 text" in err


def test_model_files_support_axis_names_that_are_not_identifiers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Regression (issue 17): `bias-mode`, `my axis`, `if` raised "ValueError:
    ... is not a valid parameter name" in declarative rules."""
    path = tmp_path / "m.json"
    path.write_text(json.dumps({
        "axes": {"bias-mode": [0, 1, 2], "my axis": ["x", "y"], "if": [True, False], "ok": [1, 2]},
        "constraints": [{"never": {"bias-mode": 2, "if": True}}, {"if": {"my axis": "x"}, "then": {"ok": 1}},
                        "ok == 1 or ok == 2"],
    }))
    code, out, err = run(capsys, "generate", str(path), "--format", "json")
    assert code == 0, err
    rows = json.loads(out)["rows"]
    assert rows and not any(r["bias-mode"] == 2 and r["if"] is True for r in rows)
    assert not any(r["my axis"] == "x" and r["ok"] != 1 for r in rows)
    spec = load_model(path)
    assert measure(spec.model, rows).complete
