"""Audit upstream's CI lists against our suites: one Markdown table for every family.

Each kernel family may hold ``kernel_tests/<family>/upstream_ci.py``: upstream's
parametrization, as upstream wrote it (see kernel_tests/support/README.md). For every
family that has one, this runs ``pairwise-param report --format json --strength 2`` on
that file and on the family's own suite, matches tests by function name and prints:

    family | test | upstream CI | upstream 2-way (pairs missed) | ours | our 2-way | full product

"2-way" sums the option tables of a test (covered / coverable pairs of option values;
the values measured are those that appear in that file's own rows, pairwise-param's
rule for hand-written lists). A family's ``upstream_ci.py`` may declare, as literals:

* ``AUDIT_SUITE = "test_x.py"``: our suite file in the same folder (default: every
  ``test_*.py`` there);
* ``AUDIT_OPTION_AXES = ["batch_size", "hidden_size", ...]``: the argument names that
  are the option axes on BOTH sides (passed as ``--option-axes``; default: the
  report's automatic rule). Use it when upstream writes shapes as parametrize, so
  their pairs are measured too.

Run from the repository root::

    python benchmarks/upstream_ci_audit.py                    # Markdown on stdout
    python benchmarks/upstream_ci_audit.py --update docs/kernels.md
    python benchmarks/upstream_ci_audit.py --family rmsnorm     # one family

``--update`` rewrites the block between ``<!-- upstream-ci-audit:start -->`` and
``<!-- upstream-ci-audit:end -->`` in that file. Families without the file do not
appear. Needs the kernels extra (torch, triton): collecting a family's suite imports
its conftest.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
KERNEL_TESTS = ROOT / "kernel_tests"
START, END = "<!-- upstream-ci-audit:start -->", "<!-- upstream-ci-audit:end -->"


@dataclass(frozen=True)
class Side:
    """One test's numbers in one report."""

    count: int
    covered: int
    coverable: int
    tables: int

    @property
    def missing(self) -> int:
        return self.coverable - self.covered

    def coverage(self) -> str:
        if not self.tables or not self.coverable:
            return "- (no option table)"
        pct = 100.0 * self.covered / self.coverable
        text = f"{pct:.1f}%" if self.missing else "100%"
        return f"{text} ({self.missing} of {self.coverable} missed)"


def declared(path: Path, name: str) -> Any:
    """A module-level literal ``name = ...`` of ``path`` (None when absent), without importing it."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return ast.literal_eval(node.value)
    return None


def report(paths: list[Path], option_axes: list[str] | None) -> dict[str, Any]:
    """``pairwise-param report --format json --strength 2`` on ``paths``.

    Collection needs no GPU: the subprocess sees none (``CUDA_VISIBLE_DEVICES=""``), so
    on a GPU machine it does not initialize one (the kernel conftest then selects the
    interpreter, which changes no test's parametrization)."""
    cmd = [sys.executable, "-m", "pairwise_param.cli", "report", "--format", "json", "--strength", "2",
           "--no-progress"]
    if option_axes:
        cmd += ["--option-axes", ",".join(option_axes)]
    cmd += [str(p.relative_to(ROOT)) for p in paths]
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", HIP_VISIBLE_DEVICES="")
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=False, env=env)
    if proc.returncode not in (0, 1):  # 1: below --fail-under (not used) -- anything else is an error
        raise SystemExit(f"upstream_ci_audit: {' '.join(cmd)} exited {proc.returncode}:\n{proc.stderr}")
    data: dict[str, Any] = json.loads(proc.stdout)
    if data["errors"]:
        raise SystemExit(f"upstream_ci_audit: collection errors in {paths}: {data['errors']}")
    return data


def sides(data: dict[str, Any]) -> dict[str, Side]:
    """Function name -> its numbers (2-way coverage summed over its option tables)."""
    out: dict[str, Side] = {}
    for test in data["tests"]:
        covered = coverable = 0
        for table in test["tables"]:
            for c in table["coverage"]:
                if c["strength"] == 2:
                    covered += c["covered"]
                    coverable += c["coverable"]
        name = test["function"] if test["class"] is None else f"{test['class']}.{test['function']}"
        if name in out:
            raise SystemExit(f"upstream_ci_audit: test {name} appears twice in {data['tests'][0]['path']}")
        out[name] = Side(test["collected"], covered, coverable, len(test["tables"]))
    return out


def family_rows(upstream: Path) -> list[list[str]]:
    family = upstream.parent.name
    suite_name = declared(upstream, "AUDIT_SUITE")
    suite = [upstream.parent / suite_name] if suite_name else sorted(upstream.parent.glob("test_*.py"))
    axes = declared(upstream, "AUDIT_OPTION_AXES")
    # one report (one process: one torch import) for both files; split by path
    data = report([upstream, *suite], axes)
    up_path = str(upstream.relative_to(ROOT))
    theirs = sides({**data, "tests": [t for t in data["tests"] if t["path"] == up_path]})
    ours_data = {**data, "tests": [t for t in data["tests"] if t["path"] != up_path]}
    ours = sides(ours_data)
    full = {t["function"]: t["full_product"] for t in ours_data["tests"]}
    rows = []
    for name, up in theirs.items():
        mine = ours.get(name)
        rows.append([
            family, f"`{name}`", str(up.count), up.coverage(),
            str(mine.count) if mine else "- (no such test)", mine.coverage() if mine else "-",
            str(full.get(name, "-")),
        ])
    return rows


def table(families: list[str] | None = None) -> str:
    """The Markdown table for every family with an upstream_ci.py (or only ``families``)."""
    header = ["family", "test", "upstream CI", "upstream 2-way (pairs missed)", "ours", "our 2-way",
              "full product"]
    lines = ["| " + " | ".join(header) + " |", "|---|---|---:|---|---:|---|---:|"]
    found = sorted(KERNEL_TESTS.glob("*/upstream_ci.py"))
    unknown = sorted(set(families or ()) - {p.parent.name for p in found})
    if unknown:
        raise SystemExit(f"upstream_ci_audit: no kernel_tests/<family>/upstream_ci.py for {', '.join(unknown)}")
    for upstream in found:
        if families and upstream.parent.name not in families:
            continue
        for row in family_rows(upstream):
            lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def update(path: Path, text: str) -> None:
    doc = path.read_text()
    if START not in doc or END not in doc:
        raise SystemExit(f"upstream_ci_audit: {path} has no {START} ... {END} block")
    head, rest = doc.split(START, 1)
    _, tail = rest.split(END, 1)
    path.write_text(f"{head}{START}\n{text}{END}{tail}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--update", type=Path, metavar="FILE",
                        help="rewrite the audit block of FILE (e.g. docs/kernels.md) instead of printing")
    parser.add_argument("--family", action="append", metavar="NAME",
                        help="only this family (repeatable; default: every family with an upstream_ci.py)")
    args = parser.parse_args(argv)
    if args.update and args.family:
        parser.error("--update writes the whole table: do not combine it with --family")
    text = table(args.family)
    if args.update:
        update(args.update, text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
