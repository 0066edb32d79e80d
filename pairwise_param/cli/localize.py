"""``pairwise-param localize PATHS [-- pytest args]``: the rounds of follow-up runs.

File and process I/O only; the decisions are :mod:`pairwise_param.runs.localize`'s.
Reads the last run (``--run FILE``, a ``--pairwise-report`` file, or pytest's
cache key ``pairwise/lastrun``), then, round by round until every failure group
is down to one minimal combination or ``--budget`` extra cases are spent: writes
the follow-up requests to a file, runs ``python -m pytest PATHS
--pairwise-extra-rows=REQUESTS --pairwise-report=OUT -p no:cacheprovider``
(the user's cache, ``--lf`` state and last run stay as they were), and reads the
outcomes back.  Never edits a test file.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

__all__ = ["LocalizeError", "localize"]

#: where the plugin keeps the last run in pytest's cache (``config.cache`` key)
LASTRUN = Path(".pytest_cache") / "v" / "pairwise" / "lastrun"


class LocalizeError(Exception):
    """Nothing to localize from (no last run, an unreadable file)."""


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise LocalizeError(f"cannot read the run file {str(path)!r}: {exc}") from None


def _last_run(run: str | None) -> Any:
    if run is not None:
        return _read(Path(run))
    if not LASTRUN.is_file():
        raise LocalizeError(
            f"no last run in {str(LASTRUN)!r}: run the suite with pytest first (the plugin keeps "
            "each run's outcomes there), or give --run FILE (a --pairwise-report file)"
        )
    return _read(LASTRUN)


def _round(paths: Sequence[str], pytest_args: Sequence[str], requests: list[dict[str, Any]],
           work: Path, n: int, err: TextIO) -> Any:
    from pairwise_param.runs.localize import REQUEST_FORMAT

    req = work / f"round{n}.json"
    out = work / f"round{n}-report.json"
    req.write_text(json.dumps({"format": REQUEST_FORMAT, "requests": requests}, indent=1), encoding="utf-8")
    cmd = [sys.executable, "-m", "pytest", *paths, *pytest_args, "-q", "-p", "no:cacheprovider",
           f"--pairwise-extra-rows={req}", f"--pairwise-report={out}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if not out.is_file():
        tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-15:])
        raise LocalizeError(f"the follow-up run wrote no report (exit {proc.returncode}):\n{tail}")
    print(f"round {n}: {len(requests)} follow-up row(s), pytest exit {proc.returncode}", file=err)
    return _read(out)


def localize(paths: Sequence[str], pytest_args: Sequence[str], budget: int, run: str | None,
             out: TextIO, err: TextIO, keep_dir: str | None = None) -> int:
    """Run the rounds; print one result per failure group; 0 when every group is
    decided, 1 when some stay ambiguous or unexplained (budget spent)."""
    from pairwise_param.runs.localize import decided, groups, search

    doc = _last_run(run)
    found = groups(doc)
    if not found:
        print("pairwise-param localize: the last run has no failing @pairwise item; nothing to localize",
              file=out)
        return 0
    with tempfile.TemporaryDirectory(prefix="pairwise-localize-") as tmp:
        work = Path(keep_dir) if keep_dir else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)

        def run_round(asked: list[dict[str, Any]], n: int) -> int:
            return _merge(found, _round(paths, pytest_args, asked, work, n, err))

        done = search(found, budget, run_round)
        if done.stalled:
            print(f"round {done.rounds}: no follow-up row could be run (constraints, or every row tried)", file=err)
    _print(found, done.used, budget, out)
    return 0 if decided(found) else 1


def _merge(found: Sequence[Any], report: Any) -> int:
    """Give each group the outcomes of its follow-up rows; returns the items that ran."""
    ran = 0
    for table in report.get("tables", []):
        rows = [tuple(r) for r in table["rows"]]
        for item in table["items"]:
            if item.get("outcome") == "not_run":
                continue
            ran += 1  # a skipped or xfailed follow-up is a case spent too (and never asked again)
            for g in found:
                if (g.test, g.table, g.shape) == (table["test"], table.get("table", 0), item.get("shape", "")):
                    g.add(rows[item["row"]], item["outcome"], item.get("signature"), item["nodeid"])
    return ran


def _print(found: Sequence[Any], used: int, budget: int, out: TextIO) -> None:
    for g in found:
        shape = f" [shape {g.shape}]" if g.shape else ""
        head = f"{g.test}{shape}: {g.signature or 'failed'}"
        v = g.verdict()
        cands = g.explaining()
        tried = len(g.extra)
        if v.explaining == 1:
            c = cands[0]
            plain, extra = g.reproducing(c)
            print(f"{head}\n  found: {g.describe(c)} (every one of {v.failed} failing rows holds it, "
                  f"none of {v.passed} passing rows; {tried} follow-up case(s))", file=out)
            print("  reproduce with plain pytest:", file=out)
            for nid in plain[:5]:
                print(f"    pytest '{nid}'", file=out)
            if extra:
                print(f"  also failed, follow-up rows (not in the table): {', '.join(extra[:5])}", file=out)
        else:
            shown = ", ".join(g.describe(c) for c in cands[:5]) + (f" (+{len(cands) - 5} more)" if len(cands) > 5 else "")
            why = "ambiguous" if v.explaining > 1 else "unexplained (no one combination of <= t values holds in every failing row)"
            print(f"{head}\n  {why}: {len(cands)} candidate(s) remain: {shown}; {tried} follow-up case(s)",
                  file=out)
    print(f"pairwise-param localize: {used} extra case(s) run (budget {budget})", file=out)
