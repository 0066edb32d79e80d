"""What the study runs for one suite test: its option axes (the suite's own ``@pairwise``
spec), a small representative shape set, how one case runs (the family's own check
helper, so the suite's references, tolerances and asserts), and upstream's CI rows.

Shapes are cut so that the whole product of option rows runs in seconds under the
Triton interpreter; each set still reaches the code paths the suite's shapes reach
(split-K and single-split GEMMs, partial tiles, multi-block rows, n > 1, B > 1, L > 1).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import torch

from kernel_tests.support.families import FAMILIES
from pairwise_param.contract import MARK
from pairwise_param.decorator import PairwiseSpec

Row = dict[str, Any]


@dataclass(frozen=True)
class Target:
    """One suite test as the study runs it."""

    key: str                                   # "family/test_name"
    family: str
    kernel_module: str                         # the module a fault mutates
    axes: Mapping[str, Sequence[Any]]
    constraints: tuple[Any, ...]
    shapes: tuple[tuple[int, ...], ...]
    make_backend: Callable[[ModuleType], Any]
    run: Callable[[Any, torch.device, tuple[int, ...], Row], None]
    upstream_rows: tuple[Row, ...] | None = None
    upstream_note: str = ""
    spec: PairwiseSpec | None = None           # the suite's spec (None: a study model, see model_note)
    model_note: str = "the suite's @pairwise axes and constraints"
    include: tuple[Mapping[str, Any], ...] = field(default=())
    #: the suite's ``compile_axes=`` / ``compile_key=`` (the compile-aware t=2 table; the
    #: spec's when there is one)
    compile_axes: tuple[str, ...] = ()
    compile_key: Callable[..., Any] | None = None

    def compile_args(self) -> dict[str, Any]:
        """``compile_axes`` / ``compile_key`` of the suite's table (empty: none declared)."""
        spec = self.spec
        axes = self.compile_axes or (spec.compile_axes if spec is not None else ())
        key = self.compile_key or (spec.compile_key if spec is not None else None)
        return {"compile_axes": axes, "compile_key": key} if axes else {}

    def cover_args(self) -> dict[str, Any]:
        """Keyword arguments of ``pairwise_param.cover`` that rebuild the suite's table
        (strength added by the caller)."""
        spec = self.spec
        return {
            "constraints": self.constraints,
            "include": spec.include if spec is not None else (),
            "sub_models": spec.sub_models if spec is not None else (),
            "effort": spec.effort if spec is not None else 0,
            "seed": spec.seed if spec is not None else 0,
        }


def suite_spec(module: str, test: str) -> PairwiseSpec:
    """The ``PairwiseSpec`` of a suite test's ``@pairwise`` mark (exactly what pytest expands)."""
    fn = getattr(importlib.import_module(module), test)
    specs = [m.args[0] for m in getattr(fn, "pytestmark", []) if m.name == MARK]
    if len(specs) != 1:
        raise ValueError(f"{module}::{test} has {len(specs)} pairwise marks; the study expects one")
    spec: PairwiseSpec = specs[0]
    return spec


def _dtype(name: str) -> torch.dtype:
    return {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32}[name]


def _ci_values(values: Sequence[Any]) -> list[Any]:
    """The values of an upstream list that its CI runs (nightly-only ones are wrapped in
    ``pytest.param``; see ``kernel_tests/rope/upstream_ci.py``)."""
    return [v for v in values if not hasattr(v, "marks")]


def _product(**axes: Sequence[Any]) -> list[Row]:
    import itertools

    names = list(axes)
    return [dict(zip(names, combo)) for combo in itertools.product(*axes.values())]


# ----------------------------------------------------------------------------- skinny GEMMs

def _skinny_backend(m: ModuleType) -> Any:
    from kernel_tests.skinny_gemm.backend import Backend

    return Backend("triton", m.wvSplitK, m.wvSplitKrc, m.wvSplitKQ, m.LLMM1)


def _cu() -> int:
    from kernel_tests.support.platform import num_compute_units

    return num_compute_units()


def _run_wvsplitk(backend: Any, device: torch.device, shape: tuple[int, ...], row: Row) -> None:
    from kernel_tests.skinny_gemm.cases import check_wvsplitk

    check_wvsplitk(backend, device, _cu(), *shape, row["dtype"], row["padded_a"], row["padded_b"],
                   row["bias_mode"], row["xnorm"], 0)


def _run_wvsplitkrc(backend: Any, device: torch.device, shape: tuple[int, ...], row: Row) -> None:
    from kernel_tests.skinny_gemm.cases import check_wvsplitkrc

    check_wvsplitkrc(backend, device, _cu(), *shape, row["dtype"], row["padded_a"], row["bias_mode"],
                     row["xnorm"], 0)


def _run_fp8(backend: Any, device: torch.device, shape: tuple[int, ...], row: Row) -> None:
    from kernel_tests.skinny_gemm.cases import check_wvsplitk_fp8

    check_wvsplitk_fp8(backend, device, _cu(), *shape, row["dtype"], row["padded_a"], row["padded_b"],
                       row["biased"], row["xnorm"], 0)


