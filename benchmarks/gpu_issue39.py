"""Issue 39 on one GPU: a baseline tree and ours, cold and warm, per family, in one call.

    python3 benchmarks/gpu_issue39.py --out DIR --baseline baseline [--plan compare|full|profile ...]

Each run is one pytest process in its tree's root (``PYTHONPATH`` = that tree, so the
baseline's ``pairwise_param`` and ``kernel_tests`` are the ones imported), with the
derandomized ``ci`` Hypothesis profile, ``-p no:cacheprovider``, a JUnit file and
``benchmarks.count_variants`` (copied into the baseline if it lacks it), which credits
every new Triton cache entry to the family of the test that made it. A ``cold`` run
empties its tree's own Triton cache first; a warm one reuses it.

Plans (any several, in order):

* ``compare``: the baseline and ours, all of ``kernel_tests`` pairwise, cold then warm
  (the same command for both), then ours as the GPU job (``-m "not tooling"
  -p no:logging``, warm);
* ``full``: ours, each family's full product (``--pairwise-mode=full``; fused_norm by
  every 200th item, ``benchmarks/sample_items.py``), on ours' warm cache;
* ``rotate``: ours, the GPU job three times with ``--pairwise-rotate`` on one history
  (the first runs the fixed tables; the others rotate): the variants each adds to the
  warm cache;
* ``profile``: ours, the GPU job warm under cProfile (``profile.out`` and the top
  functions by own time in ``profile.txt``).

Writes ``DIR/runs.json`` and ``DIR/runs.md`` (per run and per family: items, outcomes,
pytest s, wall s, summed case s, variants compiled) and each run's output.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from kernel_tests.support.families import FAMILIES  # after ROOT is on the path


def family_of(classname: str, name: str) -> str:
    parts = classname.split(".")
    if len(parts) >= 2 and parts[0] == "kernel_tests" and parts[1] in (*FAMILIES, "support"):
        return parts[1]
    return "(kernel_tests)"


def junit(path: Path) -> dict:
    out: dict = {"families": {}}
    try:
        tree = ET.parse(path)
    except (OSError, ET.ParseError):
        return out
    suite = tree.getroot()
    suite = suite if suite.tag == "testsuite" else suite.find("testsuite")
    out["pytest_s"] = float(suite.get("time", 0))
    for case in suite.iter("testcase"):
        fam = family_of(case.get("classname", ""), case.get("name", ""))
        f = out["families"].setdefault(fam, {"items": 0, "passed": 0, "failed": 0, "skipped": 0, "case_s": 0.0})
        f["items"] += 1
        f["case_s"] += float(case.get("time", 0))
        if case.find("failure") is not None or case.find("error") is not None:
            f["failed"] += 1
        elif case.find("skipped") is not None:
            f["skipped"] += 1
        else:
            f["passed"] += 1
    return out


def execute(name: str, tree: Path, args: list[str], out: Path, cold: bool, timeout: float,
            env_extra: dict[str, str] | None = None, profile: bool = False) -> dict:
    label = name.split("-", 1)[0]
    cache = Path(f"/tmp/triton-cache-{label}")
    if cold:
        shutil.rmtree(cache, ignore_errors=True)
    cache.mkdir(parents=True, exist_ok=True)
    xml, counts, log = out / f"{name}.xml", out / f"{name}.variants.json", out / f"{name}.log"
    head = [sys.executable, "-m", "cProfile", "-o", str(out / "profile.out"), "-m", "pytest"] if profile else \
        [sys.executable, "-m", "pytest"]
    cmd = [*head, "-q", "-p", "no:cacheprovider", "-p", "benchmarks.count_variants", "-rfE", f"--junitxml={xml}",
           *args]
    env = dict(os.environ, PYTHONPATH=str(tree), TRITON_CACHE_DIR=str(cache), HYPOTHESIS_PROFILE="ci",
               COUNT_VARIANTS_FILE=str(counts), **(env_extra or {}))
    before = len(os.listdir(cache))
    start = time.perf_counter()
    with open(log, "w") as fh:
        try:
            rc = subprocess.run(cmd, cwd=tree, env=env, stdout=fh, stderr=subprocess.STDOUT, timeout=timeout,
                                check=False).returncode
        except subprocess.TimeoutExpired:
            rc = -9
    wall = time.perf_counter() - start
    result = {"name": name, "tree": label, "args": " ".join(args), "cold": cold, "rc": rc, "wall_s": round(wall, 1),
              "cache_new": len(os.listdir(cache)) - before, **junit(xml)}
    try:
        result["variants"] = json.loads(counts.read_text())
    except (OSError, ValueError):
        result["variants"] = {}
    tail = log.read_text().splitlines()[-3:]
    print(f"{name}: rc={rc} wall={wall:.1f}s pytest={result.get('pytest_s')} "
          f"variants={sum(result['variants'].values())} {' | '.join(tail)}", flush=True)
    return result


def write_results(out: Path, results: list[dict], skipped: list[str], summary: Callable[[list[dict]], str]) -> str:
    """``out/runs.json``, ``out/runs.md`` and ``out/summary.md`` (``summary`` of the runs,
    then the runs the budget skipped); returns the summary's text (the budgeted scripts,
    gpu_issue39b.py and gpu_issue39c.py, write after every run)."""
    (out / "runs.json").write_text(json.dumps(results, indent=1))
    (out / "runs.md").write_text(render(results) + "\n")
    text = summary(results) + (f"\nskipped: {', '.join(skipped)}\n" if skipped else "")
    (out / "summary.md").write_text(text)
    return text


def render(results: list[dict]) -> str:
    lines = ["| run | tree | cache | family | items | passed | failed | skipped | case s | variants | pytest s | wall s | rc |",
             "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        fams = r.get("families", {})
        tot = {k: sum(f[k] for f in fams.values()) for k in ("items", "passed", "failed", "skipped", "case_s")}
        lines.append(f"| {r['name']} | {r['tree']} | {'cold' if r['cold'] else 'warm'} | **all** | {tot['items']} | "
                     f"{tot['passed']} | {tot['failed']} | {tot['skipped']} | {tot['case_s']:.1f} | "
                     f"{sum(r['variants'].values())} | {r.get('pytest_s', 0):.1f} | {r['wall_s']:.1f} | {r['rc']} |")
        for fam in sorted(fams):
            f = fams[fam]
            lines.append(f"| | | | {fam} | {f['items']} | {f['passed']} | {f['failed']} | {f['skipped']} | "
                         f"{f['case_s']:.1f} | {r['variants'].get(fam, 0)} | | | |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--baseline", type=Path, required=True)
    ap.add_argument("--plan", action="append", choices=("compare", "full", "profile", "rotate"), required=True)
    ap.add_argument("--timeout", type=float, default=150)
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    base, ours = a.baseline.resolve(), ROOT
    shutil.copy(ROOT / "benchmarks" / "count_variants.py", base / "benchmarks" / "count_variants.py")
    results: list[dict] = []
    job = ["kernel_tests", "-m", "not tooling", "-p", "no:logging"]
    for plan in a.plan:
        if plan == "compare":
            for label, tree in (("baseline", base), ("ours", ours)):
                results.append(execute(f"{label}-cold", tree, ["kernel_tests"], a.out, True, a.timeout))
                results.append(execute(f"{label}-warm", tree, ["kernel_tests"], a.out, False, a.timeout))
            results.append(execute("ours-job-warm", ours, job, a.out, False, a.timeout))
        elif plan == "full":
            for fam in FAMILIES:
                extra: dict[str, str] = {}
                args = [f"kernel_tests/{fam}", "--pairwise-mode=full"]
                if fam == "fused_norm":
                    args += ["-p", "benchmarks.sample_items"]
                    extra = {"SAMPLE_EVERY": "200"}
                results.append(execute(f"ours-full-{fam}", ours, args, a.out, False, a.timeout, extra))
        elif plan == "rotate":
            hist = a.out / "history.json"
            for i in range(3):  # run 1 fills the history (fixed rows), runs 2 and 3 rotate
                args = ["kernel_tests", "-m", "not tooling", "-p", "no:logging", "--pairwise-rotate",
                        f"--pairwise-history={hist}"]
                results.append(execute(f"ours-rotate{i + 1}", ours, args, a.out, False, a.timeout))
        elif plan == "profile":
            results.append(execute("ours-job-profile", ours, job, a.out, False, a.timeout, profile=True))
            import pstats

            with open(a.out / "profile.txt", "w") as fh:
                stats = pstats.Stats(str(a.out / "profile.out"), stream=fh)
                stats.sort_stats("tottime").print_stats(60)
                stats.sort_stats("cumulative").print_stats(80)
        (a.out / "runs.json").write_text(json.dumps(results, indent=1))
        (a.out / "runs.md").write_text(render(results) + "\n")
    print(render(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
