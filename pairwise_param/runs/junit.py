"""A JUnit XML file standing in for a shard whose run file is lost (``report --run A.json
B.json C.xml``).

pytest's ``--junitxml`` report of a run with the plugin holds, per item, its row's axis
values as properties (``pairwise.<argument>``, written by the plugin at set-up) and its
outcome.  That tells which rows of which tables ran and how they ended; it does not tell
the table itself, its model fingerprint, the shard or the build.  :func:`from_junit`
therefore reads the tables from the other runs of the merge (the XML's items are placed
on their rows by their values) and names what it could not place; the merge cannot check
that the lost shard ran the same model.

Outcomes as pytest writes them: ``<failure>`` failed; ``<error>`` an error (``failed on
setup``/``on teardown`` in its message says when); ``<skipped type="pytest.xfail">``
xfailed; ``<skipped>`` skipped; none passed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pairwise_param.errors import InvalidRunFile
from pairwise_param.runs.document import RunDocument, RunTable, shape_of, table_to_json

__all__ = ["FromJunit", "from_junit"]

PREFIX = "pairwise."  # the plugin's property prefix (plugin/summary.ROW_PROPERTY_PREFIX: tested equal)


@dataclass(frozen=True)
class FromJunit:
    """The run read from a JUnit XML file, and what the file could not tell."""

    doc: RunDocument
    #: test cases with row values that no table of the other runs holds (another model?)
    unplaced: tuple[str, ...]


def _outcome(case: Any) -> dict[str, Any]:
    """The outcome, when, error signature and skip reason of a ``<testcase>`` (the
    signature from the crash message pytest writes, as the run file's)."""
    from pairwise_param.runs.analysis import signature

    for child in case:
        tag, message = child.tag, child.get("message") or ""
        if tag == "failure":
            return {"outcome": "failed", "when": "call", "signature": signature(message), "reason": None}
        if tag == "error":
            said = re.fullmatch(r'failed on (setup|teardown) with "(.*)"', message, re.DOTALL)
            when, crash = (said.group(1), said.group(2)) if said else ("call", message)
            return {"outcome": "error", "when": when, "signature": signature(crash), "reason": None}
        if tag == "skipped":
            xfail = child.get("type") == "pytest.xfail"
            return {"outcome": "xfailed" if xfail else "skipped", "when": "call" if xfail else "setup",
                    "signature": None, "reason": message or None}
    return {"outcome": "passed", "when": "call", "signature": None, "reason": None}


def _junit_name(test: str) -> tuple[str, str]:
    """(classname, function) pytest's junitxml writes for the items of ``test`` (``path::Class::fn``)."""
    parts = test.split("::")
    path = re.sub(r"\.py$", "", parts[0].replace("/", "."))
    return ".".join([path, *parts[1:-1]]), parts[-1]


def _row_of(table: RunTable, values: dict[str, str]) -> int | None:
    """The one row of ``table`` whose values (its single-name axes) are ``values``."""
    wanted = [(k, a.values.index(values[a.names[0]])) for k, a in enumerate(table.axes)
              if len(a.names) == 1 and values.get(a.names[0]) in a.values]
    if len(wanted) < sum(1 for a in table.axes if len(a.names) == 1) or not wanted:
        return None
    rows = [r for r, row in enumerate(table.rows) if all(row[k] == v for k, v in wanted)]
    return rows[0] if len(rows) == 1 else None


def from_junit(path: str | Path, known: Sequence[RunDocument]) -> FromJunit:
    """The run a JUnit XML file shows, on the tables of the ``known`` runs (see the module
    docstring); :class:`~pairwise_param.errors.InvalidRunFile` for a file that is no
    JUnit XML or holds no ``@pairwise`` item."""
    import xml.etree.ElementTree as ET  # a CI's own report file

    from pairwise_param.runs.analysis import analyze_table, run_document

    where = str(path)
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as exc:
        raise InvalidRunFile(f"not a JUnit XML file this reader can read ({exc})", where=where) from None
    tables: dict[tuple[str, str], list[RunTable]] = {}
    for doc in known:
        for t in doc.tables:
            got = tables.setdefault(_junit_name(t.test), [])
            if all(t.key != o.key for o in got):
                got.append(t)
    placed: dict[tuple[str, int], list[list[Any]]] = {}
    outcomes: dict[str, dict[str, Any]] = {}
    unplaced: list[str] = []
    seen = 0
    for case in root.iter("testcase"):
        values = {p.get("name", "")[len(PREFIX):]: p.get("value", "") for p in case.iter("property")
                  if p.get("name", "").startswith(PREFIX)}
        if not values:
            continue
        seen += 1
        name, classname = case.get("name", ""), case.get("classname", "")
        base = name.split("[", 1)[0]
        ours = tables.get((classname, base), [])
        callspec = name[len(base) + 1:-1] if name.endswith("]") else ""
        rows = [(t, _row_of(t, values)) for t in ours]
        if not ours or any(r is None for _, r in rows):
            unplaced.append(f"{classname}::{name}")
            continue
        nodeid = ours[0].test + name[len(base):]
        shape = shape_of(callspec, [t.row_ids[r] for t, r in rows if r is not None])
        for t, r in rows:
            placed.setdefault(t.key, []).append([nodeid, r, shape])
        outcomes[nodeid] = _outcome(case)
    if not seen:
        raise InvalidRunFile("no test case with pairwise-param row values (pytest --junitxml of a run with the "
                             "plugin writes them as 'pairwise.<argument>' properties)", where=where)
    by_key = {t.key: t for group in tables.values() for t in group}
    analysed = []
    for key, items in sorted(placed.items()):
        payload = table_to_json(by_key[key])
        payload["items"] = items
        analysed.append(analyze_table(payload, outcomes))
    failed = any(o["outcome"] in ("failed", "error") for o in outcomes.values())
    doc = run_document(analysed, 1 if failed else 0)
    return FromJunit(doc, tuple(unplaced))