def _skinny_targets() -> list[Target]:
    from kernel_tests.skinny_gemm import upstream_ci as up

    mod, kern = "kernel_tests.skinny_gemm.test_skinny_gemms", "kernel_tests.skinny_gemm.kernels"
    out = []
    for test, run, shapes, names, rows in [
        # (1, 64, 16): one split; (3, 2048, 40): split-K (workspace + reduce), partial m tile; n = 4
        ("test_wvsplitk", _run_wvsplitk, ((1, 64, 16), (3, 2048, 40), (4, 256, 8)),
         ("dtype", "padded_a", "padded_b", "bias_mode", "xnorm"), up.OPTIONS_WVSPLITK),
        # n bucketed to 32 / 16; 3 and 2 K shards (the last one partial); partial m tile
        ("test_wvsplitkrc", _run_wvsplitkrc, ((17, 1032, 80), (13, 520, 16)),
         ("dtype", "padded_a", "bias_mode", "xnorm"), up.OPTIONS_WVSPLITKRC),
        ("test_wvsplitk_fp8", _run_fp8, ((1, 64, 16), (3, 2048, 40)),
         ("dtype", "padded_a", "padded_b", "biased", "xnorm"), up.OPTIONS_WVSPLITK_FP8),
    ]:
        spec = suite_spec(mod, test)
        upstream = tuple({**dict(zip(names, r)), "dtype": _dtype(r[0])} for r in rows)
        out.append(Target(f"skinny_gemm/{test}", "skinny_gemm", kern, dict(spec.axes), spec.constraints,
                          shapes, _skinny_backend, run, upstream, "vLLM's hand-cut option lists", spec))
    return out


# ----------------------------------------------------------------------------- RMSNorm

def _rms_backend(m: ModuleType) -> Any:
    from kernel_tests.rmsnorm.backend import Backend

    return Backend("triton", m.rmsnorm)


def _run_rms(backend: Any, device: torch.device, shape: tuple[int, ...], row: Row) -> None:
    from kernel_tests.rmsnorm.cases import check_rmsnorm

    check_rmsnorm(backend, device, *shape, row["dtype"], row["specify_out"], row["padded"])


def _rms_targets() -> list[Target]:
    from kernel_tests.rmsnorm import upstream_ci as up

    spec = suite_spec("kernel_tests.rmsnorm.test_rmsnorm", "test_rmsnorm")
    upstream = tuple(_product(dtype=[_dtype(d) for d in up.DTYPES], specify_out=[True, False], padded=[False]))
    # one row; a batch with a partial last program and a non-power-of-two row; two column blocks
    shapes = ((1, 64), (5, 1000), (3, 4100))
    return [Target("rmsnorm/test_rmsnorm", "rmsnorm", "kernel_tests.rmsnorm.kernels", dict(spec.axes),
                   spec.constraints, shapes, _rms_backend, _run_rms, upstream,
                   "SGLang CI: dtype x specify_out (no padded axis upstream)", spec)]


# ----------------------------------------------------------------------------- RoPE

def _rope_backend(m: ModuleType) -> Any:
    from kernel_tests.rope.backend import RopeBackend

    return RopeBackend("triton", m.apply_rope_inplace, m.apply_rope_inplace_with_kvcache)


def _run_rope(backend: Any, device: torch.device, shape: tuple[int, ...], row: Row) -> None:
    from kernel_tests.rope.cases import check_rope

    q_heads = row["num_kv_heads"] * row["gqa_ratio"]
    check_rope(backend, device, shape[0], q_heads, row["num_kv_heads"], row["rope_dim"], row["rope_dim"],
               row["is_neox"], row["dtype"])


def _run_partial(backend: Any, device: torch.device, shape: tuple[int, ...], row: Row) -> None:
    from kernel_tests.rope.cases import PARTIAL_DTYPE, PARTIAL_KV_HEADS, PARTIAL_Q_HEADS, check_rope

    check_rope(backend, device, shape[0], PARTIAL_Q_HEADS, PARTIAL_KV_HEADS, row["rope_dim"], row["head_dim"],
               row["is_neox"], PARTIAL_DTYPE, layouts=("view", "flat"))


def _run_fused_store(backend: Any, device: torch.device, shape: tuple[int, ...], row: Row) -> None:
    from kernel_tests.rope.cases import FUSED_DTYPE, check_fused_store

    q_heads = row["num_kv_heads"] * row["gqa_ratio"]
    check_fused_store(backend, device, shape[0], q_heads, row["num_kv_heads"], row["rope_dim"], row["rope_dim"],
                      row["is_neox"], FUSED_DTYPE)


