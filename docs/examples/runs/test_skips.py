"""Planted skips (docs/how-to/skips.md): a value skipped by a mark that is already true
at collection, and an in-body skip of one value on this machine."""

import pytest

from pairwise_param import pairwise

HAS_BF16 = False  # e.g. kernel_tests.support.platform.supports_bf16()
IS_HOPPER = False  # e.g. torch.cuda.get_device_capability() >= (9, 0)

BF16 = pytest.param("bf16", marks=pytest.mark.skipif(not HAS_BF16, reason="bf16 needs sm80+"))


@pairwise(dtype=["fp16", BF16, "fp32"], bias_mode=[0, 1, 2], xnorm=[False, True], padded_a=[False, True])
def test_gemm(dtype, bias_mode, xnorm, padded_a):
    pass


@pairwise(dtype=["fp16", "bf16"], enable_pdl=[False, True], bias=[False, True], residual=[False, True, None])
@pytest.mark.parametrize("n", [1, 64])
def test_norm(n, dtype, enable_pdl, bias, residual):
    if enable_pdl and not IS_HOPPER:
        pytest.skip("enable_pdl needs Hopper (sm90)")
