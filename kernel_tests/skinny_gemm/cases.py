"""Cases of the skinny-GEMM family: shapes, option values, tolerances, budget, one check per op.

Shared by the table-driven tests, the fuzzing and the error tests.

Shapes, option values and tolerances mirror vLLM's
``tests/kernels/quantization/test_rocm_skinny_gemms.py`` (facts, re-stated here).
Tolerances are computed from the case (dtype, k, xnorm, bias): they travel with the
case and are never an axis of a covering table.

How results are compared (``kernel_tests.support.asserts.mismatch_report``): an output
element passes when it is within ``atol + rtol * |ref|`` of the fp32 reference, or of
that reference rounded to the output dtype (what upstream compares against: a reference
that produced its output in that dtype). The same atol/rtol serve both; the rule and
the measurements behind it are in docs/kernels.md.
"""

from __future__ import annotations

import math

import torch

from kernel_tests.skinny_gemm.reference import linear_ref, quantize_fp8_per_tensor, scaled_fp8_gemm_ref
from kernel_tests.support.asserts import assert_close_verbose
from kernel_tests.support.budget import InterpreterBudget
from kernel_tests.support.inputs import generator, pad_rows, uniform
from kernel_tests.support.marks import requires
from kernel_tests.support.phases import phase
from kernel_tests.support.platform import has_fp8

DTYPES = [torch.bfloat16, torch.float16]
DTYPE_IDS = ["bfloat16", "float16"]  # pytest would call them dtype0, dtype1
SEEDS = [0]
BIAS_MODES = [0, 1, 2]  # 0: none, 1: (m,), 2: (n, m)

NKM_LLMM1 = [
    (1, 8, 16), (1, 32, 64), (1, 128, 256), (1, 512, 1024), (1, 2048, 4096),
    (1, 6144, 1024), (1, 8192, 2048), (1, 4096, 8192),
]
ROWS_PER_BLOCK = [2, 4, 8, 16]

NKM_WVSPLITK = [
    (1, 32, 16), (1, 64, 64), (2, 256, 256), (3, 1024, 1024),
    (4, 4096, 4096), (4, 4096, 4097), (4, 4112, 4096), (4, 4112, 4097),
    (1, 9216, 512), (2, 10240, 1024), (4, 16384, 8192),
    (4, 32768, 8192), (4, 32768, 8193), (4, 32784, 8192), (4, 32784, 8193),
    (1, 64, 8), (2, 128, 8), (4, 256, 8),  # minimum m
]

# n is bucketed up to 16/32/64/128 and masked; K shards are 512 wide (+8: a partial
# 8-element load); M tiles are 64 rows (+16: a partial tile).
N_WVSPLITKRC = [13, 16, 17, 25, 29, 31, 32, 41, 51, 64, 71, 81, 91, 103, 117, 128]
K_WVSPLITKRC = [2880, 2888, 3072, 3080]
M_WVSPLITKRC = [128, 144, 256, 272, 640, 656]

NKM_WVSPLITK_FP8 = [
    (1, 16, 16), (1, 32, 32), (1, 64, 64), (1, 64, 80), (1, 80, 64), (1, 80, 80),
    (4, 64, 64), (4, 64, 80), (4, 80, 64), (4, 80, 80),
    (2, 512, 512), (3, 512, 512), (3, 512, 528), (4, 512, 512),
    (3, 2048, 2048), (3, 2048, 2064), (4, 2064, 2048), (4, 2064, 2064),
    (4, 4096, 4096), (4, 16400, 2048), (4, 16400, 2064),
    (1, 14336, 1024), (2, 24576, 2048),
    (4, 32768, 28672), (4, 65536, 28672), (4, 65536, 28688), (4, 65552, 28672), (4, 65552, 28688),
]

#: Skip mark for the FP8 op (checked lazily, at test set-up); the reason states the requirement.
requires_fp8 = requires(
    has_fp8,
    reason="needs torch.float8_e4m3fn and a device that reads it: CUDA compute capability >= 8.9, "
           "ROCm gfx942/gfx950, or the Triton interpreter",
)

# ----------------------------------------------------------------------------- tolerances


def tol_llmm1(dtype: torch.dtype) -> tuple[float, float]:
    """(atol, rtol) for LLMM1: inputs are positive, so a relative bound is enough."""
    return 1e-8, 1e-2


def tol_wvsplitk(dtype: torch.dtype, k: int) -> tuple[float, float]:
    """Accumulated rounding grows like sqrt(k): atol = eps(dtype) * sqrt(k), rtol 1e-2."""
    return torch.finfo(dtype).eps * math.sqrt(k), 1e-2


def tol_wvsplitkrc(dtype: torch.dtype, xnorm: bool, has_bias: bool) -> tuple[float, float]:
    """xnormed outputs are small, so the bound is absolute (1e-3); an O(1) bias lifts
    bf16 outputs where one ulp (3.9e-3 in [0.5, 1)) exceeds that: 5e-3 there."""
    if xnorm:
        return (5e-3 if (dtype == torch.bfloat16 and has_bias) else 1e-3), 1e-8
    return 1e-3, 1e-2


def tol_wvsplitk_fp8(k: int, xnorm: bool) -> tuple[float, float]:
    """xnorm: 1e-3 absolute; very long K without xnorm: 0.07 / 5e-2; else 1e-2 / 1e-2."""
    if xnorm:
        return 1e-3, 1e-8
    if k >= 32 * 1024:
        return 0.07, 5e-2
    return 1e-2, 1e-2