def _rope_targets() -> list[Target]:
    from kernel_tests.rope import upstream_ci as up

    mod, kern = "kernel_tests.rope.test_rope", "kernel_tests.rope.kernels"
    ci = {name: _ci_values(v) for name, v in [
        ("gqa_ratio", up.GQA_RATIO), ("num_kv_heads", up.NUM_KV_HEADS_LIST), ("rope_dim", up.ROPE_DIM_LIST),
        ("is_neox", up.IS_NEOX_LIST), ("dtype", [_dtype(d) for d in _ci_values(up.DTYPE_LIST)]),
        ("partial_rope_dim", up.PARTIAL_ROPE_DIM_LIST), ("head_dim", up.HEAD_DIM_LIST)]}
    rope_rows = _product(gqa_ratio=ci["gqa_ratio"], num_kv_heads=ci["num_kv_heads"], rope_dim=ci["rope_dim"],
                         is_neox=ci["is_neox"], dtype=ci["dtype"])
    partial_rows = [r for r in _product(is_neox=ci["is_neox"], rope_dim=ci["partial_rope_dim"],
                                        head_dim=ci["head_dim"]) if r["head_dim"] >= r["rope_dim"]]
    store_rows = _product(gqa_ratio=ci["gqa_ratio"], num_kv_heads=ci["num_kv_heads"], rope_dim=ci["rope_dim"],
                          is_neox=ci["is_neox"])
    shapes = ((1,), (3,))  # batch: one token; an odd count (a masked token tail)
    out = []
    for test, run, rows in [("test_rope", _run_rope, rope_rows), ("test_partial_rope", _run_partial, partial_rows),
                            ("test_fused_rope_store", _run_fused_store, store_rows)]:
        spec = suite_spec(mod, test)
        out.append(Target(f"rope/{test}", "rope", kern, dict(spec.axes), spec.constraints, shapes, _rope_backend,
                          run, tuple(rows), "SGLang CI sub-lists (get_ci_test_range)", spec))
    return out


# ----------------------------------------------------------------------------- fused norm

#: The fused test's table has 18144 feasible rows; at ~0.1 s a case under the
#: interpreter its full product would take half an hour per fault. The study cuts the
#: value lists (every axis and both constraints kept) to a 576-row product.
FUSED_STUDY_VALUES: dict[str, list[Any]] = {
    "dtype": [torch.bfloat16, torch.float32],
    "gate_layout": ["none", "B1C", "BLC"],
    "scale_layout": ["B1C", "BLC"],
    "shift_layout": ["B1C", "BLC"],
}


def _fused_backend(m: ModuleType) -> Any:
    from kernel_tests.fused_norm.cases import Backend

    return Backend("triton", m.fused_residual_norm_scale_shift, m.norm_scale_shift)


def _run_fused(backend: Any, device: torch.device, shape: tuple[int, ...], row: Row) -> None:
    from kernel_tests.fused_norm.cases import check_fused

    opts = {k: v for k, v in row.items() if k != "has_gate"}
    check_fused(backend, device, *shape, **opts)


def _fused_targets() -> list[Target]:
    from kernel_tests.fused_norm import upstream_ci as up

    spec = suite_spec("kernel_tests.fused_norm.test_fused_norm", "test_fused_residual_norm_scale_shift")
    axes = {name: list(FUSED_STUDY_VALUES.get(name, values)) for name, values in spec.axes.items()}
    upstream = [r for rows in up.FUSED_ROWS.values() for r in rows]
    kept = tuple(r for r in upstream if all(r[k] in axes[k] for k in axes))
    note = (f"sglang FlyDSL v1+v2 FUSED_CASES rows; {len(kept)} of {len(upstream)} lie in the study model "
            f"(the others use layouts it cuts)")
    cut = ", ".join(f"{k} {len(spec.axes[k])}->{len(v)}" for k, v in FUSED_STUDY_VALUES.items())
    # B=2, L=2, C=100: two batches, two rows each (per-row and per-batch layouts differ), a masked block
    return [Target("fused_norm/test_fused_residual_norm_scale_shift", "fused_norm", "kernel_tests.fused_norm.kernels",
                   axes, spec.constraints, ((2, 2, 100),), _fused_backend, _run_fused, kept, note, None,
                   f"the suite's axes and constraints with value lists cut ({cut}); tables built by cover() "
                   f"from that model", compile_axes=spec.compile_axes, compile_key=spec.compile_key)]


#: each family's targets (the families themselves: kernel_tests/support/families.py)
BUILDERS: dict[str, Callable[[], list[Target]]] = {
    "skinny_gemm": _skinny_targets, "rmsnorm": _rms_targets, "rope": _rope_targets, "fused_norm": _fused_targets,
}


def all_targets(families: Sequence[str] | None = None) -> dict[str, Target]:
    """The study targets of ``families`` (default: every family), by key."""
    names = list(FAMILIES) if families is None else list(families)
    unknown = [n for n in names if n not in FAMILIES]
    if unknown:
        raise ValueError(f"unknown families {unknown}; expected some of {', '.join(FAMILIES)}")
    return {t.key: t for name in names for t in BUILDERS[name]()}
