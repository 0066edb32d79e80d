"""The analysis of one table of a run: what its rows EXECUTED, and which combinations its failures point at.

Pure logic over plain JSON data (no pytest, no engine, no user values): the
plugin builds the collection-time payload and the outcomes, :func:`analyze_table`
gives the TABLE entry of the run file (layout and JSON Schema:
:mod:`pairwise_param.runs.schema`), :func:`run_document` the whole file.  One home
each: what counts as *executed* (:func:`is_executed`), as a *failure*
(:data:`FAILURES`), an error's *signature* (:func:`signature`), a lost tuple's
reason when its rows were only deselected (:data:`NOT_SELECTED`).  Suspicious
combinations are ranked by :func:`pairwise_param.runs.locate.suspicious`.
"""


from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from itertools import combinations, product
from typing import Any

from pairwise_param.coverage.reach import Reach
from pairwise_param.runs.document import (
    Axis,
    EmptyTable,
    Item,
    RunDocument,
    RunTable,
    axis_from_json,
    executed,
    table_from_json,
)
from pairwise_param.runs.locate import Verdict, suspicious
from pairwise_param.runs.schema import OUTCOMES
from pairwise_param.tables.build import exhaustive

__all__ = [
    "FAILURES",
    "NOT_SELECTED",
    "analyze_table",
    "describe",
    "executed_at",
    "is_executed",
    "natural",
    "never_text",
    "reach",
    "run_document",
    "signature",
]

#: outcomes that count as a failure of the row
FAILURES = frozenset({"failed", "error"})
#: the reason of a tuple lost only because its rows were deselected (-k, -m, --lf)
NOT_SELECTED = "not selected"
#: candidates kept per group in the document (the total is kept too)
MAX_CANDIDATES = 20

#: numbers and addresses that stand alone (``bf16`` and ``fp8e4m3`` are names, not numbers)
_NUMBER = re.compile(r"(?<![\w.])(?:0x[0-9a-fA-F]+|[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)(?![\w])")


def signature(crash_message: str) -> str:
    """The error signature of a failure: first line, numbers replaced by ``<n>``."""
    lines = crash_message.strip().splitlines()
    first = lines[0].strip() if lines else ""
    if first.startswith("assert ") or first == "assert":
        first = "AssertionError: " + first
    return _NUMBER.sub("<n>", first)[:200]


def is_executed(item: Mapping[str, Any]) -> bool:
    """Did the item's test body run?  (A teardown error after a run counts; an
    ``xfail(run=False)`` item, skipped at set-up, does not.)"""
    return executed(item["outcome"], item["when"])


# -- combinations ---------------------------------------------------------------
def describe(axes: Sequence[Axis], combination: Sequence[Sequence[int]]) -> str:
    """``{dtype=bf16, xnorm=True}``: a combination with value labels."""
    return "{" + ", ".join(f"{axes[a].name}={axes[a].values[v]}" for a, v in combination) + "}"


def never_text(axes: Sequence[Axis], combination: Sequence[Sequence[int]]) -> str:
    """The constraint-language rule that forbids a combination (``{"never": {"dtype": 'bf16'}}``),
    written with each value's Python text so it can be pasted into ``constraints=[...]``."""
    parts: list[str] = []
    for a, v in combination:
        axis = axes[a]
        text = axis.reprs[v]
        if len(axis.names) > 1 and isinstance(text, tuple):
            parts.extend(f'"{n}": {t}' for n, t in zip(axis.names, text))
        else:
            parts.append(f'"{axis.names[0]}": {text}')
    return '{"never": {' + ", ".join(parts) + "}}"


def _tuples(row: Sequence[int], scopes: Sequence[Sequence[int]]) -> set[tuple[tuple[int, int], ...]]:
    return {tuple((a, row[a]) for a in scope) for scope in scopes}


def _why(item: Mapping[str, Any] | None) -> str:
    if item is None:
        return NOT_SELECTED
    outcome = item["outcome"]
    if item["when"] == "crash":
        return f"crashed: {item['signature'] or '?'}"
    if outcome == "skipped":
        return f"skipped: {item['reason'] or '(no reason given)'}"
    if outcome == "error":
        return f"set-up error: {item['signature'] or '?'}"
    return "not run"


