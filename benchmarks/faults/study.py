"""Run the study: per target the sanity baseline, per fault one full-product run, then
the kill of every mode from that run (see :mod:`.analysis` for the definitions)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
import torch

from benchmarks.faults.analysis import RowT, killed, minimal_failure_tuples, random_samples
from benchmarks.faults.catalogue import Fault
from benchmarks.faults.mutation import load_module
from benchmarks.faults.targets import Row, Target
from pairwise_param import cover
from pairwise_param.model import Model
from pairwise_param.tables.product import full_rows

RANDOM_SEEDS = tuple(range(20))

#: Rotated runs per table (``--pairwise-rotate``): run 1 the fixed table, run k the
#: rotation against runs 1..k-1 (as the plugin and the mirror jobs do).
ROTATED_RUNS = 4


@dataclass(frozen=True)
class Tables:
    """A target's rows in every mode (rows as value tuples in axis order)."""

    names: tuple[str, ...]
    full: tuple[RowT, ...]
    t2: tuple[RowT, ...]
    t3: tuple[RowT, ...]
    #: the compile-aware t=2 table (the suite's compile_axes= / compile_key=; t2 when none)
    t2c: tuple[RowT, ...]
    #: kernel variants (distinct compile keys) of t2 and t2c; None without compile axes
    variants: tuple[int, int] | None
    upstream: tuple[RowT, ...] | None
    upstream_dropped: int
    random: tuple[tuple[RowT, ...], ...]
    #: ROTATED_RUNS rotated runs of the plain t=2 table, then of the compile-aware one
    #: (its variant list rotated too, never longer: tables/rotate_variants.py); run 1 is the fixed table
    rotated: tuple[tuple[RowT, ...], ...] = ()
    rotated_c: tuple[tuple[RowT, ...], ...] = ()
    #: variants of each rotated run, plain then compile-aware; None without compile axes
    rotated_variants: tuple[tuple[int, ...], tuple[int, ...]] | None = None


def tables(target: Target, seeds: Sequence[int] = RANDOM_SEEDS) -> Tables:
    """Full product, the t=2 and t=3 tables (``cover`` with the target's axes and
    constraints, as the suite's ``@pairwise``), upstream's CI rows and the random samples."""
    names = tuple(target.axes)
    args = target.cover_args()
    model = Model(dict(target.axes), constraints=args["constraints"])
    full = tuple(tuple(model.decode(r)[n] for n in names) for r in full_rows(model))

    def table(t: int, **more: Any) -> tuple[RowT, ...]:
        rows = cover(dict(target.axes), strength=min(t, len(names)), **args, **more)
        return tuple(tuple(r[n] for n in names) for r in rows)

    t2, t3 = table(2), table(3)
    compile_args = target.compile_args()
    t2c, variants = t2, None
    count: Callable[[Sequence[RowT]], int] | None = None
    if compile_args:
        t2c = table(2, **compile_args)
        keyed = Model(dict(target.axes), constraints=args["constraints"], **compile_args)
        encode = {n: {v: i for i, v in enumerate(keyed.axes[keyed.axis_index(n)].values)} for n in names}

        def variant_count(rows: Sequence[RowT]) -> int:
            cells = [[encode[n][v] for n, v in zip(names, r)] for r in rows]
            return len({keyed.index_model.variant(c) for c in cells})

        count = variant_count

        variants = (count(t2), count(t2c))
    upstream = None
    dropped = 0
    if target.upstream_rows is not None:
        fullset = set(full)
        keys = [tuple(r[n] for n in names) for r in target.upstream_rows]
        upstream = tuple(dict.fromkeys(k for k in keys if k in fullset))
        dropped = sum(1 for k in keys if k not in fullset)
    rand = tuple(tuple(s) for s in random_samples(full, len(t2), seeds))
    rotated = rotated_runs(target, t2, {})
    rotated_c = rotated_runs(target, t2c, compile_args) if compile_args else rotated
    rotated_variants = None if count is None else (tuple(map(count, rotated)), tuple(map(count, rotated_c)))
    return Tables(names, full, t2, t3, t2c, variants, upstream, dropped, rand, rotated, rotated_c, rotated_variants)


