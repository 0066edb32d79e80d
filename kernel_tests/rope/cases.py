"""Shared facts and checks of the RoPE suites (table-driven tests and fuzzing).

Shapes and option values mirror sglang's ``python/sglang/jit_kernel/tests/test_rope.py``
(facts, re-stated): batch sizes ``2**0 .. 2**11`` plus each + 1, kv heads, GQA ratio,
rope dims, NeoX/GPT-J, dtypes; partial rotary ``rope_dim x head_dim``; int32/int64
positions; the fused KV-cache store. Upstream compares against flashinfer with
atol = rtol = 1e-2 and requires the v cache to match exactly; so do we (against
:func:`kernel_tests.rope.reference.reference_rope`: flashinfer on CUDA when importable,
the fp32 PyTorch reference otherwise). The tolerance travels with the dtype
(:func:`tolerance`), never as an axis of a covering table.

Beyond upstream's checks, every case also proves what a RoPE kernel must not do: the
channels beyond ``rotary_dim`` stay bit-identical, ``v`` is not modified, and no cache
row outside ``out_loc`` is written.

CPU runs (Triton interpreter): cases above :data:`BUDGET` are skipped with a reason,
and two sizes that are memory rather than shape shrink (see :func:`max_position` and
:func:`kv_cache_rows`). On a GPU every case runs at upstream's sizes.
"""

from __future__ import annotations

import functools

import torch

from kernel_tests.rope.backend import RopeBackend
from kernel_tests.rope.reference import create_cos_sin_cache, reference_rope
from kernel_tests.support.asserts import assert_close_verbose
from kernel_tests.support.budget import InterpreterBudget
from kernel_tests.support.inputs import generator
from kernel_tests.support.phases import phase
from kernel_tests.support.platform import is_interpreter

# ----------------------------------------------------------------------------- upstream's axes

BATCH_SIZES = [2**x for x in range(12)]
BATCH_SIZES += [x + 1 for x in BATCH_SIZES]  # odd sizes: non-aligned tails
NUM_KV_HEADS = [1, 2, 8]
GQA_RATIOS = [1, 4, 8]
ROPE_DIMS = [64, 128, 256, 512]
IS_NEOX = [False, True]
DTYPES = [torch.bfloat16, torch.float16]
PARTIAL_ROPE_DIMS = [64, 80, 96, 128]
HEAD_DIMS = [64, 128, 256]
#: Upstream's partial-rotary heads (fixed).
PARTIAL_Q_HEADS, PARTIAL_KV_HEADS = 8, 2
#: Upstream's dtype in the partial-rotary and fused-store tests (fixed).
PARTIAL_DTYPE = FUSED_DTYPE = torch.bfloat16
POSITION_DTYPES = [torch.int32, torch.int64]
#: Upstream's shape for the position-dtype test: (batch, q heads, kv heads, rope_dim), NeoX.
POSITION_CASE = (16384, 16, 2, 128)


