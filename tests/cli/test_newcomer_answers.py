"""A newcomer's confusing answers, made plain (issue 38 item 19)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pairwise_param import __version__
from pairwise_param.cli import main
from pairwise_param.cli.main import ExitCode
from pairwise_param.constraints import describe_predicate
from pairwise_param.language import compile_constraint

MODEL = {
    "axes": {"dtype": ["fp16", "bf16", "fp32"], "fused": [False, True], "act": ["relu", "gelu"]},
    "constraints": [{"if": {"dtype": "fp32"}, "then": {"fused": False}}],
}


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return int(code), out, err


def test_python_dash_m_pairwise_param_is_the_command_line() -> None:
    proc = subprocess.run([sys.executable, "-m", "pairwise_param", "--version"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert __version__ in proc.stdout


def test_convert_of_a_directory_says_it_is_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "convert", str(tmp_path))
    assert code == ExitCode.USAGE_ERROR
    assert "is a directory" in err and "file not found" not in err
    assert "one test file" in err


def test_check_numbers_rows_as_its_csv_errors_do(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`check` said `row 2` for the third data row (0-based) but `line 2` for a CSV error
    on the first data row; now both count data rows from 1 and a CSV error adds the line."""
    model = tmp_path / "m.json"
    model.write_text(json.dumps(MODEL))
    rows = tmp_path / "rows.csv"
    rows.write_text("dtype,fused,act\nfp16,false,relu\nfp32,true,gelu\nfp8,false,relu\n")
    code, out, _ = _run(capsys, "check", str(model), str(rows))
    assert "VIOLATION row 2: " in out and "OUTSIDE MODEL row 3: 'dtype' has no value fp8" in out, out
    rows.write_text("dtype,fused,act\nfp16,false,relu\n\nbf16,true\n")
    code, _, err = _run(capsys, "check", str(model), str(rows))
    assert code == ExitCode.USAGE_ERROR
    assert "row 2 (line 4) has 2 cells, the header 3" in err, err


@pytest.mark.parametrize(
    ("rule", "label"),
    [
        ({"if": {"dtype": "fp32"}, "then": {"fused": False}}, 'if dtype="fp32" then fused=false'),
        ({"never": {"dtype": "bf16", "fused": True}}, 'never dtype="bf16", fused=true'),
        ('not (dtype == "bf16" and fused)', 'not (dtype == "bf16" and fused)'),
    ],
)
def test_a_rules_label_is_its_text_without_the_axes_run_into_it(rule: object, label: str) -> None:
    pred = compile_constraint(rule, MODEL["axes"], where=None)  # type: ignore[arg-type]
    assert describe_predicate(pred) == label


def test_generated_json_and_messages_show_constraint_labels_cleanly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "m.json"
    model.write_text(json.dumps(MODEL))
    code, out, _ = _run(capsys, "generate", str(model), "--format", "json")
    assert code == 0
    assert json.loads(out)["model"]["constraints"] == ['if dtype="fp32" then fused=false']
    bad = dict(MODEL, constraints=['not (dtpye == "bf16" and fused)'])
    model.write_text(json.dumps(bad))
    code, _, err = _run(capsys, "generate", str(model))
    assert code == ExitCode.USAGE_ERROR
    assert ")(" not in err and "dtpye" in err, err
