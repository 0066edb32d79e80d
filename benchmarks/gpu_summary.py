"""Summarise pytest JUnit XML files of GPU runs into one Markdown table and one JSON file.

Used by ``benchmarks/gpu_families.sh``. For each run it reports passed / failed / skipped /
errors, pytest's own time (the ``testsuite`` time), the summed case time (sum of every
``testcase`` time: what the GPU and the host spent on the cases themselves, which shows
whether xdist workers competed) and the wall time the script measured around pytest.

A run cut short by its time cap writes no XML; it is counted from the progress characters
of its log instead and marked ``timeout`` (its numbers are then a lower bound).

Usage: ``python benchmarks/gpu_summary.py OUT_DIR`` (reads ``OUT_DIR/runs.tsv``: name, args,
rc, wall seconds, one run a line).
"""

from __future__ import annotations

import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def junit_counts(path: Path) -> dict[str, float]:
    """Counts and times of one JUnit XML file (pytest writes one ``testsuite``)."""
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    out = {"passed": 0, "failed": 0, "skipped": 0, "errors": 0, "pytest_s": 0.0, "case_s": 0.0}
    for suite in suites:
        out["pytest_s"] += float(suite.get("time", 0.0))
        for case in suite.iter("testcase"):
            out["case_s"] += float(case.get("time", 0.0))
            kinds = {child.tag for child in case}
            if "failure" in kinds:
                out["failed"] += 1
            elif "error" in kinds:
                out["errors"] += 1
            elif "skipped" in kinds:
                out["skipped"] += 1
            else:
                out["passed"] += 1
    return out


def log_counts(path: Path) -> dict[str, float]:
    """Lower-bound counts from pytest's ``-q`` progress lines (a run killed by its cap)."""
    text = path.read_text(errors="replace") if path.exists() else ""
    progress = "".join(m.group(1) for m in re.finditer(r"^([.sFExX]+)\s*(\[\s*\d+%\])?$", text, re.MULTILINE))
    return {"passed": progress.count("."), "failed": progress.count("F"), "skipped": progress.count("s"),
            "errors": progress.count("E"), "pytest_s": float("nan"), "case_s": float("nan")}


def main(out_dir: str) -> None:
    out = Path(out_dir)
    rows = []
    for line in (out / "runs.tsv").read_text().splitlines():
        name, args, rc, wall = line.split("\t")
        xml = out / f"{name}.xml"
        counts = junit_counts(xml) if xml.exists() else log_counts(out / f"{name}.log")
        rows.append({"run": name, "args": args, "rc": int(rc), "timeout": int(rc) in (124, 137),
                     "wall_s": float(wall), **counts})
    env = (out / "env.txt").read_text().strip() if (out / "env.txt").exists() else ""
    (out / "gpu_families.json").write_text(json.dumps({"env": env, "runs": rows}, indent=2) + "\n")
    md = ["| run | args | passed | failed | skipped | errors | pytest s | summed case s | wall s | rc |",
          "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        rc = f"{r['rc']} (cap hit: lower bound)" if r["timeout"] else str(r["rc"])
        md.append(f"| {r['run']} | `{r['args']}` | {r['passed']} | {r['failed']} | {r['skipped']} | {r['errors']} | "
                  f"{r['pytest_s']:.1f} | {r['case_s']:.1f} | {r['wall_s']:.1f} | {rc} |")
    text = "\n".join(["```", env, "```", "", *md]) + "\n"
    (out / "gpu_families.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main(sys.argv[1])
