"""vLLM's ROCm skinny-GEMM test parametrization as upstream wrote it (audit input only).

Source (facts, re-stated): vLLM ``tests/kernels/quantization/test_rocm_skinny_gemms.py``,
whose option lists were cut by hand to cover every pair ("These options are
independent in the kernels, so the sets below cover every pair of them instead of the
full product"). Upstream runs the same lists in CI and locally. Dtypes are spelled as
strings so this file needs no torch; the bodies only check their arguments: what is
audited is the parametrization (``pairwise-param report
kernel_tests/skinny_gemm/upstream_ci.py``, or ``python benchmarks/upstream_ci_audit.py``).

Not named ``test_*.py``: a normal ``pytest kernel_tests`` run does not collect it.
"""

import pytest

SEEDS = [0]

OPTIONS_WVSPLITKRC = [
    # dtype, padded_a, bias_mode, xnorm
    ("float16", False, 0, False),
    ("float16", True, 1, True),
    ("float16", True, 2, False),
    ("bfloat16", True, 0, True),
    ("bfloat16", False, 1, False),
    ("bfloat16", False, 2, True),
]

OPTIONS_WVSPLITK = [
    # dtype, padded_a, padded_b, bias_mode, xnorm
    ("float16", False, False, 0, False),
    ("float16", False, True, 1, True),
    ("float16", True, False, 2, True),
    ("bfloat16", True, True, 0, True),
    ("bfloat16", True, False, 1, False),
    ("bfloat16", False, True, 2, False),
]

OPTIONS_WVSPLITK_FP8 = [
    # dtype, padded_a, padded_b, biased, xnorm
    ("float16", False, False, True, True),
    ("bfloat16", True, False, False, True),
    ("bfloat16", False, True, True, True),
    ("float16", True, False, True, False),
    ("float16", False, True, False, False),
    ("bfloat16", True, True, False, False),
]

DTYPES = ["bfloat16", "float16"]

NKM_FACTORS_LLMM1 = [
    (1, 8, 16), (1, 32, 64), (1, 128, 256), (1, 512, 1024), (1, 2048, 4096),
    (1, 6144, 1024), (1, 8192, 2048), (1, 4096, 8192),
]

NKM_FACTORS_WVSPLITK = [
    (1, 32, 16), (1, 64, 64), (2, 256, 256), (3, 1024, 1024),
    (4, 4096, 4096), (4, 4096, 4096 + 1), (4, 4096 + 16, 4096), (4, 4096 + 16, 4096 + 1),
    (1, 9216, 512), (2, 10240, 1024), (4, 16384, 8192),
    (4, 16384 * 2, 8192), (4, 16384 * 2, 8192 + 1), (4, 16384 * 2 + 16, 8192), (4, 16384 * 2 + 16, 8192 + 1),
    (1, 64, 8), (2, 128, 8), (4, 256, 8),
]

N_FACTORS_WVSPLITKRC = [13, 16, 17, 25, 29, 31, 32, 41, 51, 64, 71, 81, 91, 103, 117, 128]
K_FACTORS_WVSPLITKRC = [2880, 2880 + 8, 3072, 3072 + 8]
M_FACTORS_WVSPLITKRC = [128, 128 + 16, 256, 256 + 16, 640, 640 + 16]

NKM_FACTORS_WVSPLITK_FP8 = [
    (1, 16, 16), (1, 32, 16 + 16), (1, 64, 64), (1, 64, 64 + 16), (1, 64 + 16, 64), (1, 64 + 16, 64 + 16),
    (4, 64, 64), (4, 64, 64 + 16), (4, 64 + 16, 64), (4, 64 + 16, 64 + 16),
    (2, 512, 512), (3, 512, 512), (3, 512, 512 + 16), (4, 512, 512),
    (3, 2048, 2048), (3, 2048, 2048 + 16), (4, 2048 + 16, 2048), (4, 2048 + 16, 2048 + 16),
    (4, 4096, 4096), (4, 16400, 2048), (4, 16400, 2048 + 16),
    (1, 14336, 1024), (2, 24576, 2048),
    (4, 32768, 28672), (4, 32768 * 2, 28672), (4, 32768 * 2, 28672 + 16),
    (4, 32768 * 2 + 16, 28672), (4, 32768 * 2 + 16, 28672 + 16),
]


@pytest.mark.parametrize("n", N_FACTORS_WVSPLITKRC)
@pytest.mark.parametrize("k", K_FACTORS_WVSPLITKRC)
@pytest.mark.parametrize("m", M_FACTORS_WVSPLITKRC)
@pytest.mark.parametrize("dtype,padded_a,bias_mode,xnorm", OPTIONS_WVSPLITKRC)
@pytest.mark.parametrize("seed", SEEDS)
def test_wvsplitkrc(n, k, m, dtype, padded_a, bias_mode, xnorm, seed):
    assert dtype in DTYPES and bias_mode in (0, 1, 2)


@pytest.mark.parametrize("n,k,m", NKM_FACTORS_LLMM1)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("rows_per_block", [2, 4, 8, 16])
@pytest.mark.parametrize("seed", SEEDS)
def test_llmm1(n, k, m, dtype, rows_per_block, seed):
    assert n == 1


@pytest.mark.parametrize("n,k,m", NKM_FACTORS_WVSPLITK)
@pytest.mark.parametrize("dtype,padded_a,padded_b,bias_mode,xnorm", OPTIONS_WVSPLITK)
@pytest.mark.parametrize("seed", SEEDS)
def test_wvsplitk(n, k, m, dtype, padded_a, padded_b, bias_mode, xnorm, seed):
    assert k % 8 == 0


@pytest.mark.parametrize("n,k,m", NKM_FACTORS_WVSPLITK_FP8)
@pytest.mark.parametrize("dtype,padded_a,padded_b,biased,xnorm", OPTIONS_WVSPLITK_FP8)
@pytest.mark.parametrize("seed", SEEDS)
def test_wvsplitk_fp8(n, k, m, dtype, padded_a, padded_b, biased, xnorm, seed):
    assert k % 16 == 0
