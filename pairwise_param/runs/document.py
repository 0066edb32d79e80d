"""The run file as one typed document: :func:`load` (validated), :func:`dump`, the dataclasses.

Every reader of a run file goes through :func:`load` (``report --run``, ``localize``,
``--pairwise-replay``, the history) and gets a :class:`RunDocument`; nothing outside
:mod:`pairwise_param.runs` reads a run file's JSON by its keys.  The layout and its JSON
Schema are :mod:`pairwise_param.runs.schema`'s; :func:`load` checks a file against it and
against what a schema cannot say (:func:`pairwise_param.runs.schema.problems`: versions,
indices inside their axes, counts and figures that agree with the items), and names the
first problems with a path such as ``$.tables[3].rows[2][1]``.  A malformed file is an
:class:`~pairwise_param.errors.InvalidRunFile`, never a traceback.

:func:`dump` writes what the plugin writes (``json.dumps(..., indent=1)``, the keys in
the layout's order): ``dump(load(text)) == text`` for every file the plugin wrote.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pairwise_param.errors import InvalidRunFile
from pairwise_param.runs.schema import SCHEMA_ID, SCHEMA_VERSION, problems
from pairwise_param.runs.where import Mirror, Platform, Shard

__all__ = [
    "Absent", "Axis", "Candidate", "Combination", "Counts", "Coverage", "EmptyTable", "Group", "Item", "Lost",
    "Reason", "RunDocument", "RunTable", "Suggestion", "axis_from_json", "document_from_json", "dump", "executed", "load",
    "table_changes", "table_from_json", "table_to_json", "to_json",
]

#: a combination: cells ``(axis index, value index)`` sorted by axis
Combination = tuple[tuple[int, int], ...]


def executed(outcome: str, when: str) -> bool:
    """THE rule of an executed item: its test body ran (a teardown error after a run
    counts; an ``xfail(run=False)`` item, skipped at set-up, does not)."""
    return when in ("call", "teardown") and outcome not in ("skipped", "not_run")


@dataclass(frozen=True)
class Axis:
    """One axis of a table: its name (``"n,k"`` for a grouped axis), the argument names,
    the value labels (as in test ids) and each value's Python text (a grouped axis: one
    text per part)."""

    name: str
    names: tuple[str, ...]
    values: tuple[str, ...]
    reprs: tuple[str | tuple[str, ...], ...]


@dataclass(frozen=True)
class Absent:
    """A value whose skip mark was already true at collection (left out of the table)."""

    axis: int
    value: int
    reason: str


@dataclass(frozen=True)
class Item:
    """One collected item of a table and what it did."""

    nodeid: str
    row: int
    shape: str
    outcome: str
    when: str
    signature: str | None
    reason: str | None

    @property
    def executed(self) -> bool:
        """Did its test body run (:func:`executed`)?"""
        return executed(self.outcome, self.when)


@dataclass(frozen=True)
class Counts:
    """How many rows and items, executed items and items of each outcome."""

    rows: int
    items: int
    executed: int
    passed: int
    failed: int
    error: int
    skipped: int
    xfailed: int
    xpassed: int
    not_run: int


@dataclass(frozen=True)
class Lost:
    """A tuple the collected rows hold and no executed item of some shape held."""

    combination: Combination
    text: str
    shapes: tuple[str, ...]
    because: tuple[str, ...]


@dataclass(frozen=True)
class Reason:
    """Why items did not execute, and how many."""

    reason: str
    items: int


@dataclass(frozen=True)
class Suggestion:
    """A constraint that keeps the table's rows off what could not run."""

    combination: Combination
    text: str
    constraint: str
    shapes: tuple[str, ...]


@dataclass(frozen=True)
class Coverage:
    """Executed coverage of a table at its strength (``percent`` None: no shape ran)."""

    shapes: tuple[str, ...]
    shapes_not_run: tuple[str, ...]
    collected: int
    executed: int
    percent: float | None
    lost: tuple[Lost, ...]
    reasons: tuple[Reason, ...]
    suggestion: tuple[Suggestion, ...]


@dataclass(frozen=True)
class Candidate:
    """A suspicious combination of a group of failures."""

    combination: Combination
    text: str
    failing: int
    score: float


