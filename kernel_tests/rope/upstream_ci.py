"""SGLang's JIT RoPE test parametrization, as upstream wrote it (audit input only).

Source (facts, re-stated): SGLang ``python/sglang/jit_kernel/tests/test_rope.py``
(registered for CUDA CI). Every list there is ``get_ci_test_range(full, ci)``: the full
list in nightly runs, the ``ci`` sub-list in CI. Stacked single-name parametrize marks,
so each test is the full product of its lists:

=========================  ===============================  =================  ===========
test                       axes                             nightly (full)     CI
=========================  ===============================  =================  ===========
test_rope                  batch, gqa, kv heads, rope_dim,  24*3*3*4*2*2=3456  4*2*2*2*2*2=128
                           is_neox, dtype
test_rope_position_dtypes  int32 / int64                    2                  2
test_partial_rope          batch, is_neox, rope_dim,        24*2*4*3=576       4*2*2*2=32
                           head_dim (skips head < rope)     (144 skip)         (8 skip)
test_fused_rope_store      batch, gqa, kv heads, rope_dim,  24*3*3*4*2=1728    4*2*2*2*2=64
                           is_neox
=========================  ===============================  =================  ===========

How this file represents that, so an audit can say which pairs CI misses: each list is
declared in full (what the test stands for), and the values CI does not run are
``pytest.param(value, marks=pytest.mark.upstream_nightly_only)``; the family conftest
deselects every item holding one, so what is collected is exactly upstream's CI run
(226 items). ``pairwise-param report`` measures a hand-written table over its declared
values and its collected rows: the pairs that only nightly runs reach show up as missing.
Dtypes are strings (no torch needed); the bodies only check their arguments.

Not named ``test_*.py``: a normal ``pytest kernel_tests`` run does not collect it
(``pairwise-param report kernel_tests/rope/upstream_ci.py``, or
``python benchmarks/upstream_ci_audit.py``).
"""

import pytest

#: Read by benchmarks/upstream_ci_audit.py: our suite, and the option axes on both sides
#: (upstream writes its per-token options as stacked parametrize; batch is a shape on our side).
AUDIT_SUITE = "test_rope.py"
AUDIT_OPTION_AXES = ["gqa_ratio", "num_kv_heads", "rope_dim", "is_neox", "dtype", "head_dim"]

NIGHTLY_ONLY = pytest.mark.upstream_nightly_only


def get_ci_test_range(full, ci):
    """Upstream's helper, declared in full: values outside ``ci`` carry the nightly-only mark."""
    return [v if v in ci else pytest.param(v, marks=NIGHTLY_ONLY) for v in full]


BS_LIST = [2**x for x in range(12)]
BS_LIST += [x + 1 for x in BS_LIST]  # odd sizes to stress non-aligned paths
BS_LIST = get_ci_test_range(BS_LIST, [1, 129, 2048, 2049])
NUM_KV_HEADS_LIST = get_ci_test_range([1, 2, 8], [1, 8])
GQA_RATIO = get_ci_test_range([1, 4, 8], [1, 8])
ROPE_DIM_LIST = get_ci_test_range([64, 128, 256, 512], [64, 256])
IS_NEOX_LIST = [False, True]
DTYPE_LIST = get_ci_test_range(["bfloat16", "float16"], ["bfloat16", "float16"])
PARTIAL_ROPE_DIM_LIST = get_ci_test_range([64, 80, 96, 128], [64, 96])
HEAD_DIM_LIST = get_ci_test_range([64, 128, 256], [64, 256])


@pytest.mark.parametrize("batch_size", BS_LIST)
@pytest.mark.parametrize("gqa_ratio", GQA_RATIO)
@pytest.mark.parametrize("num_kv_heads", NUM_KV_HEADS_LIST)
@pytest.mark.parametrize("rope_dim", ROPE_DIM_LIST)
@pytest.mark.parametrize("is_neox", IS_NEOX_LIST)
@pytest.mark.parametrize("dtype", DTYPE_LIST)
def test_rope(batch_size, gqa_ratio, num_kv_heads, rope_dim, is_neox, dtype):
    assert rope_dim % 2 == 0 and num_kv_heads * gqa_ratio >= 1


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_rope_position_dtypes(dtype):
    assert dtype in ("int32", "int64")


@pytest.mark.parametrize("batch_size", BS_LIST)
@pytest.mark.parametrize("is_neox", IS_NEOX_LIST)
@pytest.mark.parametrize("rope_dim", PARTIAL_ROPE_DIM_LIST)
@pytest.mark.parametrize("head_dim", HEAD_DIM_LIST)
def test_partial_rope(batch_size, is_neox, rope_dim, head_dim):
    if head_dim < rope_dim:
        pytest.skip("Invalid config: head_dim must be >= rope_dim.")


@pytest.mark.parametrize("batch_size", BS_LIST)
@pytest.mark.parametrize("gqa_ratio", GQA_RATIO)
@pytest.mark.parametrize("num_kv_heads", NUM_KV_HEADS_LIST)
@pytest.mark.parametrize("rope_dim", ROPE_DIM_LIST)
@pytest.mark.parametrize("is_neox", IS_NEOX_LIST)
def test_fused_rope_store(batch_size, gqa_ratio, num_kv_heads, rope_dim, is_neox):
    assert rope_dim % 2 == 0
