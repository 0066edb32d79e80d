"""Bad inputs: every skinny-GEMM op rejects them with a clear error before launching.

The Triton launchers raise ``TypeError`` (dtypes) or ``ValueError`` (shapes, ranges)
whose message names the op and the offending value; vLLM's native ops raise their own
``RuntimeError`` (TORCH_CHECK), so for them only the rejection is checked.
"""

from __future__ import annotations

import pytest
import torch

from kernel_tests.skinny_gemm.cases import requires_fp8
from pairwise_param import invalid, pairwise

F16 = torch.float16


def _t(shape, dtype=F16, device="cpu"):
    return torch.zeros(shape, dtype=dtype, device=device)


def _raises(backend, exc, match):
    if backend.name == "triton":
        return pytest.raises(exc, match=match)
    return pytest.raises(Exception)


# (description, call(backend, device, cu) -> None, exception, message pattern): the bad
# inputs that are no value of an axis (wvSplitK's bad values of its axes are the
# invalid(...) values of test_wvsplitk_inputs below)
WVSPLITK_CASES = [
    ("mixed dtypes", lambda b, d, cu: b.wvSplitK(_t((64, 64), F16, d), _t((1, 64), torch.bfloat16, d), cu),
     TypeError, r"act\.dtype=bfloat16 and weight\.dtype=float16 must match"),
    ("mismatched k", lambda b, d, cu: b.wvSplitK(_t((64, 64), F16, d), _t((1, 72), F16, d), cu),
     ValueError, r"mismatched k: act is \(1, 72\)"),
    ("1-D act", lambda b, d, cu: b.wvSplitK(_t((64, 64), F16, d), _t((64,), F16, d), cu),
     ValueError, r"act must be 2-D"),
    ("column-strided act", lambda b, d, cu: b.wvSplitK(_t((64, 64), F16, d), _t((64, 2), F16, d).t(), cu),
     ValueError, r"act rows must be contiguous"),
]

WVSPLITKRC_CASES = [
    ("float32 inputs", lambda b, d, cu: b.wvSplitKrc(_t((16, 64), torch.float32, d), _t((64, 64), torch.float32, d), cu),
     TypeError, r"wvSplitKrc: weight\.dtype=float32 is not supported"),
    ("k not a multiple of 8", lambda b, d, cu: b.wvSplitKrc(_t((16, 100), F16, d), _t((64, 100), F16, d), cu),
     ValueError, r"k=100 must be a positive multiple of 8"),
    ("n = 12", lambda b, d, cu: b.wvSplitKrc(_t((12, 64), F16, d), _t((64, 64), F16, d), cu),
     ValueError, r"n=12 \(rows of act\) must be in \[13, 128\]"),
    ("n = 129", lambda b, d, cu: b.wvSplitKrc(_t((129, 64), F16, d), _t((64, 64), F16, d), cu),
     ValueError, r"n=129 \(rows of act\) must be in \[13, 128\]"),
    ("mismatched k", lambda b, d, cu: b.wvSplitKrc(_t((16, 64), F16, d), _t((64, 128), F16, d), cu),
     ValueError, r"mismatched k"),
    ("bias (n, m+1)", lambda b, d, cu: b.wvSplitKrc(_t((16, 64), F16, d), _t((64, 64), F16, d), cu,
                                                    _t((16, 65), F16, d)),
     ValueError, r"bias shape \(16, 65\) does not fit out\[16, 64\]"),
    ("does not fit the compute units", lambda b, d, cu: b.wvSplitKrc(_t((128, 3080), F16, d),
                                                                      _t((656, 3080), F16, d), 8),
     ValueError, r"n=128, k=3080, m=656 does not fit.*cu_count=8"),
    ("does not fit the workspace", lambda b, d, cu: b.wvSplitKrc(_t((128, 16384), F16, d),
                                                                 _t((1024, 16384), F16, d), 10**6),
     ValueError, r"needs 4194304 workspace floats \(limit 1572864\)"),
]

