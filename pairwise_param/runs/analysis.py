"""What a pytest run of ``@pairwise`` tables EXECUTED, and which combinations its failures point at.

Pure logic over plain JSON data (no pytest, no engine, no user values): the
plugin (:mod:`pairwise_param.plugin.outcomes`) builds the input during a run,
and ``pairwise-param report --run FILE`` and ``pairwise-param localize`` read
the result back from the file or from pytest's cache
(``config.cache.get("pairwise/lastrun", None)``).

The run file (``--pairwise-report=FILE``; schema ``pairwise-param/run`` v1, JSON Schema
in ``pairwise_param/runs/run.schema.json`` = :data:`RUN_SCHEMA`)
--------------------------------------------------------------------------------------
A *cell* is ``[axis index, value index]``; a *combination* is a list of cells
sorted by axis (``text`` spells it ``{dtype=bf16, xnorm=True}`` with value
labels).  Top level::

    {"schema": "pairwise-param/run", "schema_version": 1,
     "exitstatus": 1,                    # pytest's exit status of the run
     "tables": [TABLE, ...]}             # one per @pairwise mark of a test that had items

TABLE::

    "test":        "tests/test_k.py::test_k"   the test (node id without the [...] part)
    "table":       0                            which @pairwise mark of the test (0-based)
    "location":    ["tests/test_k.py", 12]      the test's file (relative to pytest's rootdir) and line
    "mode":        "cover" | "full"
    "strength":    2
    "fingerprint": Model.fingerprint() of the table's model (localize checks it)
    "axes":        [{"name": "dtype", "names": ["dtype"],
                     "values": ["fp16", "bf16"],        labels, as in test ids
                     "reprs": ["'fp16'", "'bf16'"]}]    Python text of each value (grouped
                                                        axes: a list of part texts per value)
    "scopes":      [[0, 1], ...]               the axis sets whose value combinations must run
    "rows":        [[0, 1, 2], ...]            the collected table, value indices per axis
    "row_ids":     ["fp16-True-0", ...]        the id of each row
    "infeasible":  [COMBINATION, ...]          tuples constraints forbid (never run)
    "absent":      [{"axis": 0, "value": 1, "reason": "no bf16"}]
                                               values whose skip mark was already true at
                                               collection: left out of the table, their
                                               tuples listed in "infeasible_absent"
    "infeasible_absent": [COMBINATION, ...]
    "items":       [{"nodeid": ..., "row": 3, "shape": "64",
                     "outcome": "passed" | "failed" | "error" | "skipped" | "xfailed"
                                | "xpassed" | "not_run",
                     "when": "setup" | "call" | "teardown" | "",
                     "signature": "AssertionError: assert <n> == <n>" | null,
                     "reason": "skip reason" | null}]
    "counts":      {"rows": 6, "items": 12, "executed": 10, "passed": 8, "failed": 2,
                    "error": 0, "skipped": 2, "xfailed": 0, "xpassed": 0, "not_run": 0}
    "coverage":    {"shapes": ["1", "64"],      shape groups with an executed item
                    "shapes_not_run": [],       shape groups none of whose items ran
                    "collected": 72,            tuples the collected rows cover, x shapes
                    "executed": 60,             ... that executed rows cover
                    "percent": 83.33,
                    "lost": [{"combination": C, "text": "{..}", "shapes": ["64"],
                              "because": ["skipped: no bf16 here"]}],
                    "reasons": [{"reason": "skipped: no bf16 here", "items": 4}],
                    "suggestion": [{"combination": C, "text": "{..}",
                                    "constraint": "{\\"never\\": {\\"dtype\\": 'bf16'}}",
                                    "shapes": ["1", "64"]}]}   the shapes whose skips it explains
    "suspicious":  [{"shape": "64", "signature": "...", "failed": 4, "passed": 8,
                     "verdict": "decided" | "ambiguous" | "unexplained" | "no-passing",
                     "explaining": 1,            candidates held by every failing item
                     "size": 2,                  combinations of up to this many values were searched
                                                 (the strength, less for very wide tables)
                     "candidates": [{"combination": C, "text": "{..}", "failing": 4,
                                     "score": 0.61}],     ranked, at most 20
                     "candidates_total": 1,
                     "failing_nodeids": [...],
                     "unexplained_nodeids": [...]}]       failing items that hold no candidate

*Executed* items are passed, failed, xfailed and xpassed ones, and those whose
teardown failed; skipped items, set-up errors, deselected items and items that
never ran (``-x``, an interrupted run) are not.  The *shape* of an item is the
part of its id that is not one of the table's row ids (ordinary
``parametrize`` and parametrized fixtures): every shape runs the whole table,
so a tuple is lost when it did not run for one shape that ran at all.  A
shape none of whose items ran (a size skipped on this machine) is listed in
``shapes_not_run`` rather than counted as lost, and so is a whole skipped test.

Failures are *failed* items and *errors*; xfail, xpass and skip are neither
failures nor passes.  An error's *signature* is the first line of pytest's
crash message with numbers and addresses replaced by ``<n>`` (so
``assert 0.51 == 0.5`` and ``assert 0.52 == 0.5`` are one bug); a rewritten
``assert`` gets its ``AssertionError:`` back.  Suspicious combinations are
ranked by :func:`pairwise_param.runs.locate.suspicious` per (shape x signature).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pairwise_param.runs.locate import Verdict, suspicious
from pairwise_param.tables.build import exhaustive

__all__ = [
    "FAILURES",
    "RUN_SCHEMA",
    "SCHEMA_ID",
    "SCHEMA_VERSION",
    "analyze_table",
    "coverage_line",
    "describe",
    "is_executed",
    "never_text",
    "run_document",
    "signature",
    "suspicious_lines",
    "warning_text",
]

SCHEMA_ID = "pairwise-param/run"
SCHEMA_VERSION = 1
OUTCOMES = ("passed", "failed", "error", "skipped", "xfailed", "xpassed", "not_run")
#: outcomes that count as a failure of the row
FAILURES = frozenset({"failed", "error"})
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
    return item["when"] in ("call", "teardown") and item["outcome"] not in ("skipped", "not_run")


# -- combinations ---------------------------------------------------------------
def describe(axes: Sequence[Mapping[str, Any]], combination: Sequence[Sequence[int]]) -> str:
    """``{dtype=bf16, xnorm=True}``: a combination with value labels."""
    return "{" + ", ".join(f"{axes[a]['name']}={axes[a]['values'][v]}" for a, v in combination) + "}"


def never_text(axes: Sequence[Mapping[str, Any]], combination: Sequence[Sequence[int]]) -> str:
    """The constraint-language rule that forbids a combination (``{"never": {"dtype": 'bf16'}}``),
    written with each value's Python text so it can be pasted into ``constraints=[...]``."""
    parts: list[str] = []
    for a, v in combination:
        axis = axes[a]
        text = axis["reprs"][v]
        if len(axis["names"]) > 1 and isinstance(text, list):
            parts.extend(f'"{n}": {t}' for n, t in zip(axis["names"], text))
        else:
            parts.append(f'"{axis["names"][0]}": {text}')
    return '{"never": {' + ", ".join(parts) + "}}"


