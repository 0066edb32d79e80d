"""Adapters for vLLM's ROCm skinny-GEMM ops (``vllm._custom_ops``).

Available only on a ROCm build of torch with vLLM installed; otherwise
:func:`load_native` raises :class:`~kernel_tests.support.backends.BackendUnavailable` whose
message names what is missing (the test suite turns it into a skip reason).
Nothing is imported from vLLM at import time of this module.
"""

from __future__ import annotations

import torch

from kernel_tests.skinny_gemm.backend import Backend
from kernel_tests.support.backends import BackendUnavailable

OP_NAMES = ("wvSplitK", "wvSplitKrc", "wvSplitKQ", "LLMM1")


def load_native() -> Backend:
    if torch.version.hip is None or not torch.cuda.is_available():
        raise BackendUnavailable("native backend needs a ROCm GPU and a ROCm build of torch (torch.version.hip)")
    try:
        import vllm._custom_ops as ops
    except Exception as exc:  # ImportError, or a broken build raising on import
        raise BackendUnavailable(f"native backend needs vllm._custom_ops importable: {exc!r}") from exc
    missing = [name for name in OP_NAMES if not hasattr(ops, name)]
    if missing:
        raise BackendUnavailable(f"native backend needs vllm._custom_ops.{', '.join(missing)} (this vLLM lacks them)")

    def wvSplitK(weight, act, cu_count, bias=None):
        return ops.wvSplitK(weight, act, cu_count, bias)

    def wvSplitKrc(act, weight, cu_count, bias=None):
        return ops.wvSplitKrc(act, weight, cu_count, bias)

    def wvSplitKQ(weight, act, out_dtype, scale_a, scale_b, cu_count, bias=None):
        return ops.wvSplitKQ(weight, act, out_dtype, scale_a, scale_b, cu_count, bias)

    def LLMM1(weight, act, rows_per_block):
        return ops.LLMM1(weight, act, rows_per_block)

    return Backend("native", wvSplitK, wvSplitKrc, wvSplitKQ, LLMM1)
