"""What the ``@pairwise`` rows of a run did: executed coverage, suspicious combinations, the run file.

Imported only in a session that collected a ``@pairwise`` test (the hooks
module stays cheap).  The pure logic is in :mod:`pairwise_param.runs` (the file:
:mod:`pairwise_param.runs.schema`, JSON Schema in ``pairwise_param/runs/run.schema.json``;
the analysis: :mod:`pairwise_param.runs.analysis`; its words: :mod:`pairwise_param.runs.text`);
this module is the pytest side:

1. at the end of collection, :meth:`Run.collect` turns the tables of the
   session's tests into JSON-able *payloads* (axes with value labels and
   Python text, scopes, rows, row ids, infeasible tuples, values left out at
   collection) and maps each item's node id to its row and *shape* (its id
   without the row ids: ordinary ``parametrize`` and parametrized fixtures);
2. a :class:`Run` is registered as a plugin for the rest of the session, so
   its ``pytest_runtest_logreport`` sees every report -- and no session
   without ``@pairwise`` tests pays anything per item;
3. under pytest-xdist each worker records the items it ran and sends the
   payloads and its outcomes through ``config.workeroutput``; the controller
   merges them (every worker collects the same tables);
4. at ``pytest_sessionfinish`` (the controller, or the only process) the run
   is analysed, written to ``--pairwise-report=FILE`` and to pytest's cache
   (``pairwise/lastrun``, read by ``pairwise-param localize``), and a
   :class:`~pairwise_param.errors.PairwiseWarning` is issued once per table
   whose executed coverage is below its collected coverage;
5. the terminal summary prints one line per such table and one per group
   of failures (shape x error signature) with its suspicious combinations.

A worker that crashes does not take what it ran with it: the controller records
the reports xdist forwards to it (:attr:`Run.controller`), so the items that ran keep
their outcomes, and the item that crashed the worker is recorded ``failed`` at
``when="crash"`` with xdist's message as its signature: not executed, so its tuples
are lost ("crashed: ...") and the gate fails.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pairwise_param.errors import PairwiseWarning
from pairwise_param.plugin.summary import item_rows, test_base
from pairwise_param.values import value_label

if TYPE_CHECKING:
    import pytest

    from pairwise_param.plugin.expand import Record
    from pairwise_param.runs.document import RunTable

__all__ = ["CACHE_KEY", "Run", "guarded_cache", "shape_of", "terminal_sections"]

#: pytest cache key of the last run's document (``config.cache.get(CACHE_KEY, None)``)
CACHE_KEY = "pairwise/lastrun"


class _GuardedCache:
    """pytest's cache, except that no entry is written through a symbolic link: a link
    planted in ``.pytest_cache`` (or a ``v/pairwise`` directory that is one) would make the
    run write table entries or ``pairwise/lastrun`` to a file outside the project."""

    def __init__(self, cache: Any, cache_dir: Path) -> None:
        self.cache = cache
        self.root = cache_dir

    def get(self, key: str, default: Any) -> Any:
        return self.cache.get(key, default)

    def set(self, key: str, value: Any) -> None:
        path = self.root / "v" / key
        here = path
        while True:
            if here.is_symlink():
                return  # never follow a link out of the cache directory
            if here == self.root or here.parent == here:
                break
            here = here.parent
        self.cache.set(key, value)


def guarded_cache(config: pytest.Config) -> Any:
    """``config.cache`` behind :class:`_GuardedCache` (None without the cache plugin); the
    directory is pytest's ``cache_dir`` ini value, resolved as pytest resolves it."""
    import os

    cache = getattr(config, "cache", None)
    if cache is None:
        return None
    raw = Path(os.path.expanduser(os.path.expandvars(str(config.getini("cache_dir")))))
    return _GuardedCache(cache, raw if raw.is_absolute() else config.rootpath / raw)


def _python_text(value: Any) -> Any:
    """A value as Python source for a suggested constraint (its ``repr`` when
    that reads as code, else its label); a grouped value: one text per part."""
    if isinstance(value, tuple):
        return [_python_text(v) for v in value]
    text = repr(value)
    if text.startswith("<") or len(text) > 80:
        return value_label(value)
    return text


def _payload(base: str, k: int, rec: Record) -> dict[str, Any]:
    model = rec.model
    lost = set(rec.absent_tuples)
    return {
        "test": base,
        "table": k,
        "mode": rec.mode,
        "strength": model.strength,
        "fingerprint": model.fingerprint(),
        "axes": [
            {
                "name": a.name,
                "names": list(a.names),
                "values": [value_label(v) for v in a.values],
                "reprs": [_python_text(v) if a.grouped else _single_text(v) for v in a.values],
            }
            for a in model.axes
        ],
        "scopes": [list(s) for s in model.index_model.interactions],
        "rows": [list(r) for r in rec.table.rows],
        "row_ids": list(rec.ids),
        "infeasible": [
            [[a, v] for a, v in zip(scope, values)] for scope, values in rec.table.infeasible if (scope, values) not in lost
        ],
        "absent": [{"axis": a, "value": v, "reason": reason} for a, v, reason in rec.absent],
        "infeasible_absent": [[[a, v] for a, v in zip(scope, values)] for scope, values in rec.absent_tuples],
        "items": [],
    }


