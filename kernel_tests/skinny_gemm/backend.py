"""The skinny-GEMM backend interface: the four ops behind one small record.

``triton``: the portable kernels in :mod:`kernel_tests.skinny_gemm.kernels` (always
present, :func:`load_triton`). ``native``: vLLM's ROCm ops
(:func:`kernel_tests.skinny_gemm.native.load_native`), present only on ROCm with
``vllm._custom_ops`` importable. Selection is ``kernel_tests.support.backends``'s job;
this module only defines the record, so neither loader imports the other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


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


def load_triton() -> Backend:
    """The portable Triton kernels (imported on first use, after the root conftest has
    chosen the interpreter or the GPU)."""
    from kernel_tests.skinny_gemm import kernels as sg

    return Backend("triton", sg.wvSplitK, sg.wvSplitKrc, sg.wvSplitKQ, sg.LLMM1)
