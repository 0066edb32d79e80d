"""``report --run A B C``: several run files, a directory or a glob, merged and gated as
one; ``--per-platform`` gates each platform's union and names the tuples one platform ran."""

from __future__ import annotations

from pathlib import Path

import pytest
from run_docs import shard_doc

from pairwise_param.cli import main
from pairwise_param.cli.main import ExitCode
from pairwise_param.runs.document import dump


def _write(folder: Path, name: str, doc: object) -> str:
    path = folder / name
    path.write_text(dump(doc))  # type: ignore[arg-type]
    return str(path)


def test_files_a_directory_and_a_glob_merge_alike(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = [_write(tmp_path, f"s{k}.json", shard_doc(k, 2, rows)) for k, rows in enumerate([[0, 3], [1, 2]])]
    for given in (files, [str(tmp_path)], [str(tmp_path / "s*.json")]):
        assert main(["report", "--run", *given, "--fail-under", "100"]) == ExitCode.OK
        out = capsys.readouterr().out
        assert out.startswith("pairwise-param runs: 2 merged, 1 table") and "100.0% (12/12)" in out, out
    assert main(["report", "--run", str(tmp_path / "none*.json")]) == ExitCode.USAGE_ERROR
    assert "no file matches" in capsys.readouterr().err


def test_a_missing_shard_fails_the_gate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _write(tmp_path, "a.json", shard_doc(0, 3, [0, 3]))
    b = _write(tmp_path, "b.json", shard_doc(1, 3, [1]))
    assert main(["report", "--run", a, b]) == ExitCode.OK  # shown, not gated
    assert "shard 3 of 3 missing: 1 items never ran" in capsys.readouterr().out
    assert main(["report", "--run", a, b, "--fail-under", "0"]) == ExitCode.COVERAGE_BELOW
    assert main(["report", "--run", a, b, "--format", "json"]) == ExitCode.OK
    assert "shard 3 of 3 missing" in capsys.readouterr().err


def test_per_platform(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cuda = _write(tmp_path, "cuda.json", shard_doc(0, 0, [0, 1, 2, 3], platform="cuda"))
    rocm = _write(tmp_path, "rocm.json", shard_doc(0, 0, [0, 1], platform="rocm"))
    assert main(["report", "--run", cuda, rocm, "--per-platform", "--fail-under", "100"]) == ExitCode.COVERAGE_BELOW
    out = capsys.readouterr().out
    assert "pairwise-param runs on cuda: 1 merged" in out and "pairwise-param runs on rocm: 1 merged" in out
    assert "tuples only one platform ran:\nt.py::test_t: 6 2-tuples ran on cuda only" in out
    assert main(["report", "--run", cuda, "--per-platform", "--fail-under", "100"]) == ExitCode.OK
