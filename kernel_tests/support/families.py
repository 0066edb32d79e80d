"""THE list of kernel families: one folder each under ``kernel_tests/`` over ``support/``.

Everything that walks the families reads :data:`FAMILIES` (the fault study's
``--families`` choices and targets, ``benchmarks/rotation.py``, the GPU scripts
``benchmarks/gpu_families.sh`` and ``benchmarks/gpu_side_by_side.sh``, the shard test,
the README's sample in ``docs/gen_examples.py``); ``support/test_support.py`` holds it
equal to the folders that hold a ``kernels.py``, and that no script names a family by
hand.  Every edit point of a new family: ``support/README.md`` ("Adding a family").
Importing it needs neither torch nor Triton.
"""

from __future__ import annotations

__all__ = ["FAMILIES", "FULL_SAMPLED"]

#: in the order the suites are documented (docs/kernels.md)
FAMILIES: tuple[str, ...] = ("skinny_gemm", "rmsnorm", "rope", "fused_norm")

#: families whose full product takes hours on one GPU (fused_norm: 241128 items): the GPU
#: scripts (``benchmarks/gpu_side_by_side.sh``) run a fixed 1-in-N sample of it instead
FULL_SAMPLED: tuple[str, ...] = ("fused_norm",)
