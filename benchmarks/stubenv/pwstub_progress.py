"""A pytest plugin (``-p pwstub_progress``) that records how far collection got.

``benchmarks/real_suites.py`` loads it in every pytest / ``pairwise-param report`` run it
starts: with ``PWSTUB_PROGRESS=<file>`` it rewrites that file (at most once a second, and
at the end) with the files collected, the items so far and the collection errors, so a
run killed at its time limit still says how far it had come.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

_state = {"files": 0, "items": 0, "errors": 0, "done": False, "last": 0.0, "error_files": []}


def _write(force: bool = False) -> None:
    path = os.environ.get("PWSTUB_PROGRESS")
    now = time.monotonic()
    if not path or (not force and now - float(_state["last"]) < 1.0):  # type: ignore[arg-type]
        return
    _state["last"] = now
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump({k: v for k, v in _state.items() if k != "last"}, f)
    os.replace(tmp, path)


def pytest_collectreport(report: Any) -> None:
    import pytest

    if report.failed:
        _state["errors"] = int(_state["errors"]) + 1  # type: ignore[call-overload]
        errs = _state["error_files"]
        assert isinstance(errs, list)
        if len(errs) < 200:
            errs.append(report.nodeid)
    elif isinstance(getattr(report, "result", None), list):
        n = sum(1 for r in report.result if isinstance(r, pytest.Item))
        _state["items"] = int(_state["items"]) + n  # type: ignore[call-overload]
        if n and "::" not in report.nodeid:
            _state["files"] = int(_state["files"]) + 1  # type: ignore[call-overload]
    _write()


def pytest_collection_finish(session: Any) -> None:
    _state["items"] = len(session.items)
    _state["done"] = True
    _write(force=True)
