"""The history of the tables that ran: what ``--pairwise-rotate`` weighs.

Pure logic over one JSON file (no pytest, no engine).  The plugin reads it at
collection (the controller and every xdist worker read the same file, so every process
builds the same rotated rows) and writes it at session end on the controller only,
from the run file's tables (:mod:`pairwise_param.runs.schema`): the rows of each table
of which at least one item executed.  By default the file lives in pytest's cache
directory (``.pytest_cache/d/pairwise-param/history.json``); ``--pairwise-history=PATH``
names a file that CI keeps as an artifact between runs.

The file (schema ``pairwise-param/history`` v1)::

    {"schema": "pairwise-param/history", "schema_version": 1,
     "tables": [{"test": "tests/test_k.py::test_k",  the test (node id without [...])
                 "table": 0,                        which @pairwise mark of the test
                 "fingerprint": "...",              Model.fingerprint(): a changed model
                                                    starts a new history
                 "strength": 2,
                 "sizes": [2, 2, 3],                values per axis
                 "axes": ["dtype", "padded", "bias_mode"],
                 "coverable": [12, 18, 12],         feasible tuples of t, t+1, t+2 axes
                                                    (what 100% is; [] when not known)
                 "runs": [[[0, 1, 2], ...], ...]}]} the rows of each run, oldest first
                                                    (at most MAX_RUNS kept)

Written atomically (:func:`pairwise_param.files.atomic_write`: a temporary file beside
it, then ``os.replace``; a symlink's target is written, the mode kept), so a reader
never sees half a file.  A file that cannot be read, is not JSON, has another
schema or version, or a malformed table is *corrupt*: :func:`read` says why and the
plugin falls back to the fixed tables with a ``PairwiseWarning``; so does a missing one.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pairwise_param.files import atomic_write
from pairwise_param.runs.analysis import is_executed

__all__ = [
    "CACHE_DIR", "DEFAULT_PATH", "FILE_NAME", "MAX_RUNS", "SCHEMA_ID", "SCHEMA_VERSION",
    "History", "HistoryTable", "Progress", "below", "progress", "read", "render", "write",
]

SCHEMA_ID = "pairwise-param/history"
SCHEMA_VERSION = 1
#: the default file: ``config.cache.mkdir(CACHE_DIR) / FILE_NAME``, i.e. DEFAULT_PATH
#: under the rootdir (what ``pairwise-param report --history`` reads by default)
CACHE_DIR = "pairwise-param"
FILE_NAME = "history.json"
DEFAULT_PATH = Path(".pytest_cache") / "d" / CACHE_DIR / FILE_NAME
#: runs kept per table (the oldest are dropped)
MAX_RUNS = 64

Row = tuple[int, ...]


@dataclass(frozen=True)
class HistoryTable:
    """The runs of one table of one test."""

    test: str
    table: int
    fingerprint: str
    strength: int
    sizes: tuple[int, ...]
    axes: tuple[str, ...]
    runs: tuple[tuple[Row, ...], ...]
    coverable: tuple[int, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "test": self.test,
            "table": self.table,
            "fingerprint": self.fingerprint,
            "strength": self.strength,
            "sizes": list(self.sizes),
            "axes": list(self.axes),
            "coverable": list(self.coverable),
            "runs": [[list(r) for r in run] for run in self.runs],
        }


@dataclass(frozen=True)
class History:
    """Every table's runs, keyed by (test, table index)."""

    tables: Mapping[tuple[str, int], HistoryTable] = field(default_factory=dict)

    def runs_for(self, test: str, table: int, fingerprint: str) -> tuple[tuple[Row, ...], ...]:
        """The runs of a table, oldest first; none when the model changed since."""
        entry = self.tables.get((test, table))
        if entry is None or entry.fingerprint != fingerprint:
            return ()
        return entry.runs

    def recorded(
        self,
        run_tables: Iterable[Mapping[str, Any]],
        max_runs: int = MAX_RUNS,
        coverable: Mapping[str, Sequence[int]] | None = None,
    ) -> History:
        """This history plus one run: per table of the run file (analysed or not),
        the rows of which at least one item executed, in table order.  A table whose
        model changed starts over; a table none of whose items executed adds no run.
        ``coverable`` ("index:test" -> feasible tuples at t, t+1, t+2) fills in what
        100% is, for the report."""
        tables = dict(self.tables)
        for doc in run_tables:
            rows = [tuple(int(x) for x in r) for r in doc["rows"]]
            ran = {int(item["row"]) for item in doc.get("items", []) if is_executed(item)}
            run = tuple(r for k, r in enumerate(rows) if k in ran)
            if not run:
                continue
            key = (str(doc["test"]), int(doc.get("table", 0)))
            old = tables.get(key)
            fingerprint = str(doc["fingerprint"])
            same = old is not None and old.fingerprint == fingerprint
            past = old.runs if old is not None and same else ()
            known = (coverable or {}).get(f"{key[1]}:{key[0]}")
            counts = tuple(int(x) for x in known) if known else (old.coverable if old is not None and same else ())
            tables[key] = HistoryTable(
                test=key[0],
                table=key[1],
                fingerprint=fingerprint,
                strength=int(doc["strength"]),
                sizes=tuple(len(a["values"]) for a in doc["axes"]),
                axes=tuple(str(a["name"]) for a in doc["axes"]),
                runs=(*past, run)[-max_runs:],
                coverable=counts,
            )
        return History(tables)

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA_ID,
            "schema_version": SCHEMA_VERSION,
            "tables": [self.tables[k].to_json() for k in sorted(self.tables)],
        }


