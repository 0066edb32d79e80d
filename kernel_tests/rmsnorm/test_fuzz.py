"""Hypothesis shape fuzzing of RMSNorm: options from the covering table, any batch and
hidden size (not only upstream's), within the interpreter budget on the CPU.

Hypothesis settings come from the profiles in ``kernel_tests/conftest.py`` (``kernel-ci``:
derandomized), with 8 examples per item.
"""

from __future__ import annotations

import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from kernel_tests.rmsnorm.cases import ALL_DTYPES, BUDGET, check_rmsnorm
from kernel_tests.support.platform import is_interpreter
from pairwise_param import pairwise

SMALL = is_interpreter()
BATCH_MAX = 64 if SMALL else 9000
HIDDEN_MAX = 4200 if SMALL else 20000
FUZZ = settings(max_examples=8)


@pairwise(dtype=ALL_DTYPES, specify_out=[True, False], padded=[False, True], compile_axes=["dtype"])
@FUZZ
@given(batch=st.integers(1, BATCH_MAX), hidden=st.integers(1, HIDDEN_MAX))
@torch.inference_mode()
def test_rmsnorm_fuzz(backend, device, dtype, specify_out, padded, batch, hidden):
    assume(BUDGET.over(batch, hidden) is None)
    assume(backend.unsupported(dtype, hidden) is None)
    check_rmsnorm(backend, device, batch, hidden, dtype, specify_out, padded)
