"""The report on the repository's own suites: the example audit suite and,
when torch is installed, the skinny-GEMM kernel suite (11040 -> 2644)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def report(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pairwise_param.cli", "report", *args],
        capture_output=True, text=True, cwd=ROOT, timeout=300, check=False,
    )


@pytest.mark.skipif(not (ROOT / "examples" / "skinny_gemm_audit").exists(), reason="examples/ not present")
def test_example_suite() -> None:
    proc = report("examples/skinny_gemm_audit", "--format", "json", "--strength", "2", "--show-missing")
    assert proc.returncode == 0, proc.stderr
    tests = {t["id"].rsplit("/", 1)[1]: t for t in json.loads(proc.stdout)["tests"]}
    hand = tests["test_handwritten.py::test_wvsplitk"]
    # 6 hand-written rows of 2x2x2x3x2 = 48 option combinations, x 4 shapes
    assert (hand["full_product"], hand["collected"]) == (192, 24)
    assert hand["tables"][0]["coverage"][0]["percent"] == 100.0
    krc = tests["test_handwritten.py::test_wvsplitkrc"]
    assert (krc["full_product"], krc["collected"]) == (24 * 12, 6 * 12)
    assert krc["tables"][0]["coverage"][0]["missing_tuples"] == [{"bias_mode": "1", "xnorm": "False"}]
    assert tests["test_handwritten.py::test_llmm1"]["tables"] == []
    assert tests["test_pairwise.py::test_wvsplitk"]["coverage"][0]["percent"] == 100.0
    assert report("examples/skinny_gemm_audit", "--strength", "2", "--fail-under", "100").returncode == 1


@pytest.mark.skipif(
    not (ROOT / "kernel_tests" / "skinny_gemm" / "test_skinny_gemms.py").exists()
    or importlib.util.find_spec("torch") is None
    or importlib.util.find_spec("triton") is None,
    reason="needs kernel_tests/skinny_gemm/test_skinny_gemms.py, torch and triton",
)
def test_skinny_gemm_suite_reports_11040_to_2644() -> None:
    proc = report("kernel_tests/skinny_gemm/test_skinny_gemms.py", "--strength", "2", "--fail-under", "100")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "11040 -> 2644, 4.2x, 2-way 100%" in proc.stdout