# -- one table ------------------------------------------------------------------
def analyze_table(payload: Mapping[str, Any], outcomes: Mapping[str, Mapping[str, Any]],
                  items_of: Sequence[Item] | None = None) -> RunTable:
    """The TABLE entry of the run document (see the module docstring) from the
    collection-time payload (everything but ``items`` outcomes, ``counts``,
    ``coverage`` and ``suspicious``; ``items`` as ``[nodeid, row, shape]``) and
    the per-nodeid outcomes (``outcome``, ``when``, ``signature``, ``reason``).
    ``items_of``: the table's items as :class:`Item` already (a merge of runs holds
    them), the same as payload and outcomes say, kept instead of built again."""
    doc = {k: v for k, v in payload.items() if k != "items"}
    items = []
    for nodeid, row, shape in payload["items"]:
        o = outcomes.get(nodeid)
        items.append(
            {
                "nodeid": nodeid,
                "row": row,
                "shape": shape,
                "outcome": o["outcome"] if o else "not_run",
                "when": o["when"] if o else "",
                "signature": o.get("signature") if o else None,
                "reason": o.get("reason") if o else None,
            }
        )
    doc["items"] = items
    counts = {"rows": len(payload["rows"]), "items": len(items), "executed": sum(map(is_executed, items))}
    counts.update({k: sum(1 for i in items if i["outcome"] == k) for k in OUTCOMES})
    doc["counts"] = counts
    axes = [axis_from_json(a) for a in payload["axes"]]
    doc["coverage"] = _coverage(doc, items, axes)
    doc["suspicious"] = _suspicious(doc, items, axes)
    return table_from_json(doc, items_of)


def natural(text: str) -> list[Any]:
    """Sort key that orders ``7`` before ``14`` and ``n=8-k=64`` before ``n=16-k=64``."""
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", text)]


def _groups(items: Sequence[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    """The items of each shape (in item order), the shapes in natural order: one pass."""
    by: dict[str, list[Mapping[str, Any]]] = {}
    for i in items:
        by.setdefault(i["shape"], []).append(i)
    return {shape: by[shape] for shape in sorted(by, key=natural)}


def _coverable(doc: Mapping[str, Any]) -> int | None:
    """Tuples a cover-mode table covers, without enumerating its rows: every
    coverable tuple (the table's guarantee) = all tuples of its scopes minus the
    listed infeasible ones.  None for full mode (rows are enumerated)."""
    if exhaustive(doc["mode"]):
        return None
    sizes = [len(a["values"]) for a in doc["axes"]]
    total = 0
    for scope in doc["scopes"]:
        n = 1
        for a in scope:
            n *= sizes[a]
        total += n
    return total - len(doc["infeasible"]) - len(doc["infeasible_absent"])


def _coverage(doc: Mapping[str, Any], items: Sequence[Mapping[str, Any]], axes: Sequence[Axis]) -> dict[str, Any]:
    rows, scopes = doc["rows"], doc["scopes"]
    order = {tuple(s): k for k, s in enumerate(scopes)}
    every_row = set(range(len(rows)))
    groups = _groups(items)
    # the rows are only enumerated when some shape of the table lost a row (large tables stay cheap)
    lossy = any(
        {i["row"] for i in g if is_executed(i)} != every_row for g in groups.values() if any(map(is_executed, g))
    )
    table_tuples: set[tuple[tuple[int, int], ...]] = set()
    if lossy or _coverable(doc) is None:
        for r in rows:
            table_tuples |= _tuples(r, scopes)
    n_table = len(table_tuples) if table_tuples else (_coverable(doc) or 0)
    ran_shapes, idle_shapes = [], []
    lost: dict[tuple[tuple[int, int], ...], list[str]] = {}
    because: dict[tuple[tuple[int, int], ...], set[str]] = {}
    reasons: dict[str, int] = {}
    executed_total = 0
    for shape, group in groups.items():
        if not any(is_executed(i) for i in group):
            idle_shapes.append(shape)
            continue
        ran_shapes.append(shape)
        for i in group:
            if not is_executed(i):
                key = _why(i)
                reasons[key] = reasons.get(key, 0) + 1
        executed_rows = {i["row"] for i in group if is_executed(i)}
        if executed_rows == every_row:
            executed_total += n_table
            continue
        by_row: dict[int, Mapping[str, Any]] = {}
        for i in group:
            if not is_executed(i):
                by_row.setdefault(i["row"], i)
        ran: set[tuple[tuple[int, int], ...]] = set()
        for r in executed_rows:
            ran |= _tuples(rows[r], scopes)
        present = {i["row"] for i in group}
        executed_total += len(ran & table_tuples)
        for tup in table_tuples - ran:
            lost.setdefault(tup, []).append(shape)
            for r, row in enumerate(rows):
                if all(row[a] == v for a, v in tup):
                    if r in executed_rows:
                        continue  # cannot happen: the tuple would have run
                    because.setdefault(tup, set()).add(_why(by_row.get(r)) if r in present else NOT_SELECTED)
    collected = n_table * len(ran_shapes)
    ordered = sorted(lost, key=lambda tup: (order[tuple(a for a, _ in tup)], tup))
    return {
        "shapes": ran_shapes,
        "shapes_not_run": idle_shapes,
        "collected": collected,
        "executed": executed_total,
        "percent": round(100.0 * executed_total / collected, 2) if collected else None,
        "lost": [
            {
                "combination": [list(c) for c in tup],
                "text": describe(axes, tup),
                "shapes": lost[tup],
                "because": sorted(because.get(tup, set())),
            }
            for tup in ordered
        ],
        "reasons": [{"reason": k, "items": n} for k, n in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))],
        "suggestion": _suggestion(doc, items, ran_shapes, axes) if lost else [],
    }


