"""RMSNorm in portable Triton: ``y = x * rsqrt(mean(x^2) + eps) * w``, fp32 math.

Contract (checked by :func:`rmsnorm` before any launch):

* ``x``: 2-D ``[batch, hidden]``, fp16 / bf16 / fp32, last dimension contiguous; rows
  may be padded (row stride >= hidden). ``batch == 0`` is a no-op.
* ``weight``: 1-D ``[hidden]``, contiguous, the dtype of ``x``, on its device.
* ``out``: None (normalize ``x`` in place) or a tensor of ``x``'s shape, dtype and device
  with a contiguous last dimension (upstream's ``specify_out``); it may be ``x`` itself.
* ``eps``: a finite float >= 0.

``TypeError`` for dtypes and non-tensors, ``ValueError`` for shapes, strides, devices
and ranges; each message names the argument, its value and what is expected.

Schedule: one program normalizes ``BLOCK_ROWS`` rows; each row is read in blocks of
``BLOCK`` columns (at most :data:`MAX_BLOCK`), so any hidden size works: a first loop
sums squares in fp32, a second loop scales and stores. In place is safe: every row is
read completely before its first store, and rows never share a program.

Compiled variants follow the dtype, not the shape: the sizes and strides are never
specialized (``do_not_specialize``) and on a GPU the tile is one of :data:`GPU_TILES`,
chosen from the hidden size alone (before issue 22 the tile followed the batch as well,
and the integer arguments' divisibility: a variant per (batch, hidden) class).
Under the interpreter bf16 outputs are rounded to nearest-even before the store (see
:mod:`kernel_tests.support.triton_helpers`), and programs take more rows (fewer
interpreted programs; compiling is not a cost there).
"""

from __future__ import annotations

import math

import torch
import triton
import triton.language as tl

from kernel_tests.support.platform import is_interpreter
from kernel_tests.support.triton_helpers import round_fp32_to_bf16_rne

DTYPES = (torch.float16, torch.bfloat16, torch.float32)
#: Widest column block; wider rows loop over blocks.
MAX_BLOCK = 4096
#: The GPU tiles (BLOCK_ROWS, BLOCK), 4096 elements each: the first whose BLOCK holds the
#: row, else the last (whose BLOCK the row loops over).
GPU_TILES = ((16, 256), (4, 1024), (1, MAX_BLOCK))
#: Elements one program covers per block (rows x columns) under the interpreter.
INTERPRETER_TILE = 1 << 16


@triton.jit(do_not_specialize=["n_rows", "hidden", "stride_x", "stride_out"])
def _rmsnorm_kernel(
    x_ptr, w_ptr, out_ptr, n_rows, hidden, stride_x, stride_out, eps,
    BLOCK_ROWS: tl.constexpr, BLOCK: tl.constexpr, ROUND_BF16: tl.constexpr,
):
    rows = tl.program_id(0) * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)
    row_mask = rows < n_rows
    rows64 = rows.to(tl.int64)
    x_rows = x_ptr + rows64[:, None] * stride_x
    out_rows = out_ptr + rows64[:, None] * stride_out
    cols = tl.arange(0, BLOCK)

    acc = tl.zeros([BLOCK_ROWS, BLOCK], dtype=tl.float32)
    for start in range(0, hidden, BLOCK):
        c = start + cols
        mask = row_mask[:, None] & (c[None, :] < hidden)
        x = tl.load(x_rows + c[None, :], mask=mask, other=0.0).to(tl.float32)
        acc += x * x
    inv_rms = 1.0 / tl.sqrt(tl.sum(acc, axis=1) / hidden + eps)

    for start in range(0, hidden, BLOCK):
        c = start + cols
        col_mask = c < hidden
        mask = row_mask[:, None] & col_mask[None, :]
        x = tl.load(x_rows + c[None, :], mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + c, mask=col_mask, other=0.0).to(tl.float32)
        y = x * inv_rms[:, None] * w[None, :]
        if ROUND_BF16:
            y = round_fp32_to_bf16_rne(y)
        tl.store(out_rows + c[None, :], y.to(out_ptr.dtype.element_ty), mask=mask)


# --------------------------------------------------------------------------- checks

_OP = "rmsnorm"


def _name(dt: torch.dtype) -> str:
    return str(dt).replace("torch.", "")


def _tensor(name: str, t: object) -> torch.Tensor:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{_OP}: {name} must be a torch.Tensor, got {type(t).__name__}")
    return t


