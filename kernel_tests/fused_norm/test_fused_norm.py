"""FlyDSL-style fused norms (residual + gate, RMS/Layer norm, scale/shift) against fp32
references, with tolerances derived from the arithmetic.

Options go through ``@pairwise``; upstream's conditional axes are constraints
(a gate layout exists exactly when there is a gate; a bias only with a weight), so the
table never holds an impossible row. Shapes stay an ordinary parametrize
(``cases.SHAPES``). ``--pairwise-mode=full`` gives the full product.

Tolerance derivation (values in ``cases.TOLERANCES``, one per dtype)
--------------------------------------------------------------------
Input model (``cases.fused_inputs``): residual, x, gate, scale, shift, weight and bias
uniform in [-1, 1), rounded to the input dtype. So |g*x| <= 1, |r| <= 2, rms(r) ~ 0.67
(variance 1/3 + 1/9), |xhat| <= 3, |1 + scale| <= 2 and |y| <= (3 + 1) * 2 + 1 = 9.

Kernel and reference compute in fp32 from the same rounded inputs and differ only by
(a) the order of the row reductions (Triton's tree vs torch's cascade), (b) the GPU's
``rsqrt.approx`` and ``div.full`` (<= 2 ulp each), (c) FMA contraction (``g*x + res``,
``xhat*(1+s) + shift``). With u = 2^-24 (fp32 unit roundoff) and C <= 16384
(log2 C <= 14):

* r: only (c), |dr| <= u * |g*x| <= 2^-24.
* sum of squares / variance: a tree sum of non-negative terms is within
  (log2 C + 1) u relative, so kernel and reference differ by <= 30 u; rstd by
  <= 15 u + 2 u (rsqrt) + 2 u (division) ~ 20 u relative.
* mean (Layer): |dmean| <= 30 u * mean|r| <= 30 u, times rstd <= 1.5: 45 u.
* xhat: |dxhat| <= |xhat| * 20 u + 45 u + |dr| * rstd ~ 110 u.
* y: |dxhat| * |w| * |1 + s| <= 220 u, plus <= 6 elementwise roundings of operands
  <= 9: 54 u; in all about 280 u = 1.7e-5.

The kernel then rounds y to the output dtype: at most half an ulp, i.e. u_d * |y|
with u_d the dtype's unit roundoff (bf16 2^-8, fp16 2^-11, fp32 2^-24). Hence
``|y - y_ref| <= u_d * |y_ref| + (1 + u_d) * 1.7e-5``:

* y: rtol = u_d, atol = 2^-15 = 3.05e-5 (1.8x the fp32 bound; it also covers fp16
  subnormal outputs, spaced 2^-24).
* residual_out (r rounded to the dtype): rtol = u_d, atol = 2^-20 (16x the FMA bound).

The comparison (shared rule) also accepts agreement with the reference rounded to the
dtype at the same tolerance; that forgives one output ulp where kernel and reference
straddle a rounding midpoint, nothing more.

Why not upstream's ``atol=1.0, rtol=5e-2``: with |y| <= 9 that accepts nearly any
output. Upstream needed it because its *reference* rounds r to bf16 before the
statistics and the normalization, an error of about u_bf16 * |xhat * w * (1 + s)|
(up to 2.3e-2) that exceeds an output ulp wherever shift or bias cancel part of that
term (|y| << |xhat * w * (1 + s)|). A kernel that rounds r first makes exactly that
error, so it fails the tolerances above: :func:`test_rounding_r_first_fails` runs such a
variant (test-only PyTorch, upstream's reference formula) through the same check over
every row of the covering table: the check rejects it exactly where its y leaves the
tolerance (data-dependent per row), upstream's tolerance always passes it, and
:func:`test_rounding_r_first_is_caught` shows fixed bf16/fp16 rows that reject it. For fp32 inputs the variant IS the correct
computation (rounding an fp32 r to fp32 is the identity), and those rows pass.
"""

from __future__ import annotations

import pytest
import torch

from kernel_tests.fused_norm.cases import (
    BUDGET,
    EPS_VALUES,
    FUSED_COMPILE_AXES,
    FUSED_OPTIONS,
    NORM_TYPES,
    NSS_COMPILE_AXES,
    NSS_OPTIONS,
    SHAPES,
    TOLERANCES,
    Backend,
    bias_needs_weight,
    check_fused,
    check_nss,
    fused_inputs,
    gate_iff_layout,
    session_variants,
    shape_id,
    table_variant,
)
from kernel_tests.fused_norm.reference import (
    expand_modulation,
    reference_fused_residual_norm_scale_shift,
    reference_norm_scale_shift,
)
from kernel_tests.support.asserts import mismatch_report
from pairwise_param import pairwise

