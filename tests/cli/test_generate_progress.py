"""``pairwise-param generate``: the progress line and Ctrl-C (issue 17).

Ctrl-C is simulated by a KeyboardInterrupt from the progress callback after
the first improvement: the best table so far is written, verified complete by
``check``, with a note on stderr and exit 0; an interrupt before any complete
table exits 130 (``ExitCode.INTERRUPTED``) and writes nothing.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from pairwise_param.cli import main, progress
from pairwise_param.cli.main import ExitCode

MODEL = {"strength": 2, "axes": {f"a{i}": [0, 1, 2, 3] for i in range(12)}}


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return int(code), out, err


@pytest.fixture
def model_file(tmp_path: Path) -> Path:
    path = tmp_path / "model.json"
    path.write_text(json.dumps(MODEL))
    return path


def test_progress_lines_only_when_asked(
    model_file: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, quiet_out, err = run(capsys, "generate", str(model_file))  # stderr is captured: no TTY
    assert code == ExitCode.OK and "improving:" not in err
    monkeypatch.setattr(progress, "INTERVAL", 0.0)
    code, out, err = run(capsys, "generate", str(model_file), "--progress")
    assert code == ExitCode.OK and out == quiet_out  # progress changes no row
    lines = [ln for ln in err.splitlines() if "improving:" in ln]
    assert lines and all("rows (lower bound " in ln and "% of the work budget" in ln for ln in lines)


def test_ctrl_c_writes_the_best_table_so_far(
    model_file: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    code, full, _ = run(capsys, "generate", str(model_file))
    full_rows = len(list(csv.DictReader(io.StringIO(full))))
    seen: list[int] = []

    def interrupt(self: Any, p: Any) -> None:
        seen.append(p.rows)
        if p.rows < seen[0]:  # after the first improvement
            raise KeyboardInterrupt

    monkeypatch.setattr(progress.ProgressLine, "__call__", interrupt)
    code, out, err = run(capsys, "generate", str(model_file), "--progress")
    assert code == ExitCode.OK
    rows = list(csv.DictReader(io.StringIO(out)))
    assert full_rows <= len(rows) < seen[0]
    assert f"interrupted: wrote the best table found so far ({len(rows)} rows" in err
    rows_file = tmp_path / "rows.csv"
    rows_file.write_text(out)
    code, report, _ = run(capsys, "check", str(model_file), str(rows_file))
    assert code == ExitCode.OK and "(100%)" in report


def test_ctrl_c_before_a_table_writes_nothing(
    model_file: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from pairwise_param.tables import covering

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(covering, "build_array", boom)
    code, out, err = run(capsys, "generate", str(model_file))
    assert code == ExitCode.INTERRUPTED == 130
    assert out == "" and "interrupted before a complete table was found; nothing written" in err


def test_progress_line_is_throttled() -> None:
    from pairwise_param.engine import Progress

    clock = iter([0.0, 0.5, 1.0, 2.5, 3.0, 5.0])
    buf = io.StringIO()
    line = progress.ProgressLine(buf, clock=lambda: next(clock))
    for _ in range(5):
        line(Progress(rows=10, lower_bound=9, work=50, budget=100))
    assert line.lines == 2  # at 2.5 s and at 5.0 s
    assert buf.getvalue().splitlines()[0] == (
        "pairwise-param generate: improving: best 10 rows (lower bound 9), 50% of the work budget, 2 s; "
        "Ctrl-C keeps the best table"
    )