def _suggestion(doc: Mapping[str, Any], items: Sequence[Mapping[str, Any]], shapes: Sequence[str],
                axes: Sequence[Axis]) -> list[dict[str, Any]]:
    """Constraints that would keep the table's rows off what cannot run: per
    shape and skip reason, the one combination every such item holds and no
    executed item of the shape holds (the same ranking as for failures)."""
    rows = doc["rows"]
    found: dict[tuple[tuple[int, int], ...], list[str]] = {}
    by_shape = _groups(items)
    for shape in shapes:
        group = by_shape.get(shape, [])
        ran = [rows[i["row"]] for i in group if is_executed(i)]
        by_reason: dict[str, list[Sequence[int]]] = {}
        for i in group:
            if not is_executed(i):
                by_reason.setdefault(_why(i), []).append(rows[i["row"]])
        for reason in sorted(by_reason):
            verdict = suspicious(by_reason[reason], ran, doc["strength"])
            if verdict.kind == "decided":
                where = found.setdefault(verdict.candidates[0].combination, [])
                if shape not in where:
                    where.append(shape)
    return [
        {
            "combination": [list(c) for c in combo],
            "text": describe(axes, combo),
            "constraint": never_text(axes, combo),
            "shapes": where,
        }
        for combo, where in found.items()
    ]


def _suspicious(doc: Mapping[str, Any], items: Sequence[Mapping[str, Any]], axes: Sequence[Axis]) -> list[dict[str, Any]]:
    rows = doc["rows"]
    out = []
    for shape, group in _groups(items).items():
        passing = [rows[i["row"]] for i in group if i["outcome"] == "passed"]
        signatures = list(dict.fromkeys(i["signature"] or "?" for i in group if i["outcome"] in FAILURES))
        for sig in signatures:
            failing = [i for i in group if i["outcome"] in FAILURES and (i["signature"] or "?") == sig]
            verdict: Verdict = suspicious([rows[i["row"]] for i in failing], passing, doc["strength"])
            kind = verdict.kind if passing else "no-passing"
            out.append(
                {
                    "shape": shape,
                    "signature": sig,
                    "failed": len(failing),
                    "passed": len(passing),
                    "items": len(group),
                    "verdict": kind,
                    "explaining": verdict.explaining,
                    "size": verdict.size,
                    "candidates": [
                        {
                            "combination": [list(c) for c in k.combination],
                            "text": describe(axes, k.combination),
                            "failing": k.failing,
                            "score": k.score,
                        }
                        for k in verdict.candidates[:MAX_CANDIDATES]
                    ],
                    "candidates_total": len(verdict.candidates),
                    "failing_nodeids": [i["nodeid"] for i in failing],
                    "unexplained_nodeids": [failing[p]["nodeid"] for p in verdict.unexplained],
                }
            )
    return out


def _absent_reasons(table: RunTable) -> list[str]:
    """``dtype=bf16: bf16 needs sm80+`` for each value of a table skipped at collection."""
    axes = table.axes
    return [f"{axes[a.axis].name}={axes[a.axis].values[a.value]}: {a.reason}" for a in table.absent]


