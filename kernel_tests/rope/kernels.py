"""RoPE (rotary position embedding) in place, in portable Triton, with upstream's contracts.

The ops mirror sglang's JIT RoPE (``sglang.jit_kernel.rope``), whose tests this family
rebuilds; the cache layout is flashinfer's (``apply_rope_with_cos_sin_cache_inplace``):

* ``cos_sin_cache``: fp32 ``[max_pos, rotary_dim]``; row ``p`` holds
  ``cos(p * f_j)`` in its first half and ``sin(p * f_j)`` in its second half, with
  ``f_j = base ** (-2j / rotary_dim)`` for ``j < rotary_dim / 2`` (base 1e4 in the tests;
  the kernel only reads the cache, so any base works).
* ``q [T, Hq, D]`` and ``k [T, Hk, D]``, ``Hq`` a multiple of ``Hk`` (GQA), ``D >=
  rotary_dim``. Channels ``[0, rotary_dim)`` of every head are rotated in place; channels
  beyond ``rotary_dim`` are never written (partial rotary). Views are fine (upstream
  passes ``q[..., :rotary_dim]`` of a wider head): only the last dimension must be
  contiguous. With ``head_dim=`` the tensors may be ``[T, H * head_dim]`` (upstream's
  "full tensor" form).
* NeoX (``is_neox=True``) pairs channel ``j`` with ``j + rotary_dim / 2``; GPT-J
  (``is_neox=False``) pairs ``2j`` with ``2j + 1``. Pair ``j`` is rotated by angle
  ``p * f_j``: ``(x, y) -> (x cos - y sin, y cos + x sin)``, in fp32, rounded once to
  the tensor's dtype.
* ``positions [T]``, int32 or int64, each in ``[0, max_pos)``.
* The fused KV-cache store (:func:`apply_rope_inplace_with_kvcache`) also writes the
  rotated ``k`` (all ``D`` channels of each head) to ``k_cache[out_loc[t]]`` and ``v``,
  bit for bit, to ``v_cache[out_loc[t]]``; the caches are ``[cache_size, Hk * D]`` and
  no other row is touched.

Bad input raises before any launch: ``TypeError`` for dtypes, ``ValueError`` for shapes,
strides and ranges; each message names the op, the argument, the value and what is
expected. Positions and cache slots are range-checked on the host (one device sync): an
out-of-range index would otherwise read or write outside the tensors.

Compiled variants follow the options, not the shapes: no size or stride (nor the
rotated half width) is specialized (``do_not_specialize``), and on a GPU a program's
tile is ``[BLOCK_T, GPU_BLOCK_H, BLOCK_R]`` with ``BLOCK_R`` the first of
:data:`GPU_BLOCK_R` that holds half the rotary width (wider: its power of two) and
``BLOCK_T`` filling 4096 elements, so a new
batch size, head count or head size never compiles a new variant (before issue 22 the
tile followed the token and head counts and the half width was a constexpr: RoPE's full
product compiled new variants to the end of a 170 s call on an H200).

Under the Triton interpreter (``TRITON_INTERPRET=1``) fp32 -> bf16 stores truncate, so
the kernel rounds to nearest-even with integer ops first (a constexpr flag; the GPU
path is untouched), and the tiles follow the tokens and heads (fewer interpreted
programs; compiling is not a cost there).
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from kernel_tests.support.platform import is_interpreter
from kernel_tests.support.triton_helpers import round_fp32_to_bf16_rne

__all__ = [
    "DTYPES",
    "POSITION_DTYPES",
    "apply_rope_inplace",
    "apply_rope_inplace_with_kvcache",
]

#: q/k/v dtypes the launchers accept.
DTYPES = (torch.float16, torch.bfloat16, torch.float32)
#: dtypes of ``positions`` and ``out_loc``.
POSITION_DTYPES = (torch.int32, torch.int64)

#: Elements of each rotated half per program (x1 and x2 tiles): GPU / interpreter.
_TILE_GPU = 4096
_TILE_INTERPRETER = 1 << 16
#: Heads per program on a GPU (masked beyond the head count).
GPU_BLOCK_H = 16
#: BLOCK_R on a GPU: the first that holds half the rotary width (rotary_dim <= 128 or
#: <= 512, every width upstream tests); a wider half gets its power of two.
GPU_BLOCK_R = (64, 256)
#: Channels copied per step by the fused store (k tail beyond rotary_dim, all of v).
_COPY_BLOCK = 128


# --------------------------------------------------------------------------- kernels


@triton.jit(do_not_specialize=["T", "H", "D", "HALF", "stride_xt", "stride_xh", "stride_cache", "stride_vt",
                               "stride_vh", "stride_kc", "stride_vc"])
def _rope_kernel(
    x_ptr, cache_ptr, pos_ptr, v_ptr, k_cache_ptr, v_cache_ptr, loc_ptr,
    T, H, D, HALF, stride_xt, stride_xh, stride_cache, stride_vt, stride_vh, stride_kc, stride_vc,
    IS_NEOX: tl.constexpr, STORE: tl.constexpr, ROUND_BF16: tl.constexpr,
    BLOCK_T: tl.constexpr, BLOCK_H: tl.constexpr, BLOCK_R: tl.constexpr, COPY_BLOCK: tl.constexpr,
):
    """Rotate a [BLOCK_T tokens, BLOCK_H heads] tile of x in place; with STORE also write
    the rotated heads (plus their unrotated tail) and v into the caches at loc[t]."""
    pid_t = tl.program_id(0)
    pid_h = tl.program_id(1)
    offs_t = pid_t * BLOCK_T + tl.arange(0, BLOCK_T)
    offs_h = pid_h * BLOCK_H + tl.arange(0, BLOCK_H)
    offs_r = tl.arange(0, BLOCK_R)
    t_mask = offs_t < T
    h_mask = offs_h < H
    r_mask = offs_r < HALF

    pos = tl.load(pos_ptr + offs_t, mask=t_mask, other=0).to(tl.int64)
    cs_mask = t_mask[:, None] & r_mask[None, :]
    cs_ptrs = cache_ptr + pos[:, None] * stride_cache + offs_r[None, :]
    cos = tl.load(cs_ptrs, mask=cs_mask, other=0.0).to(tl.float32)[:, None, :]
    sin = tl.load(cs_ptrs + HALF, mask=cs_mask, other=0.0).to(tl.float32)[:, None, :]

    t3 = offs_t.to(tl.int64)[:, None, None]
    h3 = offs_h.to(tl.int64)[None, :, None]
    r3 = offs_r[None, None, :]
    mask = t_mask[:, None, None] & h_mask[None, :, None] & r_mask[None, None, :]
    if IS_NEOX:
        i1 = r3
        i2 = r3 + HALF
    else:
        i1 = 2 * r3
        i2 = 2 * r3 + 1
    base = x_ptr + t3 * stride_xt + h3 * stride_xh
    x1 = tl.load(base + i1, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(base + i2, mask=mask, other=0.0).to(tl.float32)
    o1 = x1 * cos - x2 * sin
    o2 = x2 * cos + x1 * sin
    if ROUND_BF16:
        o1 = round_fp32_to_bf16_rne(o1)
        o2 = round_fp32_to_bf16_rne(o2)
    o1 = o1.to(x_ptr.dtype.element_ty)
    o2 = o2.to(x_ptr.dtype.element_ty)
    tl.store(base + i1, o1, mask=mask)
    tl.store(base + i2, o2, mask=mask)

    if STORE:
        loc = tl.load(loc_ptr + offs_t, mask=t_mask, other=0).to(tl.int64)
        loc3 = loc[:, None, None]
        kc = k_cache_ptr + loc3 * stride_kc + h3 * D
        tl.store(kc + i1, o1.to(k_cache_ptr.dtype.element_ty), mask=mask)
        tl.store(kc + i2, o2.to(k_cache_ptr.dtype.element_ty), mask=mask)
        offs_c = tl.arange(0, COPY_BLOCK)[None, None, :]
        th_mask = t_mask[:, None, None] & h_mask[None, :, None]
        # the unrotated tail of each k head: copied as stored (bit-exact)
        for d0 in range(2 * HALF, D, COPY_BLOCK):
            c_mask = th_mask & (d0 + offs_c < D)
            tail = tl.load(base + d0 + offs_c, mask=c_mask, other=0.0)
            tl.store(kc + d0 + offs_c, tail.to(k_cache_ptr.dtype.element_ty), mask=c_mask)
        # v: every channel, bit-exact (same dtype: the launcher checks)
        vb = v_ptr + t3 * stride_vt + h3 * stride_vh
        vc = v_cache_ptr + loc3 * stride_vc + h3 * D
        for d0 in range(0, D, COPY_BLOCK):
            c_mask = th_mask & (d0 + offs_c < D)
            vals = tl.load(vb + d0 + offs_c, mask=c_mask, other=0.0)
            tl.store(vc + d0 + offs_c, vals, mask=c_mask)


# --------------------------------------------------------------------------- validation


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).replace("torch.", "")


def _fail(exc: type[Exception], op: str, message: str) -> Exception:
    return exc(f"{op}: {message}")


def _check_tensor(op: str, name: str, t: object) -> torch.Tensor:
    if not isinstance(t, torch.Tensor):
        raise _fail(TypeError, op, f"{name} must be a torch.Tensor, got {type(t).__name__}")
    return t


def _check_cache(op: str, cos_sin_cache: object, rope_dim: int) -> tuple[torch.Tensor, int]:
    cache = _check_tensor(op, "cos_sin_cache", cos_sin_cache)
    if cache.dtype != torch.float32:
        raise _fail(TypeError, op, f"cos_sin_cache.dtype={_dtype_name(cache.dtype)} must be float32")
    if cache.dim() != 2 or cache.shape[0] < 1:
        raise _fail(ValueError, op, f"cos_sin_cache must be [max_pos, rotary_dim] with max_pos >= 1, "
                                    f"got shape {tuple(cache.shape)}")
    if cache.stride(1) != 1:
        raise _fail(ValueError, op, f"cos_sin_cache rows must be contiguous (stride(1) == 1), "
                                    f"got strides {tuple(cache.stride())}")
    width = int(cache.shape[1])
    if not isinstance(rope_dim, int) or isinstance(rope_dim, bool) or rope_dim < 0:
        raise _fail(ValueError, op, f"rope_dim={rope_dim!r} must be a non-negative int (0: the cache width)")
    rot = rope_dim or width
    if rot != width:
        raise _fail(ValueError, op, f"rope_dim={rope_dim} differs from the cache width "
                                    f"cos_sin_cache.shape[1]={width} (first half cos, second half sin)")
    if rot < 2 or rot % 2:
        raise _fail(ValueError, op, f"rotary_dim={rot} (cos_sin_cache.shape[1]) must be even and >= 2")
    return cache, rot


def _heads_view(op: str, name: str, t: object, head_dim: int) -> torch.Tensor:
    """``t`` as [T, H, D]: 3-D as given, or ``[T, H * head_dim]`` viewed with ``head_dim``."""
    x = _check_tensor(op, name, t)
    if head_dim:
        if x.dim() not in (2, 3) or (x.dim() == 2 and x.shape[-1] % head_dim):
            raise _fail(ValueError, op, f"with head_dim={head_dim}, {name} must be [num_tokens, heads * "
                                        f"{head_dim}] or [num_tokens, heads, {head_dim}], got shape "
                                        f"{tuple(x.shape)}")
        if x.dim() == 3 and x.shape[-1] != head_dim:
            raise _fail(ValueError, op, f"{name}.shape[-1]={x.shape[-1]} differs from head_dim={head_dim}")
        if x.dim() == 2:
            if x.stride(-1) != 1:
                raise _fail(ValueError, op, f"{name} must be contiguous in its last dimension, "
                                            f"got strides {tuple(x.stride())}")
            x = x.view(x.shape[0], x.shape[1] // head_dim, head_dim)
    elif x.dim() != 3:
        raise _fail(ValueError, op, f"{name} must be [num_tokens, heads, head_dim] (or pass head_dim= for "
                                    f"[num_tokens, heads * head_dim]), got shape {tuple(x.shape)}")
    if x.dtype not in DTYPES:
        allowed = ", ".join(_dtype_name(d) for d in DTYPES)
        raise _fail(TypeError, op, f"{name}.dtype={_dtype_name(x.dtype)} is not supported; expected one of {allowed}")
    if x.stride(-1) != 1:
        raise _fail(ValueError, op, f"{name} must be contiguous in its last dimension (stride(-1) == 1; "
                                    f"views such as x[..., :rotary_dim] are fine), got strides {tuple(x.stride())}")
    return x


def _check_indices(op: str, name: str, idx: object, num_tokens: int, bound: int, bound_name: str,
                   dev: torch.device) -> torch.Tensor:
    t = _check_tensor(op, name, idx)
    if t.dtype not in POSITION_DTYPES:
        raise _fail(TypeError, op, f"{name}.dtype={_dtype_name(t.dtype)} must be int32 or int64")
    if t.dim() != 1 or t.shape[0] != num_tokens:
        raise _fail(ValueError, op, f"{name} must be [num_tokens] = [{num_tokens}], got shape {tuple(t.shape)}")
    if t.device != dev:
        raise _fail(ValueError, op, f"{name} is on {t.device}, q on {dev}; put both on one device")
    if num_tokens:
        lo, hi = int(t.min()), int(t.max())
        if lo < 0 or hi >= bound:
            bad = lo if lo < 0 else hi
            raise _fail(ValueError, op, f"{name} holds {bad}, outside [0, {bound}) ({bound_name})")
    return t


def _check_qk(op: str, q: object, k: object, cos_sin_cache: object, positions: object, rope_dim: int,
              head_dim: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, int]:
    if not isinstance(head_dim, int) or isinstance(head_dim, bool) or head_dim < 0:
        raise _fail(ValueError, op, f"head_dim={head_dim!r} must be a non-negative int (0: q and k are 3-D)")
    cache, rot = _check_cache(op, cos_sin_cache, rope_dim)
    qv = _heads_view(op, "q", q, head_dim)
    kv = _heads_view(op, "k", k, head_dim)
    if qv.dtype != kv.dtype:
        raise _fail(TypeError, op, f"q.dtype={_dtype_name(qv.dtype)} and k.dtype={_dtype_name(kv.dtype)} differ")
    if qv.device != kv.device or cache.device != qv.device:
        raise _fail(ValueError, op, f"q ({qv.device}), k ({kv.device}) and cos_sin_cache ({cache.device}) "
                                    f"must be on one device")
    if qv.shape[0] != kv.shape[0]:
        raise _fail(ValueError, op, f"q has {qv.shape[0]} tokens and k {kv.shape[0]}; they must match")
    if qv.shape[2] != kv.shape[2]:
        raise _fail(ValueError, op, f"q head size {qv.shape[2]} and k head size {kv.shape[2]} differ")
    hq, hk = int(qv.shape[1]), int(kv.shape[1])
    if hq < 1 or hk < 1 or hq % hk:
        raise _fail(ValueError, op, f"q has {hq} heads and k {hk}: need >= 1 each and a whole GQA ratio "
                                    f"(q heads a multiple of k heads)")
    if rot > qv.shape[2]:
        raise _fail(ValueError, op, f"rotary_dim={rot} (cos_sin_cache.shape[1]) exceeds head_dim={qv.shape[2]}")
    pos = _check_indices(op, "positions", positions, int(qv.shape[0]), int(cache.shape[0]),
                         "cos_sin_cache.shape[0] = max_pos", qv.device)
    return qv, kv, cache, pos, rot


# --------------------------------------------------------------------------- launch


def gpu_block_r(half: int) -> int:
    """BLOCK_R on a GPU: the first of :data:`GPU_BLOCK_R` holding the rotated half, else its
    power of two. The only shape-derived constexpr there (``BLOCK_T``, ``BLOCK_H`` and the
    warps follow from it), so rotary widths of one bucket share a compiled variant."""
    return next((b for b in GPU_BLOCK_R if half <= b), triton.next_power_of_2(half))


def _blocks(num_tokens: int, heads: int, half: int) -> tuple[int, int, int]:
    """(BLOCK_T, BLOCK_H, BLOCK_R): BLOCK_R covers a rotated half, all powers of two. On
    a GPU the tile depends on the half width alone (tokens and heads are masked: see the
    module docstring); under the interpreter tokens x heads fill a larger tile, never
    more than the case has (fewer interpreted programs)."""
    if not is_interpreter():
        block_r = gpu_block_r(half)
        block_h = min(GPU_BLOCK_H, max(1, _TILE_GPU // block_r))
        return max(1, _TILE_GPU // (block_r * block_h)), block_h, block_r
    tile = _TILE_INTERPRETER
    block_r = triton.next_power_of_2(half)
    block_h = min(triton.next_power_of_2(heads), max(1, tile // block_r))
    block_t = min(triton.next_power_of_2(max(num_tokens, 1)), max(1, tile // (block_r * block_h)))
    return block_t, block_h, block_r


def _num_warps(tile: int) -> int:
    """About 16 elements of each half per thread (a power of two, 1 to 8 warps): a
    4096-element tile would otherwise hold ~32 fp32 values and their 64-bit pointers
    per tensor per thread at 4 warps."""
    return max(1, min(8, triton.next_power_of_2(max(tile // 512, 1))))


def _launch(x: torch.Tensor, cache: torch.Tensor, pos: torch.Tensor, rot: int, is_neox: bool,
            store: tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor] | None = None) -> None:
    num_tokens, heads, head_size = (int(s) for s in x.shape)
    if num_tokens == 0:
        return
    half = rot // 2
    block_t, block_h, block_r = _blocks(num_tokens, heads, half)
    if store is None:
        v, k_cache, v_cache, loc = x, x, x, pos
    else:
        v, k_cache, v_cache, loc = store
    grid = (triton.cdiv(num_tokens, block_t), triton.cdiv(heads, block_h))
    _rope_kernel[grid](
        x, cache, pos, v, k_cache, v_cache, loc,
        num_tokens, heads, head_size, half, x.stride(0), x.stride(1), cache.stride(0),
        v.stride(0), v.stride(1), k_cache.stride(0), v_cache.stride(0),
        IS_NEOX=bool(is_neox), STORE=store is not None,
        ROUND_BF16=is_interpreter() and x.dtype == torch.bfloat16,
        BLOCK_T=block_t, BLOCK_H=block_h, BLOCK_R=block_r, COPY_BLOCK=_COPY_BLOCK,
        num_warps=_num_warps(block_t * block_h * block_r),
    )


def _check_is_neox(op: str, is_neox: object) -> bool:
    if not isinstance(is_neox, bool):
        raise _fail(TypeError, op, f"is_neox={is_neox!r} must be a bool (True: NeoX halves, False: GPT-J pairs)")
    return is_neox


def apply_rope_inplace(q: torch.Tensor, k: torch.Tensor, cos_sin_cache: torch.Tensor, positions: torch.Tensor,
                       *, is_neox: bool, rope_dim: int = 0, head_dim: int = 0) -> None:
    """Rotate the first ``rotary_dim`` channels of every head of ``q`` and ``k`` in place.

    ``q [T, Hq, D]``, ``k [T, Hk, D]`` (or ``[T, H * head_dim]`` with ``head_dim``);
    ``cos_sin_cache`` fp32 ``[max_pos, rotary_dim]``; ``positions [T]`` int32/int64.
    ``rope_dim`` (0: the cache width) must equal the cache width. See the module doc."""
    op = "apply_rope_inplace"
    neox = _check_is_neox(op, is_neox)
    qv, kv, cache, pos, rot = _check_qk(op, q, k, cos_sin_cache, positions, rope_dim, head_dim)
    _launch(qv, cache, pos, rot, neox)
    _launch(kv, cache, pos, rot, neox)


def apply_rope_inplace_with_kvcache(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, k_cache: torch.Tensor,
                                    v_cache: torch.Tensor, cos_sin_cache: torch.Tensor, positions: torch.Tensor,
                                    out_loc: torch.Tensor, *, is_neox: bool, rope_dim: int = 0) -> None:
    """:func:`apply_rope_inplace` on ``q`` and ``k``, and store the rotated ``k`` and ``v``
    (bit for bit) at rows ``out_loc[t]`` of ``k_cache`` / ``v_cache`` ``[cache_size, Hk * D]``.

    ``v`` is ``[T, Hk, D]`` like ``k`` (or ``[T, Hk * D]``); both caches have k's dtype;
    ``out_loc [T]`` is int32/int64 with every slot in ``[0, cache_size)``. Duplicate
    slots leave that row's content unspecified (as upstream)."""
    op = "apply_rope_inplace_with_kvcache"
    neox = _check_is_neox(op, is_neox)
    qv, kv, cache, pos, rot = _check_qk(op, q, k, cos_sin_cache, positions, rope_dim, 0)
    num_tokens, hk, d = (int(s) for s in kv.shape)
    vt = _check_tensor(op, "v", v)
    if vt.dim() == 2 and tuple(vt.shape) == (num_tokens, hk * d):
        if vt.stride(-1) != 1:
            raise _fail(ValueError, op, f"v must be contiguous in its last dimension, got strides {tuple(vt.stride())}")
        vt = vt.view(num_tokens, hk, d)
    if tuple(vt.shape) != tuple(kv.shape):
        raise _fail(ValueError, op, f"v must have k's shape {tuple(kv.shape)} (or [{num_tokens}, {hk * d}]), "
                                    f"got {tuple(vt.shape)}")
    if vt.stride(-1) != 1:
        raise _fail(ValueError, op, f"v must be contiguous in its last dimension, got strides {tuple(vt.stride())}")
    for name, t in (("v", vt), ("k_cache", k_cache), ("v_cache", v_cache)):
        _check_tensor(op, name, t)
        if t.dtype != kv.dtype:
            raise _fail(TypeError, op, f"{name}.dtype={_dtype_name(t.dtype)} must be k's dtype {_dtype_name(kv.dtype)}"
                                       f" (v is copied bit for bit)")
        if t.device != kv.device:
            raise _fail(ValueError, op, f"{name} is on {t.device}, k on {kv.device}; put both on one device")
    for name, c in (("k_cache", k_cache), ("v_cache", v_cache)):
        if c.dim() != 2 or c.shape[1] != hk * d:
            raise _fail(ValueError, op, f"{name} must be [cache_size, num_kv_heads * head_dim] = "
                                        f"[cache_size, {hk * d}], got shape {tuple(c.shape)}")
        if c.stride(1) != 1:
            raise _fail(ValueError, op, f"{name} rows must be contiguous (stride(1) == 1), "
                                        f"got strides {tuple(c.stride())}")
    if k_cache.shape[0] != v_cache.shape[0]:
        raise _fail(ValueError, op, f"k_cache has {k_cache.shape[0]} rows and v_cache {v_cache.shape[0]}; "
                                    f"they must match")
    loc = _check_indices(op, "out_loc", out_loc, num_tokens, int(k_cache.shape[0]),
                         "k_cache.shape[0] = cache_size", kv.device)
    _launch(qv, cache, pos, rot, neox)
    _launch(kv, cache, pos, rot, neox, store=(vt, k_cache, v_cache, loc))
