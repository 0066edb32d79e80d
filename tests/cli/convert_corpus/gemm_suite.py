"""Skinny GEMM tests: shapes as grouped rows, options stacked."""

import pytest

# (n, k, m) shapes written as list rows
NKM = [[1, 8, 16], [2, 256, 512], [4, 4096, 8192]]


@pytest.mark.parametrize("n,k,m", [[1, 8, 16], [2, 256, 512], [4, 4096, 8192]])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("padded_a", [False, True])
@pytest.mark.parametrize("padded_b", [False, True])
@pytest.mark.parametrize("bias_mode", [0, 1, 2])
@pytest.mark.parametrize("xnorm", [False, True])
def test_wvsplitk(n, k, m, dtype, padded_a, padded_b, bias_mode, xnorm):
    assert isinstance(n, int)


@pytest.mark.parametrize("m", [1, 16])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"], ids=["f16", "bf16"])
def test_llmm1(m, dtype):
    pass
