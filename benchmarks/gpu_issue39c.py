"""Issue 39, third round, one device call per plan: the job's contract (serial vs xdist) and the full products.

    python3 benchmarks/gpu_issue39c.py --out DIR --plan speed --baseline .devcarry/base-0b7d251 [--budget 540]
    python3 benchmarks/gpu_issue39c.py --out DIR --plan full [--budget 540]

(``benchmarks/gpu_issue39c.sh`` is the device's command line.)  Every run goes through
:func:`benchmarks.gpu_issue39.execute` (its tree's root and ``PYTHONPATH``, the ``ci``
Hypothesis profile, its own Triton cache, emptied first for a cold run, a JUnit file).
``variants`` is the number of entries a run added to its Triton cache (one per compiled
variant and launcher), counted by the tree's directory, so xdist runs count too.

Plans (``warm``: see :func:`warm`; ``one``: both in one call, most important first: today, ours under xdist, the
rotated runs, the full products, ours serial, plain):

* ``speed``: "today" (the baseline tree, all of ``kernel_tests``, serial: the issue's
  57.9 s / 32.9 s command), then ours: the GPU job of docs/kernels.md under
  ``-n 4 --dist loadgroup`` and serial, all of ``kernel_tests`` under ``-n 4`` and
  serial, each cold then warm; then ours with the plain t=2 tables (``-p
  benchmarks.plain_tables``), the job serial cold: the variants the compile-aware
  tables save on one tree.
* ``full``: the job three times with ``--pairwise-rotate`` on one history, each on an
  empty cache (run 1 runs the fixed rows and fills the history; runs 2 and 3 rotate):
  the variants each run compiles; then each family's full product (fused_norm every
  200th item) under ``-n 4 --dist loadgroup`` on a warm cache.

A run is skipped (and says so) once ``--budget`` seconds are spent, so the call ends
inside the device's per-call limit. Writes ``DIR/runs.json``, ``DIR/runs.md`` and
``DIR/summary.md`` (per run: items, failed, pytest s, wall s, variants; the ratios).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks.gpu_issue39 import execute, write_results
from kernel_tests.support.families import FAMILIES

JOB = ["kernel_tests", "-m", "not tooling", "-p", "no:logging"]
ALL = ["kernel_tests"]
XDIST = ["-n", "4", "--dist", "loadgroup"]


#: a run: name (its first part names the Triton cache), tree, pytest arguments, cold?, extra env
Run = tuple[str, Path, list[str], bool, dict[str, str]]


def speed(base: Path | None) -> list[Run]:
    runs: list[Run] = []
    if base is not None:
        runs += [("today-cold", base, ALL, True, {}), ("today-warm", base, ALL, False, {})]
    for name, args in (("jobn4", [*JOB, *XDIST]), ("alln4", [*ALL, *XDIST]), ("job", JOB), ("all", ALL)):
        runs += [(f"{name}-cold", ROOT, args, True, {}), (f"{name}-warm", ROOT, args, False, {})]
    runs.append(("plainjob-cold", ROOT, [*JOB, "-p", "benchmarks.plain_tables"], True, {}))
    return runs


def rotated() -> list[Run]:
    """The job three times with ``--pairwise-rotate`` on one history, each on an empty
    cache: the variants each run needs."""
    hist = "/tmp/issue39c-history.json"
    args = [*JOB, *XDIST, "--pairwise-rotate", f"--pairwise-history={hist}"]
    return [(f"rotate{i + 1}-cold", ROOT, args, True, {}) for i in range(3)]


def products(cache: str) -> list[Run]:
    """Each family's full product under xdist (fused norm every 200th item), warm on the
    cache named ``cache``."""
    runs: list[Run] = []
    for fam in FAMILIES:
        args, extra = [f"kernel_tests/{fam}", "--pairwise-mode=full", *XDIST], {}
        if fam == "fused_norm":
            args += ["-p", "benchmarks.sample_items"]
            extra = {"SAMPLE_EVERY": "200"}
        runs.append((f"{cache}-{fam}", ROOT, args, False, extra))
    return runs


def full() -> list[Run]:
    return [*rotated(), ("fullwarm-cold", ROOT, [*JOB, *XDIST], True, {}), *products("fullwarm")]


def one(base: Path | None) -> list[Run]:
    """The two plans in one call, most important first: today, ours under xdist (job, all),
    the rotated runs, the full products (on the xdist job's warm cache), ours serial, plain."""
    sp = speed(base)
    first = [r for r in sp if r[0].split("-")[0] in ("today", "jobn4", "alln4")]
    return [*first, *rotated(), *products("jobn4"), *(r for r in sp if r not in first)]


def warm(base: Path | None) -> list[Run]:
    """Warm runs compared in one call: each tree's cache filled by a cold xdist run, then
    today serial vs ours serial, ``-n 2`` and ``-n 4``; the full products on ours' cache;
    the plain tables' variants (cold, xdist)."""
    runs: list[Run] = []
    if base is not None:
        runs += [("today-fill", base, [*ALL, *XDIST], True, {}), ("today-warm", base, ALL, False, {})]
    runs += [("job-fill", ROOT, [*JOB, *XDIST], True, {}), ("job-warm", ROOT, JOB, False, {})]
    runs.append(("job-n2warm", ROOT, [*JOB, "-n", "2", "--dist", "loadgroup"], False, {}))
    runs += products("job")
    runs.append(("plainjob-fill", ROOT, [*JOB, *XDIST, "-p", "benchmarks.plain_tables"], True, {}))
    runs.append(("job-n4warm", ROOT, [*JOB, *XDIST], False, {}))
    return runs


def gc_runs(base: Path | None) -> list[Run]:
    """The shortest warm comparison (after the module clean-up's gc became conditional):
    today's and ours' caches filled by xdist, then each serial, warm."""
    return [r for r in warm(base) if r[0] in ("today-fill", "today-warm", "job-fill", "job-warm")]


def summary(results: list[dict]) -> str:
    lines = [
        "| run | rc | items | failed | pytest s | wall s | variants (new cache entries) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        fams = r.get("families", {})
        items, failed = sum(f["items"] for f in fams.values()), sum(f["failed"] for f in fams.values())
        lines.append(
            f"| {r['name']} | {r['rc']} | {items} | {failed} | {r.get('pytest_s', float('nan')):.1f} | "
            f"{r['wall_s']:.1f} | {r.get('cache_new', '-')} |"
        )
    today = {r["name"].split("-", 1)[1]: r for r in results if r["name"].startswith("today-")}
    for r in results:
        if r["name"].startswith("today-") or r["name"].split("-", 1)[1] in FAMILIES or not r.get("wall_s"):
            continue
        kind = r["name"].split("-", 1)[1]
        ref = today.get(kind) or today.get("warm" if kind.endswith("warm") else "cold")
        if ref and ref.get("pytest_s") and ref.get("wall_s"):
            lines.append(
                f"\n{r['name']} vs {ref['name']}: pytest {r.get('pytest_s', 0) / ref['pytest_s']:.2f}x, "
                f"wall {r['wall_s'] / ref['wall_s']:.2f}x"
            )
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--plan", choices=("speed", "full", "one", "warm", "gc"), required=True)
    ap.add_argument("--baseline", type=Path)
    ap.add_argument("--budget", type=float, default=540)
    ap.add_argument("--timeout", type=float, default=150)
    ap.add_argument("--dry", action="store_true")
    a = ap.parse_args()
    base = a.baseline.resolve() if a.baseline else None
    runs = {"speed": speed, "full": lambda b: full(), "one": one, "warm": warm, "gc": gc_runs}[a.plan](base)
    if a.dry:
        for name, tree, args, cold, extra in runs:
            print(name, tree, " ".join(args), "cold" if cold else "warm", extra)
        return 0
    a.out.mkdir(parents=True, exist_ok=True)
    if base is not None:
        (base / "benchmarks").mkdir(exist_ok=True)
        shutil.copy(ROOT / "benchmarks" / "count_variants.py", base / "benchmarks" / "count_variants.py")
    start, results, skipped = time.monotonic(), [], []
    for name, tree, args, cold, extra in runs:
        left = a.budget - (time.monotonic() - start)
        if left < 20:
            skipped.append(name)
            print(f"{name}: skipped ({left:.0f} s of the budget left)", flush=True)
            continue
        results.append(execute(name, tree, args, a.out, cold, min(a.timeout, left), extra))
        write_results(a.out, results, skipped, summary)
    print(write_results(a.out, results, skipped, summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
