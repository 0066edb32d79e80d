"""Bad inputs: both RoPE ops reject them with a clear error before launching.

The Triton launchers raise ``TypeError`` (dtypes) or ``ValueError`` (shapes, strides,
ranges) whose message names the op and the offending value, and leave every tensor
untouched; sglang's native ops raise their own errors, so for them only the rejection
is checked (and only for inputs upstream also rejects: the cases marked ``ours``
are contracts of our launchers, e.g. the host-side range checks).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
import torch

from kernel_tests.rope.reference import create_cos_sin_cache

BF16 = torch.bfloat16
T, HQ, HK, D, ROT, MAX_POS, ROWS = 3, 4, 2, 64, 64, 16, 8


@dataclass
class Args:
    """Valid arguments of both ops; each error case breaks exactly one thing."""

    device: torch.device
    q: torch.Tensor = field(init=False)
    k: torch.Tensor = field(init=False)
    v: torch.Tensor = field(init=False)
    k_cache: torch.Tensor = field(init=False)
    v_cache: torch.Tensor = field(init=False)
    cache: torch.Tensor = field(init=False)
    positions: torch.Tensor = field(init=False)
    out_loc: torch.Tensor = field(init=False)

    def __post_init__(self) -> None:
        d = self.device
        gen = torch.Generator(device=d).manual_seed(0)
        self.q = torch.randn((T, HQ, D), generator=gen, device=d).to(BF16)
        self.k = torch.randn((T, HK, D), generator=gen, device=d).to(BF16)
        self.v = torch.randn((T, HK, D), generator=gen, device=d).to(BF16)
        self.k_cache = torch.zeros((ROWS, HK * D), dtype=BF16, device=d)
        self.v_cache = torch.zeros((ROWS, HK * D), dtype=BF16, device=d)
        self.cache = create_cos_sin_cache(ROT, MAX_POS, device=d)
        self.positions = torch.tensor([0, 5, MAX_POS - 1], dtype=torch.int64, device=d)
        self.out_loc = torch.tensor([1, 0, ROWS - 1], dtype=torch.int64, device=d)

    def snapshot(self) -> list[torch.Tensor]:
        return [t.clone() for t in (self.q, self.k, self.v, self.k_cache, self.v_cache)]

    def unchanged(self, before: list[torch.Tensor]) -> bool:
        return all(torch.equal(a, b) for a, b in zip(before, (self.q, self.k, self.v, self.k_cache, self.v_cache)))


def rope(b: Any, a: Args, **over: Any) -> None:
    """``apply_rope_inplace`` with the valid arguments, some replaced."""
    kw: dict[str, Any] = {"q": a.q, "k": a.k, "cos_sin_cache": a.cache, "positions": a.positions}
    opts: dict[str, Any] = {"is_neox": True}
    for name, value in over.items():
        (opts if name in ("is_neox", "rope_dim", "head_dim") else kw)[name] = value
    b.apply_rope_inplace(kw["q"], kw["k"], kw["cos_sin_cache"], kw["positions"], **opts)


def fused(b: Any, a: Args, **over: Any) -> None:
    """``apply_rope_inplace_with_kvcache`` with the valid arguments, some replaced."""
    kw: dict[str, Any] = {"q": a.q, "k": a.k, "v": a.v, "k_cache": a.k_cache, "v_cache": a.v_cache,
                          "cos_sin_cache": a.cache, "positions": a.positions, "out_loc": a.out_loc}
    opts: dict[str, Any] = {"is_neox": False}
    for name, value in over.items():
        (opts if name in ("is_neox", "rope_dim") else kw)[name] = value
    b.apply_rope_inplace_with_kvcache(kw["q"], kw["k"], kw["v"], kw["k_cache"], kw["v_cache"], kw["cos_sin_cache"],
                                      kw["positions"], kw["out_loc"], **opts)


def _pos(values: list[int], a: Args, dtype: torch.dtype = torch.int64) -> torch.Tensor:
    return torch.tensor(values, dtype=dtype, device=a.device)


Case = tuple[str, Callable[[Any, Args], None], type[Exception], str, bool]
OURS = True  # a contract of our launchers only (native ops may accept it or fail differently)

# (description, call(backend, args), exception, message pattern, ours-only)
CASES: list[Case] = [
    # dtypes
    ("int q", lambda b, a: rope(b, a, q=a.q.to(torch.int32)), TypeError,
     r"apply_rope_inplace: q\.dtype=int32 is not supported", False),
    ("q and k dtypes differ", lambda b, a: rope(b, a, k=a.k.half()), TypeError,
     r"q\.dtype=bfloat16 and k\.dtype=float16 differ", False),
    ("bf16 cos/sin cache", lambda b, a: rope(b, a, cos_sin_cache=a.cache.to(BF16)), TypeError,
     r"cos_sin_cache\.dtype=bfloat16 must be float32", False),
    ("float positions", lambda b, a: rope(b, a, positions=a.positions.float()), TypeError,
     r"positions\.dtype=float32 must be int32 or int64", False),
    ("q not a tensor", lambda b, a: rope(b, a, q=a.q.tolist()), TypeError,
     r"q must be a torch\.Tensor, got list", OURS),
    ("is_neox not a bool", lambda b, a: rope(b, a, is_neox=1), TypeError, r"is_neox=1 must be a bool", OURS),
    ("fp16 k_cache", lambda b, a: fused(b, a, k_cache=a.k_cache.half()), TypeError,
     r"apply_rope_inplace_with_kvcache: k_cache\.dtype=float16 must be k's dtype bfloat16", False),
    ("fp32 v", lambda b, a: fused(b, a, v=a.v.float()), TypeError, r"v\.dtype=float32 must be k's dtype", False),
    ("float out_loc", lambda b, a: fused(b, a, out_loc=a.out_loc.float()), TypeError,
     r"out_loc\.dtype=float32 must be int32 or int64", False),
    # shapes
    ("4-D q", lambda b, a: rope(b, a, q=a.q[None]), ValueError,
     r"q must be \[num_tokens, heads, head_dim\]", False),
    ("2-D q without head_dim", lambda b, a: rope(b, a, q=a.q.view(T, -1), k=a.k.view(T, -1)), ValueError,
     r"q must be \[num_tokens, heads, head_dim\] \(or pass head_dim=", OURS),
    ("flat width not a multiple of head_dim", lambda b, a: rope(b, a, q=a.q.view(T, -1)[:, :-2], k=a.k.view(T, -1),
                                                                 head_dim=D), ValueError,
     r"with head_dim=64, q must be \[num_tokens, heads \* 64\]", OURS),
    ("3-D q with another head_dim", lambda b, a: rope(b, a, head_dim=2 * D), ValueError,
     r"q\.shape\[-1\]=64 differs from head_dim=128", OURS),
    ("negative head_dim", lambda b, a: rope(b, a, head_dim=-1), ValueError, r"head_dim=-1 must be a non-negative int",
     OURS),
    ("token counts differ", lambda b, a: rope(b, a, k=a.k[:2]), ValueError, r"q has 3 tokens and k 2", False),
    ("head sizes differ", lambda b, a: rope(b, a, k=torch.cat([a.k, a.k], -1)), ValueError,
     r"q head size 64 and k head size 128 differ", False),
    ("q heads not a multiple of k heads", lambda b, a: rope(b, a, q=a.q[:, :3]), ValueError,
     r"q has 3 heads and k 2: need >= 1 each and a whole GQA ratio", False),
    ("no k heads", lambda b, a: rope(b, a, k=a.k[:, :0]), ValueError, r"q has 4 heads and k 0", False),
    ("rotary_dim > head_dim", lambda b, a: rope(b, a, cos_sin_cache=create_cos_sin_cache(2 * D, MAX_POS,
                                                                                         device=a.device)),
     ValueError, r"rotary_dim=128 \(cos_sin_cache\.shape\[1\]\) exceeds head_dim=64", False),
    ("odd rotary_dim", lambda b, a: rope(b, a, cos_sin_cache=torch.zeros((MAX_POS, 63), device=a.device)),
     ValueError, r"rotary_dim=63 \(cos_sin_cache\.shape\[1\]\) must be even", False),
    ("negative rope_dim", lambda b, a: rope(b, a, rope_dim=-1), ValueError,
     r"rope_dim=-1 must be a non-negative int", OURS),
    ("column-major flat q", lambda b, a: rope(b, a, q=a.q.reshape(T, -1).t().contiguous().t(), k=a.k.reshape(T, -1),
                                              head_dim=D), ValueError,
     r"q must be contiguous in its last dimension", OURS),
    ("rope_dim differs from the cache", lambda b, a: rope(b, a, rope_dim=32), ValueError,
     r"rope_dim=32 differs from the cache width cos_sin_cache\.shape\[1\]=64", OURS),
    ("1-D cos/sin cache", lambda b, a: rope(b, a, cos_sin_cache=a.cache[0]), ValueError,
     r"cos_sin_cache must be \[max_pos, rotary_dim\]", False),
    ("column-major cos/sin cache", lambda b, a: rope(b, a, cos_sin_cache=a.cache.t().contiguous().t()), ValueError,
     r"cos_sin_cache rows must be contiguous", OURS),
    ("positions longer than the batch", lambda b, a: rope(b, a, positions=_pos([0, 1, 2, 3], a)), ValueError,
     r"positions must be \[num_tokens\] = \[3\], got shape \(4,\)", False),
    ("2-D positions", lambda b, a: rope(b, a, positions=a.positions[:, None]), ValueError,
     r"positions must be \[num_tokens\]", False),
    ("channel-strided q", lambda b, a: rope(b, a, q=a.q.transpose(1, 2).contiguous().transpose(1, 2)), ValueError,
     r"q must be contiguous in its last dimension", OURS),
    ("q and k on different devices", lambda b, a: rope(b, a, k=a.k.to("meta")), ValueError,
     r"must be on one device", OURS),
    ("positions on another device", lambda b, a: rope(b, a, positions=a.positions.to("meta")), ValueError,
     r"positions is on meta", OURS),
    # ranges (checked on the host: an out-of-range index would read outside the cache)
    ("position = max_pos", lambda b, a: rope(b, a, positions=_pos([0, MAX_POS, 1], a)), ValueError,
     r"positions holds 16, outside \[0, 16\) \(cos_sin_cache\.shape\[0\] = max_pos\)", OURS),
    ("negative int32 position", lambda b, a: rope(b, a, positions=_pos([0, -1, 1], a, torch.int32)), ValueError,
     r"positions holds -1, outside \[0, 16\)", OURS),
    ("slot = cache_size", lambda b, a: fused(b, a, out_loc=_pos([0, 1, ROWS], a)), ValueError,
     r"out_loc holds 8, outside \[0, 8\) \(k_cache\.shape\[0\] = cache_size\)", OURS),
    ("negative slot", lambda b, a: fused(b, a, out_loc=_pos([0, -3, 1], a)), ValueError,
     r"out_loc holds -3, outside \[0, 8\)", OURS),
    # fused store layout
    ("v with another head count", lambda b, a: fused(b, a, v=a.v[:, :1]), ValueError,
     r"v must have k's shape \(3, 2, 64\) \(or \[3, 128\]\), got \(3, 1, 64\)", False),
    ("k_cache rows of another width", lambda b, a: fused(b, a, k_cache=a.k_cache[:, :-1]), ValueError,
     r"k_cache must be \[cache_size, num_kv_heads \* head_dim\] = \[cache_size, 128\], got shape \(8, 127\)", False),
    ("3-D v_cache", lambda b, a: fused(b, a, v_cache=a.v_cache.view(ROWS, HK, D)), ValueError,
     r"v_cache must be \[cache_size, num_kv_heads \* head_dim\]", False),
    ("caches of different lengths", lambda b, a: fused(b, a, v_cache=a.v_cache[:-1]), ValueError,
     r"k_cache has 8 rows and v_cache 7", False),
    ("column-major k_cache", lambda b, a: fused(b, a, k_cache=a.k_cache.t().contiguous().t()), ValueError,
     r"k_cache rows must be contiguous", OURS),
    ("channel-strided v", lambda b, a: fused(b, a, v=a.v.transpose(1, 2).contiguous().transpose(1, 2)), ValueError,
     r"v must be contiguous in its last dimension", OURS),
    ("column-major flat v", lambda b, a: fused(b, a, v=a.v.reshape(T, -1).t().contiguous().t()), ValueError,
     r"v must be contiguous in its last dimension", OURS),
    ("v on another device", lambda b, a: fused(b, a, v=a.v.to("meta")), ValueError, r"v is on meta, k on", OURS),
    ("out_loc shorter than the batch", lambda b, a: fused(b, a, out_loc=a.out_loc[:2]), ValueError,
     r"out_loc must be \[num_tokens\] = \[3\], got shape \(2,\)", False),
]


def _raises(backend: Any, exc: type[Exception], pattern: str) -> Any:
    """Our launchers: the exact type and message; native ops: any rejection (their own errors)."""
    if backend.name == "triton":
        return pytest.raises(exc, match=pattern)
    return pytest.raises(Exception)


@pytest.mark.parametrize("what,call,exc,pattern,ours", CASES, ids=[c[0] for c in CASES])
def test_rejects_bad_input(backend, device, what, call, exc, pattern, ours):
    if backend.name != "triton" and ours:
        pytest.skip("a contract of our launchers (upstream's op does not promise this rejection)")
    args = Args(device)
    before = args.snapshot()
    with _raises(backend, exc, pattern):
        call(backend, args)
    assert args.unchanged(before), f"{what}: a tensor was modified before the error"


@pytest.mark.parametrize("op", ["rope", "fused"])
def test_valid_arguments_are_accepted(backend, device, op):
    """The base arguments of :data:`CASES` are valid, so each case fails for its one change."""
    args = Args(device)
    before = args.snapshot()
    (rope if op == "rope" else fused)(backend, args)
    assert not args.unchanged(before)


def test_empty_batch_is_a_no_op(backend, device):
    """Zero tokens: nothing to rotate, no launch, no error (a decode step can be empty)."""
    args = Args(device)
    q, k = args.q[:0], args.k[:0]
    backend.apply_rope_inplace(q, k, args.cache, args.positions[:0], is_neox=True)
    assert q.numel() == 0
