"""Sharding across machines with pytest-split: collection is deterministic, so the shards
(separate processes, different hash seeds, as on N CI runners) are disjoint and complete,
in both modes, by test count and by recorded durations."""

from __future__ import annotations

import json
import re

import pytest

pytest.importorskip("pytest_split")

SUITE = """
import pytest
from pairwise_param import pairwise

@pairwise(dtype=["f16", "bf16", "f32"], padded=[False, True], bias=[0, 1, 2], xnorm=[False, True])
@pytest.mark.parametrize("n", [1, 8, 64])
def test_kernel(n, dtype, padded, bias, xnorm):
    pass

@pairwise({"n,k": [(1, 64), (8, 128)]}, flag=[True, False], mode_=["a", "b", "c"], ids="pytest")
def test_grouped(n, k, flag, mode_):
    pass

class TestCls:
    @pairwise(a=[1, 2, 3], b=["x", "y"], c=[None, 0.5])
    def test_m(self, a, b, c):
        pass
"""


def _ids(result: pytest.RunResult) -> list[str]:
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    return [line for line in result.outlines if re.fullmatch(r"\S+::\S+\[.*\]", line)]


@pytest.mark.parametrize(("mode", "durations"), [("cover", False), ("full", True), ("cover", True)])
def test_shards_are_disjoint_and_complete(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, mode: str, durations: bool
) -> None:
    pytester.makepyfile(test_suite=SUITE)
    base = ["--co", "-q", "-p", "no:randomly", f"--pairwise-mode={mode}"]
    whole = _ids(pytester.runpytest_subprocess(*base))
    assert len(whole) == len(set(whole)) > 10
    if durations:  # uneven recorded durations: pytest-split balances by time, not count
        times = {nodeid: (i % 7) * 0.5 + 0.1 for i, nodeid in enumerate(whole)}
        (pytester.path / ".test_durations").write_text(json.dumps(times))
    n = 3
    shards = []
    for group in range(1, n + 1):
        monkeypatch.setenv("PYTHONHASHSEED", str(group * 17))
        shards.append(_ids(pytester.runpytest_subprocess(*base, "--splits", str(n), "--group", str(group))))
    seen = [i for shard in shards for i in shard]
    assert len(seen) == len(set(seen)), "an id is in two shards"
    assert set(seen) == set(whole)
    assert all(shards)
