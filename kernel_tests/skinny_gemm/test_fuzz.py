"""Hypothesis shape fuzzing of the skinny GEMMs: options from the covering table,
shapes drawn within each op's contract (n range, k a multiple of 8 / 16, m >= 8 with
arbitrary remainders, the wvSplitKrc fit rule as an ``assume``). Under the Triton
interpreter the shapes stay small; on a GPU they reach upstream's sizes.

Hypothesis settings come from the profiles in ``kernel_tests/conftest.py`` (``kernel-ci``:
derandomized, used when ``CI`` or ``HYPOTHESIS_PROFILE=ci`` is set), with 8 examples per
item.
"""

from __future__ import annotations

import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from kernel_tests.skinny_gemm.cases import (
    BIAS_MODES,
    DTYPE_IDS,
    DTYPES,
    ROWS_PER_BLOCK,
    check_llmm1,
    check_wvsplitk,
    check_wvsplitk_fp8,
    check_wvsplitkrc,
    requires_fp8,
)
from kernel_tests.skinny_gemm.kernels import fits_wvsplitkrc
from kernel_tests.support.platform import is_interpreter
from pairwise_param import pairwise

SMALL = is_interpreter()
K_MAX = 1024 if SMALL else 16384
M_MAX = 320 if SMALL else 8200
KRC_K_MAX = 2048 if SMALL else 4096
KRC_M_MAX = 320 if SMALL else 1024
#: Examples per item (each test has 2 or 6 items): kernel cases are expensive; the rest of
#: the settings come from the loaded profile (kernel-ci: derandomized).
FUZZ = settings(max_examples=8)


def multiples(step: int, hi: int) -> st.SearchStrategy[int]:
    """Positive multiples of ``step`` up to ``hi``."""
    return st.integers(1, hi // step).map(lambda j: j * step)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@FUZZ
@given(k=multiples(8, K_MAX), rows_per_block=st.sampled_from(ROWS_PER_BLOCK),
       row_blocks=st.integers(1, M_MAX // 16))
@torch.inference_mode()
def test_llmm1_fuzz(backend, device, dtype, k, rows_per_block, row_blocks):
    check_llmm1(backend, device, 1, k, rows_per_block * row_blocks, dtype, rows_per_block, seed=0)


@pairwise(dtype=DTYPES, padded_a=[False, True], padded_b=[False, True], bias_mode=BIAS_MODES,
          xnorm=[False, True], compile_axes=["dtype", "bias_mode"])
@FUZZ
@given(n=st.integers(1, 4), k=multiples(8, K_MAX), m=st.integers(8, M_MAX))
@torch.inference_mode()
def test_wvsplitk_fuzz(backend, device, cu_count, dtype, padded_a, padded_b, bias_mode, xnorm, n, k, m):
    check_wvsplitk(backend, device, cu_count, n, k, m, dtype, padded_a, padded_b, bias_mode, xnorm, seed=0)


@pairwise(dtype=DTYPES, padded_a=[False, True], bias_mode=BIAS_MODES, xnorm=[False, True],
          compile_axes=["dtype", "bias_mode"])
@FUZZ
@given(n=st.integers(13, 128), k=multiples(8, KRC_K_MAX), m=st.integers(8, KRC_M_MAX))
@torch.inference_mode()
def test_wvsplitkrc_fuzz(backend, device, cu_count, dtype, padded_a, bias_mode, xnorm, n, k, m):
    assume(fits_wvsplitkrc(n, k, m, cu_count))
    check_wvsplitkrc(backend, device, cu_count, n, k, m, dtype, padded_a, bias_mode, xnorm, seed=0)


@requires_fp8
@pairwise(dtype=DTYPES, padded_a=[False, True], padded_b=[False, True], biased=[False, True],
          xnorm=[False, True], compile_axes=["dtype", "biased"])
@FUZZ
@given(n=st.integers(1, 4), k=multiples(16, K_MAX), m=st.integers(8, M_MAX))
@torch.inference_mode()
def test_wvsplitk_fp8_fuzz(backend, device, cu_count, dtype, padded_a, padded_b, biased, xnorm, n, k, m):
    check_wvsplitk_fp8(backend, device, cu_count, n, k, m, dtype, padded_a, padded_b, biased, xnorm, seed=0)


@pytest.mark.parametrize("op", ["wvSplitK", "wvSplitKrc"])
@torch.inference_mode()
def test_split_k_is_deterministic(backend, device, cu_count, op):
    """Split-K partials are reduced in a fixed order (no atomics): bitwise-equal reruns."""
    if backend.name != "triton":
        pytest.skip("determinism is a property of the Triton kernels here; upstream's may use atomics")
    gen = torch.Generator(device=device).manual_seed(0)
    n, k, m = (4, 4096, 96) if op == "wvSplitK" else (29, 2048, 80)
    act = torch.randn((n, k), generator=gen, device=device).to(torch.bfloat16)
    weight = torch.randn((m, k), generator=gen, device=device).to(torch.bfloat16)
    if op == "wvSplitK":
        outs = [backend.wvSplitK(weight, act, cu_count) for _ in range(3)]
    else:
        outs = [backend.wvSplitKrc(act, weight, cu_count) for _ in range(3)]
    for o in outs[1:]:
        assert torch.equal(o.view(torch.int16), outs[0].view(torch.int16))
