"""Hypothesis shape fuzzing of the fused norms: options from the covering tables, shapes
(B, L, C) drawn freely -- any hidden size, the block boundaries around
the block size in force (``GPU_BLOCK_C`` on a GPU, ``MAX_BLOCK_C`` under the interpreter), any L (the per-frame layout uses ``cases.frames_for(L)`` frames).

Under the Triton interpreter shapes stay within the family's CPU budget (an ``assume``)
and each item draws 3 examples; on a GPU they reach L = 512, C = 20000 and 8 examples.
Settings otherwise come from the loaded profile (``kernel-ci``: derandomized).
"""

from __future__ import annotations

import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from kernel_tests.fused_norm.cases import (
    BUDGET,
    FUSED_COMPILE_AXES,
    FUSED_OPTIONS,
    NSS_COMPILE_AXES,
    NSS_OPTIONS,
    bias_needs_weight,
    check_fused,
    check_nss,
    gate_iff_layout,
)
from kernel_tests.fused_norm.kernels import GPU_BLOCK_C, MAX_BLOCK_C
from kernel_tests.support.platform import is_interpreter
from pairwise_param import pairwise

SMALL = is_interpreter()
B_MAX, L_MAX, C_MAX = (2, 4, 2048) if SMALL else (4, 512, 20000)
FUZZ = settings(max_examples=3 if SMALL else 8)
#: Hidden sizes at the block boundaries: one block, one block + 1 (two blocks), ...
_BLOCK = MAX_BLOCK_C if SMALL else GPU_BLOCK_C
BOUNDARY_C = [1, _BLOCK - 1, _BLOCK, _BLOCK + 1, 2 * _BLOCK + 3]
SHAPE = {
    "B": st.integers(1, B_MAX),
    "L": st.integers(1, L_MAX),
    "C": st.one_of(st.integers(1, C_MAX), st.sampled_from(BOUNDARY_C)),
    "seed": st.integers(0, 2**16),
}


@pairwise(**FUSED_OPTIONS, constraints=[gate_iff_layout, bias_needs_weight], compile_axes=FUSED_COMPILE_AXES)
@FUZZ
@given(**SHAPE)
@torch.inference_mode()
def test_fused_residual_norm_scale_shift_fuzz(backend, device, norm_type, dtype, eps, has_gate, gate_layout,
                                              has_weight, has_bias, scale_layout, shift_layout, padded, B, L, C,
                                              seed):
    assume(BUDGET.over(B, L, C) is None)
    check_fused(backend, device, B, L, C, norm_type=norm_type, dtype=dtype, eps=eps, gate_layout=gate_layout,
                has_weight=has_weight, has_bias=has_bias, scale_layout=scale_layout, shift_layout=shift_layout,
                padded=padded, seed=seed)


@pairwise(**NSS_OPTIONS, constraints=[bias_needs_weight], compile_axes=NSS_COMPILE_AXES)
@FUZZ
@given(**SHAPE)
@torch.inference_mode()
def test_norm_scale_shift_fuzz(backend, device, norm_type, dtype, eps, has_weight, has_bias, scale_layout,
                               shift_layout, padded, B, L, C, seed):
    assume(BUDGET.over(B, L, C) is None)
    check_nss(backend, device, B, L, C, norm_type=norm_type, dtype=dtype, eps=eps, has_weight=has_weight,
              has_bias=has_bias, scale_layout=scale_layout, shift_layout=shift_layout, padded=padded, seed=seed)