def reach(table: RunTable) -> Reach | None:
    """A run file's TABLE entry in the one model of what a table covers here
    (:class:`~pairwise_param.coverage.reach.Reach`): runnable = the tuples the collected
    rows cover, covered = those executed rows covered, not runnable = the tuples only
    values skipped at collection hold (once per shape that ran).  None when no shape ran."""
    cov = table.coverage
    if cov.percent is None:
        return None
    shapes = max(1, len(cov.shapes))
    unrunnable = len(table.infeasible_absent) * shapes
    crashed = sum(1 for i in table.items if i.when == "crash")
    return Reach(table.strength, cov.collected, cov.executed, unrunnable, tuple(_absent_reasons(table)),
                 crashed=crashed)


def executed_at(table: RunTable, strength: int) -> tuple[Reach, list[int]] | None:
    """The table's executed coverage at ``strength`` (any, not only the one it was built
    for), from its rows and outcomes: runnable = the ``strength``-tuples the collected
    rows hold in each shape that ran, covered = those its executed items hold; and the
    running count of covered tuples after each executed item (for ``--plot``).  None when
    the table has fewer axes than ``strength`` or no shape ran.  Tuples not runnable here
    are counted at the table's own strength (the run file lists them at that strength)."""
    n = len(table.axes)
    shapes = table.coverage.shapes
    if strength > n or not shapes:
        return None
    rows = table.rows
    scopes = [list(s) for s in combinations(range(n), strength)]
    per_row = [_tuples(r, scopes) for r in rows]
    held: set[tuple[tuple[int, int], ...]] = set().union(*per_row) if per_row else set()
    runnable = len(held) * len(shapes)
    above = _above(table, strength, scopes)
    if above is not None:  # a strength above the table's: what its rows could hold, not only what they do
        runnable = above[0] * len(shapes)
    seen: set[tuple[str, tuple[tuple[int, int], ...]]] = set()
    cumulative: list[int] = []
    for item in table.items:
        if item.shape in shapes and item.executed:
            seen.update((item.shape, tup) for tup in per_row[item.row])
            cumulative.append(len(seen))
    own = strength == table.strength
    unrunnable = len(table.infeasible_absent) * len(shapes) if own else 0
    if above is not None:
        unrunnable = above[1] * len(shapes)
    crashed = sum(1 for i in table.items if i.when == "crash")
    reach_ = Reach(strength, runnable, len(seen), unrunnable, tuple(_absent_reasons(table)), crashed=crashed)
    return reach_, cumulative


#: the most t-tuples :func:`_above` enumerates (a wider table is measured over what its rows hold)
ABOVE_LIMIT = 200_000


def _above(table: RunTable, strength: int, scopes: Sequence[Sequence[int]]) -> tuple[int, int] | None:
    """For a strength above the table's own (cover mode): (t-tuples no forbidden sub-tuple
    of the table's strength rules out, of those the ones a value skipped at collection
    holds).  Constraints that forbid only wider combinations are not seen, so the first
    number is an upper bound there.  None at or below the table's strength, in full mode,
    or past :data:`ABOVE_LIMIT` tuples."""
    s = table.strength
    if strength <= s or exhaustive(table.mode):
        return None
    sizes = [len(a.values) for a in table.axes]
    total = 0
    for scope in scopes:
        n = 1
        for a in scope:
            n *= sizes[a]
        total += n
    if total > ABOVE_LIMIT:
        return None
    forbidden = set(table.infeasible)
    absent = set(table.infeasible_absent)
    ok = gone = 0
    for scope in scopes:
        for values in product(*(range(sizes[a]) for a in scope)):
            cells = list(zip(scope, values))
            subs = {tuple(sub) for sub in combinations(cells, s)}
            if subs & forbidden:
                continue
            if subs & absent:
                gone += 1
            else:
                ok += 1
    return ok, gone


def run_document(tables: Sequence[RunTable], exitstatus: int,
                 empty: Sequence[Mapping[str, Any]] = ()) -> RunDocument:
    """The whole run: the analysed tables, the tables that are holes (an empty
    axis: nothing of them ran: ``{"test", "location", "axes"}``) and pytest's exit status."""
    return RunDocument(int(exitstatus), tuple(tables),
                       tuple(EmptyTable(str(e["test"]), tuple(e["location"]), tuple(e["axes"])) for e in empty))