@dataclass(frozen=True)
class Group:
    """The failures of one (shape x error signature) of a table and what they point at."""

    shape: str
    signature: str
    failed: int
    passed: int
    items: int
    verdict: str
    explaining: int
    size: int
    candidates: tuple[Candidate, ...]
    candidates_total: int
    failing_nodeids: tuple[str, ...]
    unexplained_nodeids: tuple[str, ...]


@dataclass(frozen=True)
class RunTable:
    """One ``@pairwise`` table of a test that had items (the run file's TABLE)."""

    test: str
    table: int
    mode: str
    strength: int
    fingerprint: str
    axes: tuple[Axis, ...]
    scopes: tuple[tuple[int, ...], ...]
    rows: tuple[tuple[int, ...], ...]
    row_ids: tuple[str, ...]
    infeasible: tuple[Combination, ...]
    absent: tuple[Absent, ...]
    infeasible_absent: tuple[Combination, ...]
    location: tuple[str | int, str | int]
    items: tuple[Item, ...]
    counts: Counts
    coverage: Coverage
    suspicious: tuple[Group, ...]

    @property
    def key(self) -> tuple[str, int]:
        """(test, table index): the table's identity across runs."""
        return (self.test, self.table)


@dataclass(frozen=True)
class EmptyTable:
    """A test whose table is a hole (an axis without values: pytest ran one skipped item)."""

    test: str
    location: tuple[str | int, ...]
    axes: tuple[str, ...]


@dataclass(frozen=True)
class RunDocument:
    """A whole run file: pytest's exit status, the tables, the holes, and where it ran."""

    exitstatus: int
    tables: tuple[RunTable, ...]
    empty: tuple[EmptyTable, ...] = ()
    #: which shard of how many (None: not sharded, or a v1 file)
    shard: Shard | None = None
    #: the CI build (None: unknown)
    build: str | None = None
    #: the platform (None: unknown)
    platform: Platform | None = None
    #: the @pairwise items collected before a splitter chose (None: unknown)
    collected: int | None = None
    #: which mirror job of how many (``--pairwise-mirror``; None: not one, or an older file)
    mirror: Mirror | None = None
    schema_version: int = SCHEMA_VERSION
    #: where it was read from ("" when built in memory), for messages
    source: str = field(default="", compare=False)


# -- JSON -> dataclasses (the JSON is valid: checked by problems() first) --------------------------
def _combo(cells: Sequence[Sequence[int]]) -> Combination:
    return tuple((int(a), int(v)) for a, v in cells)


def axis_from_json(a: Mapping[str, Any]) -> Axis:
    return Axis(str(a["name"]), tuple(a["names"]), tuple(a["values"]),
                tuple(tuple(r) if isinstance(r, list) else r for r in a["reprs"]))


def _item(i: Mapping[str, Any]) -> Item:
    return Item(i["nodeid"], i["row"], i["shape"], i["outcome"], i["when"], i["signature"], i["reason"])


def _coverage(c: Mapping[str, Any]) -> Coverage:
    return Coverage(
        tuple(c["shapes"]), tuple(c["shapes_not_run"]), c["collected"], c["executed"], c["percent"],
        tuple(Lost(_combo(e["combination"]), e["text"], tuple(e["shapes"]), tuple(e["because"])) for e in c["lost"]),
        tuple(Reason(r["reason"], r["items"]) for r in c["reasons"]),
        tuple(Suggestion(_combo(s["combination"]), s["text"], s["constraint"], tuple(s["shapes"]))
              for s in c["suggestion"]),
    )


def _group(g: Mapping[str, Any], strength: int) -> Group:
    # "size": absent in files written before it existed, whose search went up to the strength
    return Group(
        g["shape"], g["signature"], g["failed"], g["passed"], g["items"], g["verdict"], g["explaining"],
        g.get("size", strength),
        tuple(Candidate(_combo(k["combination"]), k["text"], k["failing"], k["score"]) for k in g["candidates"]),
        g["candidates_total"], tuple(g["failing_nodeids"]), tuple(g["unexplained_nodeids"]),
    )


