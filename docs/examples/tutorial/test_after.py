"""The same test on @pairwise: the options form one covering table, the shape stays a product."""

import pytest

from tutorial_kernel import scaled_rows
from pairwise_param import pairwise


@pairwise(
    dtype=["fp16", "bf16", "fp32"],
    padded=[False, True],
    bias_mode=[0, 1, 2],
    xnorm=[False, True],
    constraints=[lambda dtype, bias_mode: not (dtype == "fp32" and bias_mode == 2)],
)
@pytest.mark.parametrize("n", [1, 8, 64])  # shapes stay a full product
def test_scaled_rows(n, dtype, padded, bias_mode, xnorm):
    out = scaled_rows(n, dtype=dtype, padded=padded, bias_mode=bias_mode, xnorm=xnorm)
    assert len(out) == n
