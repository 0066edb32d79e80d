"""The run file: what a pytest run of ``@pairwise`` tables EXECUTED, and its JSON Schema.

The plugin (:mod:`pairwise_param.plugin.outcomes`) writes it during a run (its
analysis: :mod:`pairwise_param.runs.analysis`), and ``pairwise-param report --run
FILE`` and ``pairwise-param localize`` read it back from the file or from pytest's
cache (``config.cache.get("pairwise/lastrun", None)``).

The run file (``--pairwise-report=FILE``; schema ``pairwise-param/run`` v2, v1 still read; JSON Schema
in ``pairwise_param/runs/run.schema.json`` = :data:`RUN_SCHEMA`)
--------------------------------------------------------------------------------------
A *cell* is ``[axis index, value index]``; a *combination* is a list of cells
sorted by axis (``text`` spells it ``{dtype=bf16, xnorm=True}`` with value
labels).  Top level::

    {"schema": "pairwise-param/run", "schema_version": 2,
     "exitstatus": 1,                    # pytest's exit status of the run
     "shard": {"index": 0, "count": 3,   # which shard of how many (index 0-based; null: not sharded)
               "source": "pytest-shard --shard-id/--num-shards"},   where that was read
     "build": "1234-1",                  # the CI build (null: unknown; runs/where.py lists the variables)
     "platform": {"name": "cuda", "device": "NVIDIA H100"},   # null: unknown (torch never imported)
     "collected": 120,                   # @pairwise items collected before a splitter chose (null: unknown)
                                         # (v2; a v1 file reads as null for these four)
     "mirror": {"index": 1, "count": 2}, # --pairwise-mirror: mirror job index (0-based) of count, each
                                         # running its own complete tables (absent: not a mirror job)
     "tables": [TABLE, ...],             # one per @pairwise mark of a test that had items
     "empty": [{"test": "tests/test_k.py::test_k", "location": ["tests/test_k.py", 12],
                "axes": ["dtype"]}]}     # tests whose table is a hole: an axis without values
                                         # (pytest ran one skipped item); the gate fails them.
                                         # Absent in files written before it existed: none.

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
                     "when": "setup" | "call" | "teardown" | "crash" | "",
                                 ("crash": the item crashed its xdist worker; outcome "failed")
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
ranked by :func:`pairwise_param.runs.locate.suspicious` per (shape x signature)
(:mod:`pairwise_param.runs.analysis`).
"""

from __future__ import annotations

from typing import Any

from pairwise_param.contract import MODES

__all__ = ["OUTCOMES", "READS", "RUN_SCHEMA", "SCHEMA_ID", "SCHEMA_VERSION", "problems"]

