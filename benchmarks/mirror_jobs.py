"""Mirror jobs on kernel_tests' option tables (issue 36): what one build of N mirror jobs
covers together, against one fixed table run N times.

    python -m benchmarks.mirror_jobs [--jobs 2] [--markdown benchmarks/results/mirror_jobs.md]

For every ``@pairwise`` table of ``kernel_tests`` (strength 2, three or more axes;
:func:`benchmarks.rotation.kernel_tables`), job K's table is
:func:`pairwise_param.tables.mirror.mirror_table` (what ``--pairwise-mirror=K/N`` runs):
each job is checked complete at t=2 by :func:`pairwise_param.measure` (the independent
checker), and the union's 3-way coverage is measured the same way, beside the fixed
table's (what N mirror jobs cover today: the same rows N times).  Compile-aware tables
(``compile_axes=``) also report the variants of each job and of the union.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.rotation import kernel_tables, level_complete
from pairwise_param import measure
from pairwise_param.tables.build import build_table, engine_options
from pairwise_param.tables.mirror import mirror_table


def measure_all(jobs: int, only: str | None) -> list[dict[str, Any]]:
    out = []
    for key, spec in kernel_tables():
        if only and only not in key:
            continue
        model = spec.split(key).valid if spec.invalid else spec.model(key)
        if model.strength != 2 or len(model.axes) < 3:
            continue
        fixed = build_table(model, options=engine_options(spec.effort, spec.seed, key))
        t0 = time.process_time()
        tables = [mirror_table(model, fixed, k) for k in range(jobs)]
        cpu = time.process_time() - t0
        complete = all(measure(model, [model.decode(r) for r in t.rows]).complete for t in tables)
        union = [r for t in tables for r in t.rows]
        variants = None
        axes = model.compile_axes
        if axes:
            def var(rows: Any, axes: Any = axes) -> int:
                return len({tuple(r[a] for a in axes) for r in rows})
            variants = {"fixed": var(fixed.rows), "jobs": [var(t.rows) for t in tables], "union": var(union)}
        out.append({
            "table": key, "axes": [len(a) for a in model.axes], "rows": [len(t.rows) for t in tables],
            "complete_at_t": complete,
            "fixed_3way": round(level_complete(model, list(fixed.rows), 3)[1], 1),
            "union_3way": round(level_complete(model, union, 3)[1], 1),
            "variants": variants, "cpu_s": round(cpu, 2),
        })
        print(f"{key}: 3-way {out[-1]['fixed_3way']}% -> {out[-1]['union_3way']}% ({jobs} jobs)", file=sys.stderr)
    return out


def markdown(rows: list[dict[str, Any]], jobs: int) -> str:
    lines = [(f"| table | axes | rows per job | each job 2-way complete | 3-way, one table ({jobs} jobs today) "
              f"| 3-way, {jobs} mirror jobs' union | variants fixed / jobs / union | CPU s |"),
             "|---|---|---|---|---:|---:|---|---:|"]
    for r in rows:
        v = r["variants"]
        vs = f"{v['fixed']} / {', '.join(map(str, v['jobs']))} / {v['union']}" if v else "-"
        lines.append(f"| `{r['table']}` | {'x'.join(map(str, r['axes']))} | {', '.join(map(str, r['rows']))} "
                     f"| {'yes' if r['complete_at_t'] else 'NO'} | {r['fixed_3way']}% | {r['union_3way']}% | {vs} "
                     f"| {r['cpu_s']} |")
    gain = [r["union_3way"] - r["fixed_3way"] for r in rows]
    lines.append("")
    lines.append(f"{len(rows)} tables; mean 3-way coverage one table {sum(r['fixed_3way'] for r in rows) / len(rows):.1f}% "
                 f"-> union {sum(r['union_3way'] for r in rows) / len(rows):.1f}% (+{sum(gain) / len(gain):.1f} points); "
                 f"every job complete at t=2: {all(r['complete_at_t'] for r in rows)}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--only")
    p.add_argument("--markdown", type=Path)
    args = p.parse_args(argv)
    rows = measure_all(args.jobs, args.only)
    text = markdown(rows, args.jobs)
    print(text)
    if args.markdown:
        args.markdown.write_text(
            f"# Mirror jobs on kernel_tests' option tables (issue 36)\n\n`python -m benchmarks.mirror_jobs --jobs "
            f"{args.jobs}` (CPU, no GPU: tables and coverage only)\n\n" + text)
    return 0 if all(r["complete_at_t"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
