"""``pairwise-param merge-history FILE... --output OUT``: per-shard rotation histories merged
into one before the next build; written atomically, nothing written when it fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from pairwise_param.cli import main
from pairwise_param.cli.main import ExitCode
from pairwise_param.runs import history
from pairwise_param.runs.history import History, HistoryTable

TABLE = ((0, 0), (0, 1), (1, 0), (1, 1))


def shard(path: Path, rows: tuple[tuple[int, ...], ...], fingerprint: str = "f") -> Path:
    entry = HistoryTable("t.py::test_k", 0, fingerprint, 1, (2, 2), ("a", "b"), (TABLE[:2], rows), (4, 4), TABLE,
                         ("b1", "b2"))
    history.write(path, History({(entry.test, entry.table): entry}))
    return path


def test_shards_merge_into_one_run_of_their_build(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for k in range(3):
        shard(tmp_path / f"h{k}.json", (TABLE[k],))
    out = tmp_path / "merged.json"
    assert main(["merge-history", str(tmp_path / "h*.json"), "-o", str(out)]) == ExitCode.OK
    assert capsys.readouterr().out == f"pairwise-param merge-history: 3 histories -> {out}: 1 tables, 2 runs\n"
    got, problem = history.read(out)
    assert problem == "" and got is not None
    assert got.tables[("t.py::test_k", 0)].runs == (TABLE[:2], TABLE[:3])
    # the output may be an input (the shared history updated in place)
    assert main(["merge-history", str(out), str(tmp_path / "h0.json"), "--output", str(out)]) == ExitCode.OK
    assert history.read(out)[0] == got


@pytest.mark.parametrize(("broken", "message"), [
    ("not json", "the history file {path} is corrupt"),
    (None, "no history file at {path} yet"),
])
def test_a_lost_or_corrupt_shard_history_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    broken: str | None, message: str) -> None:
    shard(tmp_path / "h0.json", TABLE[:1])
    bad = tmp_path / "h1.json"
    if broken is not None:
        bad.write_text(broken)
    out = tmp_path / "merged.json"
    assert main(["merge-history", str(tmp_path / "h0.json"), str(bad), "-o", str(out)]) == ExitCode.USAGE_ERROR
    assert message.format(path=bad) in capsys.readouterr().err
    assert not out.exists()


def test_histories_of_two_models_in_one_build_are_refused_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shard(tmp_path / "h0.json", TABLE[:1])
    shard(tmp_path / "h1.json", TABLE[1:2], fingerprint="g")
    out = tmp_path / "merged.json"
    out.write_text("kept\n")
    code = main(["merge-history", str(tmp_path / "h0.json"), str(tmp_path / "h1.json"), "-o", str(out)])
    assert code == ExitCode.USAGE_ERROR
    err = capsys.readouterr().err
    assert "the histories cannot be merged: in t.py::test_k: " in err and "keep this table for different models" in err
    assert out.read_text() == "kept\n"
    assert main(["merge-history", str(tmp_path / "none*.json"), "-o", str(out)]) == ExitCode.USAGE_ERROR
    assert "no file matches" in capsys.readouterr().err
