"""Issue 39, second round, in ONE device call: the GPU job, cold and warm, baseline trees vs ours.

    python3 benchmarks/gpu_issue39b.py --out DIR --baseline .devcarry/base-eca46bb \\
        [--baseline .devcarry/base-0b7d251] [--budget 510] [--timeout 130]

(``benchmarks/gpu_issue39b.sh`` is the command line for the device; it installs the tree
and finds the carried baselines.)  Every run is the GPU job of docs/kernels.md,
``python -m pytest kernel_tests -m "not tooling" -p no:logging -q``, through
:func:`benchmarks.gpu_issue39.execute`: its tree's root and ``PYTHONPATH``, the ``ci``
Hypothesis profile, its own Triton cache (cold: emptied first; warm: the cold run's),
a JUnit file, and ``benchmarks.count_variants`` crediting every new cache entry to the
family of the test that made it.  The runs, in order of importance (each is skipped,
and says so, once ``--budget`` seconds are spent, so the call ends inside the device's
per-call limit):

1. each ``--baseline`` tree (``base-<commit>``: a ``git archive`` of that commit), cold then warm;
2. ours (this tree), cold then warm;
3. ours with ``-p benchmarks.plain_tables`` (every table without ``compile_axes=`` /
   ``compile_key=``: the plain t=2 tables of the same tree), cold: the variants the
   compile-aware tables save, on one tree;
4. ours warm under cProfile (``profile.out``; ``profile.txt``: the top functions by own
   and by cumulative time): where the warm job's per-item time goes.

Writes ``DIR/runs.json`` (every run: items, outcomes, pytest s, wall s, variants per
family), ``DIR/runs.md`` (the same as a table) and ``DIR/summary.md`` (before/after:
cold, warm and variants per tree, per family, with the ratios of the issue's targets).
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

JOB = ["-m", "not tooling", "-p", "no:logging"]


def plan(baselines: list[Path], paths: list[str]) -> list[tuple[str, Path, list[str], bool]]:
    """(run name, tree, pytest arguments, cold?) in order; a name's first part is its cache."""
    global JOB
    JOB = [*paths, *JOB]
    runs: list[tuple[str, Path, list[str], bool]] = []
    for base in baselines:
        label = "base_" + base.name.removeprefix("base-").replace("-", "_")
        runs += [(f"{label}-cold", base, JOB, True), (f"{label}-warm", base, JOB, False)]
    runs += [("ours-cold", ROOT, JOB, True), ("ours-warm", ROOT, JOB, False)]
    runs.append(("oursplain-cold", ROOT, [*JOB, "-p", "benchmarks.plain_tables"], True))
    runs.append(("ours-profile", ROOT, JOB, False))  # on ours' warm cache
    return runs


def _total(run: dict, key: str) -> float:
    return sum(f[key] for f in run.get("families", {}).values())


def summary(results: list[dict]) -> str:
    """Before/after per tree: cold and warm pytest s, variants (all and per family)."""
    trees: dict[str, dict[str, dict]] = {}
    for r in results:
        tree, cache = r["name"].rsplit("-", 1)
        trees.setdefault(tree, {})[cache] = r
    families = sorted({f for r in results for f in r.get("variants", {})})
    head = ["tree", "items", "failed", "cold pytest s", "warm pytest s", "variants", *families]
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for tree, runs in trees.items():
        cold, warm = runs.get("cold", {}), runs.get("warm", {})
        anyrun = cold or warm
        cells = [tree, f"{_total(anyrun, 'items'):.0f}", f"{_total(cold, 'failed') + _total(warm, 'failed'):.0f}",
                 f"{cold.get('pytest_s', float('nan')):.1f}", f"{warm.get('pytest_s', float('nan')):.1f}",
                 str(sum(cold.get("variants", {}).values())) if cold else "-",
                 *(str(cold.get("variants", {}).get(f, 0)) if cold else "-" for f in families)]
        lines.append("| " + " | ".join(cells) + " |")
    ours = trees.get("ours", {})
    for tree, runs in trees.items():
        if not tree.startswith("base_") or not ours:
            continue
        ratios = []
        for cache in ("cold", "warm"):
            if cache in runs and cache in ours and runs[cache].get("pytest_s"):
                ratios.append(f"{cache} {ours[cache]['pytest_s'] / runs[cache]['pytest_s']:.2f}x")
        if "cold" in runs and "cold" in ours:
            b, o = sum(runs["cold"]["variants"].values()), sum(ours["cold"]["variants"].values())
            ratios.append(f"variants {o}/{b} = {o / b:.0%}" if b else "variants -")
        lines.append(f"\nours vs {tree}: " + ", ".join(ratios))
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--baseline", type=Path, action="append", default=[])
    ap.add_argument("--budget", type=float, default=510, help="seconds for all runs; later runs are skipped")
    ap.add_argument("--timeout", type=float, default=130, help="seconds per run")
    ap.add_argument("--dry", action="store_true", help="print the runs and stop")
    ap.add_argument("--path", action="append", default=[], help="what pytest runs (default kernel_tests; a smoke test)")
    a = ap.parse_args()
    runs = plan([b.resolve() for b in a.baseline], a.path or ["kernel_tests"])
    if a.dry:
        for name, tree, args, cold in runs:
            print(name, tree, " ".join(args), "cold" if cold else "warm")
        return 0
    a.out.mkdir(parents=True, exist_ok=True)
    for base in a.baseline:
        if not (base / "kernel_tests").is_dir():
            print(f"--baseline {base}: no kernel_tests/ there (a git archive of the commit?)", file=sys.stderr)
            return 2
        (base / "benchmarks").mkdir(exist_ok=True)
        shutil.copy(ROOT / "benchmarks" / "count_variants.py", base / "benchmarks" / "count_variants.py")
    start, results, skipped = time.monotonic(), [], []
    for name, tree, args, cold in runs:
        left = a.budget - (time.monotonic() - start)
        if left < 30:
            skipped.append(name)
            print(f"{name}: skipped ({left:.0f} s of the budget left)", flush=True)
            continue
        profile = name.endswith("-profile")
        results.append(execute(name, tree, args, a.out, cold, min(a.timeout, left), profile=profile))
        if profile and (a.out / "profile.out").exists():
            import pstats

            with open(a.out / "profile.txt", "w") as fh:
                stats = pstats.Stats(str(a.out / "profile.out"), stream=fh)
                stats.sort_stats("tottime").print_stats(50)
                stats.sort_stats("cumulative").print_stats(80)
        write_results(a.out, results, skipped, summary)
    print(write_results(a.out, results, skipped, summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
