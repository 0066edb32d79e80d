"""RMSNorm + fused quant tests, in the style of a public LLM kernel suite."""

import pytest

DTYPES = ["float16", "bfloat16", "float32"]
NUM_TOKENS = [7, 83, 4096]  # arbitrary values for testing
HIDDEN_SIZES = [8, 768, 5120]


@pytest.mark.parametrize("num_tokens", NUM_TOKENS)
@pytest.mark.parametrize("hidden_size", HIDDEN_SIZES)
@pytest.mark.parametrize("add_residual", [False, True])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize("quant_dtype", ["float8_e4m3fn", "int8"])  # fp8 first
@pytest.mark.parametrize("has_scale_ub", [False, True])
@pytest.mark.parametrize("group_size", [None, 64, 128])
@pytest.mark.parametrize("seed", [0])
def test_rms_norm_dynamic_per_token_quant(
    num_tokens, hidden_size, add_residual, dtype, quant_dtype, has_scale_ub, group_size, seed
):
    assert dtype in DTYPES


@pytest.mark.parametrize("num_tokens,hidden_size", [(1, 64), (83, 768), (4096, 5120)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_rms_norm_cases(num_tokens, hidden_size, dtype):
    pass
