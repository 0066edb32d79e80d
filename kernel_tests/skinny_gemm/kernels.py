"""Skinny GEMMs in portable Triton, with the contracts of vLLM's ROCm ops.

All four ops compute ``out[n, m] = act[n, k] @ weight[m, k]^T (+ bias)`` with fp32
accumulation and return the result in the activation dtype (``out_dtype`` for the FP8
op). ``n`` is the skinny token dimension, ``k`` the reduction, ``m`` the output features.

==============  ======================================  =============================
op              contract (checked, see ``_check_*``)    schedule
==============  ======================================  =============================
``wvSplitK``    fp16/bf16, k % 8 == 0, 1 <= n <= 4,     split-K chosen from cu_count,
                bias ``(m,)`` or ``(n, m)``             fp32 workspace + reduce
``wvSplitKrc``  fp16/bf16, k % 8 == 0, 13 <= n <= 128,  n bucketed to 16/32/64/128,
                must satisfy :func:`fits_wvsplitkrc`    512-wide K shards, workspace
                                                        of 128*1024*12 fp32 + reduce
``wvSplitKQ``   float8_e4m3fn, k % 16 == 0, 1<=n<=4,    as wvSplitK; epilogue
                per-tensor fp32 scales, out fp16/bf16   ``acc*sa*sb + bias``
``LLMM1``       fp16/bf16, n == 1, k % 8 == 0,          whole K per program, tile of
                rows_per_block in {2,4,8,16} | m        a multiple of rows_per_block
==============  ======================================  =============================

Rows may be padded (row stride larger than ``k``, as upstream's ``pad_fp8`` does); the
last dimension must be contiguous. Results are deterministic: split-K partial sums go to
an fp32 workspace and a second kernel adds them in a fixed order (no atomics).

Compiled variants follow the options (dtypes, bias, scales), not the shapes: no size,
stride or split count is specialized (``do_not_specialize``; the bias strides stay,
they are the bias mode), the GPU tiles are fixed per op, and on a GPU the split-K ops
always reduce through the workspace, also when a shape needs one split (before issue
22, integer divisibility and the one-split shortcut gave every option row a variant per
shape class).

Under the Triton interpreter (``TRITON_INTERPRET=1``, CPU) three gaps are worked around
inside the kernels, switched by constexpr flags so the GPU code path is untouched:
bf16 ``tl.dot`` is wrong (operands are upcast to fp32 and the dot runs in IEEE fp32),
fp32 -> bf16 stores truncate (the epilogue rounds to nearest-even with integer ops
first, so the store is exact), and there is no autotuning (one config, with larger
tiles to keep the number of interpreted programs small).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import triton
import triton.language as tl

from kernel_tests.support.platform import is_interpreter
from kernel_tests.support.triton_helpers import round_fp32_to_bf16_rne

__all__ = [
    "KRC_K_SHARD",
    "KRC_M_TILE",
    "KRC_WORKSPACE_FLOATS",
    "LLMM1",
    "fits_wvsplitkrc",
    "wvSplitK",
    "wvSplitKQ",
    "wvSplitKrc",
]

#: fp32 elements in wvSplitKrc's reduction workspace (upstream: 128 * 1024 * 12).
KRC_WORKSPACE_FLOATS = 128 * 1024 * 12
#: K elements per wvSplitKrc shard (one program reduces one shard).
KRC_K_SHARD = 512
#: weight rows per wvSplitKrc program.
KRC_M_TILE = 64

_HALF_DTYPES = (torch.float16, torch.bfloat16)
_FP8_DTYPE = getattr(torch, "float8_e4m3fn", None)


# --------------------------------------------------------------------------- kernels


@triton.jit
def _epilogue(
    acc, offs_n, offs_m, out_ptr, stride_on, stride_om, bias_ptr, stride_bn, stride_bm,
    scale_a_ptr, scale_b_ptr, N, M,
    HAS_BIAS: tl.constexpr, HAS_SCALE: tl.constexpr, ROUND_BF16: tl.constexpr,
):
    mask = (offs_n[:, None] < N) & (offs_m[None, :] < M)
    if HAS_SCALE:
        scale = tl.load(scale_a_ptr).to(tl.float32) * tl.load(scale_b_ptr).to(tl.float32)
        acc = acc * scale
    if HAS_BIAS:
        bias = tl.load(bias_ptr + offs_n[:, None] * stride_bn + offs_m[None, :] * stride_bm, mask=mask, other=0.0)
        acc = acc + bias.to(tl.float32)
    if ROUND_BF16:
        acc = round_fp32_to_bf16_rne(acc)
    out_ptrs = out_ptr + offs_n[:, None] * stride_on + offs_m[None, :] * stride_om
    tl.store(out_ptrs, acc.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit(do_not_specialize=["N", "M", "K", "K_PER_SPLIT", "stride_an", "stride_wm", "stride_on", "stride_bn",
                               "stride_ws_s", "stride_ws_n"])
def _skinny_gemm_kernel(
    a_ptr, w_ptr, out_ptr, ws_ptr, bias_ptr, scale_a_ptr, scale_b_ptr,
    N, M, K, K_PER_SPLIT,
    stride_an, stride_wm, stride_on, stride_om, stride_bn, stride_bm, stride_ws_s, stride_ws_n,
    BLOCK_N: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr,
    WRITE_WORKSPACE: tl.constexpr, HAS_BIAS: tl.constexpr, HAS_SCALE: tl.constexpr,
    UPCAST_FP32: tl.constexpr, FP8_AS_FP16: tl.constexpr, ROUND_BF16: tl.constexpr,
):
    """One (n-block, m-block, K-split) tile: acc[BN, BM] = a[BN, Ksplit] @ w[BM, Ksplit]^T.

    With WRITE_WORKSPACE the fp32 partial sum goes to ws[split, n, m] for
    :func:`_splitk_reduce_kernel`; otherwise the epilogue runs here.
    """
    pid_m = tl.program_id(0)
    pid_s = tl.program_id(1)
    pid_n = tl.program_id(2)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_kb = tl.arange(0, BLOCK_K)
    n_mask = offs_n < N
    m_mask = offs_m < M
    k_lo = pid_s * K_PER_SPLIT
    a_rows = a_ptr + offs_n[:, None].to(tl.int64) * stride_an
    # weight tile loaded K-major ([BLOCK_K, BLOCK_M]) so the dot needs no transpose
    w_cols = w_ptr + offs_m[None, :].to(tl.int64) * stride_wm
    acc = tl.zeros((BLOCK_N, BLOCK_M), dtype=tl.float32)
    for kk in range(0, K_PER_SPLIT, BLOCK_K):
        offs_k = k_lo + kk + offs_kb
        k_mask = offs_k < K
        a = tl.load(a_rows + offs_k[None, :], mask=n_mask[:, None] & k_mask[None, :], other=0.0)
        w = tl.load(w_cols + offs_k[:, None], mask=k_mask[:, None] & m_mask[None, :], other=0.0)
        if UPCAST_FP32:
            acc = tl.dot(a.to(tl.float32), w.to(tl.float32), acc, input_precision="ieee")
        elif FP8_AS_FP16:
            # e4m3 -> fp16 is exact; fp16 MMA with fp32 accumulation.
            acc = tl.dot(a.to(tl.float16), w.to(tl.float16), acc)
        else:
            acc = tl.dot(a, w, acc)
    if WRITE_WORKSPACE:
        ws_ptrs = ws_ptr + pid_s * stride_ws_s + offs_n[:, None] * stride_ws_n + offs_m[None, :]
        tl.store(ws_ptrs, acc, mask=n_mask[:, None] & m_mask[None, :])
    else:
        _epilogue(acc, offs_n, offs_m, out_ptr, stride_on, stride_om, bias_ptr, stride_bn, stride_bm,
                  scale_a_ptr, scale_b_ptr, N, M, HAS_BIAS, HAS_SCALE, ROUND_BF16)


@triton.jit(do_not_specialize=["N", "M", "SPLITS", "stride_ws_s", "stride_ws_n", "stride_on", "stride_bn"])
def _splitk_reduce_kernel(
    ws_ptr, out_ptr, bias_ptr, scale_a_ptr, scale_b_ptr,
    N, M, SPLITS,
    stride_ws_s, stride_ws_n, stride_on, stride_om, stride_bn, stride_bm,
    BLOCK_N: tl.constexpr, BLOCK_M: tl.constexpr,
    HAS_BIAS: tl.constexpr, HAS_SCALE: tl.constexpr, ROUND_BF16: tl.constexpr,
):
    """out = epilogue(sum over splits of ws[s]), summed in split order (deterministic)."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    mask = (offs_n[:, None] < N) & (offs_m[None, :] < M)
    ptrs = ws_ptr + offs_n[:, None] * stride_ws_n + offs_m[None, :]
    acc = tl.zeros((BLOCK_N, BLOCK_M), dtype=tl.float32)
    for s in range(SPLITS):
        acc += tl.load(ptrs + s * stride_ws_s, mask=mask, other=0.0)
    _epilogue(acc, offs_n, offs_m, out_ptr, stride_on, stride_om, bias_ptr, stride_bn, stride_bm,
              scale_a_ptr, scale_b_ptr, N, M, HAS_BIAS, HAS_SCALE, ROUND_BF16)