class _Corrupt(ValueError):
    pass


def _ints(value: Any, what: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in value):
        raise _Corrupt(f"{what} is not a list of integers >= 0")
    return tuple(value)


def _table(doc: Any, k: int) -> HistoryTable:
    where = f"tables[{k}]"
    if not isinstance(doc, dict):
        raise _Corrupt(f"{where} is not an object")
    for name, kind in (("test", str), ("table", int), ("fingerprint", str), ("strength", int), ("runs", list)):
        if not isinstance(doc.get(name), kind) or isinstance(doc.get(name), bool):
            raise _Corrupt(f"{where}.{name} is missing or not a {kind.__name__}")
    sizes = _ints(doc.get("sizes"), f"{where}.sizes")
    axes = doc.get("axes")
    if not isinstance(axes, list) or len(axes) != len(sizes) or not all(isinstance(a, str) for a in axes):
        raise _Corrupt(f"{where}.axes is not a list of {len(sizes)} names")
    runs: list[tuple[Row, ...]] = []
    for j, run in enumerate(doc["runs"]):
        if not isinstance(run, list):
            raise _Corrupt(f"{where}.runs[{j}] is not a list of rows")
        rows = []
        for i, row in enumerate(run):
            cells = _ints(row, f"{where}.runs[{j}][{i}]")
            if len(cells) != len(sizes) or any(x >= s for x, s in zip(cells, sizes)):
                raise _Corrupt(f"{where}.runs[{j}][{i}] = {list(cells)} is not a row of sizes {list(sizes)}")
            rows.append(cells)
        runs.append(tuple(rows))
    coverable = _ints(doc.get("coverable", []), f"{where}.coverable")
    return HistoryTable(
        doc["test"], doc["table"], doc["fingerprint"], doc["strength"], sizes, tuple(axes), tuple(runs), coverable
    )


def parse(doc: Any) -> History:
    """A history from its JSON document; ``ValueError`` saying what is wrong."""
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA_ID:
        raise _Corrupt(f"not a {SCHEMA_ID} file (its 'schema' is {doc.get('schema') if isinstance(doc, dict) else None!r})")
    if doc.get("schema_version") != SCHEMA_VERSION:
        raise _Corrupt(f"schema_version {doc.get('schema_version')!r} is not {SCHEMA_VERSION}")
    if not isinstance(doc.get("tables"), list):
        raise _Corrupt("'tables' is not a list")
    tables = {}
    for k, entry in enumerate(doc["tables"]):
        table = _table(entry, k)
        tables[(table.test, table.table)] = table
    return History(tables)


def read(path: str | os.PathLike[str]) -> tuple[History | None, str]:
    """(the history, "") or (None, why it cannot be used: missing or corrupt)."""
    target = Path(path)
    try:
        text = target.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, f"no history file at {target} yet"
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"the history file {target} cannot be read ({exc})"
    try:
        return parse(json.loads(text)), ""
    except (ValueError, RecursionError) as exc:
        return None, f"the history file {target} is corrupt ({exc})"


