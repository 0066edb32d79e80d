"""Bad inputs: the RMSNorm launcher rejects each with a clear error before launching.

Ours raise ``TypeError`` (dtypes, non-tensors) or ``ValueError`` (shapes, strides,
devices, eps) naming the argument and value; SGLang's native op raises its own errors,
so for it only the rejection is checked.
"""

from __future__ import annotations

import math

import pytest
import torch

F16 = torch.float16


def _t(shape, dtype=F16, device="cpu"):
    return torch.zeros(shape, dtype=dtype, device=device)


def _raises(backend, exc, match):
    if backend.name == "triton":
        return pytest.raises(exc, match=match)
    return pytest.raises(Exception)


def _strided(d, shape, stride):
    return torch.zeros(256, dtype=F16, device=d).as_strided(shape, stride)


# (description, call(backend, device), exception, message pattern)
CASES = [
    ("x not a tensor", lambda b, d: b.rmsnorm([[1.0]], _t((1,), F16, d), 1e-6),
     TypeError, r"rmsnorm: x must be a torch\.Tensor, got list"),
    ("1-D x", lambda b, d: b.rmsnorm(_t((64,), F16, d), _t((64,), F16, d), 1e-6),
     ValueError, r"x must be 2-D \[batch, hidden\], got shape \(64,\)"),
    ("3-D x", lambda b, d: b.rmsnorm(_t((2, 3, 64), F16, d), _t((64,), F16, d), 1e-6),
     ValueError, r"x must be 2-D \[batch, hidden\], got shape \(2, 3, 64\)"),
    ("int32 x", lambda b, d: b.rmsnorm(_t((2, 64), torch.int32, d), _t((64,), torch.int32, d), 1e-6),
     TypeError, r"x\.dtype=int32 is not supported; expected one of float16, bfloat16, float32"),
    ("hidden = 0", lambda b, d: b.rmsnorm(_t((2, 0), F16, d), _t((0,), F16, d), 1e-6),
     ValueError, r"hidden=0 \(x\.shape\[1\]\) must be >= 1"),
    ("column-strided x", lambda b, d: b.rmsnorm(_t((64, 2), F16, d).t(), _t((64,), F16, d), 1e-6),
     ValueError, r"x rows must be contiguous"),
    ("overlapping rows", lambda b, d: b.rmsnorm(_strided(d, (2, 64), (32, 1)), _t((64,), F16, d), 1e-6),
     ValueError, r"x row stride 32 is shorter than its rows \(hidden=64\)"),
    ("weight (65,)", lambda b, d: b.rmsnorm(_t((2, 64), F16, d), _t((65,), F16, d), 1e-6),
     ValueError, r"weight shape \(65,\) does not fit x \(2, 64\); expected \(64,\)"),
    ("weight (1, 64)", lambda b, d: b.rmsnorm(_t((2, 64), F16, d), _t((1, 64), F16, d), 1e-6),
     ValueError, r"weight shape \(1, 64\) does not fit"),
    ("weight dtype", lambda b, d: b.rmsnorm(_t((2, 64), F16, d), _t((64,), torch.float32, d), 1e-6),
     TypeError, r"weight\.dtype=float32 must be x\.dtype=float16"),
    ("strided weight", lambda b, d: b.rmsnorm(_t((2, 64), F16, d), _t((128,), F16, d)[::2], 1e-6),
     ValueError, r"weight must be contiguous, got stride 2"),
    ("weight on another device", lambda b, d: b.rmsnorm(_t((2, 64), F16, d), _t((64,), F16, "meta"), 1e-6),
     ValueError, r"weight is on meta and x on"),
    ("negative eps", lambda b, d: b.rmsnorm(_t((2, 64), F16, d), _t((64,), F16, d), -1e-6),
     ValueError, r"eps=-1e-06 must be a finite float >= 0"),
    ("nan eps", lambda b, d: b.rmsnorm(_t((2, 64), F16, d), _t((64,), F16, d), math.nan),
     ValueError, r"eps=nan must be a finite float >= 0"),
    ("bool eps", lambda b, d: b.rmsnorm(_t((2, 64), F16, d), _t((64,), F16, d), True),
     ValueError, r"eps=True must be a finite float >= 0"),
    ("string eps", lambda b, d: b.rmsnorm(_t((2, 64), F16, d), _t((64,), F16, d), "1e-6"),
     ValueError, r"eps='1e-6' must be a finite float >= 0"),
    ("out shape", lambda b, d: b.rmsnorm(_t((2, 64), F16, d), _t((64,), F16, d), 1e-6, out=_t((2, 63), F16, d)),
     ValueError, r"out shape \(2, 63\) must be x's shape \(2, 64\)"),
    ("out dtype", lambda b, d: b.rmsnorm(_t((2, 64), F16, d), _t((64,), F16, d), 1e-6,
                                         out=_t((2, 64), torch.bfloat16, d)),
     TypeError, r"out\.dtype=bfloat16 must be x\.dtype=float16"),
    ("out not a tensor", lambda b, d: b.rmsnorm(_t((2, 64), F16, d), _t((64,), F16, d), 1e-6, out=3),
     TypeError, r"out must be a torch\.Tensor, got int"),
    ("column-strided out", lambda b, d: b.rmsnorm(_t((2, 64), F16, d), _t((64,), F16, d), 1e-6,
                                                  out=_t((64, 2), F16, d).t()),
     ValueError, r"out rows must be contiguous"),
    ("out on another device", lambda b, d: b.rmsnorm(_t((2, 64), F16, d), _t((64,), F16, d), 1e-6,
                                                     out=_t((2, 64), F16, "meta")),
     ValueError, r"out is on meta and x on"),
]


def _aliased_out(b, d):
    buf = torch.zeros(256, dtype=F16, device=d)
    x = buf.as_strided((2, 64), (64, 1))
    return b.rmsnorm(x, _t((64,), F16, d), 1e-6, out=buf.as_strided((2, 64), (128, 1)))


CASES.append(("out aliases x with other strides", _aliased_out, ValueError,
              r"out shares x's storage with other strides \(\(128, 1\) vs \(64, 1\)\)"))


@pytest.mark.parametrize("what,call,exc,match", CASES, ids=[c[0] for c in CASES])
def test_rmsnorm_rejects(backend, device, what, call, exc, match):
    with _raises(backend, exc, match):
        call(backend, device)
