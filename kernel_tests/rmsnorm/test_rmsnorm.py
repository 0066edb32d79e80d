"""RMSNorm against its fp32 reference, at upstream's shapes.

Upstream (SGLang's JIT ``test_rmsnorm.py``) runs batch x hidden x dtype x specify_out as
a full product (2016 cases, 28 x 18 x 2 x 2; its batch list holds 2 and 4 twice) and,
in CI, 7 hand-picked (batch, hidden) pairs x dtype x specify_out (28 cases; see
``upstream_ci.py``). Here the shapes stay an ordinary full-product parametrize (26
distinct batch sizes x 18 hidden sizes) and the options go through ``@pairwise``:
dtype, specify_out and our ``padded`` rows, 4 rows of their 8 combinations, every pair
covered. Inputs, reference and tolerances: ``cases.py``; fuzzing: ``test_fuzz.py``; bad
inputs: ``test_errors.py``.
"""

from __future__ import annotations

import pytest
import torch

from kernel_tests.rmsnorm.cases import (
    ALL_DTYPES,
    BATCH_SIZES,
    BUDGET,
    DTYPES,
    HIDDEN_SIZES,
    check_rmsnorm,
    tolerance,
)
from kernel_tests.rmsnorm.reference import reference_rmsnorm, rmsnorm_ref
from kernel_tests.support.asserts import assert_close_verbose
from kernel_tests.support.inputs import generator
from pairwise_param import pairwise


@pairwise(dtype=DTYPES, specify_out=[True, False], padded=[False, True], compile_axes=["dtype"])
@pytest.mark.parametrize("batch_size", BATCH_SIZES)
@pytest.mark.parametrize("hidden_size", HIDDEN_SIZES)
@torch.inference_mode()
def test_rmsnorm(backend, device, batch_size, hidden_size, dtype, specify_out, padded):
    BUDGET.skip_if_over(batch_size, hidden_size)
    check_rmsnorm(backend, device, batch_size, hidden_size, dtype, specify_out, padded)


# Sizes upstream does not have: tiny and odd rows, rows just past one block (4096), and
# rows beyond 16384 (several blocks); fp32 as well.
@pairwise(dtype=ALL_DTYPES, specify_out=[True, False], padded=[False, True], compile_axes=["dtype"])
@pytest.mark.parametrize("batch_size", [1, 3, 7])
@pytest.mark.parametrize("hidden_size", [1, 7, 1000, 4097, 16385, 32771, 65543])
@torch.inference_mode()
def test_rmsnorm_other_sizes(backend, device, batch_size, hidden_size, dtype, specify_out, padded):
    BUDGET.skip_if_over(batch_size, hidden_size)
    check_rmsnorm(backend, device, batch_size, hidden_size, dtype, specify_out, padded)


@pytest.mark.parametrize("eps", [0.0, 1e-6, 1e-2])
@torch.inference_mode()
def test_eps_is_honoured(backend, device, eps):
    """Inputs of size 1e-3 make mean(x^2) ~ 1e-6, so each eps gives a different result;
    each must match the reference with that eps and differ from the others' reference."""
    if backend.unsupported(torch.float32, 256) is not None:
        pytest.skip(backend.unsupported(torch.float32, 256))
    gen = generator(1, device)
    x = torch.randn((4, 256), generator=gen, device=device) * 1e-3
    w = torch.randn((256,), generator=gen, device=device)
    got = backend.rmsnorm(x.clone(), w, eps)
    atol, rtol = tolerance(torch.float32)
    assert_close_verbose(got, rmsnorm_ref(x, w, eps), atol, rtol, context=f"eps={eps}")
    for other in {0.0, 1e-6, 1e-2} - {eps}:
        assert not torch.allclose(got, rmsnorm_ref(x, w, other), atol=atol, rtol=rtol), (
            f"output for eps={eps} also matches eps={other}: eps is not reaching the kernel")


@torch.inference_mode()
def test_empty_batch(backend, device):
    x = torch.empty((0, 128), dtype=torch.float16, device=device)
    out = torch.empty_like(x)
    assert backend.rmsnorm(x, torch.ones(128, dtype=torch.float16, device=device), 1e-6, out=out) is out


@pytest.mark.parametrize("dtype", DTYPES, ids=["float16", "bfloat16"])
@torch.inference_mode()
def test_reference_wrapper(device, dtype):
    """``reference_rmsnorm`` (flashinfer on CUDA when importable, else PyTorch) agrees with
    the fp32 reference and leaves its input alone."""
    gen = generator(2, device)
    x = torch.randn((5, 1536), generator=gen, device=device).to(dtype)
    w = torch.randn((1536,), generator=gen, device=device).to(dtype)
    before = x.clone()
    got = reference_rmsnorm(x, w, 1e-6)
    assert torch.equal(x, before)
    atol, rtol = tolerance(dtype)
    assert_close_verbose(got, rmsnorm_ref(x, w, 1e-6), atol, rtol, context="reference_rmsnorm")
