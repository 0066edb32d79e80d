"""References for RMSNorm (imported by tests AND benchmarks).

:func:`rmsnorm_ref` is the pure-PyTorch fp32 reference. :func:`reference_rmsnorm`
dispatches the way upstream's test does (SGLang ``test_rmsnorm.py``'s
``reference_rmsnorm``): flashinfer's ``rmsnorm`` when it is importable and the tensors
are on a CUDA (NVIDIA) device, the PyTorch reference otherwise (ROCm, CPU). Nothing
here depends on pytest or Triton.
"""

from __future__ import annotations

import functools
import importlib

import torch

from kernel_tests.support.platform import is_cuda

__all__ = ["reference_backend", "reference_rmsnorm", "rmsnorm_ref"]


def rmsnorm_ref(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """``x * rsqrt(mean(x^2, -1) + eps) * weight`` computed and returned in fp32."""
    xf = x.float()
    return xf * torch.rsqrt(xf.square().mean(dim=-1, keepdim=True) + eps) * weight.float()


@functools.cache
def _flashinfer_rmsnorm() -> object | None:
    try:
        return importlib.import_module("flashinfer.norm").rmsnorm
    except (ImportError, OSError, RuntimeError):  # missing or broken: use the PyTorch reference
        return None


def reference_backend(device: torch.device) -> str:
    """``"flashinfer"`` when :func:`reference_rmsnorm` uses it for tensors on ``device``,
    else ``"torch"``."""
    if device.type == "cuda" and is_cuda() and _flashinfer_rmsnorm() is not None:
        return "flashinfer"
    return "torch"


def reference_rmsnorm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """The expected output of RMSNorm: flashinfer's (in ``x.dtype``) on CUDA when
    importable, else :func:`rmsnorm_ref` (fp32). ``x`` is never modified."""
    if reference_backend(x.device) == "flashinfer":
        fn = _flashinfer_rmsnorm()
        out = torch.empty_like(x)
        fn(x, weight, eps=eps, out=out)  # type: ignore[operator]
        return out
    return rmsnorm_ref(x, weight, eps)
