"""The scaling curve: model shape -> seconds and peak memory of ``cover()``,
with the cliffs of issue 17 as rows.

Each case runs in its own subprocess (so peak memory is its own, read by the
child from ``resource.getrusage(RUSAGE_SELF)``) under a wall-clock limit; a case that
hits the limit is reported as ``>LIMIT``, one refused with a clear error shows
the error's class.

    python benchmarks/scaling.py                 # every case, 120 s limit each
    python benchmarks/scaling.py --limit 20 --only chain,pigeon
"""

from __future__ import annotations

import argparse
import json
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
    "3^30 t=3": ("30 axes x 3 values, t=3", "uniform(3, 30, 3)"),
    "3^100 t=2": ("100 axes x 3 values, t=2", "uniform(3, 100, 2)"),
    "3^100 t=3": ("100 axes x 3 values, t=3", "uniform(3, 100, 3)"),
    "2^30 t=4": ("30 axes x 2 values, t=4", "uniform(2, 30, 4)"),
    "3^30 t=4": ("30 axes x 3 values, t=4", "uniform(3, 30, 4)"),
    "2^3000 t=2": ("3000 axes x 2 values, t=2", "uniform(2, 3000, 2)"),
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
from pairwise_param import cover
kw = {expr}
t0 = time.perf_counter()
try:
    rows = len(cover(**kw))
    out = {{"rows": rows}}
except Exception as exc:
    out = {{"error": type(exc).__name__, "message": str(exc)[:160]}}
out["seconds"] = time.perf_counter() - t0
out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
print(json.dumps(out))
'''


def run_case(expr: str, limit: float) -> dict[str, object]:
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _PRELUDE + _CHILD.format(expr=expr)], capture_output=True, text=True,
            timeout=limit, check=False,
        )
    except subprocess.TimeoutExpired:
        return {"seconds": time.perf_counter() - t0, "timeout": True}
    try:
        out: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        out = {"error": "crash", "message": proc.stderr.strip().splitlines()[-1:]}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=float, default=120.0, help="seconds per case")
    ap.add_argument("--only", default="", help="comma-separated name prefixes")
    args = ap.parse_args(argv)
    only = [p for p in args.only.split(",") if p]
    print("| case | model | result | seconds | peak MB |\n|---|---|---|--:|--:|")
    for name, (desc, expr) in CASES.items():
        if only and not any(name.startswith(p) for p in only):
            continue
        r = run_case(expr, args.limit)
        if r.get("timeout"):
            result, secs = f"killed at {args.limit:.0f} s", f">{args.limit:.0f}"
        else:
            result = f"{r['rows']} rows" if "rows" in r else f"{r['error']}"
            secs = f"{r['seconds']:.2f}"
        peak = f"{r['peak_mb']:.0f}" if "peak_mb" in r else "-"
        print(f"| {name} | {desc} | {result} | {secs} | {peak} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