def _single_text(value: Any) -> str:
    text = _python_text(value)
    return text if isinstance(text, str) else repr(value)


def shape_of(callspec_id: str, row_ids: list[str]) -> str:
    """The item's id without its tables' row ids (our parametrize runs first, so
    each row id is normally the id's first part)."""
    rest = callspec_id
    for rid in row_ids:
        if rest == rid:
            rest = ""
        elif rest.startswith(rid + "-"):
            rest = rest[len(rid) + 1 :]
        elif rest.endswith("-" + rid):
            rest = rest[: -len(rid) - 1]
        else:
            i = rest.find("-" + rid + "-")
            if i >= 0:
                rest = rest[:i] + rest[i + len(rid) + 1 :]
    return rest


class Run:
    """The session's tables and what their items did (see the module docstring)."""

    def __init__(self) -> None:
        self._payloads: list[dict[str, Any]] = []
        #: (test, table index, record, location, items) of each table, turned into its
        #: payload only when the payloads are read (session end, or a worker's export):
        #: collection pays only for matching items to rows
        self._pending: list[tuple[str, int, Any, list[Any], list[list[Any]]]] = []
        self.tracked: set[str] = set()
        #: the tables that are holes (an empty axis): {"test", "location", "axes"}
        self.empty: list[dict[str, Any]] = []
        self.outcomes: dict[str, dict[str, Any]] = {}
        self.raised = False  # a lost-coverage warning was turned into an error (-W error)
        #: the pytest-xdist controller: records every report it is forwarded (it collects no
        #: items, so it cannot know which are tracked until the workers' payloads arrive)
        self.controller = False
        #: @pairwise items collected before a splitter chose (None: unknown)
        self.collected: int | None = None
        #: runs.where.Shard of this run (None: not sharded)
        self.shard: Any = None
        #: runs.where.Mirror of this run (None: not a mirror job)
        self.mirror: Any = None
        #: runs.where.Platform a worker saw (the controller imports no torch)
        self.platform: Any = None

    # -- collection -------------------------------------------------------------
    @classmethod
    def collect(cls, items: list[Any], records: dict[str, list[Record]],
                empty: dict[str, list[str]] | None = None) -> Run:
        run = cls()
        slots: dict[tuple[str, int], list[list[Any]]] = {}
        holes: dict[str, dict[str, Any]] = {}
        for item in items:
            base = test_base(item)
            if base is None:
                continue
            if empty and base in empty and base not in holes:
                path, line, _ = item.location
                holes[base] = {"test": base, "location": [str(path), (line or 0) + 1], "axes": list(empty[base])}
            recs = records.get(base)
            if not recs or any(r.model is None for r in recs):
                continue
            rows = item_rows(item, recs)
            if rows is None:
                continue
            rids = [rec.ids[row] for rec, row in zip(recs, rows)]
            shape = shape_of(str(item.callspec.id), rids)
            for k, (rec, row) in enumerate(zip(recs, rows)):
                key = (base, k)
                if key not in slots:
                    path, line, _ = item.location
                    slots[key] = []
                    run._pending.append((base, k, rec, [str(path), (line or 0) + 1], slots[key]))
                slots[key].append([item.nodeid, row, shape])
                run.tracked.add(item.nodeid)
        run.empty = sorted(holes.values(), key=lambda e: e["test"])
        return run

    @property
    def payloads(self) -> list[dict[str, Any]]:
        """Each table's payload (what the run file holds of it), built on first read."""
        if self._pending:
            for base, k, rec, location, items in self._pending:
                payload = _payload(base, k, rec)
                payload["location"] = location
                payload["items"] = items
                self._payloads.append(payload)
            self._pending = []
            # one order whatever the collection order (pytest-randomly, -p xdist's workers)
            self._payloads.sort(key=lambda p: (p["test"], p["table"]))
            for p in self._payloads:
                p["items"].sort()
        return self._payloads

    @payloads.setter
    def payloads(self, value: list[dict[str, Any]]) -> None:
        self._payloads, self._pending = value, []

    # -- outcomes (this object is a plugin for the rest of the session) ------------
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        nodeid = report.nodeid
        if nodeid not in self.tracked and not self.controller:
            return
        when = report.when
        if when not in ("setup", "call", "teardown"):  # xdist's report of a worker crash ("???")
            if report.failed:
                from pairwise_param.runs.analysis import signature

                self.outcomes[nodeid] = {"outcome": "failed", "when": "crash",
                                         "signature": signature(str(report.longrepr)), "reason": None}
            return
        wasxfail = hasattr(report, "wasxfail")
        entry = self.outcomes.get(nodeid)
        if when == "setup" or entry is None:
            entry = {"outcome": "not_run", "when": when, "signature": None, "reason": None}
            self.outcomes[nodeid] = entry
        if report.failed:
            if when == "teardown" and entry["outcome"] == "failed":
                return  # the failure of the body is the news
            entry.update(outcome="failed" if when == "call" else "error", when=when, signature=_signature(report))
        elif report.skipped:
            if wasxfail:
                entry.update(outcome="xfailed", when=when, reason=str(report.wasxfail) or None)
            elif entry["outcome"] not in ("failed", "error"):
                entry.update(outcome="skipped", when=when, reason=_skip_reason(report))
        elif when == "call":
            entry.update(outcome="xpassed" if wasxfail else "passed", when=when)
        elif when == "teardown" and entry["outcome"] == "not_run" and entry["when"] == "setup":
            pass  # set-up passed, no call report (interrupted): not run

    # -- xdist ---------------------------------------------------------------------
    def export(self) -> dict[str, Any]:
        """What a worker sends to the controller."""
        platform = _platform()
        return {"payloads": self.payloads, "outcomes": self.outcomes, "empty": self.empty, "collected": self.collected,
                "platform": None if platform is None else [platform.name, platform.device]}

    def merge(self, part: dict[str, Any]) -> None:
        """Take a worker's part: its tables (the first worker's; all collect the
        same) and the outcomes of the items it ran."""
        if not self.payloads:
            self.payloads = list(part.get("payloads", []))
        if not self.empty:
            self.empty = list(part.get("empty", []))
        if self.collected is None:
            self.collected = part.get("collected")
        if self.platform is None and part.get("platform"):
            from pairwise_param.runs.where import Platform

            self.platform = Platform(*part["platform"])
        for nodeid, outcome in part.get("outcomes", {}).items():
            # the controller's own record of a report is the truth; a worker's fills the gaps
            self.outcomes.setdefault(nodeid, outcome)

    # -- the end ---------------------------------------------------------------------
    def finish(self, config: pytest.Config, exitstatus: int) -> list[RunTable]:
        """Analyse, write the run file and the cache entry, warn; the analysed tables."""
        from pairwise_param.files import atomic_write
        from pairwise_param.runs.analysis import analyze_table, run_document
        from pairwise_param.runs.document import dump, to_json
        from pairwise_param.runs.text import lost_at_run_time, warning_text
        from pairwise_param.runs.where import build_id

        tables = [analyze_table(p, self.outcomes) for p in self.payloads if p["items"]]
        doc = replace(run_document(tables, exitstatus, self.empty), shard=self.shard, build=build_id(os.environ),
                      platform=_platform() or self.platform, collected=self.collected, mirror=self.mirror)
        path = config.getoption("pairwise_report", None)
        if path:
            target = Path(path)
            if not target.is_absolute():
                target = Path(str(config.invocation_params.dir)) / target
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                atomic_write(target, dump(doc).encode("utf-8"))  # a merge of shards never reads half a file
            except OSError as exc:
                warnings.warn(PairwiseWarning(f"--pairwise-report={path}: cannot write the run file: {exc}"), stacklevel=1)
        cache = guarded_cache(config)
        if cache is not None:
            try:
                cache.set(CACHE_KEY, to_json(doc))
            except (OSError, Warning):  # a read-only cache directory must not fail the run (nor -W error)
                pass
        for table in tables:
            if lost_at_run_time(table):
                path, line = table.location
                # reported at the test's own line, not ours (the warnings summary groups by location)
                try:
                    warnings.warn_explicit(
                        PairwiseWarning(warning_text(table), where=table.test), PairwiseWarning, str(path), int(line)
                    )
                except PairwiseWarning:  # -W error::...PairwiseWarning: the run fails (hooks.py)
                    self.raised = True
        return tables


