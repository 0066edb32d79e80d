"""Kernel backends: the same four skinny-GEMM ops behind one small interface.

``triton``: the portable kernels in :mod:`kernel_tests.ops.triton.skinny_gemm` (always
present). ``native``: vLLM's ROCm ops (see :mod:`kernel_tests.ops.native`), present
only on ROCm with ``vllm._custom_ops`` importable.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

BACKEND_NAMES = ("triton", "native")


@dataclass(frozen=True)
class Backend:
    """One implementation of the ops, with upstream's call signatures."""

    name: str
    wvSplitK: Callable[..., Any]     # (weight, act, cu_count, bias=None)
    wvSplitKrc: Callable[..., Any]   # (act, weight, cu_count, bias=None)
    wvSplitKQ: Callable[..., Any]    # (weight, act, out_dtype, scale_a, scale_b, cu_count, bias=None)
    LLMM1: Callable[..., Any]        # (weight, act, rows_per_block)

    def __repr__(self) -> str:
        return f"Backend({self.name})"


class BackendUnavailable(RuntimeError):
    """Raised by :func:`load_backend` when a backend cannot run here; the message
    names the requirement."""


def load_backend(name: str) -> Backend:
    if name == "triton":
        from kernel_tests.ops.triton import skinny_gemm as sg

        return Backend("triton", sg.wvSplitK, sg.wvSplitKrc, sg.wvSplitKQ, sg.LLMM1)
    if name == "native":
        from kernel_tests.ops.native import load_native

        return load_native()
    raise ValueError(f"unknown kernel backend {name!r}; expected one of {', '.join(BACKEND_NAMES)}")
