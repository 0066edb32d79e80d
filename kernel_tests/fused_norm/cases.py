"""Facts and helpers of the fused-norm suites: shapes, option values, tolerances, inputs,
interpreter budget, and one check per op (shared by the table tests and the fuzzing).

Shapes and option values follow sglang's FlyDSL tests
(``test/registered/kernels/ops/diffusion/test_flydsl_fused_norm.py`` and
``test_norm_flydsl.py``: hidden size 5120 and 10240, ``L`` 16 and 90000, ``B`` 1 and 2)
plus hidden sizes that are not multiples of 5120. The tolerances and their derivation
are in ``test_fused_norm.py``'s docstring; they travel with the dtype
(:data:`TOLERANCES`), never as an axis of a covering table.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
import torch

from kernel_tests.fused_norm.kernels import DTYPES, LAYOUTS, NORM_TYPES
from kernel_tests.fused_norm.reference import (
    reference_fused_residual_norm_scale_shift,
    reference_norm_scale_shift,
)
from kernel_tests.support.asserts import assert_close_verbose
from kernel_tests.support.budget import InterpreterBudget
from kernel_tests.support.inputs import generator, uniform
from kernel_tests.support.phases import phase

__all__ = [
    "BUDGET",
    "DTYPES",
    "EPS_VALUES",
    "FUSED_COMPILE_AXES",
    "FUSED_OPTIONS",
    "GATE_LAYOUTS",
    "LAYOUTS",
    "NORM_TYPES",
    "NSS_COMPILE_AXES",
    "NSS_OPTIONS",
    "SHAPES",
    "TOLERANCES",
    "Backend",
    "Tolerance",
    "bias_needs_weight",
    "check_fused",
    "check_nss",
    "frames_for",
    "gate_iff_layout",
    "make_modulation",
    "shape_id",
]

EPS_VALUES = [1e-6, 1e-5]
#: Gate layouts: "none" means no gate (``has_gate=False``), else one of :data:`LAYOUTS`.
GATE_LAYOUTS = ["none", *LAYOUTS]

#: (B, L, C). Upstream's sizes (5120, 10240 = two of its 5120-wide iterations, L = 90000)
#: and sizes it cannot run (C not a multiple of 5120; odd L; C one masked block).
SHAPES = [
    (2, 3, 100),        # tiny; C not a power of two (one masked 128-wide block)
    (1, 2, 10240),      # C > MAX_BLOCK_C: the multi-block loop path everywhere (upstream: NUM_ITERS = 2)
    (2, 4, 3072),       # C not a multiple of 5120
    (1, 16, 5120),      # upstream
    (2, 16, 5120),      # upstream
    (1, 16, 10240),     # upstream's multi-iteration size
    (3, 33, 1536),      # odd L, C not a multiple of 5120
    (1, 90000, 5120),   # upstream's L = 90000
]


def shape_id(shape: tuple[int, int, int]) -> str:
    return "B{}-L{}-C{}".format(*shape)


def frames_for(length: int) -> int:
    """Frames of the per-frame layout ``[B, F, 1, C]`` for ``L`` rows: the largest of
    4, 3, 2, 1 that divides ``L`` (upstream's frame test uses F = 4 for L = 16)."""
    return next(f for f in (4, 3, 2, 1) if length % f == 0)


# ----------------------------------------------------------------------------- constraints
# Upstream's conditional axes, as constraints: the table never holds an impossible row.


def gate_iff_layout(has_gate: bool, gate_layout: str) -> bool:
    """A gate layout is chosen exactly when there is a gate."""
    return has_gate == (gate_layout != "none")


def bias_needs_weight(has_weight: bool, has_bias: bool) -> bool:
    """A bias only exists with a weight (a bias without one is a launcher error)."""
    return has_weight or not has_bias


#: The option axes of the two ops' tables: shared by the suite, the fuzz tests and the
#: audit (kernel_tests/fused_norm/audit.py), so none of them imports a test module.
FUSED_OPTIONS = {
    "norm_type": NORM_TYPES, "dtype": list(DTYPES), "eps": EPS_VALUES,
    "has_gate": [False, True], "gate_layout": GATE_LAYOUTS,
    "has_weight": [False, True], "has_bias": [False, True],
    "scale_layout": list(LAYOUTS), "shift_layout": list(LAYOUTS), "padded": [False, True],
}
NSS_OPTIONS = {
    "norm_type": NORM_TYPES, "dtype": list(DTYPES), "eps": EPS_VALUES,
    "has_weight": [False, True], "has_bias": [False, True],
    "scale_layout": list(LAYOUTS), "shift_layout": list(LAYOUTS), "padded": [False, True],
}
#: The axes that select a variant of ``_fused_norm_kernel`` on a GPU (its constexprs
#: HAS_GATE, HAS_WEIGHT, HAS_BIAS, IS_RMS and the pointers' dtype; no size, stride or
#: layout is specialized): ``compile_axes=`` of the tables, so they compile the fewest.
FUSED_COMPILE_AXES = ["norm_type", "dtype", "has_gate", "has_weight", "has_bias"]
NSS_COMPILE_AXES = ["norm_type", "dtype", "has_weight", "has_bias"]


@dataclass(frozen=True)
class OpTable:
    """One op's ``@pairwise`` table in test_fused_norm.py: its test, options, constraints
    and compile axes (the suite, the tests outside the tables and this module read them here)."""

    test: str
    options: dict[str, list[Any]]
    constraints: tuple[Callable[..., bool], ...]
    compile_axes: tuple[str, ...]


#: ``"fused"``: the fused residual op's table; ``"nss"``: ``norm_scale_shift``'s.
OP_TABLES = {
    "fused": OpTable("test_fused_residual_norm_scale_shift", FUSED_OPTIONS, (gate_iff_layout, bias_needs_weight),
                     tuple(FUSED_COMPILE_AXES)),
    "nss": OpTable("test_norm_scale_shift", NSS_OPTIONS, (bias_needs_weight,), tuple(NSS_COMPILE_AXES)),
}


@functools.cache
def _table_variants(op: str) -> tuple[dict[str, Any], ...]:
    """The variants (compile-axis values) the op's fixed ``@pairwise`` table compiles, in
    row order: ``cover()`` of the suite's own model, so the same rows the plugin runs."""
    from pairwise_param import cover

    spec = OP_TABLES[op]
    table = cover(spec.options, constraints=list(spec.constraints), compile_axes=list(spec.compile_axes))
    seen = dict.fromkeys(tuple((a, row[a]) for a in spec.compile_axes) for row in table)
    return tuple(dict(v) for v in seen)


def session_variants(items: list[pytest.Item]) -> dict[str, tuple[dict[str, Any], ...]]:
    """The variants each op's table runs in this session: the compile-axis values of its
    test's items (a rotated run's own variant list; the full product under
    ``--pairwise-mode=full``; on a shard, the shard's), in an order of their own (by
    ``repr``), so that a plugin that shuffles the items changes no choice. An op whose
    table test is not among the items is absent."""
    seen: dict[str, dict[tuple[tuple[str, Any], ...], None]] = {}
    for item in items:
        name = getattr(item, "originalname", None)
        params = getattr(getattr(item, "callspec", None), "params", None)
        module = getattr(getattr(item, "module", None), "__name__", "")
        for op, spec in OP_TABLES.items():
            if name == spec.test and params is not None and module.endswith("test_fused_norm"):
                seen.setdefault(op, {})[tuple((a, params[a]) for a in spec.compile_axes)] = None
    return {op: tuple(dict(v) for v in sorted(variants, key=repr)) for op, variants in seen.items()}


def table_variant(op: str, prefer: tuple[str, ...] = (),
                  session: dict[str, tuple[dict[str, Any], ...]] | None = None, **fixed: Any) -> dict[str, Any]:
    """A variant of op's table (``"fused"`` or ``"nss"``) holding the ``fixed`` values
    (those with the most ``prefer`` flags True first, then the table's order): the tests
    outside the tables launch the kernel with its flags and so compile nothing the tables
    do not (a GPU compiles each variant once; issue 39). Every ``(norm_type, dtype)`` pair
    is a variant of both tables (they cover every pair of values).

    ``session`` (:func:`session_variants`, the ``run_variant`` fixture passes it): the
    variants this session's table runs, so a rotated run, whose table has a variant list of
    its own, compiles no variant of the fixed table for these tests; the fixed table's
    variants where the session's hold none with the ``fixed`` values."""
    for variants in ((session or {}).get(op, ()), _table_variants(op)):
        found = [v for v in variants if all(v[k] == x for k, x in fixed.items())]
        if found:
            return max(found, key=lambda v: sum(bool(v.get(k)) for k in prefer))
    raise LookupError(f"no variant of the {op} table holds {fixed}; its variants: {_table_variants(op)}")


# ----------------------------------------------------------------------------- tolerances


@dataclass(frozen=True)
class Tolerance:
    """(atol, rtol) of ``y`` and of ``residual_out`` for one dtype."""

    y_atol: float
    y_rtol: float
    res_atol: float
    res_rtol: float


def _tolerance(dtype: torch.dtype) -> Tolerance:
    """Derived in ``test_fused_norm.py``: rtol = unit roundoff of the output dtype (its
    final rounding); atol covers fp32 arithmetic differences under the suite's input
    model: 2^-15 for y (its bound is about 280 u = 1.7e-5), 2^-20 for r (16x its
    2^-24 bound)."""
    u = torch.finfo(dtype).eps / 2
    return Tolerance(y_atol=2.0**-15, y_rtol=u, res_atol=2.0**-20, res_rtol=u)


TOLERANCES: dict[torch.dtype, Tolerance] = {dt: _tolerance(dt) for dt in DTYPES}

# ----------------------------------------------------------------------------- CPU budget

#: Interpreted cost of a case: about 25 ms per row (program) plus the row's length.
BUDGET = InterpreterBudget(
    env="KERNEL_TESTS_FUSED_NORM_CPU_BUDGET",
    default=16.0,
    cost=lambda B, L, C: B * L * (1.0 + C / 4096.0),
    unit="B*L*(1 + C/4096) row units, about 25 ms each on one core",
)

# ----------------------------------------------------------------------------- backends


@dataclass(frozen=True)
class Backend:
    """One implementation of both ops (upstream's signatures) and its contract.

    ``unsupported(**case)`` returns why a case is outside this implementation's contract
    (it becomes the skip reason) or None."""

    name: str
    fused_residual_norm_scale_shift: Callable[..., Any]
    norm_scale_shift: Callable[..., Any]
    unsupported: Callable[..., str | None] = lambda **case: None

    def __repr__(self) -> str:
        return f"Backend({self.name})"


# ----------------------------------------------------------------------------- inputs


def make_modulation(layout: str, B: int, L: int, C: int, dtype: torch.dtype, gen: torch.Generator,
                    device: torch.device) -> torch.Tensor:
    """A scale/shift/gate tensor of ``layout`` (one of :data:`LAYOUTS`), uniform in [-1, 1)."""
    shapes = {
        "scalar": (),
        "C": (C,),
        "1C": (1, C),
        "B1C": (B, 1, C),
        "BLC": (B, L, C),
        "BF1C": (B, frames_for(L), 1, C),
    }
    return uniform(shapes[layout], gen, device).to(dtype)


def _activation(B: int, L: int, C: int, dtype: torch.dtype, padded: bool, gen: torch.Generator,
                device: torch.device) -> torch.Tensor:
    """[B, L, C] uniform in [-1, 1); ``padded``: a view whose rows are 64 elements
    further apart than C (non-contiguous, channels contiguous)."""
    if not padded:
        return uniform((B, L, C), gen, device).to(dtype)
    buf = uniform((B, L, C + 64), gen, device).to(dtype)
    return buf[..., :C]


def _affine(C: int, dtype: torch.dtype, has_weight: bool, has_bias: bool, gen: torch.Generator,
            device: torch.device) -> tuple[torch.Tensor | None, torch.Tensor | None]:
    """Weight and bias in the input dtype: upstream's FlyDSL kernel reads them as bf16,
    so values exact in the input dtype keep its results comparable (fp32 parameters on
    bf16 inputs have their own test)."""
    weight = uniform((C,), gen, device).to(dtype) if has_weight else None
    bias = uniform((C,), gen, device).to(dtype) if has_bias else None
    return weight, bias


def fused_inputs(B: int, L: int, C: int, *, dtype: torch.dtype, gate_layout: str, has_weight: bool,
                 has_bias: bool, scale_layout: str, shift_layout: str, padded: bool, seed: int,
                 device: torch.device) -> dict[str, Any]:
    """Keyword arguments of ``fused_residual_norm_scale_shift`` (without norm_type, eps)."""
    gen = generator(seed, device)
    residual = _activation(B, L, C, dtype, padded, gen, device)
    x = _activation(B, L, C, dtype, padded, gen, device)
    gate = None if gate_layout == "none" else make_modulation(gate_layout, B, L, C, dtype, gen, device)
    weight, bias = _affine(C, dtype, has_weight, has_bias, gen, device)
    scale = make_modulation(scale_layout, B, L, C, dtype, gen, device)
    shift = make_modulation(shift_layout, B, L, C, dtype, gen, device)
    return {"residual": residual, "x": x, "gate": gate, "weight": weight, "bias": bias, "scale": scale, "shift": shift}


def nss_inputs(B: int, L: int, C: int, *, dtype: torch.dtype, has_weight: bool, has_bias: bool,
               scale_layout: str, shift_layout: str, padded: bool, seed: int,
               device: torch.device) -> dict[str, Any]:
    """Keyword arguments of ``norm_scale_shift`` (without norm_type, eps)."""
    gen = generator(seed, device)
    x = _activation(B, L, C, dtype, padded, gen, device)
    weight, bias = _affine(C, dtype, has_weight, has_bias, gen, device)
    scale = make_modulation(scale_layout, B, L, C, dtype, gen, device)
    shift = make_modulation(shift_layout, B, L, C, dtype, gen, device)
    return {"x": x, "weight": weight, "bias": bias, "scale": scale, "shift": shift}


# ----------------------------------------------------------------------------- one check per op


def _skip_unsupported(backend: Backend, **case: Any) -> None:
    reason = backend.unsupported(**case)
    if reason is not None:
        pytest.skip(reason)


def check_fused(backend: Backend, device: torch.device, B: int, L: int, C: int, *, norm_type: str,
                dtype: torch.dtype, eps: float, gate_layout: str, has_weight: bool, has_bias: bool,
                scale_layout: str, shift_layout: str, padded: bool = False, seed: int = 0) -> None:
    """Run ``fused_residual_norm_scale_shift`` on one case; compare ``residual_out`` and
    ``y`` with the fp32 reference at :data:`TOLERANCES` of ``dtype``."""
    _skip_unsupported(backend, op="fused", B=B, L=L, C=C, norm_type=norm_type, dtype=dtype, eps=eps,
                      gate_layout=gate_layout, has_weight=has_weight, has_bias=has_bias,
                      scale_layout=scale_layout, shift_layout=shift_layout, padded=padded)
    with phase("inputs"):
        inputs = fused_inputs(B, L, C, dtype=dtype, gate_layout=gate_layout, has_weight=has_weight,
                              has_bias=has_bias, scale_layout=scale_layout, shift_layout=shift_layout,
                              padded=padded, seed=seed, device=device)
    with phase("kernel"):
        y, res_out = backend.fused_residual_norm_scale_shift(**inputs, norm_type=norm_type, eps=eps)
    with phase("reference"):
        y_ref, r_ref = reference_fused_residual_norm_scale_shift(**inputs, norm_type=norm_type, eps=eps)
    tol = TOLERANCES[dtype]
    where = (f"fused_residual_norm_scale_shift[{backend.name}] B={B} L={L} C={C} {norm_type} "
             f"{str(dtype).replace('torch.', '')} eps={eps} gate={gate_layout} scale={scale_layout} "
             f"shift={shift_layout} weight={has_weight} bias={has_bias} padded={padded}")
    with phase("compare"):
        assert res_out.dtype == dtype and y.dtype == dtype, f"{where}: outputs must be {dtype}"
        assert_close_verbose(res_out, r_ref, tol.res_atol, tol.res_rtol, context=f"{where}: residual_out")
        assert_close_verbose(y, y_ref, tol.y_atol, tol.y_rtol, context=f"{where}: y")


def check_nss(backend: Backend, device: torch.device, B: int, L: int, C: int, *, norm_type: str,
              dtype: torch.dtype, eps: float, has_weight: bool, has_bias: bool, scale_layout: str,
              shift_layout: str, padded: bool = False, seed: int = 0) -> None:
    """Run ``norm_scale_shift`` on one case; compare ``y`` with the fp32 reference."""
    _skip_unsupported(backend, op="nss", B=B, L=L, C=C, norm_type=norm_type, dtype=dtype, eps=eps,
                      gate_layout="none", has_weight=has_weight, has_bias=has_bias,
                      scale_layout=scale_layout, shift_layout=shift_layout, padded=padded)
    with phase("inputs"):
        inputs = nss_inputs(B, L, C, dtype=dtype, has_weight=has_weight, has_bias=has_bias,
                            scale_layout=scale_layout, shift_layout=shift_layout, padded=padded, seed=seed,
                            device=device)
    with phase("kernel"):
        y = backend.norm_scale_shift(**inputs, norm_type=norm_type, eps=eps)
    with phase("reference"):
        y_ref = reference_norm_scale_shift(**inputs, norm_type=norm_type, eps=eps)
    tol = TOLERANCES[dtype]
    where = (f"norm_scale_shift[{backend.name}] B={B} L={L} C={C} {norm_type} "
             f"{str(dtype).replace('torch.', '')} eps={eps} scale={scale_layout} shift={shift_layout} "
             f"weight={has_weight} bias={has_bias} padded={padded}")
    with phase("compare"):
        assert y.dtype == dtype, f"{where}: y must be {dtype}"
        assert_close_verbose(y, y_ref, tol.y_atol, tol.y_rtol, context=f"{where}: y")
