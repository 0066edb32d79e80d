"""The Triton backend of the fused-norm family (always present)."""

from __future__ import annotations

from kernel_tests.fused_norm.cases import Backend


def load_triton() -> Backend:
    from kernel_tests.fused_norm import kernels

    return Backend("triton", kernels.fused_residual_norm_scale_shift, kernels.norm_scale_shift)