# ----------------------------------------------------------------------------- inputs


def make_bias(bias_mode: int, n: int, m: int, dtype: torch.dtype, gen: torch.Generator,
              device: torch.device) -> torch.Tensor | None:
    """None (mode 0), ``(m,)`` (mode 1) or ``(n, m)`` (mode 2), uniform in [-1, 1)."""
    if bias_mode == 0:
        return None
    shape = (m,) if bias_mode == 1 else (n, m)
    return uniform(shape, gen, device).to(dtype)


def xavier(k: int, xnorm: bool) -> float:
    """Input scale: sqrt(2 / k) with xnorm (keeps outputs O(1/sqrt(k))), else 1."""
    return math.sqrt(2.0 / k) if xnorm else 1.0


# ----------------------------------------------------------------------------- CPU budget

def interpreter_cost(n: int, k: int, m: int) -> int:
    """Work of one case under the interpreter: weight elements gathered (k * m) times
    the number of 128-row activation blocks (1 for every op here). The interpreter
    spends ~0.1-0.2 us per gathered element on one core, so 2e7 is a few seconds."""
    return k * m * max(1, math.ceil(n / 128))


#: The family's interpreter budget: ``BUDGET.skip_if_over(n, k, m)``.
BUDGET = InterpreterBudget(env="KERNEL_TESTS_CPU_BUDGET", default=2e7, cost=interpreter_cost,
                           unit="k*m weight elements gathered")


# ----------------------------------------------------------------------------- one case per op
# Shared by the table-driven tests and the Hypothesis fuzzing: build inputs the way
# upstream does, run the op, compare with the fp32 reference rounded to the output dtype.


def check_llmm1(backend, device, n, k, m, dtype, rows_per_block, seed) -> None:
    with phase("inputs"):
        gen = generator(seed, device)
        # Positive inputs, as upstream (its TODO: zero-centred ones break LLMM1's partial sums).
        act = torch.rand((n, k), generator=gen, device=device).to(dtype)
        weight = torch.rand((m, k), generator=gen, device=device).to(dtype)
    with phase("kernel"):
        out = backend.LLMM1(weight, act, rows_per_block)
    with phase("reference"):
        ref = linear_ref(act, weight)
    atol, rtol = tol_llmm1(dtype)
    with phase("compare"):
        assert_close_verbose(out, ref, atol, rtol, context=f"LLMM1 n={n} k={k} m={m}")


def check_wvsplitk(backend, device, cu_count, n, k, m, dtype, padded_a, padded_b, bias_mode, xnorm, seed) -> None:
    with phase("inputs"):
        gen = generator(seed, device)
        scale = xavier(k, xnorm)
        act = (uniform((n, k), gen, device) * scale).to(dtype)
        weight = (uniform((m, k), gen, device) * scale).to(dtype)
        bias = make_bias(bias_mode, n, m, dtype, gen, device)
        if padded_a:
            act = pad_rows(act)
        if padded_b:
            weight = pad_rows(weight)
    with phase("kernel"):
        out = backend.wvSplitK(weight, act, cu_count, bias)
    with phase("reference"):
        ref = linear_ref(act, weight, bias)
    atol, rtol = tol_wvsplitk(dtype, k)
    with phase("compare"):
        assert_close_verbose(out, ref, atol, rtol, context=f"wvSplitK n={n} k={k} m={m}")


def check_wvsplitkrc(backend, device, cu_count, n, k, m, dtype, padded_a, bias_mode, xnorm, seed) -> None:
    with phase("inputs"):
        gen = generator(seed, device)
        scale = xavier(k, xnorm)
        act = (torch.randn((n, k), generator=gen, device=device) * scale).to(dtype)
        weight = (torch.randn((m, k), generator=gen, device=device) * scale).to(dtype)
        if padded_a:
            act = pad_rows(act)
        bias = make_bias(bias_mode, n, m, dtype, gen, device)
    with phase("kernel"):
        out = backend.wvSplitKrc(act, weight, cu_count, bias)
    with phase("reference"):
        ref = linear_ref(act, weight, bias)
    atol, rtol = tol_wvsplitkrc(dtype, xnorm, bias is not None)
    with phase("compare"):
        assert_close_verbose(out, ref, atol, rtol, context=f"wvSplitKrc n={n} k={k} m={m}")


def check_wvsplitk_fp8(backend, device, cu_count, n, k, m, dtype, padded_a, padded_b, biased, xnorm, seed) -> None:
    with phase("inputs"):
        gen = generator(seed, device)
        scale = xavier(k, xnorm)
        act, scale_a = quantize_fp8_per_tensor(uniform((n, k), gen, device).mul_(scale), inplace=True)
        weight, scale_b = quantize_fp8_per_tensor(uniform((m, k), gen, device).mul_(scale), inplace=True)
        if padded_a:
            act = pad_rows(act)
        if padded_b:
            weight = pad_rows(weight)
        bias = uniform((m,), gen, device).to(dtype) if biased else None
    with phase("kernel"):
        out = backend.wvSplitKQ(weight, act, dtype, scale_a, scale_b, cu_count, bias)
    with phase("reference"):
        ref = scaled_fp8_gemm_ref(act, weight, scale_a, scale_b, bias)
    atol, rtol = tol_wvsplitk_fp8(k, xnorm)
    with phase("compare"):
        assert_close_verbose(out, ref, atol, rtol, context=f"wvSplitKQ n={n} k={k} m={m}")
