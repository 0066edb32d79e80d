"""A suite split 3 ways by pytest-shard and by pytest-split (once under xdist): each shard's
run file says which shard it is, and `report --run` over the three gives the coverage of
the unsharded run; a missing shard and a shard of another model are caught."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pairwise_param.cli import main
from pairwise_param.cli.main import ExitCode

pytest.importorskip("pytest_split")
pytest.importorskip("pytest_shard")

SUITE = """
import pytest
from pairwise_param import pairwise

@pairwise(dtype=["f16", "bf16", "f32"], padded=[False, True], bias=[0, 1, 2], xnorm=[False, True])
@pytest.mark.parametrize("n", [1, 64])
def test_kernel(n, dtype, padded, bias, xnorm):
    pass

@pairwise(a=[1, 2, 3], b=["x", "y"], c=[None, 0.5])
def test_small(a, b, c):
    pass
"""


def _coverage(doc: dict[str, Any]) -> dict[str, tuple[int, int]]:
    return {t["test"]: (t["coverage"]["executed"], t["coverage"]["collected"]) for t in doc["tables"]}


def _merged(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()  # pytester's own "running: ..." lines
    code = main(["report", "--run", *args, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


@pytest.fixture
def whole(pytester: pytest.Pytester) -> dict[str, tuple[int, int]]:
    pytester.makepyfile(test_suite=SUITE)
    result = pytester.runpytest_subprocess("-p", "no:randomly", "--pairwise-report=all.json")
    assert result.ret == 0
    doc = json.loads((pytester.path / "all.json").read_text())
    assert doc["shard"] is None
    return _coverage(doc)


@pytest.mark.parametrize(("splitter", "xdist"), [("shard", False), ("split", False), ("split", True)])
def test_three_shards_merge_to_the_unsharded_coverage(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], whole: dict[str, tuple[int, int]],
    splitter: str, xdist: bool,
) -> None:
    if xdist:
        pytest.importorskip("xdist")
    files = []
    collected = set()
    for k in range(3):
        shard = ["--shard-id", str(k), "--num-shards", "3"] if splitter == "shard" else ["--splits", "3", "--group",
                                                                                          str(k + 1)]
        out = f"s{k}.json"
        result = pytester.runpytest_subprocess("-p", "no:randomly", *shard, f"--pairwise-report={out}",
                                               *(["-n", "2"] if xdist else []))
        assert result.ret == 0, result.stdout.str()
        doc = json.loads((pytester.path / out).read_text())
        assert (doc["shard"]["index"], doc["shard"]["count"]) == (k, 3)
        collected.add(doc["collected"])
        files.append(str(pytester.path / out))
    shards = [_coverage(json.loads(Path(f).read_text())) for f in files]
    assert any(cov != whole for cov in shards)  # no one shard covers what the whole run does
    code, union = _merged(capsys, *files, "--fail-under", "100")
    assert code == ExitCode.OK
    assert _coverage(union) == whole
    assert all(t["coverage"]["percent"] == 100.0 for t in union["tables"])
    # every shard counted the whole suite's @pairwise items before its splitter chose
    assert collected == {sum(t["counts"]["items"] for t in union["tables"])}


def test_a_missing_shard_and_a_shard_of_another_model_are_caught(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], whole: dict[str, tuple[int, int]]
) -> None:
    for k in range(3):
        pytester.runpytest_subprocess("-p", "no:randomly", "--shard-id", str(k), "--num-shards", "3",
                                      f"--pairwise-report=s{k}.json")
    docs = [json.loads((pytester.path / f"s{k}.json").read_text()) for k in range(3)]
    lost = sum(t["counts"]["items"] for t in docs[2]["tables"])
    assert lost > 0
    capsys.readouterr()
    assert main(["report", "--run", str(pytester.path / "s0.json"), str(pytester.path / "s1.json"),
                 "--fail-under", "0"]) == ExitCode.COVERAGE_BELOW
    out = capsys.readouterr().out
    assert f"shard 3 of 3 missing: {lost} items never ran" in out, out
    # a glob finds all three again
    assert main(["report", "--run", str(pytester.path / "s*.json"), "--fail-under", "100"]) == ExitCode.OK
    capsys.readouterr()
    # shard 3 run on a changed suite: its table of test_small is another model
    pytester.makepyfile(test_suite=SUITE.replace('b=["x", "y"]', 'b=["x", "y", "z"]'))
    pytester.runpytest_subprocess("-p", "no:randomly", "--shard-id", "2", "--num-shards", "3",
                                  "--pairwise-report=s2.json")
    code = main(["report", "--run", str(pytester.path)])  # a directory: its run files
    err = capsys.readouterr().err
    assert code == ExitCode.USAGE_ERROR
    assert "test_suite.py::test_small: " in err and "axis 'b': values ['x', 'y'] -> ['x', 'y', 'z']" in err, err


def test_pairwise_shard_is_recorded_and_checked(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_suite=SUITE)
    result = pytester.runpytest_subprocess("-p", "no:randomly", "--pairwise-shard=2/4", "--pairwise-report=r.json")
    assert result.ret == 0
    doc = json.loads((pytester.path / "r.json").read_text())
    assert doc["shard"] == {"index": 1, "count": 4, "source": "--pairwise-shard=2/4"}
    result = pytester.runpytest_subprocess("-p", "no:randomly", "--pairwise-shard=5/4")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--pairwise-shard=5/4: shard 5 of 4 does not exist" in result.stderr.str()


def test_the_suite_every_shard_counts_is_what_k_selected(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    """-k / -m take items out of the suite the shards count (found by the kernel_tests
    demo: a missing shard's 'items never ran' counted the deselected items too)."""
    pytester.makepyfile(test_suite=SUITE)
    counts = {}
    for k in range(3):
        split = ["--splits", "3", "--group", str(k + 1)]
        pytester.runpytest_subprocess("-p", "no:randomly", *split, "-k", "test_small", f"--pairwise-report=p{k}.json")
        counts[f"split {k}"] = json.loads((pytester.path / f"p{k}.json").read_text())["collected"]
        shard = ["--shard-id", str(k), "--num-shards", "3"]
        pytester.runpytest_subprocess("-p", "no:randomly", *shard, "-k", "test_small", f"--pairwise-report=s{k}.json")
        counts[f"shard {k}"] = json.loads((pytester.path / f"s{k}.json").read_text())["collected"]
    pytester.runpytest_subprocess("-p", "no:randomly", "-m", "not slow", "-k", "test_small", "--pairwise-shard=1/2",
                                  "--pairwise-report=q.json")
    counts["declared"] = json.loads((pytester.path / "q.json").read_text())["collected"]
    # test_small has 6 items: pytest-split splits what -k selected; pytest-shard splits first and
    # -k then chooses among its part only, so the whole suite's count is not known (None, never wrong)
    assert counts == {"split 0": 6, "split 1": 6, "split 2": 6, "shard 0": None, "shard 1": None, "shard 2": None,
                      "declared": 6}
    lost = sum(t["counts"]["items"] for t in json.loads((pytester.path / "p2.json").read_text())["tables"])
    capsys.readouterr()
    code = main(["report", "--run", str(pytester.path / "p0.json"), str(pytester.path / "p1.json"), "--fail-under", "0"])
    assert code == ExitCode.COVERAGE_BELOW
    assert f"shard 3 of 3 missing: {lost} items never ran\n" in capsys.readouterr().out
