"""``python -m benchmarks.faults.localize [--faults ...] [--budget N] [--json out] [--markdown out]``

Issue 12 section 4 on the fault catalogue: for each fault, the suspicious list the t=2
run leaves (its row outcomes are the study's, ``t2_outcomes`` in
``benchmarks/results/faults.json``), then ``pairwise-param localize``'s follow-up rows
(:func:`pairwise_param.runs.localize.search`) answered by the real mutated kernel through
the study's targets (the suite's check helpers, the study's shapes), against the cost
of re-running the failing test in full mode. The pure part is :mod:`.localize_eval`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

STUDY = Path(__file__).resolve().parents[1] / "results" / "faults.json"


def run_fault(fault: dict[str, Any], target: Any, budget: int) -> dict[str, Any]:
    """One fault of the study's JSON: rebuild its model, answer localize with the mutated kernel."""
    from benchmarks.faults.catalogue import FAULTS
    from benchmarks.faults.localize_eval import cells_of, evaluate, index_row
    from benchmarks.faults.mutation import load_module
    from benchmarks.faults.study import label, run_rows, tables
    from pairwise_param.model import Model

    t0 = time.perf_counter()
    spec = next(f for f in FAULTS if f.id == fault["id"])
    model = Model(dict(target.axes), constraints=target.cover_args()["constraints"])
    rows = [index_row(model, o["row"], label) for o in fault["t2_outcomes"]]
    failed = [bool(o["failed"]) for o in fault["t2_outcomes"]]
    current = {tuple(r) for r in tables(target).t2}
    same_table = current == {model.axis_values(r) for r in rows}
    witnesses = [cells_of(model, w, label) for w in fault["witnesses"]]
    module = load_module(target.kernel_module, spec.mutations, f"loc_{spec.id}")
    backend = target.make_backend(module)
    names = tuple(model.names)

    def oracle(row: tuple[int, ...]) -> str:
        values = model.axis_values(row)
        bad, skipped = run_rows(target, backend, names, [values])
        if bad:
            return "failed"
        return "skipped" if skipped == len(target.shapes) else "passed"

    r = evaluate(target.key, model, rows, failed, witnesses, oracle, label, budget)
    n_shapes = len(target.shapes)
    r.update(id=fault["id"], target=target.key, order=fault["order"], shapes=n_shapes,
             full_rows=fault["full_rows"], witnesses=fault["witnesses"], t2_table_current=same_table,
             full_rerun_rows=fault["full_rows"] - len(rows),
             full_rerun_cases=(fault["full_rows"] - len(rows)) * n_shapes,
             extra_cases=r.get("extra_rows", 0) * n_shapes, seconds=round(time.perf_counter() - t0, 2))
    return r


def _yn(flag: str) -> str:
    return {"exact": "yes", "superset": "superset", "no": "no", "n/a": "n/a"}[flag]


def _listing(r: dict[str, Any]) -> str:
    order = int(r["order"])
    if order == 0:
        return "n/a (every row fails)"
    if order > 2:
        return f"- (order {order} > t)"
    return f"{r['final_true_listed']}/{len(r['witnesses'])} (of {r['final_candidates']})"


