"""Hypothesis shape fuzzing of RoPE: the options come from a covering table, the shapes
(batch, kv heads, GQA ratio, rotary_dim, extra channels beyond it, cache length) are
drawn. Upstream's tables only ever use rotary_dim in {64, 80, 96, 128, 256, 512} and
head_dim == rotary_dim or a power of two; here any even rotary_dim (a tile that is not
a power of two), any tail, positions up to the last cache row (``max_pos`` down to 1),
int32 positions / slots and non-contiguous views all meet.

Hypothesis settings come from the profiles in ``kernel_tests/conftest.py`` (``kernel-ci``:
derandomized, used when ``CI`` or ``HYPOTHESIS_PROFILE=ci`` is set), with 8 examples per
item. Under the Triton interpreter the shapes stay small (and within the family's
budget); on a GPU they reach upstream's sizes.
"""

from __future__ import annotations

import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from kernel_tests.rope.cases import (
    BUDGET,
    DTYPES,
    IS_NEOX,
    LAYOUTS,
    POSITION_DTYPES,
    check_fused_store,
    check_rope,
)
from kernel_tests.rope.kernels import GPU_BLOCK_R, gpu_block_r
from kernel_tests.support.platform import is_interpreter
from pairwise_param import pairwise

SMALL = is_interpreter()
BATCH_MAX = 48 if SMALL else 4096
KV_HEADS_MAX = 4 if SMALL else 8
GQA_MAX = 4 if SMALL else 8
HALF_MAX = 64 if SMALL else 256  # rotary_dim = 2 * half
TAIL_MAX = 40 if SMALL else 256
MAX_POS_MAX = 4096 if SMALL else 131072
#: The GPU's BLOCK_R buckets of the rotated half (kernels.GPU_BLOCK_R, reached by halves up
#: to HALF_MAX): a compile axis of the table, so every bucket meets every option pairwise
#: and the fuzz compiles no variant the table does not choose (issue 39; before, the drawn
#: half picked the bucket at random, so each option row compiled both).
BLOCK_R_BUCKETS = [b for b in GPU_BLOCK_R if b <= HALF_MAX or b == GPU_BLOCK_R[0]]
#: Examples per item; the rest of the settings come from the loaded profile.
FUZZ = settings(max_examples=8)


def flat_is_not_fused(fused: bool, layout: str) -> bool:
    """The fused store has no ``head_dim=`` form (upstream's neither): no such row."""
    return not (fused and layout == "flat")


@pairwise(is_neox=IS_NEOX, dtype=DTYPES, pos_dtype=POSITION_DTYPES, layout=LAYOUTS, fused=[False, True],
          block_r=BLOCK_R_BUCKETS, constraints=[flat_is_not_fused],
          compile_axes=["is_neox", "dtype", "pos_dtype", "fused", "block_r"])
@FUZZ
@given(batch=st.integers(1, BATCH_MAX), kv_heads=st.integers(1, KV_HEADS_MAX), gqa=st.integers(1, GQA_MAX),
       data=st.data(), tail=st.integers(0, TAIL_MAX), max_pos=st.integers(1, MAX_POS_MAX),
       seed=st.integers(0, 2**16))
@torch.inference_mode()
def test_rope_fuzz(backend, device, is_neox, dtype, pos_dtype, layout, fused, block_r, batch, kv_heads, gqa, data,
                   tail, max_pos, seed):
    # the rotated half is drawn inside the row's BLOCK_R bucket
    low = max((b for b in BLOCK_R_BUCKETS if b < block_r), default=0) + 1
    half = data.draw(st.integers(low, min(block_r, HALF_MAX)), label="half")
    assert gpu_block_r(half) == block_r
    rope_dim, q_heads = 2 * half, kv_heads * gqa
    head_dim = rope_dim + tail
    assume(BUDGET.over(batch, q_heads, kv_heads, head_dim, fused=fused) is None)
    if fused:
        check_fused_store(backend, device, batch, q_heads, kv_heads, rope_dim, head_dim, is_neox, dtype,
                          pos_dtype=pos_dtype, layout=layout, seed=seed, max_pos=max_pos)
    else:
        check_rope(backend, device, batch, q_heads, kv_heads, rope_dim, head_dim, is_neox, dtype,
                   pos_dtype=pos_dtype, layouts=(layout,), seed=seed, max_pos=max_pos)