def table_from_json(t: Mapping[str, Any]) -> RunTable:
    """A TABLE entry (already valid: the analysis's own, or checked by :func:`load`) as a :class:`RunTable`."""
    loc = t["location"]
    return RunTable(
        test=t["test"], table=t["table"], mode=t["mode"], strength=t["strength"], fingerprint=t["fingerprint"],
        axes=tuple(axis_from_json(a) for a in t["axes"]),
        scopes=tuple(tuple(s) for s in t["scopes"]),
        rows=tuple(tuple(r) for r in t["rows"]),
        row_ids=tuple(t["row_ids"]),
        infeasible=tuple(_combo(c) for c in t["infeasible"]),
        absent=tuple(Absent(a["axis"], a["value"], a["reason"]) for a in t.get("absent", ())),
        infeasible_absent=tuple(_combo(c) for c in t.get("infeasible_absent", ())),
        location=(loc[0], loc[1]),
        items=tuple(_item(i) for i in t["items"]),
        counts=Counts(**{k: t["counts"][k] for k in Counts.__dataclass_fields__}),
        coverage=_coverage(t["coverage"]),
        suspicious=tuple(_group(g, t["strength"]) for g in t["suspicious"]),
    )


def document_from_json(doc: Any, source: str = "") -> RunDocument:
    """A run document already parsed from JSON (pytest's cache holds one), validated
    (:class:`~pairwise_param.errors.InvalidRunFile` naming ``source`` and the problems)."""
    bad = problems(doc)
    if bad:
        raise InvalidRunFile(_message(bad), where=source or None)
    return RunDocument(
        exitstatus=doc["exitstatus"],
        tables=tuple(table_from_json(t) for t in doc["tables"]),
        empty=tuple(EmptyTable(e["test"], tuple(e["location"]), tuple(e["axes"])) for e in doc.get("empty", [])),
        schema_version=doc["schema_version"],
        source=source,
        shard=Shard(**doc["shard"]) if doc.get("shard") else None,
        build=doc.get("build"),
        platform=Platform(**doc["platform"]) if doc.get("platform") else None,
        collected=doc.get("collected"),
        mirror=Mirror(**doc["mirror"]) if doc.get("mirror") else None,
    )


def _message(bad: Sequence[str]) -> str:
    head = bad[0]
    if head.startswith("$.schema:") or head.startswith("$: ") and "not a JSON object" in head:
        return f"not a pairwise-param run file (write one with pytest --pairwise-report=FILE): {head}"
    if head.startswith("$.schema_version:"):
        return f"run file version {head.split(':')[1].strip()}: {head}"
    return "malformed run file:\n  " + "\n  ".join(bad)


def load(source: str | Path) -> RunDocument:
    """The run document of a file (a :class:`~pathlib.Path`, or a ``str`` that does not
    start with ``{``) or of JSON text; validated.  Raises
    :class:`~pairwise_param.errors.InvalidRunFile` (a file that cannot be read, is not
    JSON, nests too deep, is another version, or breaks the layout: the message names
    the place)."""
    if isinstance(source, Path) or not source.lstrip().startswith("{"):
        where = str(source)
        try:
            text = Path(source).read_text(encoding="utf-8")
        except OSError as exc:
            raise InvalidRunFile(f"cannot read it: {exc.strerror or exc}", where=where) from None
        except UnicodeDecodeError as exc:
            raise InvalidRunFile(f"not JSON: not UTF-8 text ({exc.reason} at byte {exc.start})", where=where) from None
    else:
        where, text = "", source
    try:
        doc = json.loads(text)
    except RecursionError:
        raise InvalidRunFile("not JSON this reader accepts: nested too deep", where=where or None) from None
    except ValueError as exc:
        raise InvalidRunFile(f"not JSON: {exc}", where=where or None) from None
    return document_from_json(doc, where)


# -- dataclasses -> JSON ------------------------------------------------------------------------------
def _cells(c: Combination) -> list[list[int]]:
    return [[a, v] for a, v in c]