def rope_variant(rope_dim: int, is_neox: bool, dtype: torch.dtype = FUSED_DTYPE) -> tuple[int, bool, str]:
    """The tables' ``compile_key``: what a row compiles on a GPU. ``rope_dim`` reaches the
    kernel only as its ``BLOCK_R`` bucket (:func:`kernel_tests.rope.kernels.gpu_block_r`),
    so 64 and 128 (halves 32 and 64) are one variant, 256 and 512 another."""
    from kernel_tests.rope.kernels import gpu_block_r

    return gpu_block_r(rope_dim // 2), bool(is_neox), str(dtype)


#: How q/k reach the op. ``full``: ``[T, H, D]`` as allocated (D > rotary_dim: partial
#: rotary on the whole head); ``view``: upstream's ``x[..., :rotary_dim]`` of wider heads
#: (non-contiguous); ``flat``: ``[T, H * D]`` with ``head_dim=D`` (upstream's full form).
LAYOUTS = ["full", "view", "flat"]

#: Upstream's sizes that are memory, not shape: positions are drawn from
#: ``[0, MAX_SEQ_LEN)`` and the KV caches have ``KV_CACHE_ROWS`` rows.
MAX_SEQ_LEN = 131072
KV_CACHE_ROWS = 1024 * 128
#: Under the interpreter: a 4096-row cos/sin cache (a 131072 x 512 one is 256 MiB and a
#: second to build per worker) and caches of ``2 * batch + 16`` rows (upstream's are
#: 1 GiB each at 8 kv heads x 512).
CPU_MAX_SEQ_LEN = 4096


def max_position() -> int:
    """Rows of the cos/sin cache the tests build (positions are drawn below it)."""
    return CPU_MAX_SEQ_LEN if is_interpreter() else MAX_SEQ_LEN


def kv_cache_rows(batch: int) -> int:
    """Rows of the fused store's KV caches (slots are a random subset of them)."""
    return 2 * batch + 16 if is_interpreter() else KV_CACHE_ROWS


def tolerance(dtype: torch.dtype) -> tuple[float, float]:
    """(atol, rtol): upstream's 1e-2 / 1e-2 for both half types. One bf16 ulp at |x| in
    [4, 8) is 0.031 < 0.01 + 0.01*4, so even a one-ulp rounding flip passes; a wrong
    angle, pair or sign does not (errors are O(|x|))."""
    if dtype not in (torch.bfloat16, torch.float16):
        raise ValueError(f"no RoPE tolerance for {dtype}; upstream tests bfloat16 and float16")
    return 1e-2, 1e-2


# ----------------------------------------------------------------------------- CPU budget


def interpreter_cost(batch: int, q_heads: int, kv_heads: int, head_dim: int, fused: bool = False) -> int:
    """Elements one case moves: every q and k head of every token, ``head_dim`` channels;
    the fused store moves each k head twice more (k cache, v -> v cache). The
    interpreter spends about 0.6 us per element on one core (measured: 129 tokens x 72
    heads x 512 in 3.0 s), so 4e5 is a quarter of a second."""
    return batch * (q_heads + kv_heads * (3 if fused else 1)) * head_dim


BUDGET = InterpreterBudget(
    env="KERNEL_TESTS_ROPE_CPU_BUDGET", default=4e5, cost=interpreter_cost,
    unit="batch*(q_heads + kv_heads [x3 with the fused store])*head_dim elements",
)


# ----------------------------------------------------------------------------- inputs


@functools.lru_cache(maxsize=8)
def _shared_cos_sin_cache(rotary_dim: int, max_pos: int, device: torch.device) -> torch.Tensor:
    return create_cos_sin_cache(rotary_dim, max_pos, device=device)


def cos_sin_cache(rotary_dim: int, max_pos: int | None, device: torch.device) -> torch.Tensor:
    """Upstream's cache (base 1e4). With ``max_pos=None`` (the table-driven tests:
    :func:`max_position` rows) it is built once per (rotary_dim, device) per process,
    since the ops only read it (8 rotary dims x 256 MiB at most on a GPU); a drawn
    ``max_pos`` (fuzzing) gets a fresh one, so no worker hoards caches."""
    if max_pos is None:
        return _shared_cos_sin_cache(rotary_dim, max_position(), device)
    return create_cos_sin_cache(rotary_dim, max_pos, device=device)


def randn(shape: tuple[int, ...], dtype: torch.dtype, gen: torch.Generator, device: torch.device) -> torch.Tensor:
    """Standard normal values in ``dtype`` (as upstream's ``torch.randn``), from ``gen``."""
    return torch.randn(shape, generator=gen, device=device).to(dtype)


def bitwise_equal(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Same shape, dtype and bits (``-0.0`` differs from ``0.0``; NaNs compare by payload)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    ints = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[a.element_size()]
    return torch.equal(a.contiguous().view(ints), b.contiguous().view(ints))


def _operand(x: torch.Tensor, layout: str, rot: int) -> torch.Tensor:
    if layout == "full":
        return x
    if layout == "view":
        return x[..., :rot]
    if layout == "flat":
        return x.view(x.shape[0], -1)
    raise ValueError(f"unknown layout {layout!r}; expected one of {LAYOUTS}")


# ----------------------------------------------------------------------------- checks


def check_rope(backend: RopeBackend, device: torch.device, batch: int, q_heads: int, kv_heads: int,
               rope_dim: int, head_dim: int, is_neox: bool, dtype: torch.dtype,
               pos_dtype: torch.dtype = torch.int64, layouts: tuple[str, ...] = ("full",),
               seed: int = 0, max_pos: int | None = None) -> None:
    """RoPE in place on random q/k, once per layout, against the reference: rotated
    channels within tolerance, channels beyond ``rope_dim`` bit-identical."""
    with phase("inputs"):
        gen = generator(seed, device)
        cache = cos_sin_cache(rope_dim, max_pos, device)
        q = randn((batch, q_heads, head_dim), dtype, gen, device)
        k = randn((batch, kv_heads, head_dim), dtype, gen, device)
        positions = torch.randint(0, cache.shape[0], (batch,), generator=gen, device=device).to(pos_dtype)
    with phase("reference"):
        q_ref, k_ref = reference_rope(q, k, cache, positions, is_neox=is_neox)
    atol, rtol = tolerance(dtype)
    for layout in layouts:
        with phase("inputs"):
            q1, k1 = q.clone(), k.clone()
        head_dim_arg = head_dim if layout == "flat" else 0
        with phase("kernel"):
            backend.apply_rope_inplace(_operand(q1, layout, rope_dim), _operand(k1, layout, rope_dim), cache,
                                       positions, is_neox=is_neox, head_dim=head_dim_arg)
        where = (f"{backend.name} rope batch={batch} heads={q_heads}/{kv_heads} rope_dim={rope_dim} "
                 f"head_dim={head_dim} neox={is_neox} {layout}")
        with phase("compare"):
            assert_close_verbose(q1, q_ref, atol, rtol, context=f"{where}: q")
            assert_close_verbose(k1, k_ref, atol, rtol, context=f"{where}: k")
            assert bitwise_equal(q1[..., rope_dim:], q[..., rope_dim:]), f"{where}: q channels >= rope_dim changed"
            assert bitwise_equal(k1[..., rope_dim:], k[..., rope_dim:]), f"{where}: k channels >= rope_dim changed"


def check_fused_store(backend: RopeBackend, device: torch.device, batch: int, q_heads: int, kv_heads: int,
                      rope_dim: int, head_dim: int, is_neox: bool, dtype: torch.dtype,
                      pos_dtype: torch.dtype = torch.int64, layout: str = "full", seed: int = 0,
                      max_pos: int | None = None) -> None:
    """Fused RoPE + KV-cache store against "RoPE, then scatter": q and k as
    :func:`check_rope`; ``k_cache[out_loc]`` holds the rotated k (tolerance), ``v_cache[out_loc]``
    holds v bit for bit, v is unchanged and every other cache row is still zero."""
    if layout == "flat":
        raise ValueError("the fused store takes 3-D q/k/v (upstream has no head_dim= form for it)")
    with phase("inputs"):
        gen = generator(seed, device)
        cache = cos_sin_cache(rope_dim, max_pos, device)
        q = randn((batch, q_heads, head_dim), dtype, gen, device)
        k = randn((batch, kv_heads, head_dim), dtype, gen, device)
        v = randn((batch, kv_heads, head_dim), dtype, gen, device)
        positions = torch.randint(0, cache.shape[0], (batch,), generator=gen, device=device).to(pos_dtype)
        rows = kv_cache_rows(batch)
        out_loc = torch.randperm(rows, generator=gen, device=device)[:batch].to(pos_dtype)
        width = rope_dim if layout == "view" else head_dim  # the head size the op sees
        k_cache = torch.zeros((rows, kv_heads * width), dtype=dtype, device=device)
        v_cache = torch.zeros_like(k_cache)
        q1, k1, v1 = q.clone(), k.clone(), v.clone()
    with phase("reference"):
        q_ref, k_ref = reference_rope(q, k, cache, positions, is_neox=is_neox)
    with phase("kernel"):
        backend.apply_rope_inplace_with_kvcache(
            _operand(q1, layout, rope_dim), _operand(k1, layout, rope_dim), _operand(v1, layout, rope_dim),
            k_cache, v_cache, cache, positions, out_loc, is_neox=is_neox)
    atol, rtol = tolerance(dtype)
    where = (f"{backend.name} fused store batch={batch} heads={q_heads}/{kv_heads} rope_dim={rope_dim} "
             f"head_dim={head_dim} neox={is_neox} {layout}")
    with phase("compare"):
        assert_close_verbose(q1, q_ref, atol, rtol, context=f"{where}: q")
        assert_close_verbose(k1, k_ref, atol, rtol, context=f"{where}: k")
        assert bitwise_equal(q1[..., rope_dim:], q[..., rope_dim:]), f"{where}: q channels >= rope_dim changed"
        assert bitwise_equal(v1, v), f"{where}: v was modified"
        loc = out_loc.long()
        assert_close_verbose(k_cache[loc], k_ref[..., :width].reshape(batch, -1), atol, rtol,
                             context=f"{where}: k_cache[out_loc]")
        assert bitwise_equal(k_cache[loc].view(batch, kv_heads, width)[..., rope_dim:], k[..., rope_dim:width]), \
            f"{where}: k_cache channels >= rope_dim are not k's"
        assert bitwise_equal(v_cache[loc], v[..., :width].reshape(batch, -1)), f"{where}: v_cache[out_loc] != v"
        k_cache[loc] = 0
        v_cache[loc] = 0
        assert not bool(k_cache.any()) and not bool(v_cache.any()), f"{where}: a cache row outside out_loc was written"
