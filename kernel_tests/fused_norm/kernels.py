"""FlyDSL-style fused normalization for diffusion models, in portable Triton.

Two ops, with the signatures of sglang's FlyDSL kernels
(``flydsl_fused_residual_norm_scale_shift`` / ``flydsl_norm_scale_shift``)::

    y, residual_out = fused_residual_norm_scale_shift(residual, x, gate, weight, bias,
                                                      scale, shift, norm_type, eps)
    y = norm_scale_shift(x, weight, bias, scale, shift, norm_type, eps)

Per row of ``[B, L, C]`` inputs, all arithmetic in fp32:

* ``r = residual + gate * x`` (``residual + x`` without a gate; ``r = x`` for
  :func:`norm_scale_shift`); ``residual_out = r`` rounded to the input dtype;
* statistics from the UNROUNDED fp32 ``r``: RMS ``xhat = r * rsqrt(mean(r^2) + eps)``,
  Layer ``xhat = (r - mean) * rsqrt(var + eps)`` (population variance, computed in a
  second pass around the mean, not as ``E[r^2] - mean^2``);
* only with a weight: ``xhat = xhat * w + b`` (``b`` zero when absent; a bias without a
  weight is rejected, never ignored);
* ``y = xhat * (1 + scale) + shift``, rounded to the input dtype.

``eps`` is honoured (upstream's FlyDSL kernel bakes in 1e-6 and ignores the argument).

Layouts of ``scale``, ``shift`` and ``gate`` (:data:`LAYOUTS`): scalar (0-d or
``[1]``), ``[C]``, ``[1, C]``, ``[B, 1, C]`` (per batch), ``[B, L, C]`` (per row),
``[B, F, 1, C]`` (per frame: ``F`` divides ``L``, frame ``f`` covers rows
``f*L/F .. (f+1)*L/F - 1``). A batch dimension of 1 broadcasts. Each layout becomes
(batch stride, frame stride, channel stride, frame length) for one addressing rule
``b*sb + (l // frame)*sf + c*sc`` in the kernel; any strides are fine.

Schedule: one program per row; the row is read in blocks of ``BLOCK_C`` channels and
later passes *recompute* ``r`` from the inputs (never re-read the rounded
``residual_out``). Any hidden size works (masked loads/stores), not only multiples of
5120. On a GPU every row loops over :data:`GPU_BLOCK_C`-channel blocks, and no size,
stride or frame length is specialized (``do_not_specialize``): the compiled variants
follow the options, not the shapes or layouts: the table tests compile at most 3 dtypes x
2 norm types x {fused with or without a gate, norm alone} x {no affine, weight, weight
and bias} = 54 variants, where a block sized from C (as before issue 22) made one per
option row and hidden-size class. Under
the interpreter, where compiling costs nothing and every interpreted op does, a row of
up to :data:`MAX_BLOCK_C` channels is one block held in registers (``ONE_BLOCK``).

Under the Triton interpreter (CPU) fp32 -> bf16 stores truncate; the kernel then rounds
to nearest-even with integer ops first (constexpr ``ROUND_BF16``, off on GPUs).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import triton
import triton.language as tl

from kernel_tests.support.platform import is_interpreter
from kernel_tests.support.triton_helpers import round_fp32_to_bf16_rne

__all__ = [
    "DTYPES",
    "LAYOUTS",
    "MAX_BLOCK_C",
    "NORM_TYPES",
    "Layout",
    "fused_residual_norm_scale_shift",
    "norm_scale_shift",
    "resolve_layout",
]

#: Input/output dtypes of ``x`` and ``residual``.
DTYPES = (torch.bfloat16, torch.float16, torch.float32)
#: Dtypes accepted for weight, bias, scale, shift and gate (read as fp32).
PARAM_DTYPES = DTYPES
NORM_TYPES = ("rms", "layer")
#: Layout names of scale / shift / gate, in the order of the module docstring.
LAYOUTS = ("scalar", "C", "1C", "B1C", "BLC", "BF1C")
#: Largest block of channels one program holds at once; longer rows loop.
MAX_BLOCK_C = 8192
#: The block of channels on a GPU (every row loops over such blocks).
GPU_BLOCK_C = 2048


# --------------------------------------------------------------------------- kernels


@triton.jit
def _residual_sum(res_row, x_row, g_row, offs, mask, g_sc,
                  HAS_RESIDUAL: tl.constexpr, HAS_GATE: tl.constexpr):
    """fp32 ``r = residual + gate * x`` for one block of a row (``x`` alone without a
    residual). The same expression in every pass, so recomputing it is exact."""
    r = tl.load(x_row + offs, mask=mask, other=0.0).to(tl.float32)
    if HAS_GATE:
        g = tl.load(g_row + offs * g_sc, mask=mask, other=0.0).to(tl.float32)
        r = g * r
    if HAS_RESIDUAL:
        r = tl.load(res_row + offs, mask=mask, other=0.0).to(tl.float32) + r
    return r


@triton.jit
def _modulate_store(xhat, offs, mask, w_ptr, stride_w, b_ptr, stride_bias, sc_row, sc_sc, sh_row, sh_sc,
                    y_row, HAS_WEIGHT: tl.constexpr, HAS_BIAS: tl.constexpr, ROUND_BF16: tl.constexpr):
    """``y = (xhat [* w + b]) * (1 + scale) + shift`` for one block, stored in y's dtype."""
    if HAS_WEIGHT:
        w = tl.load(w_ptr + offs * stride_w, mask=mask, other=0.0).to(tl.float32)
        xhat = xhat * w
        if HAS_BIAS:
            xhat = xhat + tl.load(b_ptr + offs * stride_bias, mask=mask, other=0.0).to(tl.float32)
    scale = tl.load(sc_row + offs * sc_sc, mask=mask, other=0.0).to(tl.float32)
    shift = tl.load(sh_row + offs * sh_sc, mask=mask, other=0.0).to(tl.float32)
    y = xhat * (1.0 + scale) + shift
    if ROUND_BF16:
        y = round_fp32_to_bf16_rne(y)
    tl.store(y_row + offs, y.to(y_row.dtype.element_ty), mask=mask)


