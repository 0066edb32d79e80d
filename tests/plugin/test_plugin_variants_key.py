"""``@pairwise(..., compile_key=...)``: the summary counts variants by key, and the items
of one key run consecutively (plugin/variants.py through IndexModel.variant)."""

from __future__ import annotations

import re

import pytest

SUITE = """
import pytest
from pairwise_param import pairwise

def bucket(rope_dim):
    return 64 if rope_dim <= 128 else 256

@pairwise(rope_dim=[64, 128, 256, 512], is_neox=[False, True], dtype=["bf16", "fp16"], heads=[1, 2, 4],
          compile_axes=["rope_dim", "is_neox", "dtype"],
          compile_key=lambda rope_dim, is_neox, dtype: (bucket(rope_dim), is_neox, dtype))
def test_rope(rope_dim, is_neox, dtype, heads):
    pass
"""

ID = re.compile(r"test_rope\[rope_dim=(\d+)-is_neox=(True|False)-dtype=(\w+)-heads=\d\]")


def test_the_summary_and_the_order_follow_the_key(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_suite=SUITE)
    result = pytester.runpytest("--collect-only", "-q", "-p", "no:cacheprovider", "-p", "no:randomly")
    runs: list[tuple[int, str, str]] = []
    for line in result.outlines:
        m = ID.search(line)
        if m:
            key = (64 if int(m.group(1)) <= 128 else 256, m.group(2), m.group(3))
            if not runs or runs[-1] != key:
                runs.append(key)
    assert len(runs) == len(set(runs)) == 4  # 4 keys, each one run of consecutive items
    result = pytester.runpytest("-q", "-p", "no:cacheprovider")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["pairwise-param: * 4 variants (compile_axes)"])


def test_the_report_counts_keys(tmp_path) -> None:
    """`pairwise-param report`'s VARIANTS: collected / plain table / full product, by key."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    (tmp_path / "test_suite.py").write_text(SUITE)
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-m", "pairwise_param.cli", "report", str(tmp_path / "test_suite.py"),
                          "--format", "json"], capture_output=True, text=True, check=True, cwd=root).stdout
    variants = json.loads(out)["tests"][0]["variants"]
    # 4 keys collected; full product: 2 buckets x 2 x 2 = 8 keys (16 combinations)
    assert variants["collected"] == 4 and variants["full"] == 8 and variants["plain"] >= 4