def _platform() -> Any:
    """The platform (runs/where.py) as far as this process can tell: torch only when the
    tests already imported it (never imported here)."""
    import sys

    from pairwise_param.runs.where import platform

    return platform(os.environ, sys.modules.get("torch"))


def _signature(report: Any) -> str:
    from pairwise_param.runs.analysis import signature

    longrepr = report.longrepr
    crash = getattr(longrepr, "reprcrash", None)
    message = getattr(crash, "message", None)
    if not isinstance(message, str):
        message = str(longrepr) if longrepr is not None else "?"
    return signature(message)


def _skip_reason(report: Any) -> str:
    longrepr = report.longrepr
    text = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    text = str(text)
    return text.removeprefix("Skipped: ")


def terminal_sections(tr: Any, tables: list[RunTable], verbosity: int) -> None:
    """The executed-coverage and suspicious-combination sections of the terminal summary."""
    from pairwise_param.runs.text import coverage_line, lost_at_run_time, suspicious_lines

    limit = None if verbosity > 0 else 10
    lines = [line for t in tables if lost_at_run_time(t) and (line := coverage_line(t, limit)) is not None]
    if lines:
        tr.write_sep("-", "pairwise-param: executed coverage below the collected table", yellow=True)
        for line in lines:
            tr.write_line(line, yellow=True)
    found = [line for t in tables for line in suspicious_lines(t, None if verbosity > 0 else 5)]
    if found:
        tr.write_sep("-", "pairwise-param: suspicious combinations (held by failing items, by no passing item)", red=True)
        for line in found:
            tr.write_line(line)