# --------------------------------------------------------------------------- validation


def _fail(exc: type[Exception], op: str, msg: str) -> Exception:
    return exc(f"{op}: {msg}")


def _dtype_name(dt: torch.dtype) -> str:
    return str(dt).replace("torch.", "")


def _check_tensor(op: str, name: str, t: object) -> torch.Tensor:
    if not isinstance(t, torch.Tensor):
        raise _fail(TypeError, op, f"{name} must be a torch.Tensor, got {type(t).__name__}")
    return t


def _check_operands(op: str, weight: object, act: object, dtypes: tuple, k_multiple: int,
                    n_range: tuple[int, int]) -> tuple[int, int, int]:
    """Shared checks: 2-D, same device, dtypes, contiguous rows, matching k, k multiple,
    n range. Returns (n, k, m)."""
    weight = _check_tensor(op, "weight", weight)
    act = _check_tensor(op, "act", act)
    for name, t in (("weight", weight), ("act", act)):
        if t.dim() != 2:
            raise _fail(ValueError, op, f"{name} must be 2-D, got shape {tuple(t.shape)}")
        if t.dtype not in dtypes:
            allowed = ", ".join(_dtype_name(d) for d in dtypes)
            raise _fail(TypeError, op, f"{name}.dtype={_dtype_name(t.dtype)} is not supported; expected one of {allowed}")
        if t.shape[1] > 1 and t.stride(1) != 1:
            raise _fail(ValueError, op, f"{name} rows must be contiguous (stride(1) == 1; rows may be padded), "
                                        f"got strides {tuple(t.stride())}")
        if t.shape[0] > 1 and t.stride(0) < t.shape[1]:
            raise _fail(ValueError, op, f"{name} row stride {t.stride(0)} is shorter than its rows ({t.shape[1]})")
    if act.dtype != weight.dtype:
        raise _fail(TypeError, op, f"act.dtype={_dtype_name(act.dtype)} and weight.dtype={_dtype_name(weight.dtype)} "
                                   "must match")
    if act.device != weight.device:
        raise _fail(ValueError, op, f"act is on {act.device} and weight on {weight.device}; put both on one device")
    m, k = weight.shape
    n, k_act = act.shape
    if k_act != k:
        raise _fail(ValueError, op, f"mismatched k: act is {tuple(act.shape)} (k={k_act}) but weight is "
                                    f"{tuple(weight.shape)} (k={k})")
    if k == 0 or k % k_multiple:
        raise _fail(ValueError, op, f"k={k} must be a positive multiple of {k_multiple}")
    lo, hi = n_range
    if not lo <= n <= hi:
        raise _fail(ValueError, op, f"n={n} (rows of act) must be in [{lo}, {hi}]")
    if m < 1:
        raise _fail(ValueError, op, f"m={m} (rows of weight) must be >= 1")
    return n, k, m