def markdown(result: dict[str, Any]) -> str:
    """The per-fault table and the totals."""
    lines = [
        "# Localization on the kernel fault catalogue (issue 12 section 4)", "",
        (f"Command: `{result['command']}`; budget {result['budget']} extra rows per fault; "
        f"{result['seconds']:.0f} s (CPU, Triton interpreter)."), "",
        ("One case = one option row over the study's shapes (the study's unit). *candidates*: "
        "suspicious combinations after the t=2 run (held by every failing row / all). "
        "*first true*: the top-ranked one is a minimal failing combination of the fault "
        "(`superset`: it holds one, so it implies the failure, but is not minimal). "
        "*true ones listed*: of the fault's minimal failing combinations (the study's witnesses), how many "
        "the final candidate list names (of all its candidates). "
        "*full rerun*: the rows a full-mode rerun adds (full - t2), in cases."), "",
        ("| fault | order | t2 failing | run verdict | candidates | first true | localize extra cases "
        "| final | located | found true | true ones listed | full rerun cases |"),
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in result["faults"]:
        if not r["detected"]:
            lines.append(f"| {r['id']} | {r['order']} | 0/{r['t2_rows']} | not detected | - | - | - | - | - | - "
                         f"| - | {r['full_rerun_cases']} |")
            continue
        lines.append(
            f"| {r['id']} | {r['order']} | {r['t2_failing']}/{r['t2_rows']} | {r['run_verdict']} "
            f"| {r['explaining']}/{r['candidates']} | {_yn(r['first_true'])} | {r['extra_cases']} "
            f"({r['extra_rows']} rows) | {r['final_verdict']} | {r['located'] or '-'} | {_yn(r['located_true'])} "
            f"| {_listing(r)} | {r['full_rerun_cases']} |")
    t = result["totals"]
    lines += ["", "## Totals", ""]
    for key in ("all", "order 1-2"):
        s = t[key]
        lines.append(
            f"- **{key}** ({s['faults']} faults detected by t=2): true combination ranked first after the run "
            f"{s['first_exact']}/{s['faults']}; localize found a true minimal combination "
            f"{s['found_exact']}/{s['faults']} (one that implies the failure: {s['found_implies']}/{s['faults']}); "
            f"extra cases mean {s['extra_mean']:.1f}, max {s['extra_max']} (total {s['extra_total']}) vs a full "
            f"rerun mean {s['rerun_mean']:.1f}, max {s['rerun_max']} (total {s['rerun_total']}); every minimal "
            f"failing combination named by the final candidate list: {s['all_listed']}/{s['faults']}; "
            f"precision (answers that are true: exact or implying the failure, a union counted true when "
            f"every cause is): {s['answered_true']}/{s['answered']} = {s['precision']}.")
    lines.append(f"- not detected by the t=2 table (nothing to localize): {', '.join(t['undetected']) or 'none'}.")
    if not all(r["t2_table_current"] for r in result["faults"]):
        stale = [r["id"] for r in result["faults"] if not r["t2_table_current"]]
        lines.append(f"- the study's t=2 table differs from today's `cover()` for: {', '.join(stale)}.")
    return "\n".join(lines) + "\n"


def totals(faults: list[dict[str, Any]]) -> dict[str, Any]:
    """Rates and case counts over the detected faults (all, and those of order 1 or 2:
    the ones a t=2 localizer can name)."""
    def agg(rs: list[dict[str, Any]]) -> dict[str, Any]:
        ex = [r["extra_cases"] for r in rs]
        rr = [r["full_rerun_cases"] for r in rs]
        n = len(rs)
        answered = [r for r in rs if r.get("located")]
        right = sum(r["located_true"] in ("exact", "superset") for r in answered)
        return {"faults": n, "first_exact": sum(r["first_true"] == "exact" for r in rs),
                "answered": len(answered), "answered_true": right,
                "precision": round(right / len(answered), 3) if answered else None,
                "found_exact": sum(r["located_true"] == "exact" for r in rs),
                "found_implies": sum(r["located_true"] in ("exact", "superset") for r in rs),
                "all_listed": sum(r["final_true_listed"] == len(r["witnesses"]) for r in rs),
                "extra_total": sum(ex), "extra_mean": sum(ex) / n if n else 0.0, "extra_max": max(ex, default=0),
                "rerun_total": sum(rr), "rerun_mean": sum(rr) / n if n else 0.0, "rerun_max": max(rr, default=0)}

    det = [r for r in faults if r["detected"]]
    low = [r for r in det if 1 <= int(r["order"]) <= 2]
    return {"all": agg(det), "order 1-2": agg(low), "undetected": [r["id"] for r in faults if not r["detected"]]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.faults.localize", description=__doc__.splitlines()[0])
    parser.add_argument("--faults", nargs="*", default=None, help="fault ids (default: every fault of the study)")
    parser.add_argument("--budget", type=int, default=None, help="extra rows per fault (default: the CLI's, 20)")
    parser.add_argument("--study", default=str(STUDY), help="the study's JSON (t2_outcomes, witnesses)")
    parser.add_argument("--json", default=None)
    parser.add_argument("--markdown", default=None)
    args = parser.parse_args(argv)

    import torch

    if "TRITON_INTERPRET" not in os.environ and not torch.cuda.is_available():
        os.environ["TRITON_INTERPRET"] = "1"
    if not torch.cuda.is_available() and "OMP_NUM_THREADS" not in os.environ:
        torch.set_num_threads(1)

    from benchmarks.faults.localize_eval import BUDGET
    from benchmarks.faults.targets import all_targets

    budget = BUDGET if args.budget is None else args.budget
    t0 = time.perf_counter()
    study = json.loads(Path(args.study).read_text())
    faults = [f for f in study["faults"] if args.faults is None or f["id"] in args.faults]
    if not faults:
        parser.error("no fault selected")
    targets = all_targets(list(dict.fromkeys(f["target"].split("/")[0] for f in faults)))
    out = []
    for f in faults:
        r = run_fault(f, targets[f["target"]], budget)
        out.append(r)
        print(f"[localize] {f['id']}: {r.get('run_verdict', 'not detected')} -> {r.get('final_verdict', '-')} "
              f"{r.get('located')} ({r.get('extra_rows', 0)} rows, {r['seconds']} s)", file=sys.stderr)
    given = sys.argv[1:] if argv is None else argv
    result = {"command": " ".join(["python -m benchmarks.faults.localize", *given]), "budget": budget,
              "seconds": time.perf_counter() - t0, "faults": out, "totals": totals(out)}
    text = markdown(result)
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
