"""Cases of the RMSNorm family: shapes, option values, tolerances, budget, one check.

Shapes and option values mirror SGLang's JIT ``test_rmsnorm.py`` (facts, re-stated):
batch sizes 2^0..2^13 plus ``x + 1 + i`` for the i-th of them, hidden sizes 64..16384
(the sizes its kernels support), dtype fp16/bf16, ``specify_out`` (write into a given
tensor vs in place), eps 1e-6, inputs ``randn``, tolerance 1e-2/1e-2. Upstream's batch
list holds 2 and 4 twice (28 entries, 26 distinct); we run each value once.

``padded`` is ours: rows followed by 256 bytes of NaN (a row stride longer than the
row, as the skinny-GEMM suites' padded operands); a kernel that reads past a row's end
turns that row into NaN, one that writes there changes the padding.
"""

from __future__ import annotations

import math

import pytest
import torch

from kernel_tests.rmsnorm.reference import reference_rmsnorm
from kernel_tests.support.asserts import assert_close_verbose
from kernel_tests.support.budget import InterpreterBudget
from kernel_tests.support.inputs import generator, pad_rows, padding_of
from kernel_tests.support.phases import phase

_BASE = [2**n for n in range(14)]
#: Upstream's BS_LIST, as written (2 and 4 appear twice).
UPSTREAM_BATCH_SIZES = _BASE + [x + 1 + i for i, x in enumerate(_BASE)]
BATCH_SIZES = sorted(set(UPSTREAM_BATCH_SIZES))
HIDDEN_SIZES = [64, 128, 256, 512, *range(1024, 8192 + 1, 1024), 1536, 2304, 2560, 8704, 12288, 16384]
DTYPES = [torch.float16, torch.bfloat16]
DTYPE_IDS = ["float16", "bfloat16"]
ALL_DTYPES = [torch.float16, torch.bfloat16, torch.float32]
ALL_DTYPE_IDS = ["float16", "bfloat16", "float32"]
EPS = 1e-6


def tolerance(dtype: torch.dtype) -> tuple[float, float]:
    """(atol, rtol): upstream's 1e-2/1e-2 for fp16/bf16 (the output's own rounding is at
    most half an ulp, 2^-9 relative in bf16, well inside); 1e-5/1e-5 for fp32, where
    only the order of the fp32 sum of squares differs from the reference (relative
    error about 1e-7 * sqrt(hidden))."""
    if dtype == torch.float32:
        return 1e-5, 1e-5
    return 1e-2, 1e-2


def interpreter_cost(batch: int, hidden: int) -> int:
    """Elements the interpreter touches: each of batch*hidden is loaded twice and stored
    once, in vectorized tiles of up to 2^16 elements per program."""
    return batch * hidden


#: The family's interpreter budget: ``BUDGET.skip_if_over(batch, hidden)``.
BUDGET = InterpreterBudget(env="KERNEL_TESTS_RMSNORM_CPU_BUDGET", default=2**18, cost=interpreter_cost,
                           unit="batch*hidden elements")


def make_inputs(device: torch.device, batch: int, hidden: int, dtype: torch.dtype, padded: bool,
                seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(x, weight), ``randn`` as upstream, from an explicit generator; ``padded`` rows are
    followed by NaN padding."""
    gen = generator(seed, device)
    x = torch.randn((batch, hidden), generator=gen, device=device).to(dtype)
    weight = torch.randn((hidden,), generator=gen, device=device).to(dtype)
    if padded:
        x = pad_rows(x, fill=math.nan)
    return x, weight


def check_rmsnorm(backend, device: torch.device, batch: int, hidden: int, dtype: torch.dtype,
                  specify_out: bool, padded: bool, seed: int = 0, eps: float = EPS) -> None:
    """One case: run the backend into a fresh ``out`` (``specify_out``) or in place, and
    compare with :func:`reference_rmsnorm`; the input (with ``out``) and the padding stay
    untouched."""
    reason = backend.unsupported(dtype, hidden)
    if reason is not None:
        pytest.skip(reason)
    with phase("inputs"):
        x, weight = make_inputs(device, batch, hidden, dtype, padded, seed)
        if specify_out:
            before = x.clone()
            out = torch.empty((batch, hidden), dtype=dtype, device=device)
    with phase("reference"):
        expected = reference_rmsnorm(x, weight, eps)
    context = (f"rmsnorm[{backend.name}] batch={batch} hidden={hidden} dtype={dtype} "
               f"specify_out={specify_out} padded={padded}")
    with phase("kernel"):
        got = backend.rmsnorm(x, weight, eps, out=out) if specify_out else backend.rmsnorm(x, weight, eps)
    atol, rtol = tolerance(dtype)
    with phase("compare"):
        if specify_out:
            assert got is out, f"{context}: returned a tensor other than out"
            assert torch.equal(x, before), f"{context}: x changed although out was given"
        else:
            assert got is x, f"{context}: in place must return x itself"
        if padded:
            assert bool(padding_of(x).isnan().all()), f"{context}: the kernel wrote into x's row padding"
        assert_close_verbose(got, expected, atol, rtol, context=context)
