"""THE list of kernel families: one folder each under ``kernel_tests/`` over ``support/``.

Everything that walks the families reads :data:`FAMILIES` (the fault study's
``--families`` choices and targets, the GPU scripts, the shard test, the README's
sample in ``docs/gen_examples.py``); ``support/test_support.py`` holds it equal to the
folders that hold a ``kernels.py``.  Importing it needs neither torch nor Triton.
"""

from __future__ import annotations

__all__ = ["FAMILIES"]

#: in the order the suites are documented (docs/kernels.md)
FAMILIES: tuple[str, ...] = ("skinny_gemm", "rmsnorm", "rope", "fused_norm")
