"""The fp32 reference itself, against independent formulations (the kernels are held to it).

GPT-J pairs ``(2j, 2j+1)`` are complex numbers ``x_{2j} + i x_{2j+1}`` multiplied by
``exp(i p f_j)``; NeoX pairs ``(j, j + r/2)`` are the same after de-interleaving. The
angle is computed here from the definition ``f_j = base ** (-2j / r)`` in float64, not
read from the cache, so a wrong cache layout would fail too.
"""

from __future__ import annotations

import pytest
import torch

from kernel_tests.rope.reference import ROPE_BASE, create_cos_sin_cache, reference_rope, rope_ref


def _complex_rope(x: torch.Tensor, positions: torch.Tensor, rot: int, is_neox: bool) -> torch.Tensor:
    xd = x.double()
    half = rot // 2
    angle = positions.double()[:, None] * ROPE_BASE ** (-torch.arange(half, dtype=torch.float64) * 2 / rot)
    turn = torch.polar(torch.ones_like(angle), angle)[:, None, :]  # [T, 1, half]
    if is_neox:
        pairs = torch.complex(xd[..., :half], xd[..., half:rot]) * turn
        rotated = torch.cat([pairs.real, pairs.imag], dim=-1)
    else:
        pairs = torch.view_as_complex(xd[..., :rot].reshape(*x.shape[:2], half, 2).contiguous()) * turn
        rotated = torch.view_as_real(pairs).reshape(*x.shape[:2], rot)
    return torch.cat([rotated, xd[..., rot:]], dim=-1)


@pytest.mark.parametrize("is_neox", [False, True], ids=["gptj", "neox"])
@pytest.mark.parametrize("rot,head_dim", [(2, 2), (64, 64), (80, 128), (96, 100)])
def test_rope_ref_is_a_complex_rotation(is_neox, rot, head_dim):
    gen = torch.Generator().manual_seed(0)
    x = torch.randn((5, 3, head_dim), generator=gen)
    positions = torch.tensor([0, 1, 7, 1000, 4095])
    got = rope_ref(x, create_cos_sin_cache(rot, 4096), positions, is_neox)
    # fp32 cos/sin of angles up to 4095 rad carry ~2.4e-4 absolute error (ulp(4095) in fp32)
    torch.testing.assert_close(got.double(), _complex_rope(x, positions, rot, is_neox), atol=2e-3, rtol=0)
    assert torch.equal(got[..., rot:], x[..., rot:])
    assert torch.equal(got[0], x[0]), "position 0 must be the identity"


def test_neox_and_gptj_differ():
    """The two pairings are different maps (a reference that ignored is_neox would pass the rest)."""
    x = torch.randn((2, 1, 8), generator=torch.Generator().manual_seed(1))
    cache, positions = create_cos_sin_cache(8, 16), torch.tensor([3, 5])
    assert not torch.allclose(rope_ref(x, cache, positions, True), rope_ref(x, cache, positions, False))


def test_reference_wrapper_on_cpu_is_the_pytorch_reference():
    gen = torch.Generator().manual_seed(2)
    q, k = torch.randn((4, 4, 64), generator=gen).half(), torch.randn((4, 2, 64), generator=gen).half()
    cache, positions = create_cos_sin_cache(32, 64), torch.tensor([0, 9, 33, 63], dtype=torch.int32)
    q_ref, k_ref = reference_rope(q, k, cache, positions, is_neox=True)
    assert q_ref.dtype == torch.float32 and q is not q_ref
    assert torch.equal(q_ref, rope_ref(q, cache, positions, True))
    assert torch.equal(k_ref, rope_ref(k, cache, positions, True))