def _tuples(row: Sequence[int], scopes: Sequence[Sequence[int]]) -> set[tuple[tuple[int, int], ...]]:
    return {tuple((a, row[a]) for a in scope) for scope in scopes}


def _why(item: Mapping[str, Any] | None) -> str:
    if item is None:
        return NOT_SELECTED
    outcome = item["outcome"]
    if outcome == "skipped":
        return f"skipped: {item['reason'] or '(no reason given)'}"
    if outcome == "error":
        return f"set-up error: {item['signature'] or '?'}"
    return "not run"


# -- one table ------------------------------------------------------------------
def analyze_table(payload: Mapping[str, Any], outcomes: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The TABLE entry of the run document (see the module docstring) from the
    collection-time payload (everything but ``items`` outcomes, ``counts``,
    ``coverage`` and ``suspicious``; ``items`` as ``[nodeid, row, shape]``) and
    the per-nodeid outcomes (``outcome``, ``when``, ``signature``, ``reason``)."""
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
    doc["coverage"] = _coverage(doc, items)
    doc["suspicious"] = _suspicious(doc, items)
    return doc


def _natural(text: str) -> list[Any]:
    """Sort key that orders ``7`` before ``14`` and ``n=8-k=64`` before ``n=16-k=64``."""
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", text)]


def _shapes(items: Sequence[Mapping[str, Any]]) -> list[str]:
    """The shape groups of a table, in natural order (independent of collection order)."""
    return sorted(dict.fromkeys(i["shape"] for i in items), key=_natural)


#: shapes named in one line, then "... N more"
SHAPES_SHOWN = 5


def _shape_list(shapes: Sequence[str]) -> str:
    shown = ", ".join(shapes[:SHAPES_SHOWN])
    more = len(shapes) - SHAPES_SHOWN
    return shown + (f" ... {more} more" if more > 0 else "")


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


def _coverage(doc: Mapping[str, Any], items: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    rows, scopes, axes = doc["rows"], doc["scopes"], doc["axes"]
    order = {tuple(s): k for k, s in enumerate(scopes)}
    every_row = set(range(len(rows)))
    groups = {shape: [i for i in items if i["shape"] == shape] for shape in _shapes(items)}
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
        "suggestion": _suggestion(doc, items, ran_shapes) if lost else [],
    }


def _suggestion(doc: Mapping[str, Any], items: Sequence[Mapping[str, Any]], shapes: Sequence[str]) -> list[dict[str, Any]]:
    """Constraints that would keep the table's rows off what cannot run: per
    shape and skip reason, the one combination every such item holds and no
    executed item of the shape holds (the same ranking as for failures)."""
    rows, axes = doc["rows"], doc["axes"]
    found: dict[tuple[tuple[int, int], ...], list[str]] = {}
    for shape in shapes:
        group = [i for i in items if i["shape"] == shape]
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


def _suspicious(doc: Mapping[str, Any], items: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    rows, axes = doc["rows"], doc["axes"]
    out = []
    for shape in _shapes(items):
        group = [i for i in items if i["shape"] == shape]
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


def run_document(tables: Sequence[Mapping[str, Any]], exitstatus: int) -> dict[str, Any]:
    """The whole run file: the analysed tables and pytest's exit status."""
    return {"schema": SCHEMA_ID, "schema_version": SCHEMA_VERSION, "exitstatus": int(exitstatus), "tables": list(tables)}


# -- text (one home: the plugin's terminal summary and `report --run` print these) ----------
def _name(table: Mapping[str, Any]) -> str:
    return str(table["test"]) + _table_no(table)


def _table_no(table: Mapping[str, Any]) -> str:
    return f" (table {table['table'] + 1})" if table["table"] else ""


def _listed(texts: Sequence[str], limit: int | None) -> str:
    shown = list(texts if limit is None else texts[:limit])
    more = len(texts) - len(shown)
    return ", ".join(shown) + (f" ... {more} more" if more > 0 else "")


#: the reason of a tuple lost only because its rows were deselected (-k, -m, --lf)
NOT_SELECTED = "not selected"


def lost_at_run_time(table: Mapping[str, Any]) -> bool:
    """Did the table lose a tuple to something that happened in the run (a skip, a
    set-up error, an item that never ran), not only to the selection (``-k``,
    ``-m``, ``--lf``), which the user asked for?  The plugin's line and warning
    are for these; the run file and ``report --run`` show every loss."""
    return any(set(e["because"]) - {NOT_SELECTED} for e in table["coverage"]["lost"])


def coverage_line(table: Mapping[str, Any], limit: int | None = 10) -> str | None:
    """One line for a table whose executed coverage is below its collected
    coverage (None otherwise): the lost tuples (``limit`` of them, then
    ``... N more``), the reasons, and the constraints that would restore full
    coverage of what can run."""
    cov = table["coverage"]
    if not cov["lost"]:
        return None
    many = len(cov["shapes"]) > 1
    lost = [
        e["text"] + (f" [{_shape_list(e['shapes'])}]" if many and len(e["shapes"]) < len(cov["shapes"]) else "")
        for e in cov["lost"]
    ]
    t = table["strength"]
    reasons = "; ".join(f"{r['reason']} ({r['items']} item{'s' if r['items'] != 1 else ''})" for r in cov["reasons"])
    line = (
        f"{_name(table)}: executed {cov['executed']} of {cov['collected']} {t}-tuples ({cov['percent']:.1f}%); "
        f"lost {len(lost)}: {_listed(lost, limit)}; {reasons or 'no item reported'}"
    )
    if cov["suggestion"]:
        rules = ", ".join(s["constraint"] for s in cov["suggestion"])
        line += f"; a constraint keeps every other tuple running: constraints=[{rules}]"
        partial = sorted({sh for s in cov["suggestion"] for sh in s["shapes"]}, key=_natural)
        if many and len(partial) < len(cov["shapes"]):
            line += (
                f" (what did not run is specific to shape{'s' if len(partial) != 1 else ''} "
                f"{_shape_list(partial)}; the rule applies to every shape)"
            )
    else:
        line += "; no single combination explains what did not run (a condition known at collection belongs in constraints=)"
    return line


def warning_text(table: Mapping[str, Any]) -> str:
    """The one-line PairwiseWarning of a table that lost tuples at run time."""
    cov = table["coverage"]
    first = cov["reasons"][0]["reason"] if cov["reasons"] else "items did not run"
    fix = f"; add constraints=[{', '.join(s['constraint'] for s in cov['suggestion'])}]" if cov["suggestion"] else ""
    return (
        f"executed coverage {cov['percent']:.1f}% < 100% of the collected table{_table_no(table)} "
        f"({len(cov['lost'])} tuple{'s' if len(cov['lost']) != 1 else ''} lost; {first}){fix}"
    )


def _verdict_text(g: Mapping[str, Any], t: int, limit: int | None) -> str:
    """What one (shape x signature) group's failures point at, after its head."""
    t = min(t, g["size"])  # a very wide table: only smaller combinations were searched
    cands = [c["text"] for c in g["candidates"] if c["failing"] == g["failed"]]
    total = g["explaining"]
    if g["verdict"] == "no-passing":
        return "no item of this shape passed, so no combination can be singled out"
    if g["verdict"] == "decided":
        return f"every failure holds {cands[0]}; no passing item holds it"
    if g["verdict"] == "ambiguous":
        shown = cands if limit is None else cands[:limit]
        more = f" ... {total - len(shown)} more" if total > len(shown) else ""
        return (
            f"{total} candidates remain (each held by every failure, by no passing item): "
            f"{', '.join(shown)}{more}; follow-up cases needed: `pairwise-param localize`"
        )
    top = [f"{c['text']} ({c['failing']} failure{'s' if c['failing'] != 1 else ''})" for c in g["candidates"]]
    text = f"no combination of up to {t} values is held by every failure and by no passing item"
    if top:
        text += f"; partial candidates: {_listed(top, limit)}"
    if g["unexplained_nodeids"]:
        n = len(g["unexplained_nodeids"])
        text += (
            f"; {n} failing item{'s' if n != 1 else ''} hold{'s' if n == 1 else ''} no combination that "
            f"passed nowhere (flaky, or a fault of more than {t} values: try --pairwise-strength={t + 1})"
        )
    return text + "; follow-up cases needed: `pairwise-param localize`"


def suspicious_lines(table: Mapping[str, Any], limit: int | None = 5) -> list[str]:
    """One line per (shape x signature) group of failures of the table; shapes whose
    failures read the same (same signature, counts and candidates) share one line."""
    t = table["strength"]
    groups = table["suspicious"]
    many = len({g["shape"] for g in groups}) > 1 or any(g["shape"] for g in groups)
    merged: dict[tuple[str, int, int, str], list[str]] = {}
    for g in groups:
        key = (g["signature"], g["failed"], g["items"], _verdict_text(g, t, limit))
        merged.setdefault(key, []).append(g["shape"])
    out = []
    for (sig, failed, items, text), shapes in merged.items():
        where = _name(table) + (f" [{_shape_list(shapes)}]" if many and any(shapes) else "")
        each = " per shape" if len(shapes) > 1 else ""
        out.append(f"{where}: {failed} of {items} items{each} failed with {sig}; {text}")
    return out


# -- the JSON Schema of the run file ---------------------------------------------------
_INT = {"type": "integer", "minimum": 0}
_STR = {"type": "string"}
_CELL = {"type": "array", "items": _INT, "minItems": 2, "maxItems": 2}
_COMBO = {"type": "array", "items": _CELL}
_TEXTS = {"type": "array", "items": _STR}
_COMBO_TEXT = {
    "type": "object",
    "required": ["combination", "text"],
    "properties": {"combination": _COMBO, "text": _STR},
}
_ITEM = {
    "type": "object",
    "required": ["nodeid", "row", "shape", "outcome", "when", "signature", "reason"],
    "properties": {
        "nodeid": _STR,
        "row": _INT,
        "shape": _STR,
        "outcome": {"enum": list(OUTCOMES)},
        "when": {"enum": ["setup", "call", "teardown", ""]},
        "signature": {"type": ["string", "null"]},
        "reason": {"type": ["string", "null"]},
    },
}
_COVERAGE = {
    "type": "object",
    "required": ["shapes", "shapes_not_run", "collected", "executed", "percent", "lost", "reasons", "suggestion"],
    "properties": {
        "shapes": _TEXTS,
        "shapes_not_run": _TEXTS,
        "collected": _INT,
        "executed": _INT,
        "percent": {"type": ["number", "null"], "minimum": 0, "maximum": 100},
        "lost": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["combination", "text", "shapes", "because"],
                "properties": {"combination": _COMBO, "text": _STR, "shapes": _TEXTS, "because": _TEXTS},
            },
        },
        "reasons": {
            "type": "array",
            "items": {"type": "object", "required": ["reason", "items"], "properties": {"reason": _STR, "items": _INT}},
        },
        "suggestion": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["combination", "text", "constraint", "shapes"],
                "properties": {"combination": _COMBO, "text": _STR, "constraint": _STR, "shapes": _TEXTS},
            },
        },
    },
}
_GROUP = {
    "type": "object",
    "required": [
        "shape", "signature", "failed", "passed", "items", "verdict", "explaining", "size", "candidates",
        "candidates_total", "failing_nodeids", "unexplained_nodeids",
    ],
    "properties": {
        "shape": _STR,
        "signature": _STR,
        "failed": _INT,
        "passed": _INT,
        "items": _INT,
        "verdict": {"enum": ["decided", "ambiguous", "unexplained", "no-passing"]},
        "explaining": _INT,
        "size": {"type": "integer", "minimum": 1},
        "candidates": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["combination", "text", "failing", "score"],
                "properties": {"combination": _COMBO, "text": _STR, "failing": _INT, "score": {"type": "number"}},
            },
        },
        "candidates_total": _INT,
        "failing_nodeids": _TEXTS,
        "unexplained_nodeids": _TEXTS,
    },
}
_TABLE = {
    "type": "object",
    "required": [
        "test", "table", "location", "mode", "strength", "fingerprint", "axes", "scopes", "rows", "row_ids",
        "infeasible", "absent", "infeasible_absent", "items", "counts", "coverage", "suspicious",
    ],
    "properties": {
        "test": _STR,
        "table": _INT,
        "location": {"type": "array", "items": {"type": ["string", "integer"]}, "minItems": 2, "maxItems": 2},
        "mode": {"enum": ["cover", "full"]},
        "strength": {"type": "integer", "minimum": 1},
        "fingerprint": _STR,
        "axes": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "names", "values", "reprs"],
                "properties": {
                    "name": _STR,
                    "names": _TEXTS,
                    "values": _TEXTS,
                    "reprs": {"type": "array", "items": {"type": ["string", "array"]}},
                },
            },
        },
        "scopes": {"type": "array", "items": {"type": "array", "items": _INT}},
        "rows": {"type": "array", "items": {"type": "array", "items": _INT}},
        "row_ids": _TEXTS,
        "infeasible": {"type": "array", "items": _COMBO},
        "absent": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["axis", "value", "reason"],
                "properties": {"axis": _INT, "value": _INT, "reason": _STR},
            },
        },
        "infeasible_absent": {"type": "array", "items": _COMBO},
        "items": {"type": "array", "items": _ITEM},
        "counts": {
            "type": "object",
            "required": ["rows", "items", "executed", *OUTCOMES],
            "properties": {k: _INT for k in ("rows", "items", "executed", *OUTCOMES)},
        },
        "coverage": _COVERAGE,
        "suspicious": {"type": "array", "items": _GROUP},
    },
}
#: JSON Schema (draft 2020-12) of the run file; ``pairwise_param/runs/run.schema.json`` is this, checked in
RUN_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://pairwise-param.invalid/schemas/run-v1.json",
    "title": "pairwise-param run (executed coverage and suspicious combinations)",
    "type": "object",
    "required": ["schema", "schema_version", "exitstatus", "tables"],
    "properties": {
        "schema": {"const": SCHEMA_ID},
        "schema_version": {"const": SCHEMA_VERSION},
        "exitstatus": {"type": "integer"},
        "tables": {"type": "array", "items": _TABLE},
    },
}
