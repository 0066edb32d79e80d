"""Upstream's hand-written CI lists for the FlyDSL fused norms, AS UPSTREAM WROTE THEM.

Not collected by normal runs (the file name does not match ``test_*.py``); audited by
``pairwise-param report kernel_tests/fused_norm/upstream_ci.py`` (see docs/kernels.md)
and runnable against our kernels with ``pytest kernel_tests/fused_norm/upstream_ci.py``
(each case mapped onto ``cases.check_fused`` / ``cases.check_nss``, our tolerances).

Sources (sglang, AMD CI lane ``jit-kernel-unit``; argument names and tuples verbatim):

* v1: ``test/registered/kernels/ops/diffusion/test_flydsl_fused_norm.py`` at
  57d180410e03a933fa53c28605767b5a293fe11d: ``FUSED_CASES`` (4) and ``NSS_CASES`` (4)
  over ``norm_type, B, L``; D = 5120, eps = 1e-6, bf16; gate, scale and shift always
  ``[B, 1, D]``; weight always; bias exactly for ``layer``.
* v2: ``test/registered/kernels/ops/diffusion/test_norm_flydsl.py`` at
  34402b293bd256965b6067716ff78a646a0b5f5c: ``FUSED_CASES`` (10) over
  ``norm_type, B, L, has_gate, has_weight, ss`` and ``NSS_CASES`` (8), ``ss`` "bcast"
  (``[B, 1, D]``) or "perrow" (``[B, L, D]``); bias exactly for ``layer`` with a weight;
  plus the single cases: per-frame scale/shift, D = 10240, the four "wave count" dims,
  and the compile-cache loop (four calls in one test, as upstream wrote it). Its two
  tests without kernel cases (dispatch predicate, import hygiene) are not listed.

Every upstream case is bf16 with eps = 1e-6 and ``padded=False``; no upstream case uses a
scalar, ``[C]`` or ``[1, C]`` layout, a per-row or per-frame gate, fp16/fp32 or eps 1e-5.

Test functions are named as ours where they match a suite of ours, so
``benchmarks/upstream_ci_audit.py`` can pair them: v2's two lists (upstream:
``test_flydsl_fused_residual_norm_scale_shift`` / ``test_flydsl_norm_scale_shift``) are
``test_fused_residual_norm_scale_shift`` / ``test_norm_scale_shift``; v1's (upstream: the
same names as ours) are ``test_v1_*``. Upstream writes ``B, L`` inside the option tuples;
the audit counts only the options (``AUDIT_OPTION_AXES``) and treats ``B, L`` as shapes.
"""

from __future__ import annotations

import pytest
import torch

from kernel_tests.fused_norm.cases import BUDGET, check_fused, check_nss

#: For benchmarks/upstream_ci_audit.py: our suite, and upstream's option axes.
AUDIT_SUITE = "test_fused_norm.py"
AUDIT_OPTION_AXES = ["norm_type", "has_gate", "has_weight", "ss"]

D = 5120
EPS = 1e-6
BF16 = torch.bfloat16
SS = {"bcast": "B1C", "perrow": "BLC"}


# What each upstream case sets, in our option axes (the one home of this mapping: the
# tests below and ``audit.py`` use it).
def fused_options_v1(norm_type: str) -> dict[str, object]:
    return {"norm_type": norm_type, "dtype": BF16, "eps": EPS, "has_gate": True, "gate_layout": "B1C",
            "has_weight": True, "has_bias": norm_type == "layer", "scale_layout": "B1C", "shift_layout": "B1C",
            "padded": False}


def nss_options_v1(norm_type: str) -> dict[str, object]:
    return {"norm_type": norm_type, "dtype": BF16, "eps": EPS, "has_weight": True, "has_bias": norm_type == "layer",
            "scale_layout": "B1C", "shift_layout": "B1C", "padded": False}


def fused_options_v2(norm_type: str, has_gate: bool, has_weight: bool, ss: str,
                     gate: str = "B1C") -> dict[str, object]:
    return {"norm_type": norm_type, "dtype": BF16, "eps": EPS, "has_gate": has_gate,
            "gate_layout": gate if has_gate else "none", "has_weight": has_weight,
            "has_bias": has_weight and norm_type == "layer", "scale_layout": SS.get(ss, ss),
            "shift_layout": SS.get(ss, ss), "padded": False}


def nss_options_v2(norm_type: str, has_weight: bool, ss: str) -> dict[str, object]:
    return {"norm_type": norm_type, "dtype": BF16, "eps": EPS, "has_weight": has_weight,
            "has_bias": has_weight and norm_type == "layer", "scale_layout": SS.get(ss, ss),
            "shift_layout": SS.get(ss, ss), "padded": False}


def _run_fused(backend, device, B: int, L: int, C: int, options: dict[str, object]) -> None:
    BUDGET.skip_if_over(B, L, C)
    opts = {k: v for k, v in options.items() if k != "has_gate"}
    check_fused(backend, device, B, L, C, **opts)


def _run_nss(backend, device, B: int, L: int, C: int, options: dict[str, object]) -> None:
    BUDGET.skip_if_over(B, L, C)
    check_nss(backend, device, B, L, C, **options)

# ----------------------------------------------------------------------------- v1 (4 + 4)