def write(path: str | os.PathLike[str], history: History) -> None:
    """Write ``history`` to ``path`` atomically (``OSError`` when it cannot be
    written): :func:`pairwise_param.files.atomic_write` (a symlink's target is
    written, the file's mode kept, a new file gets the umask's default)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(history.to_json(), separators=(",", ":")) + "\n"
    atomic_write(target, text.encode("utf-8"))


# -- the report (`pairwise-param report --history PATH`) ---------------------------------
@dataclass(frozen=True)
class Progress:
    """One table's accumulated coverage over the last ``runs`` runs, at strengths
    t, t+1, t+2 (``covered`` tuples of ``coverable``; a strength above the number of
    axes is left out), and how many more runs reach 100% at t+1 at the pace of the
    last run (0: reached; None: the last run added nothing, or 100% is not known)."""

    test: str
    table: int
    runs: int
    rows: int
    strengths: tuple[int, ...]
    covered: tuple[int, ...]
    coverable: tuple[int | None, ...]
    more_runs: int | None

    def percent(self, k: int) -> float | None:
        total = self.coverable[k]
        return None if not total else 100.0 * self.covered[k] / total


def _tuples(rows: Iterable[Row], n: int, strength: int) -> set[tuple[int, Row]]:
    import itertools

    scopes = list(itertools.combinations(range(n), strength))
    return {(si, tuple(row[a] for a in scope)) for row in rows for si, scope in enumerate(scopes)}


def progress(entry: HistoryTable, last: int | None = None) -> Progress:
    """The :class:`Progress` of one table over its last ``last`` runs (None: all)."""
    runs = entry.runs[-last:] if last else entry.runs
    n = len(entry.sizes)
    strengths = tuple(s for s in (entry.strength, entry.strength + 1, entry.strength + 2) if s <= n)
    rows = [r for run in runs for r in run]
    covered = tuple(len(_tuples(rows, n, s)) for s in strengths)
    coverable = tuple(entry.coverable[k] if k < len(entry.coverable) else None for k in range(len(strengths)))
    more: int | None = None
    if len(strengths) > 1 and coverable[1]:
        remaining = coverable[1] - covered[1]
        before = len(_tuples([r for run in runs[:-1] for r in run], n, strengths[1]))
        gain = covered[1] - before
        more = 0 if remaining <= 0 else (-(-remaining // gain) if gain > 0 else None)
    return Progress(entry.test, entry.table, len(runs), len(runs[-1]) if runs else 0, strengths, covered,
                    coverable, more)


def below(history: History, fail_under: float, strengths: Sequence[int] | None = None,
          last: int | None = None) -> list[str]:
    """``report --history --fail-under P [--strength K]``: the tables whose ACCUMULATED
    coverage (over the last ``last`` runs) is below ``fail_under`` percent, one line each.
    Gated at each table's own strength t, or at each of ``strengths``: below t every run
    alone covers everything (each is a strength-t table); t, t+1 and t+2 are measured; a
    strength above the table's axes has nothing to cover; one above t+2 is not recorded
    (:class:`ValueError`, a usage error).  A 100% that is not known (an old file without
    ``coverable``) fails: the gate fails closed."""
    out: list[str] = []
    for key in sorted(history.tables):
        p = progress(history.tables[key], last)
        entry = history.tables[key]
        name = p.test + (f" [table {p.table}]" if p.table else "")
        for k in strengths or (entry.strength,):
            if k < entry.strength or k > len(entry.sizes):
                continue
            if k not in p.strengths:
                raise ValueError(f"{name}: strength {k} is not recorded (the history measures "
                                 f"t={entry.strength} to t+2={entry.strength + 2})")
            i = p.strengths.index(k)
            pct = p.percent(i)
            if pct is None:
                out.append(f"{name}: {k}-way coverage unknown (the history holds no count of the "
                           "coverable tuples): failing closed")
            elif 100 * p.covered[i] < fail_under * (p.coverable[i] or 0):
                out.append(f"{name}: {k}-way {pct:.1f}% ({p.covered[i]}/{p.coverable[i]}) over {p.runs} "
                           f"runs < {fail_under:g}%")
    return out


def render(history: History, last: int | None = None, markdown: bool = False) -> str:
    """Per table, the accumulated coverage at t, t+1, t+2 and the runs to 100% at t+1:
    terminal text, or a Markdown table (for a CI step summary)."""
    rows = [progress(history.tables[k], last) for k in sorted(history.tables)]
    window = f"the last {last} runs" if last else "all runs kept"
    head = ["test", "runs", "rows", "t", "t+1", "t+2", "more runs to 100% at t+1"]

    def cell(p: Progress, k: int) -> str:
        if k >= len(p.strengths):
            return "-"
        pct = p.percent(k)
        shown = f"{pct:.1f}%" if pct is not None else "?"
        return f"{shown} ({p.covered[k]}/{p.coverable[k] if p.coverable[k] else '?'}) t={p.strengths[k]}"

    def more(p: Progress) -> str:
        if p.more_runs is None:
            return "?" if len(p.strengths) > 1 else "-"
        return "reached" if p.more_runs == 0 else str(p.more_runs)

    body = [
        [f"{p.test}" + (f" [table {p.table}]" if p.table else ""), str(p.runs), str(p.rows),
         cell(p, 0), cell(p, 1), cell(p, 2), more(p)]
        for p in rows
    ]
    title = f"pairwise-param: accumulated coverage of the rotated tables over {window}"
    if not body:
        return f"{title}\n(no table in the history yet: run pytest --pairwise-rotate)\n"
    if markdown:
        lines = [f"### {title}", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in body]
        return "\n".join(lines) + "\n"
    widths = [max(len(r[k]) for r in [head, *body]) for k in range(len(head))]
    lines = [title, "  ".join(h.ljust(w) for h, w in zip(head, widths)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in body]
    lines.append("(t+1 runs to 100%: at the pace of the last run; ?: not known yet)")
    return "\n".join(lines) + "\n"