SHAPE_IDS = [shape_id(s) for s in SHAPES]


@pairwise(**FUSED_OPTIONS, constraints=[gate_iff_layout, bias_needs_weight], compile_axes=FUSED_COMPILE_AXES)
@pytest.mark.parametrize("B,L,C", SHAPES, ids=SHAPE_IDS)
@torch.inference_mode()
def test_fused_residual_norm_scale_shift(backend, device, B, L, C, norm_type, dtype, eps, has_gate, gate_layout,
                                         has_weight, has_bias, scale_layout, shift_layout, padded):
    BUDGET.skip_if_over(B, L, C)
    check_fused(backend, device, B, L, C, norm_type=norm_type, dtype=dtype, eps=eps, gate_layout=gate_layout,
                has_weight=has_weight, has_bias=has_bias, scale_layout=scale_layout, shift_layout=shift_layout,
                padded=padded)


@pairwise(**NSS_OPTIONS, constraints=[bias_needs_weight], compile_axes=NSS_COMPILE_AXES)
@pytest.mark.parametrize("B,L,C", SHAPES, ids=SHAPE_IDS)
@torch.inference_mode()
def test_norm_scale_shift(backend, device, B, L, C, norm_type, dtype, eps, has_weight, has_bias, scale_layout,
                          shift_layout, padded):
    BUDGET.skip_if_over(B, L, C)
    check_nss(backend, device, B, L, C, norm_type=norm_type, dtype=dtype, eps=eps, has_weight=has_weight,
              has_bias=has_bias, scale_layout=scale_layout, shift_layout=shift_layout, padded=padded)


# ----------------------------------------------------------------------------- the tolerance bites


def _rounding_r_first(residual, x, gate, weight, bias, scale, shift, norm_type, eps):
    """Test-only variant: upstream's reference formula, which rounds r to the input dtype
    BEFORE the statistics and the normalization (the bug the tolerances must catch)."""
    _, r = reference_fused_residual_norm_scale_shift(residual, x, gate, weight, bias, scale, shift, norm_type, eps)
    r_rounded = r.to(x.dtype)
    y = reference_norm_scale_shift(r_rounded, weight, bias, scale, shift, norm_type, eps)
    return y.to(x.dtype), r_rounded


ROUNDING_R_FIRST = Backend("rounds-r-first", _rounding_r_first, reference_norm_scale_shift)
#: Shapes cheap in PyTorch on any device, with enough elements to show the error. Rounding r
#: first moves an element by about half an ulp of r, the same size as the y tolerance, so an
#: element shows it only where that error and the output's own rounding add up: a row needs
#: thousands of elements to show it on every platform (measured on an H200: one 600-element
#: row of the 42 passed the variant; rows of >= 20480 elements all reject it, CPU and GPU).
ROUNDING_SHAPES = [s for s in SHAPES if s[0] * s[1] <= 8 and s[0] * s[1] * s[2] >= 4096]


@pairwise(**FUSED_OPTIONS, constraints=[gate_iff_layout, bias_needs_weight], compile_axes=FUSED_COMPILE_AXES)
@pytest.mark.parametrize("B,L,C", ROUNDING_SHAPES, ids=[shape_id(s) for s in ROUNDING_SHAPES])
@torch.inference_mode()
def test_rounding_r_first_fails(device, B, L, C, norm_type, dtype, eps, has_gate, gate_layout, has_weight,
                                has_bias, scale_layout, shift_layout, padded):
    """On any row, the check's verdict on a kernel that rounds r before normalizing is the
    row's own: it rejects the variant exactly where the variant's y leaves our tolerance
    (computed here from the row's inputs), and upstream's tolerance (atol 1.0, rtol 5e-2)
    accepts it everywhere. Whether a bf16/fp16 row shows the error is data-dependent (the
    half ulp of r must add up with y's own rounding), so this verdict never depends on
    which rows the table picked; :func:`test_rounding_r_first_is_caught` holds the
    rejection itself on fixed rows."""
    kwargs = {"norm_type": norm_type, "dtype": dtype, "eps": eps, "gate_layout": gate_layout, "has_weight": has_weight,
              "has_bias": has_bias, "scale_layout": scale_layout, "shift_layout": shift_layout, "padded": padded}
    inputs = fused_inputs(B, L, C, dtype=dtype, gate_layout=gate_layout, has_weight=has_weight, has_bias=has_bias,
                          scale_layout=scale_layout, shift_layout=shift_layout, padded=padded, seed=0,
                          device=device)
    y_bad, _ = _rounding_r_first(**inputs, norm_type=norm_type, eps=eps)
    y_ref, _ = reference_fused_residual_norm_scale_shift(**inputs, norm_type=norm_type, eps=eps)
    assert mismatch_report(y_bad, y_ref, 1.0, 5e-2) is None, "upstream's tolerance should accept the variant"
    tol = TOLERANCES[dtype]
    rejects = mismatch_report(y_bad, y_ref, tol.y_atol, tol.y_rtol) is not None
    if dtype == torch.float32:  # rounding fp32 r to fp32 is the identity: the variant is correct here
        assert not rejects, "the variant is the correct computation on fp32 inputs"
    if not rejects:
        check_fused(ROUNDING_R_FIRST, device, B, L, C, **kwargs)
        return
    with pytest.raises(AssertionError, match=r": y: \d+ of \d+ elements"):
        check_fused(ROUNDING_R_FIRST, device, B, L, C, **kwargs)


