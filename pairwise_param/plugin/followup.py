"""``--pairwise-extra-rows=FILE``: run only the follow-up rows ``pairwise-param localize`` asks for.

The file (written by the CLI, format :data:`pairwise_param.runs.localize.REQUEST_FORMAT`)::

    {"format": 1, "requests": [{"test": "tests/test_k.py::test_k", "table": 0, "shape": "64",
                                "keep": [[1, 2], [3, 0]], "prefer": [[0, 1], ...], "exclude": [...]}]}

:mod:`pairwise_param.plugin.expand` builds each request's row with the test's own
model (:func:`pairwise_param.runs.localize.build_row`, constraints respected) in place
of the table; :func:`select` then keeps each follow-up row for the shapes asked
and deselects every other item.  The user's test files are never touched.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pairwise_param.plugin.summary import item_rows, test_base

__all__ = ["read_requests", "select"]


def read_requests(path: str) -> dict[str, list[dict[str, Any]]]:
    """The requests of ``path``, by test; a bad file is a usage error."""
    from pairwise_param.runs.localize import REQUEST_FORMAT

    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise pytest.UsageError(f"pairwise-param: --pairwise-extra-rows={path!r}: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != REQUEST_FORMAT or not isinstance(data.get("requests"), list):
        raise pytest.UsageError(
            f"pairwise-param: --pairwise-extra-rows={path!r} is not a follow-up file of format "
            f"{REQUEST_FORMAT} (written by `pairwise-param localize`)"
        )
    out: dict[str, list[dict[str, Any]]] = {}
    for req in data["requests"]:
        if not (isinstance(req, dict) and isinstance(req.get("test"), str) and isinstance(req.get("keep"), list)
                and isinstance(req.get("prefer"), list)):
            raise pytest.UsageError(f"pairwise-param: --pairwise-extra-rows={path!r}: bad request {req!r}")
        out.setdefault(req["test"], []).append(req)
    return out


def select(items: list[Any], records: dict[str, list[Any]]) -> tuple[list[Any], list[Any]]:
    """(items to run, items to deselect): an item runs when its test has follow-up
    rows and each of its tables' row ids is asked for with the item's shape."""
    from pairwise_param.runs.document import shape_of

    keep: list[Any] = []
    drop: list[Any] = []
    for item in items:
        base = test_base(item)
        recs = records.get(base) if base is not None else None
        wanted = [r.wanted for r in recs or () if r.wanted is not None]
        ok = False
        rows = item_rows(item, recs) if wanted and recs else None
        if rows is not None and recs:
            rids = [rec.ids[row] for rec, row in zip(recs, rows)]
            shape = shape_of(str(item.callspec.id), rids)  # the one rule of what a shape is (the run file's)
            ok = any(shape in w.get(rid, ()) for w in wanted for rid in rids)
        (keep if ok else drop).append(item)
    return keep, drop
