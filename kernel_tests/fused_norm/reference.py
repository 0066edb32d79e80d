"""Pure-PyTorch fp32 references of the fused-norm ops (imported by tests AND benchmarks).

Every reference computes in fp32 from the inputs and returns fp32 tensors; the kernels'
outputs (in the input dtype) are compared with them. The statistics come from the
UNROUNDED fp32 ``r = residual + gate * x``, as the kernels compute them (upstream's test
reference rounds ``r`` to bf16 first, which is why it needed ``atol=1.0``).

Layouts are expanded here with plain broadcasting (:func:`expand_modulation`), not with
the kernels' stride resolver, so the two do not share a mistake.

``reference_*``: the dispatching wrappers the suites call. flashinfer (the RMSNorm and
RoPE families' CUDA reference) has no fused norm-scale-shift op -- its
``fused_add_rmsnorm`` rounds the residual before normalizing and has no modulation --
so on every platform they use the PyTorch references; the wrappers keep the call sites
uniform with the other families.
"""

from __future__ import annotations

import torch

__all__ = [
    "expand_modulation",
    "fused_residual_norm_scale_shift_ref",
    "norm_scale_shift_ref",
    "reference_fused_residual_norm_scale_shift",
    "reference_norm_scale_shift",
]


def expand_modulation(t: torch.Tensor, batch: int, length: int, channels: int) -> torch.Tensor:
    """``t`` (scalar, [C], [1, C], [B, 1, C], [B, L, C] or [B, F, 1, C]) as an fp32
    ``[B, L, C]`` tensor: per-frame rows repeat each frame's values ``L / F`` times."""
    t = t.float()
    if t.dim() == 4:  # [B, F, 1, C]
        frames = t.shape[1]
        t = t.expand(t.shape[0], frames, length // frames, channels).reshape(t.shape[0], length, channels)
    elif t.numel() == 1:
        t = t.reshape(1, 1, 1)
    return torch.broadcast_to(t, (batch, length, channels))


def _normalize(r: torch.Tensor, weight: torch.Tensor | None, bias: torch.Tensor | None, norm_type: str,
               eps: float) -> torch.Tensor:
    if norm_type == "rms":
        xhat = r * torch.rsqrt(r.pow(2).mean(-1, keepdim=True) + eps)
    elif norm_type == "layer":
        mean = r.mean(-1, keepdim=True)
        var = r.var(-1, keepdim=True, unbiased=False)
        xhat = (r - mean) * torch.rsqrt(var + eps)
    else:
        raise ValueError(f"norm_type={norm_type!r} must be 'rms' or 'layer'")
    if weight is not None:
        xhat = xhat * weight.float()
        if bias is not None:
            xhat = xhat + bias.float()
    return xhat


def norm_scale_shift_ref(x: torch.Tensor, weight: torch.Tensor | None, bias: torch.Tensor | None,
                         scale: torch.Tensor, shift: torch.Tensor, norm_type: str, eps: float) -> torch.Tensor:
    """fp32 ``norm(x)[*w + b] * (1 + scale) + shift``."""
    B, L, C = x.shape
    xhat = _normalize(x.float(), weight, bias, norm_type, eps)
    return xhat * (1.0 + expand_modulation(scale, B, L, C)) + expand_modulation(shift, B, L, C)


def fused_residual_norm_scale_shift_ref(
    residual: torch.Tensor, x: torch.Tensor, gate: torch.Tensor | None, weight: torch.Tensor | None,
    bias: torch.Tensor | None, scale: torch.Tensor, shift: torch.Tensor, norm_type: str, eps: float,
) -> tuple[torch.Tensor, torch.Tensor]:
    """fp32 ``(y, r)`` with ``r = residual + gate * x`` (unrounded) and ``y`` normalized from it."""
    B, L, C = x.shape
    gx = x.float() if gate is None else expand_modulation(gate, B, L, C) * x.float()
    r = residual.float() + gx
    xhat = _normalize(r, weight, bias, norm_type, eps)
    y = xhat * (1.0 + expand_modulation(scale, B, L, C)) + expand_modulation(shift, B, L, C)
    return y, r


def reference_fused_residual_norm_scale_shift(
    residual: torch.Tensor, x: torch.Tensor, gate: torch.Tensor | None, weight: torch.Tensor | None,
    bias: torch.Tensor | None, scale: torch.Tensor, shift: torch.Tensor, norm_type: str, eps: float,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The reference the suites use (PyTorch fp32 on every platform; see the module docstring)."""
    return fused_residual_norm_scale_shift_ref(residual, x, gate, weight, bias, scale, shift, norm_type, eps)


def reference_norm_scale_shift(x: torch.Tensor, weight: torch.Tensor | None, bias: torch.Tensor | None,
                               scale: torch.Tensor, shift: torch.Tensor, norm_type: str,
                               eps: float) -> torch.Tensor:
    """The reference the suites use (PyTorch fp32 on every platform; see the module docstring)."""
    return norm_scale_shift_ref(x, weight, bias, scale, shift, norm_type, eps)
