"""Rotating tables: runs until 100% 3-way coverage, and runs until each fault fails.

    python -m benchmarks.rotation [--markdown benchmarks/results/rotation.md] [--json out.json]
                                  [--max-runs 30] [--only KEY-SUBSTRING]

Part 1, every option table of ``kernel_tests`` (the ``@pairwise`` specs, found by
importing the families' test modules; a table with invalid values is measured on its
valid part, which is what a rotation would change): run 1 is the fixed table (the
plugin's first run, an empty history), each further run is
:func:`pairwise_param.tables.rotate.rotate` against the runs before it, exactly as
``pytest --pairwise-rotate`` does run after run.  Reported: rows of the fixed t=2 and
t=3 tables, the lower bound ceil(|t=3| / |t=2|), the runs until the accumulated rows
cover every feasible 3-tuple (measured by :func:`pairwise_param.measure`, the
independent checker), the largest rotated table over the fixed one, and whether every
run was complete at t=2 (measure and the engine's ``verified``).  Target: runs <=
bound + 2 and every rotated table <= 1.1x.

Part 2, the fault catalogue (``benchmarks/faults``), simulated at the option-model level
(no GPU, no kernel): each fault of ``benchmarks/results/faults.json`` fails a row when
the row holds one of its witnesses (the minimal value combinations measured on the full
product that imply failure).  How many runs until a failing row runs: fixed t=2 (1, or
never), t=3 (1 run, at its rows), rotation.  Added order-3 faults (the catalogue's
rope family has none): for every target, EVERY feasible 3-tuple that the fixed t=2
table does not hold is a model-level order-3 fault (a bug needing those three values);
the fixed table never finds any of them; we report how many rotated runs each takes,
mean and worst.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import itertools
import json
import math
import pkgutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kernel_tests.support.families import FAMILIES
from pairwise_param import Model, measure
from pairwise_param.contract import MARK
from pairwise_param.decorator import PairwiseSpec
from pairwise_param.tables.build import Table, build_table, engine_options, verified
from pairwise_param.tables.rotate import SLACK, max_rows, rotate

ROOT = Path(__file__).resolve().parent.parent
Row = tuple[int, ...]


def kernel_tables() -> list[tuple[str, PairwiseSpec]]:
    """(node id, spec) of every ``@pairwise`` table of the kernel suites."""
    found = []
    for fam in FAMILIES:
        pkg = importlib.import_module(f"kernel_tests.{fam}")
        for info in pkgutil.iter_modules(pkg.__path__):
            if not info.name.startswith("test_"):
                continue
            mod = importlib.import_module(f"kernel_tests.{fam}.{info.name}")
            objs = [(n, o) for n, o in vars(mod).items() if n.startswith("test")]
            for n, o in vars(mod).items():
                if inspect.isclass(o) and n.startswith("Test"):
                    objs += [(f"{n}::{m}", f) for m, f in vars(o).items() if m.startswith("test")]
            for n, o in objs:
                for k, mark in enumerate(m for m in getattr(o, "pytestmark", []) if m.name == MARK):
                    suffix = f" [table {k}]" if k else ""
                    found.append((f"kernel_tests/{fam}/{info.name}.py::{n}{suffix}", mark.args[0]))
    return found


def rotation_runs(model: Model, fixed: Table, count: int, stop: Any = None) -> tuple[list[list[Row]], dict[str, Any]]:
    """Run 1 = the fixed table, then ``count - 1`` rotated runs (or until ``stop(runs)``)."""
    runs: list[list[Row]] = [list(fixed.rows)]
    worst, complete, cpu = 1.0, True, 0.0
    while len(runs) < count and not (stop is not None and stop(runs)):
        t0 = time.process_time()
        table = rotate(model, fixed, runs).table
        cpu += time.process_time() - t0
        rows = list(table.rows)
        worst = max(worst, len(rows) / len(fixed.rows))
        report = measure(model, [model.decode(r) for r in rows])
        complete = complete and report.complete and not report.violations and verified(model, table)
        complete = complete and len(rows) <= max_rows(len(fixed.rows), SLACK)
        runs.append(rows)
    rotations = max(1, len(runs) - 1)
    return runs, {"worst_ratio": worst, "complete_at_t": complete, "cpu_per_rotation": cpu / rotations}


def level_complete(model: Model, rows: Sequence[Row], strength: int) -> tuple[bool, float]:
    level = measure(model, [model.decode(r) for r in rows], strengths=[strength]).level(strength)
    return bool(level.complete), float(level.percent or 0.0)


def part1(max_runs: int, only: str | None) -> list[dict[str, Any]]:
    out = []
    for key, spec in kernel_tables():
        if only and only not in key:
            continue
        note = ""
        if spec.invalid:
            model = spec.split(key).valid
            note = "valid part (invalid values: not rotated by the plugin)"
        else:
            model = spec.model(key)
        options = engine_options(spec.effort, spec.seed, key)
        if model.strength != 2 or len(model.axes) < 3:
            out.append({"table": key, "skipped": f"t={model.strength}, {len(model.axes)} axes"})
            continue
        fixed = build_table(model, options=options)
        t3_model = spec.split(key, strength=3).valid if spec.invalid else spec.model(key, strength=3)
        t3 = build_table(t3_model, options=options)
        bound = math.ceil(len(t3.rows) / len(fixed.rows))

        def done(runs: list[list[Row]], m: Model = model) -> bool:
            return level_complete(m, [r for run in runs for r in run], 3)[0]

        runs, stats = rotation_runs(model, fixed, max_runs, done)
        reached = done(runs)
        fixed_pct = level_complete(model, list(fixed.rows), 3)[1]
        out.append({
            "table": key, "note": note, "axes": [len(a) for a in model.axes], "t2_rows": len(fixed.rows),
            "t3_rows": len(t3.rows), "bound": bound, "runs": len(runs) if reached else None,
            "fixed_3way_percent": round(fixed_pct, 1), "met": reached and len(runs) <= bound + 2,
            "worst_ratio": round(stats["worst_ratio"], 3), "complete_at_t": stats["complete_at_t"],
            "cpu_per_rotation": round(stats["cpu_per_rotation"], 3),
        })
        print(f"{key}: t2={len(fixed.rows)} t3={len(t3.rows)} bound={bound} runs={out[-1]['runs']} "
              f"cpu/rotation={stats['cpu_per_rotation']:.3f}s", file=sys.stderr)
    return out


def _fault_model(target: Any, strength: int) -> tuple[Model, Table]:
    args = target.cover_args()
    model = Model(dict(target.axes), strength=strength, constraints=args["constraints"], include=args["include"],
                  sub_models=args["sub_models"], where=target.key)
    return model, build_table(model, options=engine_options(args["effort"], args["seed"], target.key))


def _first_failing(runs: Sequence[Sequence[Row]], fails: Any) -> int | None:
    for k, run in enumerate(runs, 1):
        if any(fails(r) for r in run):
            return k
    return None


def part2(max_runs: int, only: str | None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    from benchmarks.faults.study import label
    from benchmarks.faults.targets import all_targets

    doc = json.loads((ROOT / "benchmarks" / "results" / "faults.json").read_text())
    targets = all_targets()
    faults, added = [], []
    per_target: dict[str, tuple[Model, Table, Table, list[list[Row]]]] = {}
    for key, target in targets.items():
        if only and only not in key:
            continue
        model, fixed = _fault_model(target, 2)
        _, t3 = _fault_model(target, 3)
        runs, _ = rotation_runs(model, fixed, max_runs)
        per_target[key] = (model, fixed, t3, runs)
        names = list(target.axes)
        # every feasible 3-tuple the fixed table misses: a model-level order-3 fault
        missed = []
        sizes = model.sizes
        feas = model.feasibility
        for scope in itertools.combinations(range(len(names)), 3):
            held = {tuple(r[a] for a in scope) for r in fixed.rows}
            for values in itertools.product(*(range(sizes[a]) for a in scope)):
                cells: list[int | None] = [None] * len(sizes)
                for a, v in zip(scope, values):
                    cells[a] = v
                if values in held or feas.violates(cells) is not None or not feas.completable(cells):
                    continue
                pairs = tuple(zip(scope, values))
                missed.append(_first_failing(runs, lambda r, c=pairs: all(r[a] == v for a, v in c)))
        got = [m for m in missed if m is not None]
        added.append({
            "target": key, "faults": len(missed), "found": len(got), "t2_rows": len(fixed.rows),
            "t3_rows": len(t3.rows), "mean": round(sum(got) / len(got), 2) if got else None,
            "worst": max(got) if got else None, "never": len(missed) - len(got),
        })
    for fault in doc["faults"]:
        key = fault["target"]
        if key not in per_target or fault["order"] is None:
            continue
        model, fixed, t3, runs = per_target[key]
        witnesses = fault["witnesses"]

        def fails(row: Row, w: list[dict[str, Any]] = witnesses, m: Model = model) -> bool:
            values = m.decode(row)
            return any(all(label(values[n]) == v for n, v in wit.items()) for wit in w)

        fixed_k = _first_failing([list(fixed.rows)], fails)
        t3_k = _first_failing([list(t3.rows)], fails)
        faults.append({
            "id": fault["id"], "target": key, "order": fault["order"], "t2": fixed_k, "t3": t3_k,
            "rotation": _first_failing(runs, fails), "study_t2": fault["kills"]["t2"], "study_t3": fault["kills"]["t3"],
            "t2_rows": len(fixed.rows), "t3_rows": len(t3.rows),
        })
    return faults, added


def _runs(k: int | None) -> str:
    return "never" if k is None else str(k)


def markdown(p1: list[dict[str, Any]], faults: list[dict[str, Any]], added: list[dict[str, Any]],
             command: str, cpu: float) -> str:
    lines = [
        "# Rotating tables: 3-way coverage at pairwise cost",
        "",
        f"`{command}` ({cpu:.0f} s CPU in all, user+sys, on a 2-core machine shared with other agents).",
        "Run 1 is the fixed t=2 table (an empty history); each later run is rotated against the runs",
        "before it, as `pytest --pairwise-rotate` does.  Coverage is measured by `pairwise_param.measure`.",
        "",
        "## Every option table of kernel_tests: runs until 100% 3-way coverage",
        "",
        ("| table | axes | t=2 rows | t=3 rows | bound | runs to 100% 3-way | fixed table's 3-way | "
        "largest rotated / fixed | every run complete at t=2 | CPU s / rotation | target |"),
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in p1:
        if "skipped" in r:
            lines.append(f"| `{r['table']}` | {r['skipped']}: no t+1 level | | | | | | | | | n/a |")
            continue
        name = f"`{r['table']}`" + (f" ({r['note']})" if r["note"] else "")
        lines.append(
            f"| {name} | {'x'.join(map(str, r['axes']))} | {r['t2_rows']} | {r['t3_rows']} | {r['bound']} | "
            f"{_runs(r['runs'])} | {r['fixed_3way_percent']}% | {r['worst_ratio']:.2f}x | "
            f"{'yes' if r['complete_at_t'] else 'NO'} | {r['cpu_per_rotation']} | "
            f"{'met' if r['met'] else 'NOT met'} |"
        )
    measured = [r for r in p1 if "skipped" not in r]
    met = sum(1 for r in measured if r["met"])
    lines += ["", (f"Target (runs <= bound + 2, every rotated table <= {SLACK}x): {met} of {len(measured)} tables met; "
              f"largest rotated table {max((r['worst_ratio'] for r in measured), default=1):.2f}x its fixed table."), ""]
    unmet = [r for r in measured if not r["met"]]
    if unmet:
        lines += ["Not met: " + "; ".join(
            f"`{r['table']}` ({_runs(r['runs'])} runs, bound {r['bound']} + 2 = {r['bound'] + 2})" for r in unmet) + ".", ""]
    lines += [
        "## The fault catalogue, simulated at the option-model level",
        "",
        ("A row fails when it holds one of the fault's witnesses (`benchmarks/results/faults.json`); "
        "runs until the first failing row.  `study` columns: what the GPU/interpreter study measured for "
        "the fixed tables (the simulation should agree)."),
        "",
        "| fault | target | order | fixed t=2 | t=3 (1 run) | rotation (runs of t=2 size) | study t=2 / t=3 |",
        "|---|---|---|---|---|---|---|",
    ]
    for f in faults:
        t3 = "fails" if f["t3"] else "never"
        lines.append(
            f"| {f['id']} | {f['target']} | {f['order']} | {_runs(f['t2'])} ({f['t2_rows']} rows) | "
            f"{t3} ({f['t3_rows']} rows) | {_runs(f['rotation'])} | "
            f"{'kill' if f['study_t2'] else 'miss'} / {'kill' if f['study_t3'] else 'miss'} |"
        )
    rot = [f["rotation"] for f in faults if f["rotation"] is not None]
    missed_t2 = [f for f in faults if f["t2"] is None]
    lines += [
        "",
        f"{len(faults)} faults: fixed t=2 finds {len(faults) - len(missed_t2)}, t=3 finds "
        f"{sum(1 for f in faults if f['t3'])}, rotation finds {len(rot)} "
        f"(mean {sum(rot) / max(1, len(rot)):.2f} runs, worst {max(rot, default=0)}).  "
        "The ones fixed t=2 misses: "
        + (", ".join(f"{f['id']} (order {f['order']}): rotation run {_runs(f['rotation'])}" for f in missed_t2) or "none")
        + ".",
        "",
        "## Added order-3 faults: every 3-tuple the fixed t=2 table misses",
        "",
        ("Each feasible 3-tuple that the fixed table of a target does not hold stands for a bug that needs "
        "those three values (the catalogue's rope family has no order-3 fault; this adds them to every "
        "family).  Fixed t=2: never, by construction; t=3: 1 run, at its rows."),
        "",
        "| target | t=2 rows | t=3 rows | order-3 faults the fixed table misses | found by rotation | mean runs | worst runs |",
        "|---|---|---|---|---|---|---|",
    ]
    for a in added:
        lines.append(f"| {a['target']} | {a['t2_rows']} | {a['t3_rows']} | {a['faults']} | {a['found']} | "
                     f"{a['mean'] if a['mean'] is not None else '-'} | {a['worst'] if a['worst'] is not None else '-'} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.rotation", description=__doc__.splitlines()[0])
    parser.add_argument("--max-runs", type=int, default=30)
    parser.add_argument("--only", default=None, help="only tables / targets whose key contains this")
    parser.add_argument("--markdown", default=None)
    parser.add_argument("--json", default=None)
    parser.add_argument("--no-faults", action="store_true", help="part 1 only (no torch import)")
    args = parser.parse_args(argv)
    t0 = time.process_time()
    p1 = part1(args.max_runs, args.only)
    faults, added = ([], []) if args.no_faults else part2(args.max_runs, args.only)
    cpu = time.process_time() - t0
    command = "python -m benchmarks.rotation" + (" " + " ".join(argv if argv is not None else sys.argv[1:]))
    text = markdown(p1, faults, added, command.strip(), cpu)
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text, encoding="utf-8")
    if args.json:
        Path(args.json).write_text(json.dumps({"tables": p1, "faults": faults, "added": added}, indent=1) + "\n")
    bad = [r for r in p1 if "skipped" not in r and (not r["met"] or not r["complete_at_t"])]
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
