"""Hand-written option lists, the way vLLM's ROCm skinny-GEMM tests were
written before they adopted ``@pairwise``: ``pairwise-param report`` audits
them (counts, reduction, and the pairs each list really covers).

Nothing here needs a GPU or torch: the tests only check their arguments, so
the suite runs anywhere; dtypes are spelled as strings.
"""

import pytest

# (dtype, padded_a, padded_b, bias_mode, xnorm): 6 rows, every pair of values
# appears in at least one row (the minimum for 2x2x2x3x2 options).
WVSPLITK_OPTIONS = [
    ("bf16", False, False, 0, False),
    ("fp16", True, True, 0, True),
    ("bf16", False, True, 1, True),
    ("fp16", True, False, 1, False),
    ("bf16", True, False, 2, True),
    ("fp16", False, True, 2, False),
]
WVSPLITK_SHAPES = [(1, 32, 16), (2, 256, 256), (4, 4096, 4097), (1, 64, 8)]

# (dtype, padded_a, bias_mode, xnorm): 6 rows, but row 5 was "tidied" and now
# no row runs bias_mode=1 without xnorm: one pair is missing.
WVSPLITKRC_OPTIONS = [
    ("bf16", False, 0, False),
    ("bf16", True, 1, True),
    ("bf16", False, 2, True),
    ("fp16", True, 0, True),
    ("fp16", False, 1, True),
    ("fp16", True, 2, False),
]


@pytest.mark.parametrize("dtype,padded_a,padded_b,bias_mode,xnorm", WVSPLITK_OPTIONS)
@pytest.mark.parametrize("n,k,m", WVSPLITK_SHAPES)
def test_wvsplitk(n, k, m, dtype, padded_a, padded_b, bias_mode, xnorm):
    assert dtype in ("bf16", "fp16") and bias_mode in (0, 1, 2)
    assert k % 8 == 0


# six rows of 24 with an int column read as a list of cases OR a covering table: the audit
# calls such a list "uncertain" and leaves it out of the gate; this mark says "options"
@pytest.mark.pairwise_options("dtype,padded_a,bias_mode,xnorm")
@pytest.mark.parametrize("dtype,padded_a,bias_mode,xnorm", WVSPLITKRC_OPTIONS)
@pytest.mark.parametrize("n", [13, 32, 128])
@pytest.mark.parametrize("k", [2880, 3072])
@pytest.mark.parametrize("m", [128, 640])
def test_wvsplitkrc(n, k, m, dtype, padded_a, bias_mode, xnorm):
    assert 13 <= n <= 128


@pytest.mark.parametrize("n,k,m", [(1, 8, 16), (1, 512, 1024), (1, 4096, 8192)])
@pytest.mark.parametrize("dtype", ["bf16", "fp16"])
@pytest.mark.parametrize("rows_per_block", [2, 4, 8, 16])
def test_llmm1(n, k, m, dtype, rows_per_block):
    assert n == 1


def test_bad_input_is_rejected():
    """Not parametrized: counted apart, not in the table."""
