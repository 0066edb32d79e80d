"""Pure-PyTorch fp32 references for RoPE (imported by tests AND benchmarks).

:func:`rope_ref` is the definition the Triton kernels are held to (see
:mod:`kernel_tests.rope.kernels` for the layout); :func:`reference_rope` dispatches like
upstream's tests: flashinfer's ``apply_rope_with_cos_sin_cache_inplace`` when it is
importable and the tensors are on CUDA, this PyTorch reference otherwise. Nothing here
depends on pytest or Triton.
"""

from __future__ import annotations

import functools

import torch

__all__ = [
    "ROPE_BASE",
    "create_cos_sin_cache",
    "flashinfer_available",
    "kv_cache_ref",
    "reference_rope",
    "rope_ref",
]

#: Base of the rotary frequencies in upstream's tests.
ROPE_BASE = 10000.0


def create_cos_sin_cache(rotary_dim: int, max_position: int, base: float = ROPE_BASE,
                         device: torch.device | str = "cpu") -> torch.Tensor:
    """fp32 ``[max_position, rotary_dim]``: ``cos(p * f_j)`` then ``sin(p * f_j)``, with
    ``f_j = base ** (-2j / rotary_dim)`` (upstream's ``create_cos_sin_cache``)."""
    inv_freq = 1.0 / (base ** (torch.arange(0, rotary_dim, 2, dtype=torch.float32, device=device) / rotary_dim))
    t = torch.arange(max_position, dtype=torch.float32, device=device)
    freqs = torch.outer(t, inv_freq)
    return torch.cat((freqs.cos(), freqs.sin()), dim=-1)


def rope_ref(x: torch.Tensor, cos_sin_cache: torch.Tensor, positions: torch.Tensor, is_neox: bool) -> torch.Tensor:
    """``x [T, H, D]`` with its first ``rotary_dim`` channels rotated, in fp32 (a new tensor).

    NeoX rotates the pairs ``(j, j + rotary_dim/2)``, GPT-J the pairs ``(2j, 2j + 1)``;
    pair ``j`` by the angle whose cos/sin are ``cache[p, j]`` / ``cache[p, rotary_dim/2 + j]``.
    Channels from ``rotary_dim`` on are copied."""
    rot = cos_sin_cache.shape[-1]
    half = rot // 2
    out = x.float().clone()
    cs = cos_sin_cache.float()[positions.long()]  # [T, rot]
    cos, sin = cs[:, None, :half], cs[:, None, half:]
    if is_neox:
        x1, x2 = out[..., :half], out[..., half:rot]
    else:
        x1, x2 = out[..., 0:rot:2], out[..., 1:rot:2]
    r1 = x1 * cos - x2 * sin
    r2 = x2 * cos + x1 * sin
    if is_neox:
        out[..., :half], out[..., half:rot] = r1, r2
    else:
        out[..., 0:rot:2], out[..., 1:rot:2] = r1, r2
    return out


def kv_cache_ref(k_rot: torch.Tensor, v: torch.Tensor, out_loc: torch.Tensor, cache_size: int,
                 dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """Zero caches ``[cache_size, H * D]`` of ``dtype`` holding ``k_rot`` and ``v`` at rows
    ``out_loc`` (the separate "RoPE, then scatter" of upstream's fused-store test)."""
    t = k_rot.shape[0]
    k_cache = torch.zeros((cache_size, k_rot[0].numel()), dtype=k_rot.dtype, device=k_rot.device)
    v_cache = torch.zeros((cache_size, v[0].numel()), dtype=dtype, device=v.device)
    k_cache[out_loc.long()] = k_rot.reshape(t, -1)
    v_cache[out_loc.long()] = v.reshape(t, -1).to(dtype)
    return k_cache, v_cache


@functools.cache
def flashinfer_available() -> bool:
    """flashinfer's RoPE can serve as the reference: importable and a CUDA GPU visible."""
    if not (torch.cuda.is_available() and torch.version.hip is None):
        return False
    try:
        from flashinfer.rope import apply_rope_with_cos_sin_cache_inplace  # noqa: F401
    except (ImportError, OSError, RuntimeError):  # missing, or a broken build raising on import
        return False
    return True


def reference_rope(q: torch.Tensor, k: torch.Tensor, cos_sin_cache: torch.Tensor, positions: torch.Tensor,
                   *, is_neox: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """The expected ``(q, k)`` after RoPE (full heads, new tensors; inputs untouched).

    As upstream: flashinfer on CUDA when importable (it rotates the first
    ``cos_sin_cache.shape[1]`` channels of each head; output in the input dtype), else
    :func:`rope_ref` (fp32)."""
    if q.is_cuda and flashinfer_available():
        from flashinfer.rope import apply_rope_with_cos_sin_cache_inplace

        t, head_size = q.shape[0], q.shape[-1]
        q2, k2 = q.reshape(t, -1).clone(), k.reshape(t, -1).clone()
        apply_rope_with_cos_sin_cache_inplace(positions=positions.long(), query=q2, key=k2, head_size=head_size,
                                              cos_sin_cache=cos_sin_cache, is_neox=is_neox)
        return q2.view(q.shape), k2.view(k.shape)
    return rope_ref(q, cos_sin_cache, positions, is_neox), rope_ref(k, cos_sin_cache, positions, is_neox)
