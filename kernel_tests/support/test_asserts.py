"""The shared comparison (support/asserts.py) on the suite's device: a planted mismatch is
reported with its count, worst errors and indices (on the CPU in CI, on the GPU in a GPU
run), the verdict rules hold, and on a GPU only the offending elements reach the host."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
import torch
from torch.overrides import TorchFunctionMode

from kernel_tests.support.asserts import assert_close_verbose, mismatch_report

ATOL, RTOL = 1e-3, 1e-2


def _planted(device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """A [3, 1000] fp32 reference and a copy with three wrong elements (errors 0.5, 2, 0.25)."""
    expected = torch.linspace(1.0, 2.0, 3000, device=device).reshape(3, 1000)
    actual = expected.clone()
    actual[0, 7] += 0.5
    actual[1, 500] -= 2.0
    actual[2, 999] += 0.25
    return actual, expected


@pytest.mark.parametrize("chunk", [1 << 24, 256], ids=["one-chunk", "12-chunks"])
def test_planted_mismatch_is_reported_with_indices_and_worst_errors(device, chunk):
    actual, expected = _planted(device)
    report = mismatch_report(actual, expected, ATOL, RTOL, chunk=chunk)
    assert report is not None
    head, *rows = report.splitlines()
    assert head.startswith("3 of 3000 elements (0.1%) differ beyond atol=0.001 + rtol=0.01*|expected|")
    assert "max abs err 2, max rel err 1.3" in head  # 2.0 at expected[1, 500] = 1.5
    assert [r.split(":")[0].strip() for r in rows] == ["at (0, 7)", "at (1, 500)", "at (2, 999)"]
    e = float(expected[1, 500])
    assert rows[1] == (f"  at (1, 500): actual {e - 2.0:.6g}, expected {e:.6g}, err 2 "
                       f"(allowed {ATOL + RTOL * e:.3g})")
    with pytest.raises(AssertionError, match=r"^case: 3 of 3000 elements"):
        assert_close_verbose(actual, expected, ATOL, RTOL, context="case")


def test_only_the_first_offenders_are_listed(device):
    expected = torch.zeros(40, 50, device=device)
    actual = expected.clone()
    actual[::2, 3] = 1.0  # 20 offenders
    report = mismatch_report(actual, expected, ATOL, RTOL, limit=4, chunk=300)
    assert report is not None
    lines = report.splitlines()
    assert lines[0].startswith("20 of 2000 elements")
    assert [line.split(":")[0].strip() for line in lines[1:5]] == ["at (0, 3)", "at (2, 3)", "at (4, 3)",
                                                                  "at (6, 3)"]
    assert lines[5] == "  ... and 16 more"


def test_verdict_rules(device):
    expected = torch.tensor([1.0, math.nan, 3.0, 0.0], device=device)
    assert mismatch_report(expected.clone(), expected, ATOL, RTOL) is None  # NaN where the reference is NaN
    nan_out = expected.clone()
    nan_out[0] = math.nan
    report = mismatch_report(nan_out, expected, ATOL, RTOL)
    assert report is not None and report.startswith("1 of 4 elements") and "max abs err nan" in report
    assert mismatch_report(expected[:3], expected, ATOL, RTOL) == "shape mismatch: actual (3,) vs expected (4,)"
    assert mismatch_report(torch.empty(0, device=device), torch.empty(0, device=device), ATOL, RTOL) is None
    # bf16: 1 + 2^-8 + 2^-10 rounds to 1 + 2^-7 (0.45 ulp away) and passes against the
    # rounded reference only, with a tolerance well below an ulp
    ref = torch.tensor([1.0 + 2.0**-8 + 2.0**-10], device=device)
    out = ref.to(torch.bfloat16)
    assert mismatch_report(out, ref, 1e-4, 0.0) is None
    assert mismatch_report(out.float(), ref, 1e-4, 0.0) is not None  # fp32 output: no rounded rule


class _HostTransfers(TorchFunctionMode):
    """Counts the elements of device tensors that torch functions copy to the host."""

    def __init__(self) -> None:
        super().__init__()
        self.elements = 0

    def __torch_function__(self, func: Callable[..., Any], types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        src = args[0] if args and isinstance(args[0], torch.Tensor) else None
        out = func(*args, **kwargs)
        if src is not None and src.device.type != "cpu":
            name = getattr(func, "__name__", "")
            to_host = isinstance(out, torch.Tensor) and out.device.type == "cpu"
            if to_host or name in ("item", "tolist", "__bool__", "__int__", "__float__"):
                self.elements += src.numel()
        return out


def test_on_a_gpu_only_the_offenders_reach_the_host(device):
    if device.type == "cpu":
        pytest.skip("needs a GPU: on the CPU every tensor is on the host")
    expected = torch.randn(4096, 4096, device=device)
    actual = expected.clone()
    actual[17, 4000] += 1.0
    with _HostTransfers() as passing:
        assert mismatch_report(expected.clone(), expected, ATOL, RTOL) is None
    with _HostTransfers() as failing:
        report = mismatch_report(actual, expected, ATOL, RTOL)
    assert report is not None and "at (17, 4000)" in report
    assert passing.elements <= 4, passing.elements  # a few booleans
    assert failing.elements <= 64, failing.elements  # counts, maxima and the one offender
