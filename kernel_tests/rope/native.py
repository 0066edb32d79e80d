"""Adapter for sglang's JIT RoPE kernels (``sglang.jit_kernel.rope``).

Available only on a CUDA GPU with sglang's JIT kernels importable; otherwise
:func:`load_native` raises :class:`~kernel_tests.support.backends.BackendUnavailable`
whose message names what is missing (the suite turns it into a skip reason). Nothing is
imported from sglang at import time of this module.

Upstream's ``apply_rope_inplace`` takes q/k either as ``[T, H, rope_dim]`` (views of
wider heads are fine) or as ``[T, H * head_dim]`` with ``head_dim=``; our contract also
takes a 3-D ``[T, H, D]`` with ``D > rotary_dim`` directly, which the adapter passes as
upstream's sliced view ``x[..., :rotary_dim]`` (the same memory, the same result).
"""

from __future__ import annotations

import torch

from kernel_tests.rope.backend import RopeBackend
from kernel_tests.support.backends import BackendUnavailable

OP_NAMES = ("apply_rope_inplace", "apply_rope_inplace_with_kvcache")


def _rotary_view(x: torch.Tensor, rot: int, head_dim: int) -> torch.Tensor:
    return x[..., :rot] if x.dim() == 3 and not head_dim and x.shape[-1] > rot else x


def load_native() -> RopeBackend:
    if not torch.cuda.is_available() or torch.version.hip is not None:
        raise BackendUnavailable("native RoPE backend needs a CUDA GPU (sglang's JIT kernels are CUDA)")
    try:
        import sglang.jit_kernel.rope as ops
    except Exception as exc:  # ImportError, or a broken build raising on import
        raise BackendUnavailable(f"native RoPE backend needs sglang.jit_kernel.rope importable: {exc!r}") from exc
    missing = [name for name in OP_NAMES if not hasattr(ops, name)]
    if missing:
        raise BackendUnavailable(f"native RoPE backend needs sglang.jit_kernel.rope.{', '.join(missing)} "
                                 f"(this sglang lacks them)")

    def apply_rope_inplace(q, k, cos_sin_cache, positions, *, is_neox, rope_dim=0, head_dim=0):
        rot = rope_dim or cos_sin_cache.shape[-1]
        ops.apply_rope_inplace(_rotary_view(q, rot, head_dim), _rotary_view(k, rot, head_dim), cos_sin_cache,
                               positions, is_neox=is_neox, rope_dim=rope_dim, head_dim=head_dim)

    def apply_rope_inplace_with_kvcache(q, k, v, k_cache, v_cache, cos_sin_cache, positions, out_loc, *,
                                        is_neox, rope_dim=0):
        ops.apply_rope_inplace_with_kvcache(q, k, v, k_cache, v_cache, cos_sin_cache, positions, out_loc,
                                            is_neox=is_neox, rope_dim=rope_dim)

    return RopeBackend("native", apply_rope_inplace, apply_rope_inplace_with_kvcache)
