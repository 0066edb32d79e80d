"""``pairwise-param localize PATHS [-- pytest args]``: the rounds of follow-up runs.

File and process I/O only; the decisions are :mod:`pairwise_param.runs.localize`'s.
Reads the last run (``--run FILE``, a ``--pairwise-report`` file, or pytest's
cache key ``pairwise/lastrun``), then, round by round until every failure group
is down to one minimal combination or ``--budget`` extra cases are spent: writes
the follow-up requests to a file, runs ``python -m pytest PATHS
--pairwise-extra-rows=REQUESTS --pairwise-report=OUT -p no:cacheprovider``
(the user's cache, ``--lf`` state and last run stay as they were), and reads the
outcomes back.  Never edits a test file.

Trust: the run file is read as every run file is (:func:`pairwise_param.runs.document.load`:
version, layout, indices; clear errors, exit 2); round 0 re-runs one failing row of
each failure and compares each table's model fingerprint with the run file's (a test
whose axes or values changed since the run is refused, exit 2, saying what changed:
the run's value indices would name other values); every round has a time limit
(``--timeout``, the pytest process group is killed, what stays unknown is said).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from pairwise_param.runs.document import RunDocument, RunTable

__all__ = ["LocalizeError", "localize"]

#: where the plugin keeps the last run in pytest's cache (``config.cache`` key)
LASTRUN = Path(".pytest_cache") / "v" / "pairwise" / "lastrun"


class LocalizeError(Exception):
    """Nothing to localize from (no last run, an unreadable, invalid or stale run file)."""


class _RoundTimeout(Exception):
    """A follow-up round ran past ``--timeout``."""


def _read(path: Path) -> RunDocument:
    from pairwise_param.errors import InvalidRunFile
    from pairwise_param.runs.document import load

    try:
        return load(path)
    except InvalidRunFile as exc:
        raise LocalizeError(f"the run file {str(path)!r}: {exc.detail}") from None


def _last_run(run: str | None) -> RunDocument:
    if run is not None:
        return _read(Path(run))
    if not LASTRUN.is_file():
        raise LocalizeError(
            f"no last run in {str(LASTRUN)!r}: run the suite with pytest first (the plugin keeps "
            "each run's outcomes there), or give --run FILE (a --pairwise-report file)"
        )
    return _read(LASTRUN)


def _round(paths: Sequence[str], pytest_args: Sequence[str], requests: list[dict[str, Any]],
           work: Path, n: int, err: TextIO, timeout: float | None = None) -> RunDocument:
    from pairwise_param.runs.localize import REQUEST_FORMAT

    req = work / f"round{n}.json"
    out = work / f"round{n}-report.json"
    req.write_text(json.dumps({"format": REQUEST_FORMAT, "requests": requests}, indent=1), encoding="utf-8")
    cmd = [sys.executable, "-m", "pytest", *paths, *pytest_args, "-q", "-p", "no:cacheprovider",
           f"--pairwise-extra-rows={req}", f"--pairwise-report={out}"]
    # a session of its own, so a timeout ends pytest's children (xdist workers) too
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.communicate()
        raise _RoundTimeout(f"round {n}: the follow-up run took more than {timeout:g} s (--timeout); stopped") from None
    if not out.is_file():
        tail = "\n".join((stdout + stderr).splitlines()[-15:])
        raise LocalizeError(f"the follow-up run wrote no report (exit {proc.returncode}):\n{tail}")
    print(f"round {n}: {len(requests)} {'check' if n == 0 else 'follow-up'} row(s), pytest exit {proc.returncode}",
          file=err)
    return _read(out)


def _changes(old: RunTable, new: RunTable) -> str:
    """What differs between a table of the run file and the same table now."""
    from pairwise_param.runs.document import table_changes

    parts = table_changes(old, new)
    return "; ".join(parts) or "its constraints or sub-models changed (the model fingerprint differs)"


def _check_fresh(doc: RunDocument, report: RunDocument, asked: Sequence[Any]) -> None:
    """Refuse (LocalizeError) when a table asked about changed since the run, or is gone."""
    now = {t.key: t for t in report.tables}
    for key in dict.fromkeys((g.test, g.table) for g in asked):
        old = next(t for t in doc.tables if t.key == key)
        new = now.get(key)
        if new is None:
            raise LocalizeError(
                f"{key[0]} (table {key[1]}) ran no follow-up row: it was renamed, removed, or its model "
                "changed since the run so that no row could be built; rerun the suite with pytest, then localize")
        if new.fingerprint != old.fingerprint:
            raise LocalizeError(
                f"the run file is stale: {key[0]} (table {key[1]}) changed since the run ({_changes(old, new)}); "
                "its value indices would name other values. Rerun the suite with pytest, then localize")


def _check_requests(found: Sequence[Any]) -> list[dict[str, Any]]:
    """Round 0: each group's first failing row of the table, asked for exactly."""
    return [{"test": g.test, "table": g.table, "shape": g.shape, "signature": g.signature,
             "keep": [[a, v] for a, v in enumerate(g.failing[0])], "prefer": [[v] for v in g.failing[0]],
             "exclude": []} for g in found]


