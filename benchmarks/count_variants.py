"""A pytest plugin for benchmarks: which test compiled which Triton variants.

``-p benchmarks.count_variants`` with ``COUNT_VARIANTS_FILE=PATH``: after each test the
entries of ``TRITON_CACHE_DIR`` (one per compiled kernel variant and launcher) are
counted, and what a test added is credited to its family (the folder under
``kernel_tests/``; ``(kernel_tests)`` for the files beside the families). At the end
the totals per family are written to PATH as JSON. Works on any tree (it reads only
the cache directory and the items' node ids), so the same plugin counts a baseline's
compiles and ours in one GPU call (benchmarks/gpu_issue39.py).
"""

from __future__ import annotations

import json
import os

import pytest

_counts: dict[str, int] = {}
_last = [0]


def _entries() -> int:
    path = os.environ.get("TRITON_CACHE_DIR", "")
    try:
        return len(os.listdir(path)) if path else 0
    except OSError:
        return 0


def _family(nodeid: str) -> str:
    parts = nodeid.split("::", 1)[0].split("/")
    return parts[1] if len(parts) > 2 and parts[0] == "kernel_tests" else "(kernel_tests)"


def pytest_sessionstart(session: pytest.Session) -> None:
    _last[0] = _entries()


def pytest_runtest_logfinish(nodeid: str, location: tuple[str, int | None, str]) -> None:
    now = _entries()
    if now != _last[0]:
        family = _family(nodeid)
        _counts[family] = _counts.get(family, 0) + now - _last[0]
        _last[0] = now


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    path = os.environ.get("COUNT_VARIANTS_FILE")
    if path:
        with open(path, "w") as fh:
            json.dump(dict(sorted(_counts.items())), fh)
