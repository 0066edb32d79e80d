"""Planted faults -> what the run's suspicious list says, and what `pairwise-param localize` costs.

For a 5-axis kernel-like table (3x2x3x2x3 = 108 rows, 9 covering rows at t=2), plant one
fault at a time (a single value, or a pair of values of two axes: the deterministic
sample ``--every N`` of all of them), run pytest once (the covering table), then
``pairwise-param localize``, and report per fault: the verdict of the run's suspicious
list and whether the planted combination is ranked first; the extra cases localize ran;
whether it found exactly the planted combination; and what "re-run the failing test in
full mode" would have cost instead (108 - 9 = 99 extra cases).

    python benchmarks/bench_localize.py               # every 4th pair fault + every value fault
    python benchmarks/bench_localize.py --every 1     # all 67 pair faults (minutes)
"""

from __future__ import annotations

import argparse
import itertools
import json
import subprocess
import sys
import tempfile
from pathlib import Path

AXES = {"dtype": ["fp16", "bf16", "fp32"], "padded_a": [False, True], "bias_mode": [0, 1, 2],
        "xnorm": [False, True], "tile": [16, 32, 64]}

SUITE = """
from pairwise_param import pairwise

@pairwise({axes!r})
def test_kernel(dtype, padded_a, bias_mode, xnorm, tile):
    assert not ({cond}), "planted"
"""


def _faults(every: int) -> list[tuple[tuple[str, object], ...]]:
    singles = [((a, v),) for a, vals in AXES.items() for v in vals]
    pairs = [((a, va), (b, vb)) for a, b in itertools.combinations(AXES, 2) for va in AXES[a] for vb in AXES[b]]
    return singles + pairs[::every]


def _text(combo: tuple[tuple[str, object], ...]) -> str:
    return "{" + ", ".join(f"{a}={v}" for a, v in combo) + "}"


def _one(combo: tuple[tuple[str, object], ...], budget: int) -> dict[str, object]:
    cond = " and ".join(f"{a} == {v!r}" for a, v in combo)
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "test_k.py").write_text(SUITE.format(axes=AXES, cond=cond))
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "test_k.py"], cwd=d,
                       capture_output=True, check=False)
        doc = json.loads((d / ".pytest_cache" / "v" / "pairwise" / "lastrun").read_text())
        sus = doc["tables"][0]["suspicious"][0]
        first = sus["candidates"][0]["text"] if sus["candidates"] else ""
        loc = subprocess.run([sys.executable, "-m", "pairwise_param.cli", "localize", "test_k.py",
                              "--budget", str(budget)], cwd=d, capture_output=True, text=True, check=False)
    found = [ln.split("found: ")[1].split(" (")[0] for ln in loc.stdout.splitlines() if "found: " in ln]
    extra = int(next(ln for ln in loc.stdout.splitlines() if ln.startswith("pairwise-param localize:"))
                .split(": ")[1].split()[0])
    return {"fault": _text(combo), "verdict": sus["verdict"], "candidates": sus["candidates_total"],
            "ranked_first": first == _text(combo), "extra": extra, "found": found == [_text(combo)],
            "exit": loc.returncode}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--every", type=int, default=4, help="take every Nth pair fault (default 4)")
    ap.add_argument("--budget", type=int, default=20)
    args = ap.parse_args()
    rows = [_one(c, args.budget) for c in _faults(args.every)]
    print("| fault | run verdict | candidates | true one ranked first | localize extra cases | found it |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['fault']} | {r['verdict']} | {r['candidates']} | {r['ranked_first']} | {r['extra']} | {r['found']} |")
    n = len(rows)
    found = sum(bool(r["found"]) for r in rows)
    first = sum(bool(r["ranked_first"]) for r in rows)
    extra = [int(r["extra"]) for r in rows]  # type: ignore[call-overload]
    print(f"\n{n} faults: found {found}/{n}; ranked first after the run {first}/{n}; extra cases "
          f"mean {sum(extra) / n:.1f}, max {max(extra)} (full mode instead: 99 per fault)")


if __name__ == "__main__":
    main()