def localize(paths: Sequence[str], pytest_args: Sequence[str], budget: int, run: str | None,
             out: TextIO, err: TextIO, keep_dir: str | None = None, timeout: float | None = None) -> int:
    """Run the rounds; print one result per failure group; 0 when every group is
    decided, 1 when some stay ambiguous, unexplained or unconfirmed (budget or time spent)."""
    from pairwise_param.runs.localize import decided, groups, search

    doc = _last_run(run)
    found = groups(doc)
    if not found:
        print("pairwise-param localize: the last run has no failing @pairwise item; nothing to localize",
              file=out)
        return 0
    used = [0]
    stopped = ""
    with tempfile.TemporaryDirectory(prefix="pairwise-localize-") as tmp:
        work = Path(keep_dir) if keep_dir else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        try:
            check = _round(paths, pytest_args, _check_requests(found), work, 0, err, timeout)
            _check_fresh(doc, check, found)
            _note_changed(found, check, err)

            def run_round(asked: list[dict[str, Any]], n: int) -> int:
                report = _round(paths, pytest_args, asked, work, n, err, timeout)
                _check_fresh(doc, report, [g for g in found if any(
                    (r["test"], r["table"]) == (g.test, g.table) for r in asked)])
                ran = _merge(found, report)
                used[0] += ran
                return ran

            done = search(found, budget, run_round)
            if done.stalled:
                print(f"round {done.rounds}: no follow-up row could be run (constraints, or every row tried)",
                      file=err)
        except _RoundTimeout as exc:
            stopped = str(exc)
            print(stopped, file=err)
    _print(found, used[0], budget, out)
    if stopped:
        print(f"pairwise-param localize: stopped early ({stopped.split(': ', 1)[1]}); what is not decided above "
              "stays unknown", file=out)
    return 0 if decided(found) and not stopped else 1


def _note_changed(found: Sequence[Any], check: RunDocument, err: TextIO) -> None:
    """Round 0's outcome per group: a failing row that now passes is said (flaky, or fixed)."""
    for g in found:
        table = next((t for t in check.tables if t.key == (g.test, g.table)), None)
        items = [i for i in (table.items if table else ()) if i.shape == g.shape and i.outcome != "not_run"]
        if items and not any(i.signature == g.signature for i in items):
            print(f"round 0: {g.test}: the failing row {g.failing_nodeids[0]} did not fail the same way again "
                  f"({items[0].outcome}): a flaky test, or the code changed since the run", file=err)


def _merge(found: Sequence[Any], report: RunDocument) -> int:
    """Give each group the outcomes of its follow-up rows; returns the items that ran."""
    ran = 0
    for table in report.tables:
        for item in table.items:
            if item.outcome == "not_run":
                continue
            ran += 1  # a skipped or xfailed follow-up is a case spent too (and never asked again)
            for g in found:
                if (g.test, g.table, g.shape) == (table.test, table.table, item.shape):
                    g.add(table.rows[item.row], item.outcome, item.signature, item.nodeid)
    return ran


def _print(found: Sequence[Any], used: int, budget: int, out: TextIO) -> None:
    for g in found:
        shape = f" [shape {g.shape}]" if g.shape else ""
        head = f"{g.test}{shape}: {g.signature or 'failed'}"
        v = g.verdict()
        kind, cands = g.answer()
        tried = len(g.extra)
        partial = " (a partial run: some items never ran)" if g.partial else ""
        if kind == "found":
            c = cands[0]
            plain, extra = g.reproducing(c)
            print(f"{head}\n  found: {g.describe(c)} (every one of {v.failed} failing rows holds it, "
                  f"none of {v.passed} passing rows; {tried} follow-up case(s))", file=out)
            _reproduce(plain, extra, out)
        elif kind == "union":
            print(f"{head}\n  found {len(cands)} independent causes: {'; '.join(g.describe(c) for c in cands)} "
                  f"(each of {v.failed} failing rows holds one, none of {v.passed} passing rows holds any; "
                  f"{tried} follow-up case(s))", file=out)
            for c in cands:
                plain, extra = g.reproducing(c)
                print(f"  {g.describe(c)}:", file=out)
                _reproduce(plain, extra, out)
        elif kind == "unconfirmed":
            print(f"{head}\n  unconfirmed{partial}: {g.describe(cands[0])} is the only candidate, but no follow-up "
                  "row holding it with its other values changed has failed yet; unknown whether it alone is the "
                  "cause or a combination of it with more values (a rotated table exposes such faults) "
                  f"({tried} follow-up case(s); raise --budget)", file=out)
        else:
            shown = ", ".join(g.describe(c) for c in cands[:5]) + (f" (+{len(cands) - 5} more)" if len(cands) > 5 else "")
            why = "ambiguous" if kind == "ambiguous" else "unexplained (no one combination of <= t values holds in every failing row)"
            print(f"{head}\n  {why}{partial}: {len(cands)} candidate(s) remain: {shown}; {tried} follow-up case(s)",
                  file=out)
    print(f"pairwise-param localize: {used} extra case(s) run (budget {budget})", file=out)


def _reproduce(plain: Sequence[str], extra: Sequence[str], out: TextIO) -> None:
    if plain:
        print("  reproduce with plain pytest:", file=out)
    for nid in plain[:5]:
        print(f"    pytest '{nid}'", file=out)
    if extra:
        print(f"  also failed, follow-up rows (not in the table): {', '.join(extra[:5])}", file=out)