LLMM1_CASES = [
    ("n = 2", lambda b, d, cu: b.LLMM1(_t((64, 64), F16, d), _t((2, 64), F16, d), 4),
     ValueError, r"LLMM1: n=2 \(rows of act\) must be in \[1, 1\]"),
    ("float32 inputs", lambda b, d, cu: b.LLMM1(_t((64, 64), torch.float32, d), _t((1, 64), torch.float32, d), 4),
     TypeError, r"weight\.dtype=float32 is not supported"),
    ("rows_per_block = 3", lambda b, d, cu: b.LLMM1(_t((64, 64), F16, d), _t((1, 64), F16, d), 3),
     ValueError, r"rows_per_block=3 must be one of 2, 4, 8, 16"),
    ("m not a multiple of rows_per_block", lambda b, d, cu: b.LLMM1(_t((60, 64), F16, d), _t((1, 64), F16, d), 8),
     ValueError, r"m=60 must be a multiple of rows_per_block=8"),
    ("k not a multiple of 8", lambda b, d, cu: b.LLMM1(_t((64, 12), F16, d), _t((1, 12), F16, d), 4),
     ValueError, r"k=12 must be a positive multiple of 8"),
    ("mismatched k", lambda b, d, cu: b.LLMM1(_t((64, 64), F16, d), _t((1, 32), F16, d), 4),
     ValueError, r"mismatched k"),
]


def _fp8(shape, d):
    return torch.zeros(shape, device=d).to(torch.float8_e4m3fn)


def _one(d, dtype=torch.float32):
    return torch.ones(1, dtype=dtype, device=d)


FP8_CASES = [
    ("fp16 inputs", lambda b, d, cu: b.wvSplitKQ(_t((64, 64), F16, d), _t((1, 64), F16, d), F16, _one(d), _one(d), cu),
     TypeError, r"wvSplitKQ: weight\.dtype=float16 is not supported; expected one of float8_e4m3fn"),
    ("k not a multiple of 16", lambda b, d, cu: b.wvSplitKQ(_fp8((64, 40), d), _fp8((1, 40), d), F16, _one(d),
                                                            _one(d), cu),
     ValueError, r"k=40 must be a positive multiple of 16"),
    ("n = 5", lambda b, d, cu: b.wvSplitKQ(_fp8((64, 64), d), _fp8((5, 64), d), F16, _one(d), _one(d), cu),
     ValueError, r"n=5 \(rows of act\) must be in \[1, 4\]"),
    ("mismatched k", lambda b, d, cu: b.wvSplitKQ(_fp8((64, 64), d), _fp8((1, 80), d), F16, _one(d), _one(d), cu),
     ValueError, r"mismatched k"),
    ("fp32 output", lambda b, d, cu: b.wvSplitKQ(_fp8((64, 64), d), _fp8((1, 64), d), torch.float32, _one(d),
                                                 _one(d), cu),
     TypeError, r"out_dtype=torch.float32 is not supported"),
    ("per-row scale", lambda b, d, cu: b.wvSplitKQ(_fp8((64, 64), d), _fp8((2, 64), d), F16,
                                                   torch.ones(2, device=d), _one(d), cu),
     ValueError, r"scale_a must be a per-tensor fp32 scale \(numel 1\)"),
    ("bias (n, m)", lambda b, d, cu: b.wvSplitKQ(_fp8((64, 64), d), _fp8((2, 64), d), F16, _one(d), _one(d), cu,
                                                 _t((2, 64), F16, d)),
     ValueError, r"bias shape \(2, 64\) does not fit out\[2, 64\]; expected \(64,\)"),
    ("bias dtype", lambda b, d, cu: b.wvSplitKQ(_fp8((64, 64), d), _fp8((2, 64), d), F16, _one(d), _one(d), cu,
                                                _t((64,), torch.bfloat16, d)),
     TypeError, r"bias\.dtype=bfloat16 must be the output dtype float16"),
]


# wvSplitK's axes with their bad values: each invalid value is tested on its own, paired
# with every valid value of the other axes (pairwise_param.invalid); the reason is the
# message the Triton launcher must give, and _INVALID_TYPE the exception it raises
_M = 64
_INVALID_TYPE = {"dtype": TypeError, "bias": ValueError}


