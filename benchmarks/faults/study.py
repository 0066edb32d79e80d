"""Run the study: per target the sanity baseline, per fault one full-product run, then
the kill of every mode from that run (see :mod:`.analysis` for the definitions)."""

from __future__ import annotations

import time
from collections.abc import Sequence
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
    if compile_args:
        t2c = table(2, **compile_args)
        keyed = Model(dict(target.axes), constraints=args["constraints"], **compile_args)
        encode = {n: {v: i for i, v in enumerate(keyed.axes[keyed.axis_index(n)].values)} for n in names}

        def count(rows: Sequence[RowT]) -> int:
            cells = [[encode[n][v] for n, v in zip(names, r)] for r in rows]
            return len({keyed.index_model.variant(c) for c in cells})

        variants = (count(t2), count(t2c))
    upstream = None
    dropped = 0
    if target.upstream_rows is not None:
        fullset = set(full)
        keys = [tuple(r[n] for n in names) for r in target.upstream_rows]
        upstream = tuple(dict.fromkeys(k for k in keys if k in fullset))
        dropped = sum(1 for k in keys if k not in fullset)
    rand = tuple(tuple(s) for s in random_samples(full, len(t2), seeds))
    return Tables(names, full, t2, t3, t2c, variants, upstream, dropped, rand)


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
        "first_failure": next(iter(failing_msgs.values()), None),
        # issue 12 section 4: the outcome of each row of the t=2 table
        "t2_outcomes": [{"row": {n: label(v) for n, v in zip(tab.names, r)}, "failed": r in failing}
                        for r in tab.t2],
        "seconds": round(time.perf_counter() - t0, 2),
    }
