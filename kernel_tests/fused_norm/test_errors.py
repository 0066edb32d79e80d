"""Bad inputs: both fused-norm launchers reject them with a clear error before launching.

``TypeError`` for dtypes and argument types, ``ValueError`` for shapes, layouts,
``norm_type``, ``eps`` and a bias without a weight; every message names the op, the
argument and the value. Upstream's FlyDSL ops validate differently (they silently
ignore a bias without a weight and take the first element of a too-short scale), so
these are tests of the Triton launchers only.
"""

from __future__ import annotations

import re

import pytest
import torch

from kernel_tests.fused_norm.kernels import fused_residual_norm_scale_shift, norm_scale_shift
from kernel_tests.fused_norm.native import load_native, upstream_unsupported
from kernel_tests.support.backends import BackendUnavailable

B, L, C = 2, 4, 8
F32 = torch.float32


def _t(*shape: int, dtype: torch.dtype = F32, device: str | torch.device = "cpu") -> torch.Tensor:
    return torch.zeros(shape, dtype=dtype, device=device)


def fused(**over: object) -> object:
    """Call the fused op with valid arguments, some replaced by ``over``."""
    args: dict[str, object] = {"residual": _t(B, L, C), "x": _t(B, L, C), "gate": None, "weight": None,
                               "bias": None, "scale": _t(C), "shift": _t(C), "norm_type": "rms", "eps": 1e-6}
    args.update(over)
    return fused_residual_norm_scale_shift(**args)  # type: ignore[arg-type]


def nss(**over: object) -> object:
    args: dict[str, object] = {"x": _t(B, L, C), "weight": None, "bias": None, "scale": _t(C), "shift": _t(C),
                               "norm_type": "layer", "eps": 1e-6}
    args.update(over)
    return norm_scale_shift(**args)  # type: ignore[arg-type]


FUSED = "fused_residual_norm_scale_shift: "
NSS = "norm_scale_shift: "

