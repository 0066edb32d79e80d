"""Skinny GEMMs (LLMM1, wvSplitK, wvSplitKrc, wvSplitK-FP8) against fp32 references.

Upstream (vLLM's ROCm skinny-GEMM tests) ran these as a full product, 11040 cases, and
then cut the option axes by hand to pairwise lists, 2644 cases. Here the option axes go
through ``@pairwise`` (6 rows per test, every pair of option values covered) while the
shapes stay an ordinary full-product parametrize; ``--pairwise-mode=full`` gives back
all 11040. Inputs, references and tolerances: ``cases.py``. Shape fuzzing:
``test_fuzz.py``. Bad inputs: ``test_errors.py``.
"""

from __future__ import annotations

import pytest
import torch

from kernel_tests.skinny_gemm.cases import (
    BIAS_MODES,
    BUDGET,
    DTYPE_IDS,
    DTYPES,
    K_WVSPLITKRC,
    M_WVSPLITKRC,
    N_WVSPLITKRC,
    NKM_LLMM1,
    NKM_WVSPLITK,
    NKM_WVSPLITK_FP8,
    ROWS_PER_BLOCK,
    SEEDS,
    check_llmm1,
    check_wvsplitk,
    check_wvsplitk_fp8,
    check_wvsplitkrc,
    requires_fp8,
)
from kernel_tests.skinny_gemm.kernels import fits_wvsplitkrc
from pairwise_param import pairwise


# LLMM1 has no independent options to cover: dtype x rows_per_block is its full table.
@pytest.mark.parametrize("n,k,m", NKM_LLMM1)
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("rows_per_block", ROWS_PER_BLOCK)
@pytest.mark.parametrize("seed", SEEDS)
@torch.inference_mode()
def test_llmm1(backend, device, n, k, m, dtype, rows_per_block, seed):
    BUDGET.skip_if_over(n, k, m)
    check_llmm1(backend, device, n, k, m, dtype, rows_per_block, seed)


@pairwise(dtype=DTYPES, padded_a=[False, True], padded_b=[False, True], bias_mode=BIAS_MODES,
          xnorm=[False, True], compile_axes=["dtype", "bias_mode"])
@pytest.mark.parametrize("n,k,m", NKM_WVSPLITK)
@pytest.mark.parametrize("seed", SEEDS)
@torch.inference_mode()
def test_wvsplitk(backend, device, cu_count, n, k, m, dtype, padded_a, padded_b, bias_mode, xnorm, seed):
    BUDGET.skip_if_over(n, k, m)
    check_wvsplitk(backend, device, cu_count, n, k, m, dtype, padded_a, padded_b, bias_mode, xnorm, seed)


@pairwise(dtype=DTYPES, padded_a=[False, True], bias_mode=BIAS_MODES, xnorm=[False, True],
          compile_axes=["dtype", "bias_mode"])
@pytest.mark.parametrize("n", N_WVSPLITKRC)
@pytest.mark.parametrize("k", K_WVSPLITKRC)
@pytest.mark.parametrize("m", M_WVSPLITKRC)
@pytest.mark.parametrize("seed", SEEDS)
@torch.inference_mode()
def test_wvsplitkrc(backend, device, cu_count, n, k, m, dtype, padded_a, bias_mode, xnorm, seed):
    if not fits_wvsplitkrc(n, k, m, cu_count):
        pytest.skip(f"does not fit wvSplitKrc (fits_wvsplitkrc): next_pow2(n)*m*ceil(k/512) > 128*1024*12 "
                    f"workspace floats or ceil(m/64)*ceil(k/512)*min(next_pow2(n)/16, 4) > cu_count={cu_count}")
    BUDGET.skip_if_over(n, k, m)
    check_wvsplitkrc(backend, device, cu_count, n, k, m, dtype, padded_a, bias_mode, xnorm, seed)


@requires_fp8
@pairwise(dtype=DTYPES, padded_a=[False, True], padded_b=[False, True], biased=[False, True],
          xnorm=[False, True], compile_axes=["dtype", "biased"])
@pytest.mark.parametrize("n,k,m", NKM_WVSPLITK_FP8)
@pytest.mark.parametrize("seed", SEEDS)
@torch.inference_mode()
def test_wvsplitk_fp8(backend, device, cu_count, n, k, m, dtype, padded_a, padded_b, biased, xnorm, seed):
    BUDGET.skip_if_over(n, k, m)
    check_wvsplitk_fp8(backend, device, cu_count, n, k, m, dtype, padded_a, padded_b, biased, xnorm, seed)