def table_to_json(t: RunTable) -> dict[str, Any]:
    cov = t.coverage
    return {
        "test": t.test, "table": t.table, "mode": t.mode, "strength": t.strength, "fingerprint": t.fingerprint,
        "axes": [{"name": a.name, "names": list(a.names), "values": list(a.values),
                  "reprs": [list(r) if isinstance(r, tuple) else r for r in a.reprs]} for a in t.axes],
        "scopes": [list(s) for s in t.scopes],
        "rows": [list(r) for r in t.rows],
        "row_ids": list(t.row_ids),
        "infeasible": [_cells(c) for c in t.infeasible],
        "absent": [{"axis": a.axis, "value": a.value, "reason": a.reason} for a in t.absent],
        "infeasible_absent": [_cells(c) for c in t.infeasible_absent],
        "location": list(t.location),
        "items": [{"nodeid": i.nodeid, "row": i.row, "shape": i.shape, "outcome": i.outcome, "when": i.when,
                   "signature": i.signature, "reason": i.reason} for i in t.items],
        "counts": {k: getattr(t.counts, k) for k in Counts.__dataclass_fields__},
        "coverage": {
            "shapes": list(cov.shapes), "shapes_not_run": list(cov.shapes_not_run), "collected": cov.collected,
            "executed": cov.executed, "percent": cov.percent,
            "lost": [{"combination": _cells(e.combination), "text": e.text, "shapes": list(e.shapes),
                      "because": list(e.because)} for e in cov.lost],
            "reasons": [{"reason": r.reason, "items": r.items} for r in cov.reasons],
            "suggestion": [{"combination": _cells(s.combination), "text": s.text, "constraint": s.constraint,
                            "shapes": list(s.shapes)} for s in cov.suggestion],
        },
        "suspicious": [
            {"shape": g.shape, "signature": g.signature, "failed": g.failed, "passed": g.passed, "items": g.items,
             "verdict": g.verdict, "explaining": g.explaining, "size": g.size,
             "candidates": [{"combination": _cells(k.combination), "text": k.text, "failing": k.failing,
                             "score": k.score} for k in g.candidates],
             "candidates_total": g.candidates_total, "failing_nodeids": list(g.failing_nodeids),
             "unexplained_nodeids": list(g.unexplained_nodeids)}
            for g in t.suspicious
        ],
    }


def to_json(doc: RunDocument) -> dict[str, Any]:
    """The document as JSON data, keys in the layout's order (pytest's cache stores this)."""
    return {
        "schema": SCHEMA_ID, "schema_version": SCHEMA_VERSION, "exitstatus": doc.exitstatus,
        "shard": None if doc.shard is None else {"index": doc.shard.index, "count": doc.shard.count,
                                                 "source": doc.shard.source},
        "build": doc.build,
        "platform": None if doc.platform is None else {"name": doc.platform.name, "device": doc.platform.device},
        "collected": doc.collected,
        **({"mirror": {"index": doc.mirror.index, "count": doc.mirror.count}} if doc.mirror is not None else {}),
        "tables": [table_to_json(t) for t in doc.tables],
        "empty": [{"test": e.test, "location": list(e.location), "axes": list(e.axes)} for e in doc.empty],
    }


def dump(doc: RunDocument, indent: int = 1) -> str:
    """The run file's text, as the plugin writes it (``indent=2``: as ``report --run --format json`` prints it)."""
    return json.dumps(to_json(doc), indent=indent) + "\n"


def table_changes(old: RunTable, new: RunTable) -> list[str]:
    """What differs between two runs' tables of one test, axis by axis (``old -> new``):
    the one comparison ``localize`` (a stale run file) and the merge of runs
    (shards that ran another table) both name."""
    was = {a.name: list(a.values) for a in old.axes}
    now = {a.name: list(a.values) for a in new.axes}
    parts = [f"axis {n!r} is new" for n in now if n not in was]
    parts += [f"axis {n!r} is gone" for n in was if n not in now]
    parts += [f"axis {n!r}: values {was[n]} -> {now[n]}" for n in was if n in now and was[n] != now[n]]
    if list(was) != list(now) and not parts:
        parts.append(f"axes reordered: {list(was)} -> {list(now)}")
    if old.strength != new.strength:
        parts.append(f"strength {old.strength} -> {new.strength}")
    if old.mode != new.mode:
        parts.append(f"mode {old.mode} -> {new.mode}")
    return parts
