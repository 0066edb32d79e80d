"""Pure PyTorch fp32 references of the skinny GEMMs (imported by tests AND benchmarks).

Each reference computes in fp32 and returns fp32;
:func:`kernel_tests.support.asserts.assert_close_verbose` compares a kernel's output with
it. Nothing here depends on pytest or Triton.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

__all__ = [
    "FP8_E4M3_MAX",
    "linear_ref",
    "quantize_fp8_per_tensor",
    "scaled_fp8_gemm_ref",
]

FP8_E4M3_MAX = 448.0


def linear_ref(act: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None) -> torch.Tensor:
    """``act @ weight.T + bias`` in fp32 (``torch.nn.functional.linear`` on fp32 copies)."""
    return F.linear(act.float(), weight.float(), None if bias is None else bias.float())


def scaled_fp8_gemm_ref(act_fp8: torch.Tensor, weight_fp8: torch.Tensor, scale_a: torch.Tensor,
                        scale_b: torch.Tensor, bias: torch.Tensor | None = None,
                        *, rows_per_chunk: int = 4096) -> torch.Tensor:
    """fp32 emulation of the per-tensor scaled FP8 GEMM:
    ``(act.float() @ weight.float().T) * (scale_a * scale_b) + bias``.

    FP8 values are exact in fp32 and so are their products; the only rounding is fp32
    accumulation, as in the kernel. The weight is upcast ``rows_per_chunk`` rows at a
    time, so a 28688 x 65552 weight never exists in fp32 (7.5 GB) at once."""
    a = act_fp8.float()
    out = torch.empty((a.shape[0], weight_fp8.shape[0]), dtype=torch.float32, device=a.device)
    for i in range(0, weight_fp8.shape[0], rows_per_chunk):
        out[:, i:i + rows_per_chunk] = a @ weight_fp8[i:i + rows_per_chunk].float().t()
    out *= scale_a.float().reshape(()) * scale_b.float().reshape(())
    if bias is not None:
        out += bias.float()
    return out


def quantize_fp8_per_tensor(x: torch.Tensor, *, inplace: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    """Dynamic per-tensor FP8 (e4m3fn) quantization: ``scale = amax / 448``,
    ``q = clamp(x / scale)``; returns ``(q, scale)`` with ``scale`` a 1-element fp32
    tensor (as upstream's ``ref_dynamic_per_tensor_fp8_quant``). With ``inplace`` an
    fp32 ``x`` is scaled in place (no full-size temporary)."""
    x = x.float()
    amax = torch.linalg.vector_norm(x, ord=float("inf")).clamp(min=1e-12)
    scale = (amax / FP8_E4M3_MAX).reshape(1)
    y = x.div_(scale) if inplace else x / scale
    q = y.clamp_(-FP8_E4M3_MAX, FP8_E4M3_MAX).to(torch.float8_e4m3fn)
    return q, scale
