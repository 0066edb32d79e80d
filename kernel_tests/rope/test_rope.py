"""RoPE in place (NeoX / GPT-J, GQA, partial rotary, fused KV-cache store) against the reference.

Upstream (sglang's ``jit_kernel/tests/test_rope.py``) runs each test as a full product of
stacked parametrize lists: 3456 + 576 + 2 + 1728 = 5762 cases (144 of the 576 skipped:
``head_dim < rope_dim``). Here the batch sizes stay an ordinary full-product parametrize
(they are the shapes: tile tails, one vs many programs) and the per-token options go
through ``@pairwise``, every pair of option values covered; ``--pairwise-mode=full`` gives
back upstream's products. Upstream's conditional axis (``if head_dim < rope_dim:
pytest.skip``) is a constraint here, so the table never holds the impossible row and
``pairwise-param report`` lists the forbidden pairs as infeasible instead of missing.

Under the Triton interpreter the CPU budget skips whole batch sizes ("shapes not run", as
RMSNorm's do), never single option rows: a batch size runs when the costliest option row
the table could hold fits (:func:`skip_shape_over_budget`), so every shape that runs covers
every pair, and ``pairwise-param report --run .pytest_cache --fail-under 100`` passes.

Inputs, references, tolerances and the CPU budget: ``cases.py``. Shape fuzzing:
``test_fuzz.py``. Bad inputs: ``test_errors.py``. Upstream's CI lists: ``upstream_ci.py``.
"""

from __future__ import annotations

import pytest
import torch

from kernel_tests.rope.cases import (
    BATCH_SIZES,
    BUDGET,
    DTYPES,
    FUSED_DTYPE,
    GQA_RATIOS,
    HEAD_DIMS,
    IS_NEOX,
    NUM_KV_HEADS,
    PARTIAL_DTYPE,
    PARTIAL_KV_HEADS,
    PARTIAL_Q_HEADS,
    PARTIAL_ROPE_DIMS,
    POSITION_CASE,
    POSITION_DTYPES,
    ROPE_DIMS,
    check_fused_store,
    check_rope,
    rope_variant,
)
from pairwise_param import pairwise


def rope_fits_head(rope_dim: int, head_dim: int) -> bool:
    """Upstream skips ``head_dim < rope_dim`` ("Invalid config"): never a row here."""
    return head_dim >= rope_dim


def skip_shape_over_budget(batch_size: int, head_dims: list[int], *, fused: bool = False,
                           q_heads: int | None = None, kv_heads: int | None = None) -> None:
    """Skip the whole batch size (every option row of it) when the costliest row the table
    could hold is over the interpreter's budget: the budget then removes shapes, not pairs.
    Without ``q_heads`` / ``kv_heads`` the costliest row takes the largest GQA ratio and
    KV head count."""
    kv = max(NUM_KV_HEADS) if kv_heads is None else kv_heads
    q = kv * max(GQA_RATIOS) if q_heads is None else q_heads
    BUDGET.skip_if_over(batch_size, q, kv, max(head_dims), fused=fused)


@pairwise(gqa_ratio=GQA_RATIOS, num_kv_heads=NUM_KV_HEADS, rope_dim=ROPE_DIMS, is_neox=IS_NEOX, dtype=DTYPES,
          compile_axes=["rope_dim", "is_neox", "dtype"], compile_key=rope_variant)
@pytest.mark.parametrize("batch_size", BATCH_SIZES)
@torch.inference_mode()
def test_rope(backend, device, batch_size, gqa_ratio, num_kv_heads, rope_dim, is_neox, dtype):
    q_heads = num_kv_heads * gqa_ratio
    skip_shape_over_budget(batch_size, ROPE_DIMS)
    check_rope(backend, device, batch_size, q_heads, num_kv_heads, rope_dim, rope_dim, is_neox, dtype)


# Upstream's two cases at one fixed shape: nothing to cover pairwise.
@pytest.mark.parametrize("pos_dtype", POSITION_DTYPES, ids=["int32", "int64"])
@torch.inference_mode()
def test_rope_position_dtypes(backend, device, pos_dtype):
    batch, q_heads, kv_heads, rope_dim = POSITION_CASE
    BUDGET.skip_if_over(batch, q_heads, kv_heads, rope_dim)
    check_rope(backend, device, batch, q_heads, kv_heads, rope_dim, rope_dim, True, torch.bfloat16,
               pos_dtype=pos_dtype)


@pairwise(is_neox=IS_NEOX, rope_dim=PARTIAL_ROPE_DIMS, head_dim=HEAD_DIMS, constraints=[rope_fits_head],
          compile_axes=["is_neox", "rope_dim"], compile_key=rope_variant)
@pytest.mark.parametrize("batch_size", BATCH_SIZES)
@torch.inference_mode()
def test_partial_rope(backend, device, batch_size, is_neox, rope_dim, head_dim):
    # As upstream's CI version: the sliced view q[..., :rope_dim] and the flat
    # [T, H * head_dim] form with head_dim=, each on its own copy of the inputs.
    skip_shape_over_budget(batch_size, HEAD_DIMS, q_heads=PARTIAL_Q_HEADS, kv_heads=PARTIAL_KV_HEADS)
    check_rope(backend, device, batch_size, PARTIAL_Q_HEADS, PARTIAL_KV_HEADS, rope_dim, head_dim, is_neox,
               PARTIAL_DTYPE, layouts=("view", "flat"))


@pairwise(gqa_ratio=GQA_RATIOS, num_kv_heads=NUM_KV_HEADS, rope_dim=ROPE_DIMS, is_neox=IS_NEOX,
          compile_axes=["rope_dim", "is_neox"], compile_key=rope_variant)
@pytest.mark.parametrize("batch_size", BATCH_SIZES)
@torch.inference_mode()
def test_fused_rope_store(backend, device, batch_size, gqa_ratio, num_kv_heads, rope_dim, is_neox):
    q_heads = num_kv_heads * gqa_ratio
    skip_shape_over_budget(batch_size, ROPE_DIMS, fused=True)
    check_fused_store(backend, device, batch_size, q_heads, num_kv_heads, rope_dim, rope_dim, is_neox, FUSED_DTYPE)