def _check(x: object, weight: object, eps: object, out: object) -> tuple[torch.Tensor, torch.Tensor, float,
                                                                         torch.Tensor]:
    x = _tensor("x", x)
    weight = _tensor("weight", weight)
    if x.dim() != 2:
        raise ValueError(f"{_OP}: x must be 2-D [batch, hidden], got shape {tuple(x.shape)}")
    if x.dtype not in DTYPES:
        raise TypeError(f"{_OP}: x.dtype={_name(x.dtype)} is not supported; expected one of "
                        f"{', '.join(_name(d) for d in DTYPES)}")
    batch, hidden = x.shape
    if hidden < 1:
        raise ValueError(f"{_OP}: hidden={hidden} (x.shape[1]) must be >= 1")
    if hidden > 1 and x.stride(1) != 1:
        raise ValueError(f"{_OP}: x rows must be contiguous (stride(1) == 1; rows may be padded), "
                         f"got strides {tuple(x.stride())}")
    if batch > 1 and x.stride(0) < hidden:
        raise ValueError(f"{_OP}: x row stride {x.stride(0)} is shorter than its rows (hidden={hidden})")
    if weight.dim() != 1 or weight.shape[0] != hidden:
        raise ValueError(f"{_OP}: weight shape {tuple(weight.shape)} does not fit x {tuple(x.shape)}; "
                         f"expected ({hidden},)")
    if weight.dtype != x.dtype:
        raise TypeError(f"{_OP}: weight.dtype={_name(weight.dtype)} must be x.dtype={_name(x.dtype)}")
    if weight.device != x.device:
        raise ValueError(f"{_OP}: weight is on {weight.device} and x on {x.device}; put both on one device")
    if hidden > 1 and weight.stride(0) != 1:
        raise ValueError(f"{_OP}: weight must be contiguous, got stride {weight.stride(0)}")
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not math.isfinite(eps) or eps < 0:
        raise ValueError(f"{_OP}: eps={eps!r} must be a finite float >= 0")
    if out is None:
        return x, weight, float(eps), x
    out = _tensor("out", out)
    if tuple(out.shape) != tuple(x.shape):
        raise ValueError(f"{_OP}: out shape {tuple(out.shape)} must be x's shape {tuple(x.shape)}")
    if out.dtype != x.dtype:
        raise TypeError(f"{_OP}: out.dtype={_name(out.dtype)} must be x.dtype={_name(x.dtype)}")
    if out.device != x.device:
        raise ValueError(f"{_OP}: out is on {out.device} and x on {x.device}; put both on one device")
    if hidden > 1 and out.stride(1) != 1:
        raise ValueError(f"{_OP}: out rows must be contiguous (stride(1) == 1), got strides {tuple(out.stride())}")
    if batch > 1 and out.stride(0) < hidden:
        raise ValueError(f"{_OP}: out row stride {out.stride(0)} is shorter than its rows (hidden={hidden})")
    if out.data_ptr() == x.data_ptr() and out.stride() != x.stride():
        raise ValueError(f"{_OP}: out shares x's storage with other strides ({tuple(out.stride())} vs "
                         f"{tuple(x.stride())}); pass out=None (or x itself) for in place")
    return x, weight, float(eps), out


def plan(batch: int, hidden: int, interpreter: bool) -> tuple[int, int]:
    """(BLOCK_ROWS, BLOCK). On a GPU one of :data:`GPU_TILES`, from the hidden size only
    (the batch is masked), so a shape never compiles a new variant. Under the
    interpreter the column block is the row's power of two (at most MAX_BLOCK) and a
    tile holds about INTERPRETER_TILE elements, never more rows than the batch (rounded
    up to a power of two): interpreted work is per element of the tile, masked or not."""
    if not interpreter:
        return next((t for t in GPU_TILES if hidden <= t[1]), GPU_TILES[-1])
    block = min(triton.next_power_of_2(hidden), MAX_BLOCK)
    rows = max(1, min(INTERPRETER_TILE // block, triton.next_power_of_2(max(batch, 1))))
    return rows, block


def rmsnorm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6, *,
            out: torch.Tensor | None = None) -> torch.Tensor:
    """``x * rsqrt(mean(x^2, -1) + eps) * weight`` in fp32, written into ``out`` (or into
    ``x`` when ``out`` is None) in ``x``'s dtype; returns the tensor written."""
    x, weight, eps, out = _check(x, weight, eps, out)
    batch, hidden = x.shape
    if batch == 0:
        return out
    interp = is_interpreter()
    block_rows, block = plan(batch, hidden, interp)
    grid = (triton.cdiv(batch, block_rows),)
    _rmsnorm_kernel[grid](
        x, weight, out, batch, hidden, x.stride(0), out.stride(0), eps,
        BLOCK_ROWS=block_rows, BLOCK=block, ROUND_BF16=interp and x.dtype == torch.bfloat16,
    )
    return out
