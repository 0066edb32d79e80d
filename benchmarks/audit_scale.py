"""Time ``pairwise-param report --from-marks`` on the two large public suites (issue 26).

The report's counting path (``--from-marks``, :class:`pairwise_param.report.collect._FromMarks`)
reads each test function's ``parametrize`` rows from its marks instead of letting pytest
build one item per row.  This script runs it in the stub environment of
``benchmarks/real_suites.py`` (same stubs, same conftest-free pytest options) under
``/usr/bin/time -v`` and prints CPU (user + sys), wall, peak RSS, the items the report
counts and the items it built, against issue 26's targets (flashinfer ``tests/`` <= 20 s;
flash-attention ``tests/`` + ``hopper/`` <= 60 s and <= 1 GB RSS).

``--check PATH...`` (paths inside one suite) runs the report twice on those paths, with and
without ``--from-marks``, and compares every test's FULL, COLLECTED and tables: the
counting path must give pytest's own numbers.

Usage (repository root, project venv)::

    python benchmarks/audit_scale.py                       # both suites, --from-marks
    python benchmarks/audit_scale.py --suite flashinfer --expanded   # also --expand-items (slow)
    python benchmarks/audit_scale.py --suite flashinfer --default    # neither flag: the report's default
    python benchmarks/audit_scale.py --suite flashinfer --check tests/attention/test_xqa.py
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.corpus.suites import SUITES
from benchmarks.real_suites import DEFAULT_ROOT, IGNORE, checkout, environment, report_cmd

PLAN = {"flashinfer": ["tests"], "flash-attention": ["tests", "hopper"]}
TARGETS = {"flashinfer": (20.0, None), "flash-attention": (60.0, 1024.0)}  # seconds, MiB


def _time_v(text: str) -> dict[str, float]:
    """user, sys, wall seconds and peak RSS MiB from ``/usr/bin/time -v``'s stderr."""
    out: dict[str, float] = {}
    for key, pat in (("user", r"User time \(seconds\): ([\d.]+)"), ("sys", r"System time \(seconds\): ([\d.]+)"),
                     ("rss", r"Maximum resident set size \(kbytes\): (\d+)")):
        m = re.search(pat, text)
        if m:
            out[key] = float(m.group(1)) / (1024 if key == "rss" else 1)
    m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", text)
    if m:
        parts = [float(p) for p in m.group(1).split(":")]
        out["wall"] = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
    return out


def run_report(suite: str, paths: list[str], root: Path, from_marks: bool | None, timeout: float,
               fake_cuda: bool = True) -> tuple[dict[str, float], dict[str, Any] | None, str]:
    """One report (JSON) under ``/usr/bin/time -v``: (times, the JSON or None, stderr).
    ``from_marks``: True ``--from-marks``, False ``--expand-items``, None the default."""
    s = SUITES[suite]
    with tempfile.TemporaryDirectory(prefix=f"pwscale-{suite}-") as tmp:
        work = Path(tmp)
        env = environment(s, root, work, fake_cuda=fake_cuda)
        env["PYTEST_ADDOPTS"] += "".join(f" --ignore={p}" for p in IGNORE.get(suite, ()))
        flag = [] if from_marks is None else ["--from-marks" if from_marks else "--expand-items"]
        extra = ["--strength", "2", "--format", "json", *flag]
        cmd = ["/usr/bin/time", "-v", *report_cmd(paths, extra)]
        out = work / "report.json"
        with out.open("wb") as fo:
            try:
                p = subprocess.run(cmd, check=False, cwd=checkout(s, root), env=env, stdout=fo, stderr=subprocess.PIPE,
                                   timeout=timeout)
                err = p.stderr.decode(errors="replace")
            except subprocess.TimeoutExpired as exc:
                return {"wall": timeout}, None, f"killed at {timeout:.0f} s: {exc}"
        try:
            doc = json.loads(out.read_text())
        except json.JSONDecodeError:
            doc = None
        return _time_v(err), doc, err


def compare(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """Differences between two report JSONs, test by test (FULL, COLLECTED, tables)."""
    keys = ("full_product", "collected", "axes", "tables")
    ta = {t["id"]: t for t in a["tests"]}
    tb = {t["id"]: t for t in b["tests"]}
    out = [f"only in the expanded report: {k}" for k in ta.keys() - tb.keys()]
    out += [f"only in the counted report: {k}" for k in tb.keys() - ta.keys()]
    for k in ta.keys() & tb.keys():
        for key in keys:
            if ta[k][key] != tb[k][key]:
                out.append(f"{k}: {key} {ta[k][key]!r:.120} != {tb[k][key]!r:.120}")
    if a["collected_items"] != b["collected_items"]:
        out.append(f"collected_items {a['collected_items']} != {b['collected_items']}")
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--suite", action="append", choices=sorted(PLAN))
    p.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    p.add_argument("--timeout", type=float, default=600.0)
    p.add_argument("--expanded", action="store_true", help="also time the item-by-item report (slow)")
    p.add_argument("--default", action="store_true",
                   help="time the report with neither --from-marks nor --expand-items (its default)")
    p.add_argument("--check", nargs="+", metavar="PATH", help="compare both paths on these files of ONE suite")
    args = p.parse_args(argv)
    suites = args.suite or list(PLAN)
    if args.check:
        if len(suites) != 1:
            p.error("--check needs exactly one --suite")
        _, a, ea = run_report(suites[0], args.check, args.root, False, args.timeout)
        _, b, eb = run_report(suites[0], args.check, args.root, True, args.timeout)
        if a is None or b is None:
            print((ea if a is None else eb)[-2000:], file=sys.stderr)
            return 2
        diff = compare(a, b)
        print(f"{suites[0]} {' '.join(args.check)}: {len(a['tests'])} tests, {a['collected_items']} items; "
              f"{'SAME' if not diff else f'{len(diff)} differences'}")
        for d in diff[:40]:
            print("  " + d)
        return 1 if diff else 0
    print("| suite | paths | report | CPU s (user+sys) | wall s | peak RSS MiB | items counted | tests | target | met |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in suites:
        modes: list[bool | None] = [None] if args.default else [True]
        modes += [False] if args.expanded else []
        for from_marks in modes:
            t, doc, err = run_report(name, PLAN[name], args.root, from_marks, args.timeout)
            cpu = t.get("user", 0.0) + t.get("sys", 0.0)
            mode = "--from-marks" if from_marks else "--expand-items" if from_marks is False else (
                "default (re-ran with --expand-items)" if "collecting again" in err else "default (from the marks)")
            secs, mib = TARGETS[name]
            met = doc is not None and cpu <= secs and (mib is None or t.get("rss", 0.0) <= mib)
            target = f"<= {secs:.0f} s" + (f", <= {mib:.0f} MiB" if mib else "")
            print(f"| {name} | {' + '.join(PLAN[name])} | {mode} | {cpu:.1f} "
                  f"| {t.get('wall', 0.0):.1f} | {t.get('rss', 0.0):.0f} "
                  f"| {doc['collected_items'] if doc else '?'} | {len(doc['tests']) if doc else '?'} "
                  f"| {target} | {'yes' if met else 'NO'} (CPU) |", flush=True)
            if doc is None:
                print(err[-2000:], file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