#: Rows on which rounding r first shows for every norm type and both narrow dtypes (per-row
#: modulation, weight and bias: the error of r is scaled independently per element, so many
#: elements land outside half an ulp; measured on the CPU and on an H100).
CAUGHT_ROWS = [(norm_type, dtype) for norm_type in NORM_TYPES for dtype in (torch.bfloat16, torch.float16)]


@pytest.mark.parametrize("norm_type,dtype", CAUGHT_ROWS, ids=[f"{n}-{str(d)[6:]}" for n, d in CAUGHT_ROWS])
@torch.inference_mode()
def test_rounding_r_first_is_caught(device, norm_type, dtype):
    """The tolerance bites: on a fixed bf16/fp16 row of each norm type (independent of any
    table), our check rejects the rounding-r-first variant that upstream's accepts."""
    B, L, C = 1, 2, 10240
    kwargs = {"norm_type": norm_type, "dtype": dtype, "eps": 1e-6, "gate_layout": "BLC", "has_weight": True,
              "has_bias": True, "scale_layout": "BLC", "shift_layout": "BLC", "padded": False}
    with pytest.raises(AssertionError, match=r": y: \d+ of \d+ elements"):
        check_fused(ROUNDING_R_FIRST, device, B, L, C, **kwargs)


# ----------------------------------------------------------------------------- eps, parameters, edges


@pytest.mark.parametrize("op", ["fused", "nss"])
@pytest.mark.parametrize("norm_type", NORM_TYPES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["float32", "bfloat16"])
@torch.inference_mode()
def test_eps_is_honoured(backend, device, op, norm_type, dtype, run_variant):
    """Upstream's kernel ignores eps (always 1e-6); ours must use the argument. With
    inputs ~1e-3, mean(r^2) ~ 4e-7 is comparable to eps, so 1e-5 and 1e-6 give outputs
    that differ far beyond the tolerance: the kernel must match the reference at its own
    eps and NOT the reference at the other one."""
    if backend.name == "native":
        pytest.skip("upstream's FlyDSL kernels bake in eps=1e-6 (the behaviour this test rejects)")
    B, L, C = 1, 2, 256
    gen = torch.Generator(device=device).manual_seed(1)
    small = [(torch.rand((B, L, C), generator=gen, device=device) * 2e-3 - 1e-3).to(dtype) for _ in range(2)]
    scale = torch.zeros((C,), dtype=dtype, device=device)
    shift = torch.zeros((), dtype=dtype, device=device)
    # the flags of a variant the op's table compiles, with neutral values (gate 1, weight 1,
    # bias 0): eps is checked without compiling a variant of its own
    flags = run_variant(op, norm_type=norm_type, dtype=dtype)
    gate = torch.ones((C,), dtype=dtype, device=device) if flags.get("has_gate") else None
    weight = torch.ones((C,), dtype=dtype, device=device) if flags["has_weight"] else None
    bias = torch.zeros((C,), dtype=dtype, device=device) if flags["has_bias"] else None
    tol = TOLERANCES[dtype]
    outputs = {}
    for eps in EPS_VALUES:
        if op == "fused":
            y, _ = backend.fused_residual_norm_scale_shift(small[0], small[1], gate, weight, bias, scale, shift,
                                                           norm_type, eps)
        else:
            y = backend.norm_scale_shift(small[0], weight, bias, scale, shift, norm_type, eps)
        outputs[eps] = y
    for eps in EPS_VALUES:
        if op == "fused":
            ref, _ = reference_fused_residual_norm_scale_shift(small[0], small[1], gate, weight, bias, scale, shift,
                                                               norm_type, eps)
        else:
            ref = reference_norm_scale_shift(small[0], weight, bias, scale, shift, norm_type, eps)
        for got_eps, y in outputs.items():
            report = mismatch_report(y, ref, tol.y_atol, tol.y_rtol)
            if got_eps == eps:
                assert report is None, f"eps={eps}: {report}"
            else:
                assert report is not None, f"output computed with eps={got_eps} matches the reference at eps={eps}"