@triton.jit
def _store_residual(r, offs, mask, ro_row, ROUND_BF16: tl.constexpr):
    if ROUND_BF16:
        r = round_fp32_to_bf16_rne(r)
    tl.store(ro_row + offs, r.to(ro_row.dtype.element_ty), mask=mask)


@triton.jit(do_not_specialize=[
    "L", "C", "stride_yb", "stride_yl", "stride_ob", "stride_ol", "stride_rb", "stride_rl", "stride_xb", "stride_xl",
    "g_sb", "g_sf", "g_sc", "g_frame", "sc_sb", "sc_sf", "sc_sc", "sc_frame", "sh_sb", "sh_sf", "sh_sc", "sh_frame",
    "stride_w", "stride_bias",
])
def _fused_norm_kernel(
    y_ptr, ro_ptr, res_ptr, x_ptr, g_ptr, w_ptr, b_ptr, sc_ptr, sh_ptr,
    L, C, eps,
    stride_yb, stride_yl, stride_ob, stride_ol, stride_rb, stride_rl, stride_xb, stride_xl,
    g_sb, g_sf, g_sc, g_frame,
    sc_sb, sc_sf, sc_sc, sc_frame,
    sh_sb, sh_sf, sh_sc, sh_frame,
    stride_w, stride_bias,
    BLOCK_C: tl.constexpr, ONE_BLOCK: tl.constexpr,
    HAS_RESIDUAL: tl.constexpr, HAS_GATE: tl.constexpr, HAS_WEIGHT: tl.constexpr,
    HAS_BIAS: tl.constexpr, IS_RMS: tl.constexpr, ROUND_BF16: tl.constexpr,
):
    """One program normalizes one row ``(b, l)`` of ``[B, L, C]``."""
    row = tl.program_id(0)
    b = (row // L).to(tl.int64)
    l_idx = (row % L).to(tl.int64)
    x_row = x_ptr + b * stride_xb + l_idx * stride_xl
    y_row = y_ptr + b * stride_yb + l_idx * stride_yl
    res_row = res_ptr + b * stride_rb + l_idx * stride_rl
    ro_row = ro_ptr + b * stride_ob + l_idx * stride_ol
    g_row = g_ptr + b * g_sb + (l_idx // g_frame) * g_sf
    sc_row = sc_ptr + b * sc_sb + (l_idx // sc_frame) * sc_sf
    sh_row = sh_ptr + b * sh_sb + (l_idx // sh_frame) * sh_sf
    offs0 = tl.arange(0, BLOCK_C)

    if ONE_BLOCK:
        mask = offs0 < C
        r = _residual_sum(res_row, x_row, g_row, offs0, mask, g_sc, HAS_RESIDUAL, HAS_GATE)
        if HAS_RESIDUAL:
            _store_residual(r, offs0, mask, ro_row, ROUND_BF16)
        if IS_RMS:
            rstd = tl.rsqrt(tl.sum(r * r, axis=0) / C + eps)
            xhat = r * rstd
        else:
            mean = tl.sum(r, axis=0) / C
            d = tl.where(mask, r - mean, 0.0)
            rstd = tl.rsqrt(tl.sum(d * d, axis=0) / C + eps)
            xhat = d * rstd
        _modulate_store(xhat, offs0, mask, w_ptr, stride_w, b_ptr, stride_bias, sc_row, sc_sc, sh_row, sh_sc,
                        y_row, HAS_WEIGHT, HAS_BIAS, ROUND_BF16)
    else:
        # pass 1: residual_out, and sum (Layer) or sum of squares (RMS) of the fp32 r
        acc = tl.zeros((BLOCK_C,), dtype=tl.float32)
        for start in range(0, C, BLOCK_C):
            offs = start + offs0
            mask = offs < C
            r = _residual_sum(res_row, x_row, g_row, offs, mask, g_sc, HAS_RESIDUAL, HAS_GATE)
            if HAS_RESIDUAL:
                _store_residual(r, offs, mask, ro_row, ROUND_BF16)
            if IS_RMS:
                acc += r * r
            else:
                acc += r
        if IS_RMS:
            mean = 0.0
            rstd = tl.rsqrt(tl.sum(acc, axis=0) / C + eps)
        else:
            mean = tl.sum(acc, axis=0) / C
            # pass 2 (Layer): variance around the mean, r recomputed from the inputs
            acc2 = tl.zeros((BLOCK_C,), dtype=tl.float32)
            for start in range(0, C, BLOCK_C):
                offs = start + offs0
                mask = offs < C
                r = _residual_sum(res_row, x_row, g_row, offs, mask, g_sc, HAS_RESIDUAL, HAS_GATE)
                d = tl.where(mask, r - mean, 0.0)
                acc2 += d * d
            rstd = tl.rsqrt(tl.sum(acc2, axis=0) / C + eps)
        # last pass: normalize the recomputed fp32 r, modulate, store
        for start in range(0, C, BLOCK_C):
            offs = start + offs0
            mask = offs < C
            r = _residual_sum(res_row, x_row, g_row, offs, mask, g_sc, HAS_RESIDUAL, HAS_GATE)
            xhat = (r - mean) * rstd
            _modulate_store(xhat, offs, mask, w_ptr, stride_w, b_ptr, stride_bias, sc_row, sc_sc, sh_row, sh_sc,
                            y_row, HAS_WEIGHT, HAS_BIAS, ROUND_BF16)


# --------------------------------------------------------------------------- validation


def _dtype_name(dt: torch.dtype) -> str:
    return str(dt).replace("torch.", "")


def _fail(exc: type[Exception], op: str, msg: str) -> Exception:
    return exc(f"{op}: {msg}")


@dataclass(frozen=True)
class Layout:
    """How a modulation tensor (scale, shift or gate) maps onto ``[B, L, C]``.

    Element ``(b, l, c)`` is at ``b*stride_b + (l // frame_len)*stride_f + c*stride_c``.
    """

    name: str
    stride_b: int
    stride_f: int
    stride_c: int
    frame_len: int


def _batch_stride(op: str, arg: str, t: torch.Tensor, batch: int) -> int:
    if t.shape[0] == batch:
        return t.stride(0) if batch > 1 else 0
    if t.shape[0] == 1:
        return 0
    raise _fail(ValueError, op, f"{arg} shape {tuple(t.shape)}: batch dimension {t.shape[0]} must be "
                                f"B={batch} or 1")


def resolve_layout(op: str, arg: str, t: object, batch: int, length: int, channels: int) -> Layout:
    """The :class:`Layout` of ``t`` for inputs ``[batch, length, channels]``; a shape that
    is none of :data:`LAYOUTS` raises ``ValueError`` naming the accepted shapes."""
    if not isinstance(t, torch.Tensor):
        raise _fail(TypeError, op, f"{arg} must be a torch.Tensor, got {type(t).__name__}")
    if not t.dtype.is_floating_point or t.dtype not in PARAM_DTYPES:
        allowed = ", ".join(_dtype_name(d) for d in PARAM_DTYPES)
        raise _fail(TypeError, op, f"{arg}.dtype={_dtype_name(t.dtype)} is not supported; expected one of {allowed}")
    shape = tuple(t.shape)
    B, L, C = batch, length, channels
    if t.numel() == 1 and t.dim() <= 1:
        return Layout("scalar", 0, 0, 0, 1)
    if shape == (C,):
        return Layout("C", 0, 0, t.stride(0), 1)
    if t.dim() == 2 and shape == (1, C):
        return Layout("1C", 0, 0, t.stride(1), 1)
    if t.dim() == 3 and shape[1:] == (1, C):
        return Layout("B1C", _batch_stride(op, arg, t, B), 0, t.stride(2), 1)
    if t.dim() == 3 and shape[1:] == (L, C):
        return Layout("BLC", _batch_stride(op, arg, t, B), t.stride(1) if L > 1 else 0, t.stride(2), 1)
    if t.dim() == 4 and shape[2:] == (1, C) and shape[1] >= 1:
        frames = shape[1]
        if L % frames != 0:
            raise _fail(ValueError, op, f"{arg} shape {shape} (per frame, [B, F, 1, C]): F={frames} frames "
                                        f"must divide L={L}")
        return Layout("BF1C", _batch_stride(op, arg, t, B), t.stride(1) if frames > 1 else 0, t.stride(3),
                      L // frames)
    raise _fail(ValueError, op, f"{arg} shape {shape} is not a supported layout for x [B, L, C] = "
                                f"[{B}, {L}, {C}]; expected scalar (0-d or [1]), [C], [1, C], [B, 1, C], "
                                f"[B, L, C] or [B, F, 1, C] with F dividing L (B may be 1)")


def _check_x(op: str, name: str, t: object) -> torch.Tensor:
    if not isinstance(t, torch.Tensor):
        raise _fail(TypeError, op, f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if t.dim() != 3:
        raise _fail(ValueError, op, f"{name} must be 3-D [B, L, C], got shape {tuple(t.shape)}")
    if t.dtype not in DTYPES:
        allowed = ", ".join(_dtype_name(d) for d in DTYPES)
        raise _fail(TypeError, op, f"{name}.dtype={_dtype_name(t.dtype)} is not supported; expected one of {allowed}")
    if t.shape[2] == 0:
        raise _fail(ValueError, op, f"{name} has hidden size C=0; C must be positive")
    if t.shape[2] > 1 and t.stride(2) != 1:
        raise _fail(ValueError, op, f"{name} channels must be contiguous (stride(2) == 1), "
                                    f"got strides {tuple(t.stride())}")
    return t


def _check_norm_type(op: str, norm_type: object) -> bool:
    if norm_type not in NORM_TYPES:
        raise _fail(ValueError, op, f"norm_type={norm_type!r} must be one of {', '.join(map(repr, NORM_TYPES))}")
    return norm_type == "rms"


def _check_eps(op: str, eps: object) -> float:
    if isinstance(eps, bool) or not isinstance(eps, (int, float)):
        raise _fail(TypeError, op, f"eps={eps!r} must be a real number, got {type(eps).__name__}")
    value = float(eps)
    if not math.isfinite(value) or value < 0:
        raise _fail(ValueError, op, f"eps={eps!r} must be finite and >= 0")
    return value


def _check_affine(op: str, weight: object, bias: object, channels: int) -> None:
    if bias is not None and weight is None:
        raise _fail(ValueError, op, "bias given without weight: the affine stage is x*w + b and needs "
                                    "a weight (pass weight=torch.ones(C) for a bias-only affine)")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is None:
            continue
        if not isinstance(t, torch.Tensor):
            raise _fail(TypeError, op, f"{name} must be a torch.Tensor or None, got {type(t).__name__}")
        if t.dtype not in PARAM_DTYPES:
            allowed = ", ".join(_dtype_name(d) for d in PARAM_DTYPES)
            raise _fail(TypeError, op, f"{name}.dtype={_dtype_name(t.dtype)} is not supported; "
                                       f"expected one of {allowed}")
        if tuple(t.shape) != (channels,):
            raise _fail(ValueError, op, f"{name} shape {tuple(t.shape)} does not match the hidden size; "
                                        f"expected ({channels},)")


def _check_device(op: str, x: torch.Tensor, **tensors: object) -> None:
    for name, t in tensors.items():
        if isinstance(t, torch.Tensor) and t.device != x.device:
            raise _fail(ValueError, op, f"{name} is on {t.device} but x is on {x.device}")


# --------------------------------------------------------------------------- launch


def _block_and_warps(channels: int) -> tuple[int, bool, int]:
    """(BLOCK_C, one block?, num_warps). On a GPU always :data:`GPU_BLOCK_C` and the
    loop (one variant for every hidden size); under the interpreter a power-of-two
    block of at most MAX_BLOCK_C, one block when it holds the row."""
    if not is_interpreter():
        return GPU_BLOCK_C, False, 4
    block = min(triton.next_power_of_2(channels), MAX_BLOCK_C)
    return block, block >= channels, 4


_NO_GATE = Layout("none", 0, 0, 0, 1)


def _launch(residual: torch.Tensor | None, x: torch.Tensor, gate: torch.Tensor | None, g: Layout,
            weight: torch.Tensor | None, bias: torch.Tensor | None, scale: torch.Tensor, sc: Layout,
            shift: torch.Tensor, sh: Layout, norm_type: str, eps: float) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Allocate the outputs and launch one program per row (inputs already validated)."""
    B, L, C = x.shape
    y = torch.empty((B, L, C), dtype=x.dtype, device=x.device)
    res_out = torch.empty_like(y) if residual is not None else None
    if B * L == 0:
        return y, res_out
    block, one_block, warps = _block_and_warps(C)
    res = residual if residual is not None else x
    ro = res_out if res_out is not None else y
    _fused_norm_kernel[(B * L,)](
        y, ro, res, x, gate if gate is not None else x, weight if weight is not None else x,
        bias if bias is not None else x, scale, shift,
        L, C, eps,
        y.stride(0), y.stride(1), ro.stride(0), ro.stride(1), res.stride(0), res.stride(1),
        x.stride(0), x.stride(1),
        g.stride_b, g.stride_f, g.stride_c, g.frame_len,
        sc.stride_b, sc.stride_f, sc.stride_c, sc.frame_len,
        sh.stride_b, sh.stride_f, sh.stride_c, sh.frame_len,
        weight.stride(0) if weight is not None else 0, bias.stride(0) if bias is not None else 0,
        BLOCK_C=block, ONE_BLOCK=one_block,
        HAS_RESIDUAL=residual is not None, HAS_GATE=gate is not None, HAS_WEIGHT=weight is not None,
        HAS_BIAS=bias is not None, IS_RMS=norm_type == "rms",
        ROUND_BF16=is_interpreter() and x.dtype == torch.bfloat16,
        num_warps=warps,
    )
    return y, res_out


def fused_residual_norm_scale_shift(
    residual: torch.Tensor, x: torch.Tensor, gate: torch.Tensor | None, weight: torch.Tensor | None,
    bias: torch.Tensor | None, scale: torch.Tensor, shift: torch.Tensor, norm_type: str, eps: float = 1e-6,
) -> tuple[torch.Tensor, torch.Tensor]:
    """``r = residual + gate*x``; returns ``(y, residual_out)`` (see the module docstring).

    Raises ``TypeError`` (dtypes, argument types) or ``ValueError`` (shapes, layouts,
    ``norm_type``, ``eps``, bias without weight) before any launch.
    """
    op = "fused_residual_norm_scale_shift"
    _check_norm_type(op, norm_type)
    x = _check_x(op, "x", x)
    residual = _check_x(op, "residual", residual)
    if residual.shape != x.shape:
        raise _fail(ValueError, op, f"mismatched residual/x shapes: residual is {tuple(residual.shape)}, "
                                    f"x is {tuple(x.shape)}")
    if residual.dtype != x.dtype:
        raise _fail(TypeError, op, f"residual.dtype={_dtype_name(residual.dtype)} and "
                                   f"x.dtype={_dtype_name(x.dtype)} must match")
    _check_device(op, x, residual=residual, gate=gate, weight=weight, bias=bias, scale=scale, shift=shift)
    _check_affine(op, weight, bias, x.shape[2])
    eps_value = _check_eps(op, eps)
    B, L, C = x.shape
    sc = resolve_layout(op, "scale", scale, B, L, C)
    sh = resolve_layout(op, "shift", shift, B, L, C)
    g = resolve_layout(op, "gate", gate, B, L, C) if gate is not None else _NO_GATE
    y, res_out = _launch(residual, x, gate, g, weight, bias, scale, sc, shift, sh, norm_type, eps_value)
    assert res_out is not None
    return y, res_out


def norm_scale_shift(
    x: torch.Tensor, weight: torch.Tensor | None, bias: torch.Tensor | None, scale: torch.Tensor,
    shift: torch.Tensor, norm_type: str, eps: float = 1e-6,
) -> torch.Tensor:
    """``y = norm(x)[*w + b] * (1 + scale) + shift`` (no residual path)."""
    op = "norm_scale_shift"
    _check_norm_type(op, norm_type)
    x = _check_x(op, "x", x)
    _check_device(op, x, weight=weight, bias=bias, scale=scale, shift=shift)
    _check_affine(op, weight, bias, x.shape[2])
    eps_value = _check_eps(op, eps)
    B, L, C = x.shape
    sc = resolve_layout(op, "scale", scale, B, L, C)
    sh = resolve_layout(op, "shift", shift, B, L, C)
    y, _ = _launch(None, x, None, _NO_GATE, weight, bias, scale, sc, shift, sh, norm_type, eps_value)
    return y