SCHEMA_ID = "pairwise-param/run"
SCHEMA_VERSION = 2
#: the versions this pairwise-param reads (a v1 file: no shard, build, platform, collected)
READS = (1, 2)
#: an item's outcome in the run file
OUTCOMES = ("passed", "failed", "error", "skipped", "xfailed", "xpassed", "not_run")

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
#: an item's "when" ("crash": it crashed its xdist worker; "": it never ran)
_WHENS = ("setup", "call", "teardown", "crash", "")
#: a row: value indices
_INDICES = {"type": "array", "items": _INT}
_ITEM = {
    "type": "object",
    "required": ["nodeid", "row", "shape", "outcome", "when", "signature", "reason"],
    "properties": {
        "nodeid": _STR,
        "row": _INT,
        "shape": _STR,
        "outcome": {"enum": list(OUTCOMES)},
        "when": {"enum": list(_WHENS)},
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
        "shape", "signature", "failed", "passed", "items", "verdict", "explaining", "candidates",
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
        "mode": {"enum": list(MODES)},
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
        "rows": {"type": "array", "items": _INDICES},
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
_EMPTY: dict[str, Any] = {
    "type": "object",
    "required": ["test", "location", "axes"],
    "properties": {
        "test": {"type": "string"},
        "location": {"type": "array", "minItems": 2, "maxItems": 2},
        "axes": {"type": "array", "minItems": 1, "items": {"type": "string"}},
    },
}
#: JSON Schema (draft 2020-12) of the run file; ``pairwise_param/runs/run.schema.json`` is this, checked in
RUN_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://pairwise-param.invalid/schemas/run-v2.json",
    "title": "pairwise-param run (executed coverage and suspicious combinations)",
    "type": "object",
    "required": ["schema", "schema_version", "exitstatus", "tables"],
    "properties": {
        "schema": {"const": SCHEMA_ID},
        "schema_version": {"enum": list(READS)},
        "exitstatus": {"type": "integer"},
        "shard": {
            "type": ["object", "null"],
            "required": ["index", "count", "source"],
            "properties": {"index": _INT, "count": {"type": "integer", "minimum": 1}, "source": _STR},
        },
        "build": {"type": ["string", "null"]},
        "platform": {
            "type": ["object", "null"],
            "required": ["name", "device"],
            "properties": {"name": _STR, "device": _STR},
        },
        "collected": {"type": ["integer", "null"], "minimum": 0},
        "mirror": {
            "type": ["object", "null"],
            "required": ["index", "count"],
            "properties": {"index": _INT, "count": {"type": "integer", "minimum": 1}},
        },
        "tables": {"type": "array", "items": _TABLE},
        "empty": {"type": "array", "items": _EMPTY},
    },
}


_KINDS = {
    "object": (dict,), "array": (list,), "string": (str,), "integer": (int,), "number": (int, float),
    "boolean": (bool,), "null": (type(None),),
}


def _is(value: Any, kind: str) -> bool:
    if kind in ("integer", "number") and isinstance(value, bool):
        return False
    return isinstance(value, _KINDS[kind])


def _check(value: Any, schema: dict[str, Any], where: str, out: list[str], limit: int) -> None:
    """The keywords :data:`RUN_SCHEMA` uses: type, const, enum, required, properties,
    items, minimum, maximum, minItems, maxItems."""
    if len(out) >= limit:
        return
    if "type" in schema:
        kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is(value, k) for k in kinds):
            out.append(f"{where}: {_short(value)} is not {' or '.join(kinds)}")
            return
    if "const" in schema and value != schema["const"]:
        out.append(f"{where}: {_short(value)}, expected {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{where}: {_short(value)} is not one of {', '.join(map(repr, schema['enum']))}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            out.append(f"{where}: {value!r} is below the minimum {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            out.append(f"{where}: {value!r} is above the maximum {schema['maximum']}")
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                out.append(f"{where}: the key {key!r} is missing")
        for key, sub in schema.get("properties", {}).items():
            if key in value:
                _check(value[key], sub, f"{where}.{key}", out, limit)
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            out.append(f"{where}: {len(value)} items, at least {schema['minItems']} expected")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            out.append(f"{where}: {len(value)} items, at most {schema['maxItems']} expected")
        if "items" in schema:
            sub = schema["items"]
            fast = _FAST.get(id(sub))
            for i, item in enumerate(value):
                if fast is not None and fast(item):
                    continue  # the common case, checked in one expression (a run has 10^5 items)
                _check(item, sub, f"{where}[{i}]", out, limit)


_OUTCOME_SET = frozenset(OUTCOMES)
_WHEN_SET = frozenset(_WHENS)


def _good_item(item: Any) -> bool:
    """An ITEM that :data:`_ITEM` accepts (the same rules, without the messages)."""
    if type(item) is not dict:
        return False
    g = item.get
    row, outcome, when, sig, reason = g("row"), g("outcome"), g("when"), g("signature", 0), g("reason", 0)
    return (type(g("nodeid")) is str and type(row) is int and row >= 0 and type(g("shape")) is str
            and type(outcome) is str and outcome in _OUTCOME_SET and type(when) is str and when in _WHEN_SET
            and (sig is None or type(sig) is str) and (reason is None or type(reason) is str))


def _good_indices(row: Any) -> bool:
    """A list of value indices (integers >= 0), as :data:`_INT` items accept."""
    return type(row) is list and all(type(x) is int and x >= 0 for x in row)


#: fast acceptance of the schema parts a big run repeats most (by identity of the sub-schema)
_FAST: dict[int, Any] = {id(_ITEM): _good_item, id(_INDICES): _good_indices, id(_STR): lambda x: type(x) is str}


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def problems(doc: Any, limit: int = 10) -> list[str]:
    """What is wrong with a run document (at most ``limit`` lines, ``$.tables[0].rows``
    style paths; empty: a valid run file): the version first, then :data:`RUN_SCHEMA`,
    then what a schema cannot say (each row has one value index per axis, each index
    inside its axis, each item's row inside the table)."""
    if not isinstance(doc, dict):
        return [f"$: {_short(doc)} is not a JSON object (a run file is one)"]
    if doc.get("schema") != SCHEMA_ID:
        return [f"$.schema: {_short(doc.get('schema'))}, expected {SCHEMA_ID!r} (not a pairwise-param run file)"]
    version = doc.get("schema_version")
    if isinstance(version, bool) or version not in READS:
        return [(f"$.schema_version: {_short(version)}: this pairwise-param reads run files of version "
                f"{SCHEMA_VERSION} (and {', '.join(map(str, READS[:-1]))}); rerun the suite with this "
                "pairwise-param to write one")]
    out: list[str] = []
    _check(doc, RUN_SCHEMA, "$", out, limit)
    if out:
        return out[:limit]
    shard = doc.get("shard")
    if isinstance(shard, dict) and shard["index"] >= shard["count"]:
        out.append(f"$.shard.index: {shard['index']}, but there are {shard['count']} shards (the index is 0-based)")
    mirror = doc.get("mirror")
    if isinstance(mirror, dict) and mirror["index"] >= mirror["count"]:
        out.append(f"$.mirror.index: {mirror['index']}, but there are {mirror['count']} mirror jobs (0-based)")
    for t, table in enumerate(doc["tables"]):
        _table_problems(table, f"$.tables[{t}]", out)
        if len(out) >= limit:
            break
    return out[:limit]


def _combos(combos: list[Any], sizes: list[int], where: str, out: list[str]) -> None:
    for c, combo in enumerate(combos):
        for k, (a, v) in enumerate(combo):
            if a >= len(sizes) or v >= sizes[a]:
                out.append(f"{where}[{c}][{k}]: [{a}, {v}] names no value of the table (axis sizes {sizes})")
                return


def _table_problems(table: dict[str, Any], where: str, out: list[str]) -> None:
    """What a schema cannot say of one TABLE: every index inside its axis, the strength
    within the axes, counts and figures that agree with the items."""
    axes = table["axes"]
    sizes = [len(a["values"]) for a in axes]
    n = len(sizes)
    for k, a in enumerate(axes):
        if not a["values"]:
            out.append(f"{where}.axes[{k}].values: an axis without values")
        if len(a["reprs"]) != len(a["values"]):
            out.append(f"{where}.axes[{k}].reprs: {len(a['reprs'])} texts for {len(a['values'])} values")
        for v, text in enumerate(a["reprs"]):
            if isinstance(text, list) and not all(isinstance(x, str) for x in text):
                out.append(f"{where}.axes[{k}].reprs[{v}]: {_short(text)} is not a list of strings")
    if not 1 <= table["strength"] <= max(n, 1):
        out.append(f"{where}.strength: {table['strength']}, but the table has {n} axes")
    for k, scope in enumerate(table["scopes"]):
        if any(a >= n for a in scope) or len(set(scope)) != len(scope):
            out.append(f"{where}.scopes[{k}]: {_short(scope)} is not a set of axis indices below {n}")
    if not table["rows"]:
        out.append(f"{where}.rows: no rows (a table of a run had items, so rows)")
    for r, row in enumerate(table["rows"]):
        if len(row) != n:
            out.append(f"{where}.rows[{r}]: {len(row)} value indices for {n} axes")
            continue
        for a, v in enumerate(row):
            if v >= sizes[a]:
                out.append(f"{where}.rows[{r}][{a}]: {row} has a value index outside its axis (sizes {sizes})")
                break
    if len(table["row_ids"]) != len(table["rows"]):
        out.append(f"{where}.row_ids: {len(table['row_ids'])} ids for {len(table['rows'])} rows")
    _combos(table["infeasible"], sizes, f"{where}.infeasible", out)
    _combos(table["infeasible_absent"], sizes, f"{where}.infeasible_absent", out)
    for k, a in enumerate(table["absent"]):
        if a["axis"] >= n or a["value"] >= sizes[a["axis"]]:
            out.append(f"{where}.absent[{k}]: [{a['axis']}, {a['value']}] names no value of the table")
    items = table["items"]
    for i, item in enumerate(items):
        if item["row"] >= len(table["rows"]):
            out.append(f"{where}.items[{i}].row: {item['row']}, but the table has {len(table['rows'])} rows")
            break
    counts = table["counts"]
    tally = {k: 0 for k in OUTCOMES}
    ran = 0
    for item in items:
        tally[item["outcome"]] += 1
        ran += item["when"] in ("call", "teardown") and item["outcome"] not in ("skipped", "not_run")
    want = {"rows": len(table["rows"]), "items": len(items), "executed": ran, **tally}
    for key, value in want.items():
        if counts[key] != value:
            out.append(f"{where}.counts.{key}: {counts[key]}, but the items say {value}")
    cov = table["coverage"]
    if cov["executed"] > cov["collected"]:
        out.append(f"{where}.coverage.executed: {cov['executed']} is more than the {cov['collected']} collected tuples")
    elif cov["collected"] and (cov["percent"] is None
                               or abs(cov["percent"] - 100.0 * cov["executed"] / cov["collected"]) > 0.01):
        out.append(f"{where}.coverage.percent: {_short(cov['percent'])}, but executed/collected is "
                   f"{cov['executed']}/{cov['collected']}")
    shapes = {item["shape"] for item in items}
    for key in ("shapes", "shapes_not_run"):
        stray = [x for x in cov[key] if x not in shapes]
        if stray:
            out.append(f"{where}.coverage.{key}: {_short(stray[0])} is the shape of no item")
    for key in ("lost", "suggestion"):
        _combos([e["combination"] for e in cov[key]], sizes, f"{where}.coverage.{key}", out)
    for g, group in enumerate(table["suspicious"]):
        _combos([c["combination"] for c in group["candidates"]], sizes, f"{where}.suspicious[{g}].candidates", out)