@pytest.mark.parametrize("norm_type", NORM_TYPES)
@torch.inference_mode()
def test_fp32_parameters_on_bf16_inputs(backend, device, norm_type):
    """Upstream's call pattern: bf16 activations with fp32 weight and bias (and here fp32
    gate/scale/shift): parameters are read at full precision, not rounded to bf16."""
    if backend.name == "native":
        pytest.skip("upstream's FlyDSL kernels round weight/bias/scale/shift to bf16 first")
    B, L, C = 2, 4, 192
    gen = torch.Generator(device=device).manual_seed(2)

    def u(*shape, dtype=torch.float32):
        return (torch.rand(shape, generator=gen, device=device) * 2 - 1).to(dtype)

    residual, x = u(B, L, C, dtype=torch.bfloat16), u(B, L, C, dtype=torch.bfloat16)
    gate, weight, bias, scale, shift = u(B, 1, C), u(C), u(C), u(B, L, C), u(1, C)
    y, res_out = backend.fused_residual_norm_scale_shift(residual, x, gate, weight, bias, scale, shift,
                                                         norm_type, 1e-6)
    y_ref, r_ref = reference_fused_residual_norm_scale_shift(residual, x, gate, weight, bias, scale, shift,
                                                             norm_type, 1e-6)
    tol = TOLERANCES[torch.bfloat16]
    assert mismatch_report(res_out, r_ref, tol.res_atol, tol.res_rtol) is None
    assert mismatch_report(y, y_ref, tol.y_atol, tol.y_rtol) is None
    # the same parameters rounded to bf16 give a measurably different output
    y16_ref, _ = reference_fused_residual_norm_scale_shift(residual, x, gate.bfloat16(), weight.bfloat16(),
                                                           bias.bfloat16(), scale.bfloat16(), shift.bfloat16(),
                                                           norm_type, 1e-6)
    assert mismatch_report(y, y16_ref, tol.y_atol, tol.y_rtol) is not None


@pytest.mark.parametrize("shape", [(), (1,)], ids=["0-d", "[1]"])
@torch.inference_mode()
def test_scalar_modulation_shapes(backend, device, shape, run_variant):
    """A scalar scale/shift/gate may be 0-d or [1]; both broadcast over [B, L, C]."""
    if backend.name == "native":
        pytest.skip("upstream's FlyDSL kernels compute bf16 only (this case is fp32)")
    B, L, C = 2, 3, 64
    gen = torch.Generator(device=device).manual_seed(3)
    residual, x = (torch.rand((B, L, C), generator=gen, device=device) for _ in range(2))
    gate, scale, shift = (torch.full(shape, v, device=device) for v in (0.5, -0.25, 0.125))
    # an fp32 variant with a gate that the fused table compiles (no variant of its own);
    # its weight and bias, if any, are neutral (1 and 0)
    flags = run_variant("fused", dtype=torch.float32, has_gate=True)
    weight = torch.ones((C,), device=device) if flags["has_weight"] else None
    bias = torch.zeros((C,), device=device) if flags["has_bias"] else None
    y, _ = backend.fused_residual_norm_scale_shift(residual, x, gate, weight, bias, scale, shift,
                                                   flags["norm_type"], 1e-6)
    r = residual + 0.5 * x
    if flags["norm_type"] == "layer":
        r = r - r.mean(-1, keepdim=True)
    expected = r * torch.rsqrt(r.pow(2).mean(-1, keepdim=True) + 1e-6) * 0.75 + 0.125
    assert mismatch_report(y, expected, TOLERANCES[torch.float32].y_atol, TOLERANCES[torch.float32].y_rtol) is None