FUSED_CASES_V1 = [
    ("rms", 1, 16),
    ("rms", 2, 16),
    ("layer", 2, 16),
    ("rms", 1, 90000),
]

NSS_CASES_V1 = [
    ("rms", 2, 16),
    ("layer", 2, 16),
    ("rms", 1, 90000),
    ("layer", 1, 90000),
]


@pytest.mark.parametrize("norm_type,B,L", FUSED_CASES_V1)
@torch.inference_mode()
def test_v1_fused_residual_norm_scale_shift(backend, device, norm_type, B, L):
    _run_fused(backend, device, B, L, D, fused_options_v1(norm_type))


@pytest.mark.parametrize("norm_type,B,L", NSS_CASES_V1)
@torch.inference_mode()
def test_v1_norm_scale_shift(backend, device, norm_type, B, L):
    _run_nss(backend, device, B, L, D, nss_options_v1(norm_type))


# ----------------------------------------------------------------------------- v2 (10 + 8 + 7)

# norm_type, B, L, has_gate, has_weight, scale/shift layout
FUSED_CASES = [
    ("rms", 1, 16, True, True, "bcast"),
    ("rms", 2, 16, True, True, "bcast"),
    ("layer", 2, 16, True, True, "bcast"),
    ("rms", 1, 90000, True, True, "bcast"),
    # gate-free path: a distinct compiled specialization
    ("rms", 2, 16, False, True, "bcast"),
    ("layer", 2, 16, False, True, "bcast"),
    # no-affine path: the production default
    ("rms", 2, 16, True, False, "bcast"),
    ("layer", 2, 16, True, False, "bcast"),
    # per-row scale/shift exercises the non-zero row stride
    ("rms", 2, 16, True, True, "perrow"),
    ("layer", 2, 16, True, True, "perrow"),
]

NSS_CASES = [
    ("rms", 2, 16, True, "bcast"),
    ("layer", 2, 16, True, "bcast"),
    ("rms", 1, 90000, True, "bcast"),
    ("layer", 1, 90000, True, "bcast"),
    # no-affine path
    ("rms", 2, 16, False, "bcast"),
    ("layer", 2, 16, False, "bcast"),
    # per-row scale/shift
    ("rms", 2, 16, True, "perrow"),
    ("layer", 2, 16, True, "perrow"),
]


@pytest.mark.parametrize("norm_type,B,L,has_gate,has_weight,ss", FUSED_CASES)
@torch.inference_mode()
def test_fused_residual_norm_scale_shift(backend, device, norm_type, B, L, has_gate, has_weight, ss):
    _run_fused(backend, device, B, L, D, fused_options_v2(norm_type, has_gate, has_weight, ss))


@pytest.mark.parametrize("norm_type,B,L,has_weight,ss", NSS_CASES)
@torch.inference_mode()
def test_norm_scale_shift(backend, device, norm_type, B, L, has_weight, ss):
    _run_nss(backend, device, B, L, D, nss_options_v2(norm_type, has_weight, ss))


#: The single-case tests' options: rms; the frame test has no bias (weight only).
FRAME_CASE = fused_options_v2("rms", True, True, "BF1C")
NSS_RMS_WEIGHT = nss_options_v2("rms", True, "bcast")
#: Every upstream option row in our axes: (test, rows), for ``audit.py``.
FUSED_ROWS = {
    "v1 FUSED_CASES": [fused_options_v1(c[0]) for c in FUSED_CASES_V1],
    "v2 FUSED_CASES + frame test": [fused_options_v2(*c[:1], *c[3:]) for c in FUSED_CASES] + [FRAME_CASE],
}
NSS_ROWS = {
    "v1 NSS_CASES": [nss_options_v1(c[0]) for c in NSS_CASES_V1],
    "v2 NSS_CASES + single cases": [nss_options_v2(c[0], *c[3:]) for c in NSS_CASES] + [NSS_RMS_WEIGHT] * 5
    + [nss_options_v2("rms", True, ss) for ss in ("bcast", "bcast", "perrow", "bcast")],
}


@torch.inference_mode()
def test_flydsl_fused_frame_gate_4d_scale_shift(backend, device):
    """Upstream: B=2, L=16, NF=4 frames of [B, NF, 1, D] scale/shift, gate [B, 1, D], rms."""
    _run_fused(backend, device, 2, 16, D, FRAME_CASE)


@torch.inference_mode()
def test_flydsl_multi_iteration_dim(backend, device):
    """Upstream: D=10240 drives NUM_ITERS=2 (norm_scale_shift, rms, weight, no bias)."""
    _run_nss(backend, device, 1, 16, 10240, NSS_RMS_WEIGHT)


@pytest.mark.parametrize("dim", [1024, 3072, 4096, 5120])
@torch.inference_mode()
def test_flydsl_norm_scale_shift_wave_count_dims(backend, device, dim):
    _run_nss(backend, device, 1, 8, dim, NSS_RMS_WEIGHT)


@torch.inference_mode()
def test_flydsl_compile_cache_reuse_across_row_counts_and_layouts(backend, device):
    """Upstream's loop, verbatim: four calls of one compiled specialization."""
    for L, ss in ((16, "bcast"), (90000, "bcast"), (16, "perrow"), (64, "bcast")):
        if BUDGET.over(1, L, D) is not None:
            continue
        _run_nss(backend, device, 1, L, D, nss_options_v2("rms", True, ss))
