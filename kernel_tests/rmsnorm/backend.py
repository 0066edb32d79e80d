"""The RMSNorm backend interface and the Triton loader.

A backend is ``rmsnorm(x, weight, eps, out=None) -> Tensor`` (into ``out``, or ``x`` in
place when None, as :func:`kernel_tests.rmsnorm.kernels.rmsnorm`) plus
``unsupported(dtype, hidden) -> str | None``: the reason a case is outside that
implementation's contract (the test then skips with it), None when it runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch


def _supports_everything(dtype: torch.dtype, hidden: int) -> str | None:
    return None


@dataclass(frozen=True)
class Backend:
    """One RMSNorm implementation, with our launcher's call signature."""

    name: str
    rmsnorm: Callable[..., Any]  # (x, weight, eps, out=None) -> Tensor
    unsupported: Callable[[torch.dtype, int], str | None] = _supports_everything

    def __repr__(self) -> str:
        return f"Backend({self.name})"


def load_triton() -> Backend:
    """Our portable Triton kernel (imported on first use)."""
    from kernel_tests.rmsnorm import kernels

    return Backend("triton", kernels.rmsnorm)