def _bias(kind, n, dtype, device):
    shapes = {"none": None, "(m,)": (_M,), "(m+1,)": (_M + 1,), "(m, n)": (_M, n), "(m,) fp32": (_M,)}
    shape = shapes[kind]
    if shape is None:
        return None
    return _t(shape, torch.float32 if kind.endswith("fp32") else dtype, device)


@pairwise(
    k=[64, 128, invalid(60, reason=r"k=60 must be a positive multiple of 8")],
    n=[1, 4, invalid(0, reason=r"n=0 \(rows of act\) must be in \[1, 4\]"),
       invalid(5, reason=r"n=5 \(rows of act\) must be in \[1, 4\]")],
    dtype=[F16, torch.bfloat16, invalid(torch.float32, reason=r"wvSplitK: weight\.dtype=float32 is not supported")],
    bias=["none", "(m,)",
          invalid("(m+1,)", reason=r"bias shape \(65,\) does not fit out\[\d, 64\]"),
          invalid("(m, n)", reason=r"bias shape \(64, \d\) does not fit"),
          invalid("(m,) fp32", reason=r"bias\.dtype=float32 must be the output dtype (float16|bfloat16)")],
)
def test_wvsplitk_inputs(backend, device, cu_count, k, n, dtype, bias, pairwise_invalid):
    weight, act = _t((_M, k), dtype, device), _t((n, k), dtype, device)
    b = _bias(bias, n, dtype, device)
    if pairwise_invalid is None:
        assert tuple(backend.wvSplitK(weight, act, cu_count, b).shape) == (n, _M)
        return
    exc = TypeError if bias.endswith("fp32") else _INVALID_TYPE.get(pairwise_invalid.axis, ValueError)
    with _raises(backend, exc, pairwise_invalid.reason):
        backend.wvSplitK(weight, act, cu_count, b)


def _ids(cases):
    return [c[0] for c in cases]


@pytest.mark.parametrize("what,call,exc,match", WVSPLITK_CASES, ids=_ids(WVSPLITK_CASES))
def test_wvsplitk_rejects(backend, device, cu_count, what, call, exc, match):
    with _raises(backend, exc, match):
        call(backend, device, cu_count)


@pytest.mark.parametrize("what,call,exc,match", WVSPLITKRC_CASES, ids=_ids(WVSPLITKRC_CASES))
def test_wvsplitkrc_rejects(backend, device, cu_count, what, call, exc, match):
    with _raises(backend, exc, match):
        call(backend, device, cu_count)


@pytest.mark.parametrize("what,call,exc,match", LLMM1_CASES, ids=_ids(LLMM1_CASES))
def test_llmm1_rejects(backend, device, cu_count, what, call, exc, match):
    with _raises(backend, exc, match):
        call(backend, device, cu_count)


@requires_fp8
@pytest.mark.parametrize("what,call,exc,match", FP8_CASES, ids=_ids(FP8_CASES))
def test_wvsplitk_fp8_rejects(backend, device, cu_count, what, call, exc, match):
    with _raises(backend, exc, match):
        call(backend, device, cu_count)


@pytest.mark.parametrize("cu", [0, -1, 2.5, True])
def test_bad_cu_count(backend, device, cu):
    with _raises(backend, ValueError, r"cu_count=.* must be a positive int"):
        backend.wvSplitK(_t((64, 64), F16, device), _t((1, 64), F16, device), cu)


def test_fits_wvsplitkrc_rule():
    from kernel_tests.skinny_gemm.kernels import fits_wvsplitkrc

    # next_pow2(n) * m * ceil(k/512) <= 128*1024*12 and ceil(m/64)*ceil(k/512)*min(np2/16, 4) <= cu
    assert fits_wvsplitkrc(13, 2880, 128, 256)            # 16*128*6 floats, 2*6*1 CUs
    assert not fits_wvsplitkrc(128, 3080, 656, 256)       # 11*7*4 = 308 CUs
    assert fits_wvsplitkrc(128, 3080, 656, 308)
    assert not fits_wvsplitkrc(128, 3080, 656, 307)
    assert not fits_wvsplitkrc(128, 16384, 1024, 10**6)   # 128*1024*32 floats > 1572864
    assert fits_wvsplitkrc(17, 512, 64, 2) and not fits_wvsplitkrc(17, 512, 64, 1)  # n 17 -> 32 -> 2 groups