def _check_bias(op: str, bias: object, n: int, m: int, dtype: torch.dtype, dev: torch.device,
                allow_2d: bool = True) -> torch.Tensor | None:
    if bias is None:
        return None
    bias = _check_tensor(op, "bias", bias)
    shapes = [(m,), (n, m)] if allow_2d else [(m,)]
    if tuple(bias.shape) not in shapes:
        expected = " or ".join(str(s) for s in shapes)
        raise _fail(ValueError, op, f"bias shape {tuple(bias.shape)} does not fit out[{n}, {m}]; expected {expected}")
    if bias.dtype != dtype:
        raise _fail(TypeError, op, f"bias.dtype={_dtype_name(bias.dtype)} must be the output dtype {_dtype_name(dtype)}")
    if bias.device != dev:
        raise _fail(ValueError, op, f"bias is on {bias.device}, the operands on {dev}")
    if bias.shape[-1] > 1 and bias.stride(-1) != 1:
        raise _fail(ValueError, op, f"bias must be contiguous in its last dimension, got strides {tuple(bias.stride())}")
    return bias


def _check_cu_count(op: str, cu_count: object) -> int:
    if isinstance(cu_count, bool) or not isinstance(cu_count, int) or cu_count < 1:
        raise _fail(ValueError, op, f"cu_count={cu_count!r} must be a positive int (compute units of the device)")
    return cu_count


