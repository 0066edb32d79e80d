"""Where the kernel suites' time goes on a GPU: a per-phase profile of each run.

Each RUN (the syntax of ``benchmarks/gpu_bench.py``: ``PATH:MODE[:cold,k=EXPR,...]``,
PATH ``.`` for the whole of kernel_tests) is one serial pytest process with the plugin
``benchmarks/profile_plugin.py``. The report (``OUT/gpu_profile.md`` and
``OUT/gpu_profile.json``) gives, per run and per family folder within it:

* items, pytest time and summed case time (JUnit, as gpu_bench.py);
* the summed phases of the checks (``kernel_tests/support/phases.py``): input generation,
  the kernel (launch and run, its compilation excluded), the reference, the comparison;
* compilation: seconds and the number of distinct variants the process compiled (cold
  cache) or loaded from the disk cache (warm), and how many cache entries the run
  added; "other" is the case time outside the phases (pytest, fixtures, and the tests
  that have no phases: errors, meta tests);
* the variants of each kernel and, for each kernel, the arguments that split it: how many
  variants would remain if that argument were not specialized (its type, divisibility
  attribute or constexpr value ignored), so a shape-specialized argument shows itself;
* the slowest cases, with their phases.

The phases synchronize the device at their edges, which a plain run does not: take
pytest and wall times from gpu_bench.py runs, and the split of the time from here.

Usage (from the repository root)::

    python benchmarks/gpu_profile.py --out DIR [--cap 200] [--budget 560] [--one-cache] [--install] RUN [RUN ...]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.gpu_bench import (
    Result,
    Run,
    add_arguments,
    execute,
    fmt,
    parse_run,
    prepare,
    within_budget,
)

PHASES = ("inputs", "kernel", "reference", "compare")
COLUMNS = ("items", "case_s", "inputs", "kernel", "reference", "compare", "compile", "variants", "other")


def family_of(nodeid: str) -> str:
    """``kernel_tests/rmsnorm/test_x.py::t[...]`` -> ``rmsnorm``; kernel_tests' own top-level
    test modules -> ``(kernel_tests)``."""
    parts = nodeid.split("::")[0].split("/")
    return parts[1] if len(parts) >= 3 and parts[0] == "kernel_tests" else "(kernel_tests)"


def sums(items: list[dict[str, Any]]) -> dict[str, float]:
    """The profile columns summed over ``items``."""
    out = dict.fromkeys(COLUMNS, 0.0)
    for it in items:
        case = it["setup_s"] + it["call_s"] + it["teardown_s"]
        in_kernel = it.get("compile_in_kernel_s", 0.0)
        out["items"] += 1
        out["case_s"] += case
        for p in PHASES:
            out[p] += it.get(p, 0.0)
        out["kernel"] -= in_kernel
        out["compile"] += it["compile_s"]
        out["variants"] += it["variants"]
        out["other"] += case - sum(it.get(p, 0.0) for p in PHASES) - (it["compile_s"] - in_kernel)
    return out


def _features(spec: dict[str, Any]) -> dict[str, Any] | None:
    """One variant's specialization, argument by argument: (type, constexpr value,
    attributes); plus num_warps / num_stages."""
    try:
        names = list(spec["signature"])
        feats: dict[str, Any] = {n: [spec["signature"][n], None, None] for n in names}
        for key, val in zip(spec.get("constant_keys", []), spec.get("constant_vals", [])):
            feats[names[key[0]]][1] = json.dumps(val, sort_keys=True, default=str)
        for key, val in zip(spec.get("attrs_keys", []), spec.get("attrs_vals", [])):
            feats[names[key[0]]][2] = json.dumps(val, sort_keys=True, default=str)
        options = spec.get("options", {})
        for opt in ("num_warps", "num_stages"):
            feats[opt] = options.get(opt)
        return {k: json.dumps(v, default=str) for k, v in feats.items()}
    except (KeyError, IndexError, TypeError):
        return None


def splitters(variants: list[dict[str, Any]], top: int = 6) -> dict[str, list[tuple[str, int]]]:
    """Per kernel with several variants: the arguments whose specialization splits it,
    as (argument, variants left if it were ignored), fewest left first."""
    by_kernel: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for v in variants:
        feats = _features(v["spec"]) if isinstance(v.get("spec"), dict) else None
        if feats is not None:
            by_kernel[v["kernel"]].append(feats)
    out: dict[str, list[tuple[str, int]]] = {}
    for kernel, rows in sorted(by_kernel.items()):
        whole = len({tuple(sorted(r.items())) for r in rows})
        if whole < 2:
            continue
        left = []
        for arg in rows[0]:
            n = len({tuple(sorted((k, v) for k, v in r.items() if k != arg)) for r in rows})
            if n < whole:
                left.append((arg, n))
        out[kernel] = sorted(left, key=lambda kv: kv[1])[:top]
    return out


def summarize(run: Run, result: Result, prof: dict[str, Any], added: int) -> dict[str, Any]:
    items = prof.get("items", [])
    variants = prof.get("variants", [])
    families: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for it in items:
        families[family_of(it["nodeid"])].append(it)
    slowest = sorted(items, key=lambda it: -(it["setup_s"] + it["call_s"] + it["teardown_s"]))[:8]
    return {
        "run": run.text, "mode": run.mode, "cold": run.cold, "rc": result.rc, "timeout": result.timeout,
        "passed": result.passed, "failed": result.failed, "skipped": result.skipped, "errors": result.errors,
        "pytest_s": result.pytest_s, "wall_s": result.wall_s, "hooks": prof.get("hooks"),
        "cache_entries_added": added,
        "total": sums(items),
        "families": {f: sums(its) for f, its in sorted(families.items())},
        "variants_per_kernel": dict(Counter(v["kernel"] for v in variants).most_common()),
        "variants_per_family": dict(Counter(family_of(v["item"] or "") for v in variants).most_common()),
        "splitters": splitters(variants),
        "slowest": [{"nodeid": it["nodeid"], "case_s": it["setup_s"] + it["call_s"] + it["teardown_s"],
                     **{p: it.get(p, 0.0) for p in PHASES}, "compile": it["compile_s"], "variants": it["variants"]}
                    for it in slowest],
    }


def _row(label: str, fam: str, s: dict[str, float]) -> str:
    return (f"| {label} | {fam} | {int(s['items'])} | {s['case_s']:.1f} | {s['inputs']:.1f} | {s['kernel']:.1f} | "
            f"{s['reference']:.1f} | {s['compare']:.1f} | {s['compile']:.1f} | {int(s['variants'])} | "
            f"{s['other']:.1f} |")


def render(summaries: list[dict[str, Any]], env: str) -> str:
    md = ["```", env, "```", "",
          "Seconds summed over the cases of each run (phases synchronize the device at their edges).", "",
          "| run | rc | passed | failed | skipped | pytest s | cache entries added |",
          "|---|---|---:|---:|---:|---:|---:|"]
    for s in summaries:
        rc = f"{s['rc']} (cap: lower bound)" if s["timeout"] else str(s["rc"])
        md.append(f"| `{s['run']}` | {rc} | {s['passed']} | {s['failed']} | {s['skipped']} | {fmt(s['pytest_s'])} | "
                  f"{s['cache_entries_added']} |")
    md += ["", "| run | family | items | case s | inputs | kernel | reference | compare | compile | variants | other |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for s in summaries:
        md.append(_row(f"`{s['run']}`", "**all**", s["total"]))
        for fam, fs in s["families"].items():
            md.append(_row("", fam, fs))
    for s in summaries:
        md += ["", f"### `{s['run']}`", "", "Variants per kernel: " + (", ".join(
            f"`{k}` {n}" for k, n in s["variants_per_kernel"].items()) or "none"), ""]
        for kernel, left in s["splitters"].items():
            total = s["variants_per_kernel"].get(kernel, 0)
            cells = ", ".join(f"`{a}` -> {n}" for a, n in left) or "(no single argument)"
            md.append(f"- `{kernel}` ({total} variants), if not specialized on: {cells}")
        md += ["", "| slowest case | case s | inputs | kernel | reference | compare | compile | variants |",
               "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for it in s["slowest"]:
            md.append(f"| `{it['nodeid']}` | {it['case_s']:.2f} | {it['inputs']:.2f} | {it['kernel']:.2f} | "
                      f"{it['reference']:.2f} | {it['compare']:.2f} | {it['compile']:.2f} | {it['variants']} |")
    return "\n".join(md) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(ap, ROOT / "benchmarks" / "out-profile", 200.0)
    args = ap.parse_args(argv)
    if any(parse_run(t).workers for t in args.runs):
        raise SystemExit("gpu_profile: the profile is of one serial process (drop n=)")
    runs, caches, env = prepare(args)
    summaries: list[dict[str, Any]] = []
    for run, left in within_budget(runs, args.budget):
        prof_path = args.out / f"{run.name}.profile.json"
        prof_path.unlink(missing_ok=True)
        result = execute(run, args.out, min(args.cap, left), caches, plugins=("benchmarks.profile_plugin",),
                         env_extra={"PROFILE_OUT": str(prof_path)}, one_cache=args.one_cache)
        prof = json.loads(prof_path.read_text()) if prof_path.exists() else {}
        summary = summarize(run, result, prof, result.cache_added)
        summaries.append(summary)
        t = summary["total"]
        print(f"{run.text}: rc={result.rc} {result.passed} passed, pytest {fmt(result.pytest_s)} s; phases: inputs "
              f"{t['inputs']:.1f} kernel {t['kernel']:.1f} reference {t['reference']:.1f} compare "
              f"{t['compare']:.1f} compile {t['compile']:.1f} ({int(t['variants'])} variants) other "
              f"{t['other']:.1f}", flush=True)
        (args.out / "gpu_profile.md").write_text(render(summaries, env))
        (args.out / "gpu_profile.json").write_text(json.dumps({"env": env, "runs": summaries}, indent=1) + "\n")
    print(render(summaries, env))
    return 0


if __name__ == "__main__":
    sys.exit(main())
