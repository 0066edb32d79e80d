"""Adapter for sglang's FlyDSL fused-norm kernels (``--kernel-backend=native``).

``flydsl_fused_residual_norm_scale_shift`` / ``flydsl_norm_scale_shift`` exist only on
ROCm (gfx950, the FlyDSL compiler) with sglang installed; otherwise :func:`load_native`
raises ``BackendUnavailable`` naming what is missing (the suites turn it into a skip
reason). Nothing is imported from sglang at import time of this module.

Upstream's contract is narrower than ours, and a case outside it is skipped with the
reason (``Backend.unsupported``), never reported as a kernel failure:

* bf16 only (other dtypes are converted to bf16 and the result comes back in bf16);
* hidden sizes its tile divides (``flydsl_norm_supports`` where the installed sglang
  has it; otherwise ``C % 5120 == 0``, the original kernel's rule);
* ``eps`` = 1e-6 only: the kernel bakes in 1e-6 and ignores the argument.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from kernel_tests.fused_norm.cases import Backend
from kernel_tests.support.backends import BackendUnavailable

#: Upstream's fixed epsilon and original hidden-size granule.
UPSTREAM_EPS = 1e-6
UPSTREAM_ALIGNED_DIM = 5120


def upstream_unsupported(C: int, dtype: torch.dtype, eps: float,
                         supports: Callable[[int, float], bool] | None = None) -> str | None:
    """Why a case is outside upstream's contract (the skip reason), or None.

    ``supports``: the installed sglang's ``flydsl_norm_supports(C, eps)`` when it has one;
    otherwise the original kernel's rule ``C % 5120 == 0``."""
    if dtype != torch.bfloat16:
        return f"upstream FlyDSL kernels compute bf16 only, not {str(dtype).replace('torch.', '')}"
    if eps != UPSTREAM_EPS:
        return f"upstream FlyDSL kernels ignore eps and use {UPSTREAM_EPS}; eps={eps} cannot be tested"
    fits = supports(C, eps) if supports is not None else C % UPSTREAM_ALIGNED_DIM == 0
    if not fits:
        return f"upstream FlyDSL kernels do not support hidden size C={C}"
    return None


def _import_ops() -> tuple[Callable[..., Any], Callable[..., Any], Callable[[int, float], bool] | None]:
    errors = []
    try:  # current layout: one facade
        from sglang.kernels.ops import diffusion as facade

        supports = getattr(facade, "flydsl_norm_supports", None)
        return facade.flydsl_fused_residual_norm_scale_shift, facade.flydsl_norm_scale_shift, supports
    except (ImportError, AttributeError, RuntimeError, OSError) as exc:  # missing, or FlyDSL absent
        errors.append(repr(exc))
    try:  # the original module
        from sglang.kernels.ops.diffusion.flydsl import fused_residual_norm as mod

        return mod.flydsl_fused_residual_norm_scale_shift, mod.flydsl_norm_scale_shift, None
    except (ImportError, AttributeError, RuntimeError, OSError) as exc:
        errors.append(repr(exc))
    raise BackendUnavailable("native backend needs sglang's FlyDSL fused norm kernels importable "
                             f"(sglang.kernels.ops.diffusion): {'; '.join(errors)}")


def load_native() -> Backend:
    if torch.version.hip is None or not torch.cuda.is_available():
        raise BackendUnavailable("native backend needs a ROCm GPU (gfx950) and a ROCm build of torch "
                                 "for sglang's FlyDSL kernels")
    fused, nss, supports = _import_ops()

    def unsupported(*, C: int, dtype: torch.dtype, eps: float, **_: Any) -> str | None:
        return upstream_unsupported(C, dtype, eps, supports)

    def fused_op(residual: torch.Tensor, x: torch.Tensor, gate: torch.Tensor | None,
                 weight: torch.Tensor | None, bias: torch.Tensor | None, scale: torch.Tensor,
                 shift: torch.Tensor, norm_type: str, eps: float = UPSTREAM_EPS) -> Any:
        return fused(residual, x, gate, weight, bias, scale, shift, norm_type, eps)

    def nss_op(x: torch.Tensor, weight: torch.Tensor | None, bias: torch.Tensor | None, scale: torch.Tensor,
               shift: torch.Tensor, norm_type: str, eps: float = UPSTREAM_EPS) -> Any:
        return nss(x, weight, bias, scale, shift, norm_type, eps)

    return Backend("native", fused_op, nss_op, unsupported)