# --------------------------------------------------------------------------- launch


def _next_pow2(x: int) -> int:
    return 1 << max(0, (x - 1).bit_length())


@dataclass(frozen=True)
class _Plan:
    block_n: int
    block_m: int
    block_k: int
    k_per_split: int
    splits: int
    n_groups: int
    split_k: bool = True  # a split-K op (reduces through the workspace); LLMM1 is not


def _plan_split_k(n: int, k: int, m: int, cu_count: int) -> _Plan:
    """Tiles and K split for the n <= 16 kernels: enough programs to fill cu_count,
    each split a whole number of BLOCK_K steps."""
    if is_interpreter():
        # One config, large tiles: the interpreter's cost is per program and per op.
        block_n, block_m, block_k = 16, min(256, max(16, _next_pow2(m))), min(1024, max(16, _next_pow2(k)))
    else:
        block_n, block_m, block_k = 16, 64, 128
    n_groups = triton.cdiv(n, block_n)
    tiles = triton.cdiv(m, block_m) * n_groups
    k_steps = triton.cdiv(k, block_k)
    splits = max(1, min(k_steps, (2 * cu_count) // tiles))
    k_per_split = triton.cdiv(k_steps, splits) * block_k
    splits = triton.cdiv(k, k_per_split)
    return _Plan(block_n, block_m, block_k, k_per_split, splits, n_groups)


def _launch(act: torch.Tensor, weight: torch.Tensor, out: torch.Tensor, bias: torch.Tensor | None,
            scales: tuple[torch.Tensor, torch.Tensor] | None, plan: _Plan,
            workspace: torch.Tensor | None = None) -> torch.Tensor:
    n, k = act.shape
    m = weight.shape[0]
    interp = is_interpreter()
    fp8 = act.dtype == _FP8_DTYPE
    flags = {
        "HAS_BIAS": bias is not None,
        "HAS_SCALE": scales is not None,
        "ROUND_BF16": interp and out.dtype == torch.bfloat16,
    }
    bias_t = bias if bias is not None else out  # dummy pointer, never read
    stride_bn = 0 if bias is None or bias.dim() == 1 else bias.stride(0)
    stride_bm = 0 if bias is None else bias.stride(-1)
    sa, sb = scales if scales is not None else (out, out)
    # Split-K ops reduce through the workspace on a GPU even with one split (one compiled
    # schedule for every shape); the interpreter skips the reduce launch when it can.
    use_ws = plan.splits > 1 or (plan.split_k and not interp)
    if use_ws:
        n_ws = plan.n_groups * plan.block_n
        need = plan.splits * n_ws * m
        if workspace is None:
            workspace = torch.empty(need, dtype=torch.float32, device=act.device)
        ws = workspace[:need].view(plan.splits, n_ws, m)
    else:
        ws = out  # dummy pointer, never written
    grid = (triton.cdiv(m, plan.block_m), plan.splits, plan.n_groups)
    _skinny_gemm_kernel[grid](
        act, weight, out, ws, bias_t, sa, sb,
        n, m, k, plan.k_per_split,
        act.stride(0), weight.stride(0), out.stride(0), out.stride(1), stride_bn, stride_bm,
        ws.stride(0) if use_ws else 0, ws.stride(1) if use_ws else 0,
        BLOCK_N=plan.block_n, BLOCK_M=plan.block_m, BLOCK_K=plan.block_k,
        WRITE_WORKSPACE=use_ws, UPCAST_FP32=interp, FP8_AS_FP16=fp8 and not interp,
        **flags,
    )
    if use_ws:
        rb_n = min(plan.n_groups * plan.block_n, 16 if not interp else 128)
        rb_m = 128 if not interp else min(1024, max(16, _next_pow2(m)))
        _splitk_reduce_kernel[(triton.cdiv(m, rb_m), triton.cdiv(n, rb_n))](
            ws, out, bias_t, sa, sb,
            n, m, plan.splits,
            ws.stride(0), ws.stride(1), out.stride(0), out.stride(1), stride_bn, stride_bm,
            BLOCK_N=rb_n, BLOCK_M=rb_m, **flags,
        )
    return out


# --------------------------------------------------------------------------- public ops


def wvSplitK(weight: torch.Tensor, act: torch.Tensor, cu_count: int, bias: torch.Tensor | None = None) -> torch.Tensor:
    """``act @ weight.T (+ bias)`` for 1 <= n <= 4 (fp16/bf16, k % 8 == 0), split-K."""
    op = "wvSplitK"
    n, k, m = _check_operands(op, weight, act, _HALF_DTYPES, 8, (1, 4))
    cu_count = _check_cu_count(op, cu_count)
    bias = _check_bias(op, bias, n, m, act.dtype, act.device)
    out = torch.empty((n, m), dtype=act.dtype, device=act.device)
    return _launch(act, weight, out, bias, None, _plan_split_k(n, k, m, cu_count))


def wvSplitKQ(weight: torch.Tensor, act: torch.Tensor, out_dtype: torch.dtype, scale_a: torch.Tensor,
              scale_b: torch.Tensor, cu_count: int, bias: torch.Tensor | None = None) -> torch.Tensor:
    """``(act @ weight.T) * scale_a * scale_b (+ bias)`` for float8_e4m3fn inputs,
    1 <= n <= 4, k % 16 == 0, per-tensor fp32 scales, output fp16/bf16."""
    op = "wvSplitKQ"
    if _FP8_DTYPE is None:
        raise _fail(RuntimeError, op, "this torch build has no float8_e4m3fn")
    n, k, m = _check_operands(op, weight, act, (_FP8_DTYPE,), 16, (1, 4))
    if out_dtype not in _HALF_DTYPES:
        raise _fail(TypeError, op, f"out_dtype={out_dtype} is not supported; expected float16 or bfloat16")
    for name, s in (("scale_a", scale_a), ("scale_b", scale_b)):
        s = _check_tensor(op, name, s)
        if s.numel() != 1 or s.dtype != torch.float32:
            raise _fail(ValueError, op, f"{name} must be a per-tensor fp32 scale (numel 1), got shape "
                                        f"{tuple(s.shape)} dtype {_dtype_name(s.dtype)}")
        if s.device != act.device:
            raise _fail(ValueError, op, f"{name} is on {s.device}, the operands on {act.device}")
    cu_count = _check_cu_count(op, cu_count)
    bias = _check_bias(op, bias, n, m, out_dtype, act.device, allow_2d=False)
    out = torch.empty((n, m), dtype=out_dtype, device=act.device)
    return _launch(act, weight, out, bias, (scale_a, scale_b), _plan_split_k(n, k, m, cu_count))


def LLMM1(weight: torch.Tensor, act: torch.Tensor, rows_per_block: int) -> torch.Tensor:
    """``act @ weight.T`` for a single row (n == 1); fp16/bf16; ``rows_per_block`` in
    {2, 4, 8, 16} must divide m (each program owns a multiple of it, the whole K)."""
    op = "LLMM1"
    if rows_per_block not in (2, 4, 8, 16) or isinstance(rows_per_block, bool):
        raise _fail(ValueError, op, f"rows_per_block={rows_per_block!r} must be one of 2, 4, 8, 16")
    n, k, m = _check_operands(op, weight, act, _HALF_DTYPES, 8, (1, 1))
    if m % rows_per_block:
        raise _fail(ValueError, op, f"m={m} must be a multiple of rows_per_block={rows_per_block}")
    if is_interpreter():
        block_m, block_k = max(rows_per_block, min(256, _next_pow2(m))), min(1024, max(16, _next_pow2(k)))
    else:
        block_m, block_k = max(rows_per_block, 16) * 4, 128
    plan = _Plan(16, block_m, block_k, triton.cdiv(k, block_k) * block_k, 1, 1, split_k=False)
    out = torch.empty((n, m), dtype=act.dtype, device=act.device)
    return _launch(act, weight, out, None, None, plan)


def _krc_geometry(n: int, k: int, m: int) -> tuple[int, int, int]:
    """(next_pow2(n), K shards, groups sharing a weight tile) as in upstream."""
    n_p2 = _next_pow2(n)
    shards = triton.cdiv(k, KRC_K_SHARD)
    groups = min(max(n_p2 // 16, 1), 4)
    return n_p2, shards, groups


def fits_wvsplitkrc(n: int, k: int, m: int, cu_count: int) -> bool:
    """Upstream's rule: the fp32 partials fit the workspace and one wave of programs
    fits the device: ``next_pow2(n)*m*ceil(k/512) <= 128*1024*12`` and
    ``ceil(m/64)*ceil(k/512)*min(next_pow2(n)/16, 4) <= cu_count``."""
    n_p2, shards, groups = _krc_geometry(n, k, m)
    fits_ws = n_p2 * m * shards <= KRC_WORKSPACE_FLOATS
    fits_cus = triton.cdiv(m, KRC_M_TILE) * shards * groups <= cu_count
    return fits_ws and fits_cus


_KRC_WORKSPACES: dict[torch.device, torch.Tensor] = {}


def _krc_workspace(dev: torch.device) -> torch.Tensor:
    ws = _KRC_WORKSPACES.get(dev)
    if ws is None:
        ws = _KRC_WORKSPACES[dev] = torch.empty(KRC_WORKSPACE_FLOATS, dtype=torch.float32, device=dev)
    return ws


def wvSplitKrc(act: torch.Tensor, weight: torch.Tensor, cu_count: int, bias: torch.Tensor | None = None) -> torch.Tensor:
    """``act @ weight.T (+ bias)`` for 13 <= n <= 128 (fp16/bf16, k % 8 == 0): n is
    bucketed up to 16/32/64/128, K split into 512-wide shards whose fp32 partials go to
    a fixed 128*1024*12-float workspace, then reduced in shard order. Raises
    ``ValueError`` when the problem does not fit (see :func:`fits_wvsplitkrc`)."""
    op = "wvSplitKrc"
    n, k, m = _check_operands(op, weight, act, _HALF_DTYPES, 8, (13, 128))
    cu_count = _check_cu_count(op, cu_count)
    bias = _check_bias(op, bias, n, m, act.dtype, act.device)
    if not fits_wvsplitkrc(n, k, m, cu_count):
        n_p2, shards, groups = _krc_geometry(n, k, m)
        raise _fail(ValueError, op,
                    f"problem n={n}, k={k}, m={m} does not fit: needs {n_p2 * m * shards} workspace floats "
                    f"(limit {KRC_WORKSPACE_FLOATS}) and {triton.cdiv(m, KRC_M_TILE) * shards * groups} "
                    f"compute units (cu_count={cu_count}); check fits_wvsplitkrc() first")
    n_p2, shards, groups = _krc_geometry(n, k, m)
    if is_interpreter():
        # Same shards and workspace layout, fewer and larger programs.
        plan = _Plan(n_p2, min(256, max(16, _next_pow2(m))), KRC_K_SHARD, KRC_K_SHARD, shards, 1)
    else:
        # One program per (64-row tile, shard, group): exactly the CUs the rule counts.
        plan = _Plan(n_p2 // groups, KRC_M_TILE, 64, KRC_K_SHARD, shards, groups)
    out = torch.empty((n, m), dtype=act.dtype, device=act.device)
    return _launch(act, weight, out, bias, None, plan, workspace=_krc_workspace(act.device))