@pytest.mark.parametrize("norm_type", NORM_TYPES)
@torch.inference_mode()
def test_strided_modulation_and_parameters(backend, device, norm_type, run_variant):
    """Views with channel strides != 1 (every other element of a buffer) and a transposed
    per-row scale: the launchers pass each tensor's own strides, nothing is copied. The
    optional tensors are those of the fp32 variant the fused table compiles for the norm
    type (no variant of its own); over both norm types every one of them is strided."""
    if backend.name == "native":
        pytest.skip("upstream's FlyDSL kernels compute bf16 only (this case is fp32)")
    B, L, C = 2, 4, 96
    gen = torch.Generator(device=device).manual_seed(5)
    flags = run_variant("fused", prefer=("has_gate", "has_weight", "has_bias"), norm_type=norm_type,
                        dtype=torch.float32)

    def u(*shape):
        return torch.rand(shape, generator=gen, device=device) * 2 - 1

    residual, x = u(B, L, C), u(B, L, C)
    gate = u(B, 1, 2 * C)[..., ::2]                 # [B, 1, C], channel stride 2
    scale = u(B, C, L).transpose(1, 2)               # [B, L, C], channel stride L
    shift = u(2 * C)[1::2]                           # [C], stride 2
    weight, bias = u(3 * C)[::3], u(2 * C)[::2]
    assert not (gate.is_contiguous() or scale.is_contiguous() or shift.is_contiguous())
    gate = gate if flags["has_gate"] else None
    weight = weight if flags["has_weight"] else None
    bias = bias if flags["has_bias"] else None
    y, res_out = backend.fused_residual_norm_scale_shift(residual, x, gate, weight, bias, scale, shift,
                                                         norm_type, 1e-6)
    y_ref, r_ref = reference_fused_residual_norm_scale_shift(residual, x, gate, weight, bias, scale, shift,
                                                             norm_type, 1e-6)
    tol = TOLERANCES[torch.float32]
    assert mismatch_report(res_out, r_ref, tol.res_atol, tol.res_rtol) is None
    assert mismatch_report(y, y_ref, tol.y_atol, tol.y_rtol) is None


@torch.inference_mode()
def test_per_frame_layout_repeats_each_frame(device):
    """The reference's per-frame expansion: frame f covers rows f*L/F .. (f+1)*L/F - 1
    (checked directly, since the kernels are compared against it)."""
    B, F, L, C = 2, 3, 6, 4
    t = torch.arange(B * F * C, dtype=torch.float32, device=device).reshape(B, F, 1, C)
    full = expand_modulation(t, B, L, C)
    for b in range(B):
        for row in range(L):
            assert torch.equal(full[b, row], t[b, row // (L // F), 0])


@torch.inference_mode()
def test_empty_rows_and_inputs_untouched(backend, device, run_variant):
    """B*L == 0 returns empty outputs; a normal call leaves its inputs unchanged."""
    if backend.name == "native":
        pytest.skip("upstream's contract for empty inputs is not ours to test")
    empty = torch.zeros((0, 4, 64), device=device)
    y, res_out = backend.fused_residual_norm_scale_shift(empty, empty, None, None, None, empty[:, :1], empty[:, :1],
                                                         "layer", 1e-6)
    assert y.shape == res_out.shape == (0, 4, 64)
    # the bf16 layer-norm variant of the fused table with the most optional inputs (no variant of its own)
    flags = run_variant("fused", prefer=("has_gate", "has_weight", "has_bias"), norm_type="layer",
                        dtype=torch.bfloat16)
    inputs = fused_inputs(2, 3, 64, dtype=torch.bfloat16, gate_layout="BLC" if flags["has_gate"] else "none",
                          has_weight=flags["has_weight"], has_bias=flags["has_bias"],
                          scale_layout="B1C", shift_layout="C", padded=True, seed=4, device=device)
    before = {k: v.clone() for k, v in inputs.items() if v is not None}
    backend.fused_residual_norm_scale_shift(**inputs, norm_type="layer", eps=1e-6)
    for k, v in before.items():
        assert torch.equal(inputs[k], v), f"{k} was modified"


def test_run_variant_is_a_variant_this_session_runs(request, run_variant):
    """The tests outside the tables take their flags from the variants this session's
    fused table runs (a rotated run has a variant list of its own), and from the fixed
    table's where the session's hold none with the values asked for."""
    session = session_variants(request.session.items)
    if "fused" not in session:
        pytest.skip("the fused table's test is not in this session (-k, a shard)")
    flags = run_variant("fused", dtype=torch.float32, has_gate=True)
    assert flags in session["fused"]
    foreign = {"fused": ({"norm_type": "rms", "dtype": torch.float16, "has_gate": False, "has_weight": False,
                          "has_bias": False},)}
    assert table_variant("fused", session=foreign, dtype=torch.float32, has_gate=True) == table_variant(
        "fused", dtype=torch.float32, has_gate=True)
    with pytest.raises(LookupError, match="no variant of the fused table holds"):
        table_variant("fused", session=foreign, dtype=torch.float32, has_gate=True, has_weight=True,
                      norm_type="nonexistent")
