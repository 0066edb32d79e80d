"""The same options through ``@pairwise``: the table is generated (6 rows)
and the shapes stay a full product."""

import pytest

from pairwise_param import pairwise

SHAPES = [(1, 32, 16), (2, 256, 256), (4, 4096, 4097), (1, 64, 8)]


@pairwise(
    dtype=["bf16", "fp16"],
    padded_a=[False, True],
    padded_b=[False, True],
    bias_mode=[0, 1, 2],
    xnorm=[False, True],
)
@pytest.mark.parametrize("n,k,m", SHAPES)
def test_wvsplitk(n, k, m, dtype, padded_a, padded_b, bias_mode, xnorm):
    assert k % 8 == 0


@pairwise(
    dtype=["bf16", "fp16", "fp32"],
    bias_mode=[0, 1, 2],
    xnorm=[False, True],
    constraints=[lambda dtype, bias_mode: not (dtype == "fp32" and bias_mode == 2)],
)
def test_fused_norm(dtype, bias_mode, xnorm):
    assert not (dtype == "fp32" and bias_mode == 2)
