"""The RoPE backend interface: upstream's two ops behind one small record.

``triton``: the portable kernels in :mod:`kernel_tests.rope.kernels` (always present,
:func:`load_triton`). ``native``: sglang's JIT RoPE (:func:`kernel_tests.rope.native.load_native`),
present only on a CUDA GPU with ``sglang.jit_kernel.rope`` importable. Selection is
``kernel_tests.support.backends``'s job; this module only defines the record, so neither
loader imports the other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class RopeBackend:
    """One implementation of the ops, with upstream's call signatures."""

    name: str
    #: (q, k, cos_sin_cache, positions, *, is_neox, rope_dim=0, head_dim=0) -> None, in place
    apply_rope_inplace: Callable[..., Any]
    #: (q, k, v, k_cache, v_cache, cos_sin_cache, positions, out_loc, *, is_neox, rope_dim=0) -> None
    apply_rope_inplace_with_kvcache: Callable[..., Any]

    def __repr__(self) -> str:
        return f"RopeBackend({self.name})"


def load_triton() -> RopeBackend:
    """The portable Triton kernels (imported on first use, after the root conftest has
    chosen the interpreter or the GPU)."""
    from kernel_tests.rope import kernels

    return RopeBackend("triton", kernels.apply_rope_inplace, kernels.apply_rope_inplace_with_kvcache)
