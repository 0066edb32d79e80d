"""Rotation across shards (issue 36's rotation part): the shards of one build rotate
against the runs before the build, so they run one table; their rows join one run of
the history; a sharded sequence of builds runs the tables an unsharded one runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pairwise_param.plugin.rotation import build_id

SUITE = """
from pairwise_param import pairwise

@pairwise(dtype=["bf16", "fp16", "fp32"], padded_a=[False, True], padded_b=[False, True],
          bias_mode=[0, 1, 2], xnorm=[False, True])
def test_k(dtype, padded_a, padded_b, bias_mode, xnorm):
    pass
"""


def rows(path: Path) -> list[list[int]]:
    return [list(r) for r in json.loads(path.read_text())["tables"][0]["rows"]]


def _unsharded_builds(pytester: pytest.Pytester, common: tuple[str, ...], builds: int = 3) -> list[list[list[int]]]:
    """The tables an unsharded run rotates through, build after build (its own history)."""
    unsharded = []
    for k in range(builds):
        assert pytester.runpytest(*common, "--pairwise-history=u.json", f"--pairwise-report=u{k}.json").ret == 0
        unsharded.append(rows(pytester.path / f"u{k}.json"))
    return unsharded


def test_shards_of_a_build_run_one_table_and_builds_match_unsharded_runs(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("pytest_shard")
    pytester.makepyfile(test_k=SUITE)
    common = ("-p", "no:randomly", "-p", "no:cacheprovider", "--pairwise-rotate")
    unsharded = _unsharded_builds(pytester, common)
    for k in range(3):
        monkeypatch.setenv("PAIRWISE_BUILD", f"build-{k}")
        tables = []
        for shard in range(3):
            result = pytester.runpytest(*common, "--pairwise-history=s.json", f"--pairwise-report=s{k}{shard}.json",
                                        "--num-shards=3", f"--shard-id={shard}")
            assert result.ret in (0, pytest.ExitCode.NO_TESTS_COLLECTED)
            if result.ret == 0:  # a shard may hold none of the 9 items (sha256 of the node id)
                tables.append(rows(pytester.path / f"s{k}{shard}.json"))
        assert len(tables) >= 2 and all(t == tables[0] for t in tables)  # one table per build
        assert tables[0] == unsharded[k]  # the table an unsharded run of the same history runs
        entry = json.loads((pytester.path / "s.json").read_text())["tables"][0]
        assert len(entry["runs"]) == k + 1 and entry["builds"][-1] == f"build-{k}"
        assert sorted(entry["runs"][-1]) == sorted(unsharded[k])  # the union of the shards' rows


def test_the_build_id() -> None:
    assert build_id({"PAIRWISE_BUILD": " b7 "}, sharded=False) == "b7"
    assert build_id({"BUILDKITE_BUILD_ID": "x"}, sharded=False) == ""  # a plain run of a CI job still rotates
    assert build_id({"BUILDKITE_BUILD_ID": "x"}, sharded=True) == "BUILDKITE_BUILD_ID=x"
    assert build_id({"GITHUB_RUN_ID": "9", "GITHUB_RUN_ATTEMPT": "2"}, sharded=True) == "GITHUB_RUN_ID=9.2"
    assert build_id({}, sharded=True) == ""


def test_per_shard_histories_merged_before_each_build_give_the_unsharded_tables(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second CI shape: each shard restores the merged history, writes its own copy,
    and `pairwise-param merge-history` joins the copies before the next build."""
    pytest.importorskip("pytest_shard")
    from pairwise_param.cli import main

    pytester.makepyfile(test_k=SUITE)
    common = ("-p", "no:randomly", "-p", "no:cacheprovider", "--pairwise-rotate")
    unsharded = _unsharded_builds(pytester, common)
    merged = pytester.path / "merged.json"
    for k in range(3):
        monkeypatch.setenv("PAIRWISE_BUILD", f"build-{k}")
        tables = []
        for shard in range(3):
            mine = pytester.path / f"h{shard}.json"
            mine.unlink(missing_ok=True)
            if merged.exists():  # the CI restores the last merged history into every shard
                mine.write_bytes(merged.read_bytes())
            result = pytester.runpytest(*common, f"--pairwise-history={mine}", f"--pairwise-report=s{k}{shard}.json",
                                        "--num-shards=3", f"--shard-id={shard}")
            assert result.ret in (0, pytest.ExitCode.NO_TESTS_COLLECTED)
            if result.ret == 0:
                tables.append(rows(pytester.path / f"s{k}{shard}.json"))
        assert len(tables) >= 2 and all(t == unsharded[k] for t in tables)
        assert main(["merge-history", str(pytester.path / "h*.json"), "-o", str(merged)]) == 0
        entry = json.loads(merged.read_text())["tables"][0]
        assert entry["builds"] == [f"build-{b}" for b in range(k + 1)]
        assert entry["runs"] == json.loads((pytester.path / "u.json").read_text())["tables"][0]["runs"][: k + 1]
