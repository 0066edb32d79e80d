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

import contextlib
import json
import operator
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pairwise_param.files import atomic_write
from pairwise_param.runs.analysis import is_executed

__all__ = [
    "CACHE_DIR", "DEFAULT_PATH", "FILE_NAME", "MAX_RUNS", "REPORT_LIMIT", "SCHEMA_ID", "SCHEMA_VERSION",
    "History", "HistoryTable", "Progress", "below", "progress", "read", "render", "update", "write",
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
    #: every row the table's last recorded run had (executed or not): what ``--lf``
    #: runs again, exactly (() when not known)
    last: tuple[Row, ...] = ()
    #: the build each run was part of ("" unknown), parallel to ``runs``: the shards of
    #: one build add to one run (the union of their rows) and rotate against the runs
    #: before their build (:meth:`runs_before`)
    builds: tuple[str, ...] = ()

    def runs_before(self, build: str) -> tuple[tuple[Row, ...], ...]:
        """The runs, without those of ``build`` (every run when ``build`` is "")."""
        if not build:
            return self.runs
        tags = self._tags()
        return tuple(run for run, b in zip(self.runs, tags) if b != build)

    def run_builds(self) -> tuple[str, ...]:
        """The build of each run, parallel to ``runs`` ("" where not known)."""
        return self._tags()

    def _tags(self) -> tuple[str, ...]:
        return (("",) * (len(self.runs) - len(self.builds)) + self.builds)[-len(self.runs):] if self.runs else ()

    def fits(self, sizes: Sequence[int]) -> bool:
        """Are this table's sizes ``sizes``, and every row of its runs a row of them?"""
        return tuple(sizes) == self.sizes and all(
            len(r) == len(sizes) and all(x < s for x, s in zip(r, sizes)) for run in (*self.runs, self.last) for r in run
        )

    def to_json(self) -> dict[str, Any]:
        doc = {
            "test": self.test,
            "table": self.table,
            "fingerprint": self.fingerprint,
            "strength": self.strength,
            "sizes": list(self.sizes),
            "axes": list(self.axes),
            "coverable": list(self.coverable),
            "runs": [[list(r) for r in run] for run in self.runs],
        }
        if self.last:
            doc["last"] = [list(r) for r in self.last]
        if any(self._tags()):
            doc["builds"] = list(self._tags())
        return doc


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
        build: str = "",
    ) -> History:
        """This history plus one run: per table of the run file (analysed or not),
        the rows of which at least one item executed, in table order.  A table whose
        model changed starts over; a table none of whose items executed adds no run.
        ``coverable`` ("index:test" -> feasible tuples at t, t+1, t+2) fills in what
        100% is, for the report.  ``build`` (a CI build's id, for shards): when the
        table's last run is of the same build, this run's rows join it (the union, in
        table order) instead of adding a run."""
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
            sizes = tuple(len(a["values"]) for a in doc["axes"])
            same = old is not None and old.fingerprint == fingerprint and old.sizes == sizes
            past = old.runs if old is not None and same else ()
            tags = old._tags() if old is not None and same else ()
            if build and past and tags[-1] == build:  # another shard of this build
                union, here = set(past[-1]) | set(run), set(rows)
                run = tuple([r for r in past[-1] if r not in here] + [r for r in rows if r in union])
                past, tags = past[:-1], tags[:-1]
            known = (coverable or {}).get(f"{key[1]}:{key[0]}")
            counts = tuple(int(x) for x in known) if known else (old.coverable if old is not None and same else ())
            tables[key] = HistoryTable(
                test=key[0],
                table=key[1],
                fingerprint=fingerprint,
                strength=int(doc["strength"]),
                sizes=sizes,
                axes=tuple(str(a["name"]) for a in doc["axes"]),
                runs=(*past, run)[-max_runs:],
                coverable=counts,
                last=tuple(rows),
                builds=(*tags, build)[-max_runs:] if build or any(tags) else (),
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


_INT = frozenset({int})


def _ints(value: Any, what: str) -> tuple[int, ...]:
    # type() is int: no bool, no float; map/min at C speed (a history holds millions of cells)
    if type(value) is not list or not _INT.issuperset(map(type, value)) or (value and min(value) < 0):
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
            if len(cells) != len(sizes) or not all(map(operator.lt, cells, sizes)):
                raise _Corrupt(f"{where}.runs[{j}][{i}] = {list(cells)} is not a row of sizes {list(sizes)}")
            rows.append(cells)
        runs.append(tuple(rows))
    coverable = _ints(doc.get("coverable", []), f"{where}.coverable")
    last = doc.get("last", [])
    if not isinstance(last, list):
        raise _Corrupt(f"{where}.last is not a list of rows")
    builds = doc.get("builds", [])
    if not isinstance(builds, list) or len(builds) > len(runs) or not all(isinstance(b, str) for b in builds):
        raise _Corrupt(f"{where}.builds is not a list of at most {len(runs)} build ids")
    return HistoryTable(
        doc["test"], doc["table"], doc["fingerprint"], doc["strength"], sizes, tuple(axes), tuple(runs), coverable,
        tuple(_ints(r, f"{where}.last[{i}]") for i, r in enumerate(last)), tuple(builds),
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


#: how long :func:`update` waits for another process's lock on the same history (seconds)
LOCK_WAIT = 120.0


@contextlib.contextmanager
def _locked(target: Path) -> Iterator[None]:
    """Hold ``<target>.lock`` (an advisory ``flock`` where the platform has it, else a
    file created exclusively), so two runs sharing one history merge in turn."""
    lock = target.with_name(target.name + ".lock")
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        fcntl = None  # type: ignore[assignment]
    if fcntl is not None:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            deadline = time.monotonic() + LOCK_WAIT
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise OSError(f"another run has held {lock} for more than {LOCK_WAIT:g} s") from None
                    time.sleep(0.05)
            yield
        finally:
            os.close(fd)  # closing releases the lock
        return
    deadline = time.monotonic() + LOCK_WAIT  # pragma: no cover - Windows
    while True:  # pragma: no cover
        try:
            os.close(os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
            break
        except FileExistsError:
            if time.monotonic() > deadline:
                raise OSError(f"another run has held {lock} for more than {LOCK_WAIT:g} s (delete it if no run is going on)") from None
            time.sleep(0.05)
    try:  # pragma: no cover
        yield
    finally:  # pragma: no cover
        with contextlib.suppress(OSError):
            os.unlink(lock)


def update(path: str | os.PathLike[str], change: Callable[[History], History]) -> str:
    """Apply ``change`` to the history at ``path`` as it is NOW (read under a lock,
    written atomically before the lock is released), so runs sharing one file keep
    each other's runs.  A corrupt file is moved aside to ``<path>.corrupt`` (the
    user's bytes are kept) and a fresh history is written.  Returns "" or a note
    (the file was corrupt); ``OSError`` when it cannot be written."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    note = ""
    with _locked(target):
        current, problem = read(target)
        if current is None:
            current = History()
            if problem and not problem.startswith("no history file"):
                aside = target.with_name(target.name + ".corrupt")
                os.replace(target, aside)
                note = f"{problem}; kept as {aside}, a fresh history was written"
        write(target, change(current))
    return note


def write(path: str | os.PathLike[str], history: History) -> None:
    """Write ``history`` to ``path`` atomically (``OSError`` when it cannot be
    written): :func:`pairwise_param.files.atomic_write` (a symlink's target is
    written, the file's mode kept, a new file gets the umask's default)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(history.to_json(), separators=(",", ":")) + "\n"
    atomic_write(target, text.encode("utf-8"))


# -- the report (`pairwise-param report --history PATH`) ---------------------------------
#: tuples a report may form per table and strength (distinct rows x scopes); past it
#: that strength is not measured (shown "-", ``covered`` None): a 20 x 10 table's 64
#: runs of distinct rows would form 59 million 4-tuples
REPORT_LIMIT = 20_000_000


@dataclass(frozen=True)
class Progress:
    """One table's accumulated coverage over the last ``runs`` runs, at strengths
    t, t+1, t+2 (``covered`` tuples of ``coverable``; a strength above the number of
    axes is left out; ``covered`` None: too many to measure, :data:`REPORT_LIMIT`),
    and how many more runs reach 100% at t+1 at the pace of the last run (0:
    reached; None: the last run added nothing, or 100% is not known)."""

    test: str
    table: int
    runs: int
    rows: int
    strengths: tuple[int, ...]
    covered: tuple[int | None, ...]
    coverable: tuple[int | None, ...]
    more_runs: int | None

    def percent(self, k: int) -> float | None:
        total, got = self.coverable[k], self.covered[k]
        return None if not total or got is None else 100.0 * got / total


def _count(rows: Sequence[Row], n: int, strength: int) -> int | None:
    """Distinct tuples of ``strength`` axes the ``rows`` hold (None past REPORT_LIMIT).
    Per scope, a set of the zipped columns (C speed; one scope's tuples at a time)."""
    import functools
    import itertools
    import math

    distinct = list(dict.fromkeys(rows))
    if not distinct:
        return 0
    by_rows = len(distinct) * math.comb(n, strength)
    sizes = [max(col) + 1 for col in zip(*distinct)]
    by_values = _tuple_count(sizes, strength)
    if min(by_rows, by_values) > REPORT_LIMIT:
        return None
    scopes = itertools.combinations(range(n), strength)
    if by_rows <= by_values:  # per scope, the set of the zipped columns
        columns = list(zip(*distinct))
        return sum(len(set(zip(*(columns[a] for a in scope)))) for scope in scopes)
    # few values, many rows: per axis and value, the rows holding it as a bit set; a tuple
    # is covered when the AND of its cells' sets is not 0
    held = [[0] * s for s in sizes]
    for r, row in enumerate(distinct):
        for a, v in enumerate(row):
            held[a][v] |= 1 << r
    return sum(sum(1 for sets in itertools.product(*(held[a] for a in scope)) if functools.reduce(operator.and_, sets))
               for scope in scopes)


def _tuple_count(sizes: Sequence[int], strength: int) -> int:
    e = [1] + [0] * strength
    for s in sizes:
        for k in range(strength, 0, -1):
            e[k] += e[k - 1] * s
    return e[strength]


def progress(entry: HistoryTable, last: int | None = None) -> Progress:
    """The :class:`Progress` of one table over its last ``last`` runs (None: all)."""
    runs = entry.runs[-last:] if last else entry.runs
    n = len(entry.sizes)
    strengths = tuple(s for s in (entry.strength, entry.strength + 1, entry.strength + 2) if 0 < s <= n)
    rows = [r for run in runs for r in run]
    covered = tuple(_count(rows, n, s) for s in strengths)
    coverable = tuple(entry.coverable[k] if k < len(entry.coverable) else None for k in range(len(strengths)))
    more: int | None = None
    if len(strengths) > 1 and coverable[1] and covered[1] is not None:
        remaining = coverable[1] - covered[1]
        before = _count([r for run in runs[:-1] for r in run], n, strengths[1]) or 0
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
            pct, got = p.percent(i), p.covered[i]
            if pct is None or got is None:
                out.append(f"{name}: {k}-way coverage unknown (the history holds no count of the "
                           "coverable tuples, or too many to measure): failing closed")
            elif 100 * got < fail_under * (p.coverable[i] or 0):
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
        if p.covered[k] is None:
            return f"- (too many to measure) t={p.strengths[k]}"
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
