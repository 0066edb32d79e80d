"""Adapter for SGLang's JIT RMSNorm (the op upstream's suite tests).

Available on a CUDA or ROCm GPU with SGLang's JIT kernels importable (module
``sglang.kernels.ops.layernorm.norm``, or the older ``sglang.jit_kernel.norm``);
otherwise :func:`load_native` raises
:class:`~kernel_tests.support.backends.BackendUnavailable` naming what is missing.
Nothing is imported from SGLang at import time of this module.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

import torch

from kernel_tests.rmsnorm.backend import Backend
from kernel_tests.support.backends import BackendUnavailable

MODULES = ("sglang.kernels.ops.layernorm.norm", "sglang.jit_kernel.norm")


def _import_norm() -> Any:
    errors = []
    for name in MODULES:
        try:
            return importlib.import_module(name)
        except (ImportError, OSError, RuntimeError) as exc:  # missing, or a broken build
            errors.append(f"{name}: {exc!r}")
    raise BackendUnavailable("native RMSNorm needs SGLang's JIT kernels importable (" + "; ".join(errors) + ")")


def _gpu_visible() -> bool:
    """A CUDA or ROCm device is visible (the tests replace this seam)."""
    return torch.cuda.is_available()


def load_native() -> Backend:
    if not _gpu_visible():
        raise BackendUnavailable("native RMSNorm needs a CUDA or ROCm GPU (torch.cuda.is_available())")
    norm = _import_norm()
    if not hasattr(norm, "rmsnorm"):
        raise BackendUnavailable(f"native RMSNorm needs {norm.__name__}.rmsnorm (this SGLang lacks it)")
    supported_hidden = getattr(norm, "_is_supported_rmsnorm_hidden_size", None)
    params = inspect.signature(norm.rmsnorm).parameters
    out_kw = "out" if "out" in params else "output"  # the older JIT API calls it output=
    if out_kw not in params:
        raise BackendUnavailable(f"native RMSNorm: {norm.__name__}.rmsnorm{inspect.signature(norm.rmsnorm)} "
                                 "takes neither out= nor output=")
    has_eps = "eps" in params

    def rmsnorm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6, out: torch.Tensor | None = None):
        target = x if out is None else out
        kwargs: dict[str, Any] = {out_kw: target}
        if has_eps:
            kwargs["eps"] = eps
        elif eps != 1e-6:
            raise ValueError(f"this SGLang rmsnorm has no eps argument (fixed 1e-6); got eps={eps}")
        norm.rmsnorm(x, weight, **kwargs)
        return target

    def unsupported(dtype: torch.dtype, hidden: int) -> str | None:
        if dtype not in (torch.float16, torch.bfloat16):
            return f"SGLang's JIT RMSNorm takes fp16/bf16, not {dtype}"
        if supported_hidden is not None and not supported_hidden(hidden):
            return f"SGLang's JIT RMSNorm does not support hidden={hidden} (_is_supported_rmsnorm_hidden_size)"
        return None

    return Backend("native", rmsnorm, unsupported)
