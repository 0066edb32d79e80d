"""`pairwise-param report --run FILE`: a finished run's executed coverage and suspicious
combinations, from the plugin's run file or pytest's cache; --fail-under gates on it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from schema_check import validate

from pairwise_param.cli import main
from pairwise_param.cli.main import ExitCode
from pairwise_param.runs.schema import RUN_SCHEMA

SUITE = """
import pytest
from pairwise_param import pairwise

@pairwise(dtype=["fp16", "bf16"], bias_mode=[0, 1, 2], xnorm=[False, True], pdl=[False, True])
def test_k(dtype, bias_mode, xnorm, pdl):
    if pdl:
        pytest.skip("enable_pdl needs Hopper")

@pairwise(dtype=["fp16", "bf16"], bias_mode=[0, 1, 2], xnorm=[False, True])
def test_f(dtype, bias_mode, xnorm):
    assert dtype != "bf16", "mismatch"
"""


@pytest.fixture
def run_file(pytester: pytest.Pytester) -> Path:
    pytester.makepyfile(test_suite=SUITE)
    pytester.runpytest("-p", "no:randomly", "--pairwise-report=out/run.json")
    return pytester.path / "out" / "run.json"


def test_the_run_is_shown_in_the_plugins_words(run_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(run_file.read_text())
    k = next(t for t in doc["tables"] if t["test"].endswith("test_k"))
    assert main(["report", "--run", str(run_file)]) == ExitCode.OK
    out = capsys.readouterr().out
    assert out.startswith("pairwise-param run: 2 tables, pytest exit status 1\n")
    cov = k["coverage"]
    assert f"test_suite.py::test_k  {k['counts']['rows']}" in out
    assert f"{cov['percent']:.1f}% ({cov['executed']}/{cov['collected']})" in out
    assert 'a constraint keeps every other tuple running: constraints=[{"never": {"pdl": True}}]' in out
    assert "test_suite.py::test_f: 3 of 6 items failed with AssertionError: mismatch; every failure holds {dtype=bf16}" in out


def test_fail_under_gates_on_executed_coverage(run_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(run_file.read_text())
    lowest = min(t["coverage"]["percent"] for t in doc["tables"])
    assert lowest < 100
    assert main(["report", "--run", str(run_file), "--fail-under", "100"]) == ExitCode.COVERAGE_BELOW
    assert "< --fail-under" in capsys.readouterr().out
    assert main(["report", "--run", str(run_file), "--fail-under", str(lowest)]) == ExitCode.OK


def test_json_is_the_validated_run_document(run_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--run", str(run_file), "--format", "json"]) == ExitCode.OK
    doc = json.loads(capsys.readouterr().out)
    validate(doc, RUN_SCHEMA)
    assert doc == json.loads(run_file.read_text())


def test_a_pytest_cache_directory_gives_its_last_run(
    run_file: Path, pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", "--run", str(pytester.path / ".pytest_cache")]) == ExitCode.OK
    assert capsys.readouterr().out.startswith("pairwise-param run: 2 tables")


def test_the_checked_in_schema_file_is_the_schema() -> None:
    import pairwise_param.runs

    path = Path(pairwise_param.runs.__file__).parent / "run.schema.json"
    assert json.loads(path.read_text()) == RUN_SCHEMA


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "not JSON"),
        ('{"schema": "pairwise-param/report"}', "not a pairwise-param run file"),
        ('{"schema": "pairwise-param/run", "schema_version": 99, "tables": []}', "run file version 99"),
        ('{"schema": "pairwise-param/run", "schema_version": 1, "exitstatus": 0, "tables": [{"test": 1}]}',
         "malformed run file"),
    ],
)
def test_bad_run_files_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    bad = tmp_path / "run.json"
    bad.write_text(content)
    assert main(["report", "--run", str(bad)]) == ExitCode.USAGE_ERROR
    assert message in capsys.readouterr().err


def test_run_takes_no_paths_and_a_missing_cache_entry_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "tests", "--run", str(tmp_path)]) == ExitCode.USAGE_ERROR
    assert "give no PATH" in capsys.readouterr().err
    assert main(["report", "--run", str(tmp_path)]) == ExitCode.USAGE_ERROR
    assert "no pairwise-param run recorded" in capsys.readouterr().err
