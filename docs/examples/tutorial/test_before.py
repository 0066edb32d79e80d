"""The tutorial's starting point: one parametrize per option, stacked (a full product)."""

import pytest

from tutorial_kernel import scaled_rows


@pytest.mark.parametrize("n", [1, 8, 64])
@pytest.mark.parametrize("dtype", ["fp16", "bf16", "fp32"])
@pytest.mark.parametrize("padded", [False, True])
@pytest.mark.parametrize("bias_mode", [0, 1, 2])
@pytest.mark.parametrize("xnorm", [False, True])
def test_scaled_rows(n, dtype, padded, bias_mode, xnorm):
    out = scaled_rows(n, dtype=dtype, padded=padded, bias_mode=bias_mode, xnorm=xnorm)
    assert len(out) == n