def rotated_runs(target: Target, fixed_rows: Sequence[RowT], compile_args: dict[str, Any],
                 runs: int = ROTATED_RUNS) -> tuple[tuple[RowT, ...], ...]:
    """``runs`` runs of the t=2 table under ``--pairwise-rotate``: the fixed table, then
    each run rotated against the runs before it (the compile-aware rotation where
    ``compile_args`` declare compile axes), as value tuples in axis order."""
    from pairwise_param.tables.build import build_table, engine_options
    from pairwise_param.tables.rotate import rotate
    from pairwise_param.tables.rotate_variants import rotate_compile_aware

    names = tuple(target.axes)
    args = target.cover_args()
    model = Model(dict(target.axes), strength=min(2, len(names)), constraints=args["constraints"],
                  include=args["include"], sub_models=args["sub_models"], **compile_args)
    fixed = build_table(model, options=engine_options(args["effort"], args["seed"]))

    def values(rows: Sequence[Sequence[int]]) -> tuple[RowT, ...]:
        return tuple(tuple(model.decode(r)[n] for n in names) for r in rows)

    assert values(fixed.rows) == tuple(fixed_rows), "the rotation's fixed table is cover()'s"
    history: list[tuple[tuple[int, ...], ...]] = [fixed.rows]
    for _ in range(runs - 1):
        table = rotate_compile_aware(model, fixed, history) if compile_args else rotate(model, fixed, history).table
        history.append(table.rows)
    return tuple(values(rows) for rows in history)


def runs_to_kill(runs: Sequence[Sequence[RowT]], failing: set[RowT]) -> int | None:
    """The first run (1-based) that holds a failing row, or None."""
    return next((i + 1 for i, rows in enumerate(runs) if killed(rows, failing)), None)


def _device() -> torch.device:
    from kernel_tests.support.platform import device

    return device()


def run_rows(target: Target, backend: Any, names: Sequence[str], rows: Sequence[RowT]
             ) -> tuple[dict[RowT, str], int]:
    """Run every row over the target's shapes (smallest first, stopping at a row's first
    failing shape). Returns ({failing row: first failure message}, skipped cases)."""
    dev = _device()
    failing: dict[RowT, str] = {}
    skipped = 0
    for row in rows:
        values: Row = dict(zip(names, row))
        for shape in target.shapes:
            try:
                with torch.inference_mode():
                    target.run(backend, dev, shape, values)
            except pytest.skip.Exception:
                skipped += 1
            except Exception as exc:  # noqa: BLE001 - a crash is a detection, as in pytest
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
                failing[row] = f"shape {shape}: {type(exc).__name__}: {first}"[:300]
                break
    return failing, skipped


def label(value: Any) -> Any:
    """A JSON-friendly label of an option value (dtypes without ``torch.``)."""
    if isinstance(value, torch.dtype):
        return str(value).replace("torch.", "")
    return value


def sanity(target: Target, tab: Tables) -> dict[str, Any]:
    """The unmutated kernel (loaded through the same copy path) over the full product."""
    t0 = time.perf_counter()
    module = load_module(target.kernel_module, (), f"baseline_{target.key}")
    failing, skipped = run_rows(target, target.make_backend(module), tab.names, tab.full)
    return {"target": target.key, "rows": len(tab.full), "cases": len(tab.full) * len(target.shapes),
            "failing_rows": len(failing), "skipped_cases": skipped,
            "failures": [{"row": [label(v) for v in r], "error": e} for r, e in list(failing.items())[:5]],
            "seconds": round(time.perf_counter() - t0, 2)}


def study_fault(fault: Fault, target: Target, tab: Tables) -> dict[str, Any]:
    """One fault: the full-product run, its order and minimal failing combinations, and
    the kill of every mode."""
    t0 = time.perf_counter()
    module = load_module(target.kernel_module, fault.mutations, fault.id)
    failing_msgs, skipped = run_rows(target, target.make_backend(module), tab.names, tab.full)
    failing = set(failing_msgs)
    order, witnesses = minimal_failure_tuples(tab.full, failing)
    rand = [killed(s, failing) for s in tab.random]
    return {
        "id": fault.id, "family": target.family, "target": target.key, "title": fault.title, "why": fault.why,
        "expect": fault.expect, "order": order,
        "witnesses": [{tab.names[a]: label(v) for a, v in w.items()} for w in witnesses],
        "failing_rows": len(failing), "full_rows": len(tab.full), "skipped_cases": skipped,
        "kills": {"full": bool(failing), "t2": killed(tab.t2, failing), "t3": killed(tab.t3, failing),
                  "t2c": killed(tab.t2c, failing),
                  "upstream": None if tab.upstream is None else killed(tab.upstream, failing),
                  "random": rand},
        # --pairwise-rotate: the run (1-based, run 1 the fixed table) that first kills, None within ROTATED_RUNS
        "rotated": {"runs": len(tab.rotated), "t2": runs_to_kill(tab.rotated, failing),
                    "t2c": runs_to_kill(tab.rotated_c, failing)},
        "first_failure": next(iter(failing_msgs.values()), None),
        # issue 12 section 4: the outcome of each row of the t=2 table
        "t2_outcomes": [{"row": {n: label(v) for n, v in zip(tab.names, r)}, "failed": r in failing}
                        for r in tab.t2],
        "seconds": round(time.perf_counter() - t0, 2),
    }
