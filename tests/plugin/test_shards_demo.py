"""``benchmarks/shards_demo.py`` (issue 36's closing demo) on a tiny suite: 3 pytest-shard
shards merged and gated by ``report --run DIR --fail-under 100``, a lost shard and a shard
of another model (``PAIRWISE_STRENGTH=3``) caught. The same checks on kernel_tests'
slice: ``benchmarks/results/shards_demo.md``; the merge's own cases:
``test_plugin_shards.py``."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("pytest_shard")

from tests.plugin.test_plugin_shards import SUITE


def _script() -> ModuleType:
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "shards_demo.py"
    spec = importlib.util.spec_from_file_location("shards_demo", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("shards_demo", module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_demo_merges_three_shards_and_catches_a_lost_shard_and_another_model(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_suite=SUITE)
    demo = _script()
    steps = demo.demo(pytester.path / "out", ["test_suite.py"], pytester.path)
    assert [s.title for s in steps if not s.ok] == [], "\n\n".join(f"{s.title}\n{s.output}" for s in steps)
    by_title = {s.title: s for s in steps}
    union = by_title["the union of the 3 shards, gated"]
    assert union.code == 0
    assert "runs: 3 merged, 2 tables" in union.output and "(shard 3 of 3)" in union.output
    assert re.search(r"test_suite.py::test_kernel .* 100.0% \(\d+/\d+\)", union.output), union.output
    lost = by_title["shard 3's run file lost"]
    assert lost.code == 1
    never = re.search(r"shard 3 of 3 missing: (\d+) items never ran", lost.output)
    assert never is not None and int(never.group(1)) > 0, lost.output
    other = by_title["shard 3 run under another model (PAIRWISE_STRENGTH=3)"]
    assert other.code == 2
    assert "the runs cannot be merged" in other.output and "strength 2 -> 3" in other.output
    # the shards' run files say which shard and build they were
    text = (pytester.path / "out" / "runs" / "s1.json").read_text()
    assert '"index": 1' in text and '"count": 3' in text and '"build": "shards-demo-1"' in text
    # the Markdown names every command
    page = demo.markdown(steps, ["test_suite.py"], 1.0)
    assert page.count("$ pairwise-param report --run") == 3 and "--shard-id=2 --num-shards=3" in page
