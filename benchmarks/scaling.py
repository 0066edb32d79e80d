"""The scaling curve: model shape -> seconds and peak memory of ``cover()``,
with the cliffs of issue 17 as rows.

Each case runs in its own subprocess (so peak memory is its own, read by the
child from ``resource.getrusage(RUSAGE_SELF)``) under a wall-clock limit; a case that
hits the limit is reported as ``>LIMIT``, one refused with a clear error shows
the error's class.

    python benchmarks/scaling.py                 # every case, 120 s limit each
    python benchmarks/scaling.py --limit 20 --only chain,pigeon
    git archive main | tar -x -C /tmp/before && python benchmarks/scaling.py --before /tmp/before

A child also runs under an address-space cap (``--mem``, 4096 MB) so a memory
cliff ends in a ``MemoryError`` row instead of taking the machine down.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

#: name -> (description, Python source that builds ``kwargs`` for cover()).
CASES: dict[str, tuple[str, str]] = {
    "chain5": ("5 axes x 6 values, chained a_i <= a_i+1", "chain(5)"),
    "chain8": ("8 axes x 6 values, chained a_i <= a_i+1 (6^8 > 10^6)", "chain(8)"),
    "chain9": ("9 axes x 6 values, chained", "chain(9)"),
    "pigeon9": ("9 axes x 8 values, all different (unsatisfiable)", "pigeon(9)"),
    "pigeon12": ("12 axes x 11 values, all different (unsatisfiable)", "pigeon(12)"),
    "longlist": ("expression listing 200,000 values", "longlist(200_000)"),
    "longlist14M": ("expression of 14 MB (2.4 M values)", "longlist(2_400_000)"),
    "3^30 t=3": ("30 axes x 3 values, t=3", "uniform(3, 30, 3)"),
    "3^100 t=2": ("100 axes x 3 values, t=2", "uniform(3, 100, 2)"),
    "3^100 t=3": ("100 axes x 3 values, t=3", "uniform(3, 100, 3)"),
    "2^30 t=4": ("30 axes x 2 values, t=4", "uniform(2, 30, 4)"),
    "3^30 t=4": ("30 axes x 3 values, t=4", "uniform(3, 30, 4)"),
    "2^30 t=5": ("30 axes x 2 values, t=5", "uniform(2, 30, 5)"),
    "3^150 t=3": ("150 axes x 3 values, t=3", "uniform(3, 150, 3)"),
    "2^3000 t=2": ("3000 axes x 2 values, t=2", "uniform(2, 3000, 2)"),
    "150^2 t=2": ("2 axes x 150 values, t=2 (the full product)", "uniform(150, 2, 2)"),
    "300^2 t=2": ("2 axes x 300 values, t=2 (the full product; 379 s CPU before issue 38)", "uniform(300, 2, 2)"),
    "100^3 t=2": ("3 axes x 100 values, t=2", "uniform(100, 3, 2)"),
    "effort=1000": ("4 axes x 3 values, effort=1000", "dict(uniform(3, 4, 2), effort=1000)"),
}

_PRELUDE = '''
def chain(n):
    names = [f"a{i}" for i in range(n)]
    return {"axes": {a: list(range(6)) for a in names},
            "constraints": [f"{x} <= {y}" for x, y in zip(names, names[1:])]}

def pigeon(n):
    names = [f"p{i}" for i in range(n)]
    return {"axes": {a: list(range(n - 1)) for a in names},
            "constraints": [f"{a} != {b}" for i, a in enumerate(names) for b in names[i + 1:]]}

def longlist(k):
    return {"axes": {"a": list(range(3)), "b": [0, 1]},
            "constraints": ["a in [" + ", ".join(str(i % 3) for i in range(k)) + "]"]}

def uniform(v, n, t):
    return {"axes": {f"x{i}": list(range(v)) for i in range(n)}, "strength": t}
'''

_CHILD = '''
import json, resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, ({mem}, {mem}))
from pairwise_param import cover
kw = {expr}
t0 = time.perf_counter()
try:
    rows = len(cover(**kw))
    out = {{"rows": rows}}
except Exception as exc:
    out = {{"error": type(exc).__name__, "message": str(exc)[:160], "message_chars": len(str(exc))}}
out["seconds"] = time.perf_counter() - t0
out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
print(json.dumps(out))
'''


def _peak_mb(pid: int) -> float | None:
    """The child's peak resident memory so far (VmHWM), read while it runs."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def run_case(expr: str, limit: float, mem_mb: int = 4096, code: str | None = None) -> dict[str, object]:
    """Run one case in a child under ``limit`` seconds and ``mem_mb`` of address
    space; a case killed at the limit still reports the peak memory it had
    reached (polled from /proc).  ``code``: a source tree of pairwise_param to
    import instead of the installed one (the "before" of a comparison)."""
    env = dict(os.environ)
    if code is not None:
        env["PYTHONPATH"] = code
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", _PRELUDE + _CHILD.format(expr=expr, mem=mem_mb * 2**20)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=code,
    )
    peak: float | None = None
    while proc.poll() is None:
        peak = _peak_mb(proc.pid) or peak
        if time.perf_counter() - t0 > limit:
            proc.kill()
            proc.communicate()
            out_t: dict[str, object] = {"seconds": time.perf_counter() - t0, "timeout": True}
            if peak is not None:
                out_t["peak_mb"] = peak
            return out_t
        time.sleep(0.1)
    stdout, stderr = proc.communicate()
    try:
        out: dict[str, object] = json.loads(stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        last = stderr.strip().splitlines()[-1:] or ["no output"]
        out = {"error": "crash", "message": last[0][:160], "seconds": time.perf_counter() - t0}
        if peak is not None:
            out["peak_mb"] = peak
    return out


def _cells(r: dict[str, object], limit: float) -> str:
    """result | seconds | peak MB of one run."""
    if r.get("timeout"):
        result, secs = f"killed at {limit:.0f} s", f">{limit:.0f}"
    else:
        result = f"{r['rows']} rows" if "rows" in r else f"{r['error']}"
        if "message_chars" in r:
            result += f" ({r['message_chars']:,}-char message)"
        if r.get("error") == "crash":
            result = f"crash: {r['message']}"
        secs = f"{r['seconds']:.2f}"
    peak = f"{r['peak_mb']:.0f}" if "peak_mb" in r else "-"
    if r.get("timeout") and "peak_mb" in r:
        peak = f">={peak}"
    return f"{result} | {secs} | {peak}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=float, default=120.0, help="seconds per case")
    ap.add_argument("--mem", type=int, default=4096, help="address-space cap per case, MB")
    ap.add_argument("--only", default="", help="comma-separated name prefixes")
    ap.add_argument("--before", default="", help="a source tree of an older pairwise_param: run each case "
                    "with it and then with the installed one, side by side (same load)")
    args = ap.parse_args(argv)
    only = [p for p in args.only.split(",") if p]
    runs: list[tuple[str, str | None]] = [("", None)]
    if args.before:
        runs = [("before: ", args.before), ("after: ", None)]
    head = "".join(f" {label}result | seconds | peak MB |" for label, _ in runs)
    print(f"| case | model |{head}\n|---|---|" + "---|--:|--:|" * len(runs))
    for name, (desc, expr) in CASES.items():
        if only and not any(name.startswith(p) for p in only):
            continue
        cells = [_cells(run_case(expr, args.limit, args.mem, code), args.limit) for _, code in runs]
        print(f"| {name} | {desc} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
