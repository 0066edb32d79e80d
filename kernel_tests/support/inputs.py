"""Deterministic test inputs: an explicit generator per case (no global seeding),
uniform fills and row padding."""

from __future__ import annotations

import torch

#: Extra bytes per row of :func:`pad_rows` (upstream's ``pad_fp8`` adds 256 bytes).
PAD_BYTES = 256


def generator(seed: int, device: torch.device | str) -> torch.Generator:
    """An explicit generator per case (no global seeding)."""
    return torch.Generator(device=device).manual_seed(seed)


def uniform(shape: tuple[int, ...], gen: torch.Generator, device: torch.device | str, lo: float = -1.0,
            hi: float = 1.0) -> torch.Tensor:
    """fp32 uniform in [lo, hi) (computed in place: one tensor of the final size)."""
    return torch.rand(shape, generator=gen, device=device).mul_(hi - lo).add_(lo)


def pad_rows(t: torch.Tensor, pad_bytes: int = PAD_BYTES, fill: float = 0.0) -> torch.Tensor:
    """The same values with every row of a 2-D tensor followed by ``pad_bytes`` bytes of
    padding holding ``fill`` (row stride ``cols + pad_bytes / element_size``): a
    non-contiguous view with a contiguous last dimension, as upstream's ``pad_fp8``.
    A NaN ``fill`` makes a kernel that reads past a row's end visible in its output;
    :func:`padding_of` shows whether it wrote there."""
    if t.dim() != 2:
        raise ValueError(f"pad_rows: expected a 2-D tensor, got shape {tuple(t.shape)}")
    if pad_bytes <= 0 or pad_bytes % t.element_size():
        raise ValueError(f"pad_rows: pad_bytes={pad_bytes} must be a positive multiple of the element size "
                         f"{t.element_size()}")
    pad = pad_bytes // t.element_size()
    buf = torch.full((t.shape[0], t.shape[1] + pad), fill, dtype=t.dtype, device=t.device)
    buf[:, : t.shape[1]] = t
    return buf[:, : t.shape[1]]


def padding_of(view: torch.Tensor) -> torch.Tensor:
    """The padding after each row of a :func:`pad_rows` view (``[rows, stride - cols]``)."""
    if view.dim() != 2 or view.stride(1) != 1 or view.stride(0) <= view.shape[1]:
        raise ValueError(f"padding_of: expected a row-padded 2-D view, got shape {tuple(view.shape)} "
                         f"strides {tuple(view.stride())}")
    rows, cols = view.shape
    return view.as_strided((rows, view.stride(0) - cols), (view.stride(0), 1), view.storage_offset() + cols)