# (id, call, exception, message pattern)
CASES = [
    # norm type and eps
    ("norm_type", lambda: fused(norm_type="batch"), ValueError, FUSED + r"norm_type='batch' must be one of 'rms', 'layer'"),
    ("nss norm_type", lambda: nss(norm_type="RMS"), ValueError, NSS + r"norm_type='RMS' must be one of"),
    ("eps string", lambda: fused(eps="1e-6"), TypeError, r"eps='1e-6' must be a real number, got str"),
    ("eps bool", lambda: fused(eps=True), TypeError, r"eps=True must be a real number, got bool"),
    ("eps negative", lambda: fused(eps=-1e-6), ValueError, r"eps=-1e-06 must be finite and >= 0"),
    ("eps nan", lambda: nss(eps=float("nan")), ValueError, NSS + r"eps=nan must be finite and >= 0"),
    ("eps inf", lambda: fused(eps=float("inf")), ValueError, r"eps=inf must be finite and >= 0"),
    # activations
    ("x not a tensor", lambda: fused(x=[[0.0]]), TypeError, FUSED + r"x must be a torch.Tensor, got list"),
    ("x 2-D", lambda: fused(x=_t(L, C), residual=_t(L, C)), ValueError, r"x must be 3-D \[B, L, C\], got shape \(4, 8\)"),
    ("x float64", lambda: fused(x=_t(B, L, C, dtype=torch.float64), residual=_t(B, L, C, dtype=torch.float64)),
     TypeError, r"x\.dtype=float64 is not supported; expected one of bfloat16, float16, float32"),
    ("x int32", lambda: nss(x=_t(B, L, C, dtype=torch.int32)), TypeError, NSS + r"x\.dtype=int32 is not supported"),
    ("C = 0", lambda: fused(x=_t(B, L, 0), residual=_t(B, L, 0), scale=_t(0), shift=_t(0)), ValueError,
     r"x has hidden size C=0; C must be positive"),
    ("x channels strided", lambda: fused(x=_t(B, C, L).transpose(1, 2)), ValueError,
     r"x channels must be contiguous \(stride\(2\) == 1\)"),
    ("residual 4-D", lambda: fused(residual=_t(1, B, L, C)), ValueError, r"residual must be 3-D"),
    ("mismatched residual/x shapes", lambda: fused(residual=_t(B, L + 1, C)), ValueError,
     r"mismatched residual/x shapes: residual is \(2, 5, 8\), x is \(2, 4, 8\)"),
    ("mismatched residual/x dtypes", lambda: fused(residual=_t(B, L, C, dtype=torch.bfloat16)), TypeError,
     r"residual\.dtype=bfloat16 and x\.dtype=float32 must match"),
    ("scale on another device", lambda: fused(scale=_t(C, device="meta")), ValueError,
     r"scale is on meta but x is on cpu"),
    # affine
    ("bias without weight", lambda: fused(bias=_t(C)), ValueError, FUSED + r"bias given without weight"),
    ("nss bias without weight", lambda: nss(bias=_t(C)), ValueError, NSS + r"bias given without weight"),
    ("weight not a tensor", lambda: fused(weight=1.0), TypeError, r"weight must be a torch.Tensor or None, got float"),
    ("weight int64", lambda: fused(weight=_t(C, dtype=torch.int64)), TypeError, r"weight\.dtype=int64 is not supported"),
    ("weight [C+1]", lambda: fused(weight=_t(C + 1)), ValueError,
     r"weight shape \(9,\) does not match the hidden size; expected \(8,\)"),
    ("weight [1, C]", lambda: nss(weight=_t(1, C)), ValueError, r"weight shape \(1, 8\) does not match"),
    ("bias [C-1]", lambda: fused(weight=_t(C), bias=_t(C - 1)), ValueError, r"bias shape \(7,\) does not match"),
    # modulation layouts
    ("scale a float", lambda: fused(scale=0.5), TypeError, r"scale must be a torch.Tensor, got float"),
    ("scale int32", lambda: fused(scale=_t(C, dtype=torch.int32)), TypeError, r"scale\.dtype=int32 is not supported"),
    ("scale [2] (not scalar, not [C])", lambda: fused(scale=_t(2)), ValueError,
     r"scale shape \(2,\) is not a supported layout for x \[B, L, C\] = \[2, 4, 8\]"),
    ("scale [C+1]", lambda: nss(scale=_t(C + 1)), ValueError, NSS + r"scale shape \(9,\) is not a supported layout"),
    ("scale [B, C]", lambda: fused(scale=_t(B, C)), ValueError, r"scale shape \(2, 8\) is not a supported layout"),
    ("scale [B, 2, C] (2 rows of 4)", lambda: fused(scale=_t(B, 2, C)), ValueError,
     r"scale shape \(2, 2, 8\) is not a supported layout"),
    ("scale [B, L, 1]", lambda: fused(scale=_t(B, L, 1)), ValueError, r"scale shape \(2, 4, 1\) is not a supported"),
    ("scale 5-D", lambda: fused(scale=_t(1, B, 2, 1, C)), ValueError, r"scale shape \(1, 2, 2, 1, 8\) is not"),
    ("scale batch 3 of B=2", lambda: fused(scale=_t(3, 1, C)), ValueError,
     r"scale shape \(3, 1, 8\): batch dimension 3 must be B=2 or 1"),
    ("shift per-row batch 3", lambda: fused(shift=_t(3, L, C)), ValueError, r"shift shape \(3, 4, 8\): batch dimension 3"),
    ("shift frames not dividing L", lambda: fused(shift=_t(B, 3, 1, C)), ValueError,
     r"shift shape \(2, 3, 1, 8\) \(per frame, \[B, F, 1, C\]\): F=3 frames must divide L=4"),
    ("gate [L, C]", lambda: fused(gate=_t(L, C)), ValueError, r"gate shape \(4, 8\) is not a supported layout"),
    ("gate int", lambda: fused(gate=_t(C, dtype=torch.int16)), TypeError, r"gate\.dtype=int16 is not supported"),
    ("gate float64", lambda: fused(gate=_t(C, dtype=torch.float64)), TypeError, r"gate\.dtype=float64"),
    ("bad layout with an empty batch", lambda: fused(x=_t(0, L, C), residual=_t(0, L, C), scale=_t(C + 1)),
     ValueError, r"scale shape \(9,\) is not a supported layout"),
]


@pytest.mark.parametrize("call,exc,match", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_launcher_rejects(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


@pytest.mark.parametrize("layout_shape", [(), (1,), (C,), (1, C), (B, 1, C), (1, 1, C), (B, L, C), (1, L, C),
                                          (B, 2, 1, C), (1, 4, 1, C)],
                         ids=lambda s: "x".join(map(str, s)) or "0-d")
def test_every_documented_layout_is_accepted(layout_shape, device, run_variant):
    """The counterpart of the rejections: each accepted shape (batch 1 broadcasting) runs
    (on the suite's device: a GPU run launches the compiled kernel, which needs device tensors)."""
    # an fp32 variant with a gate that the fused table compiles (no variant of its own)
    flags = run_variant("fused", dtype=F32, has_gate=True)
    y, res_out = fused(residual=_t(B, L, C, device=device), x=_t(B, L, C, device=device),
                       scale=_t(*layout_shape, device=device), shift=_t(*layout_shape, device=device),
                       gate=_t(*layout_shape, device=device), norm_type=flags["norm_type"],
                       weight=_t(C, device=device) if flags["has_weight"] else None,
                       bias=_t(C, device=device) if flags["has_bias"] else None)
    assert y.shape == res_out.shape == (B, L, C)
    assert y.device.type == res_out.device.type == torch.device(device).type


# ----------------------------------------------------------------------------- native backend contract


# (case, C, dtype, eps, skip reason or None): hand-picked cases, one per rule (a key column).
NATIVE_CONTRACT = [
    ("C=5120 runs", 5120, torch.bfloat16, 1e-6, None),
    ("C=10240 runs", 10240, torch.bfloat16, 1e-6, None),
    ("fp16 skips", 5120, torch.float16, 1e-6, r"compute bf16 only, not float16"),
    ("eps 1e-5 skips", 5120, torch.bfloat16, 1e-5, r"ignore eps and use 1e-06; eps=1e-05 cannot be tested"),
    ("C=3072 skips", 3072, torch.bfloat16, 1e-6, r"do not support hidden size C=3072"),
]


@pytest.mark.parametrize("case,C,dtype,eps,reason", NATIVE_CONTRACT, ids=[c[0] for c in NATIVE_CONTRACT])
def test_native_contract_without_predicate(case, C, dtype, eps, reason):
    """Upstream's original rule (no ``flydsl_norm_supports``): bf16, eps 1e-6, C % 5120."""
    got = upstream_unsupported(C, dtype, eps)
    if reason is None:
        assert got is None
    else:
        assert got is not None and re.search(reason, got), got


def test_native_contract_uses_upstream_predicate():
    """With the installed sglang's ``flydsl_norm_supports``, its answer decides the size."""
    assert upstream_unsupported(3072, torch.bfloat16, 1e-6, lambda c, e: c % 1024 == 0) is None
    assert upstream_unsupported(5120, torch.bfloat16, 1e-6, lambda c, e: False) is not None


def test_native_backend_names_its_requirement():
    """Off ROCm (or without sglang's FlyDSL ops) the native backend is unavailable, and
    the reason says what it needs."""
    if torch.version.hip is not None and torch.cuda.is_available():
        pytest.skip("a ROCm GPU is present; the native backend may load here")
    with pytest.raises(BackendUnavailable, match=r"needs a ROCm GPU \(gfx950\)"):
        load_native()
