"""A pytest plugin for benchmarks: run a fixed, deterministic sample of the collected items.

``-p benchmarks.sample_items`` with ``SAMPLE_EVERY=N`` keeps every N-th collected item
(items 0, N, 2N, ... in collection order; collection is deterministic, so two runs with
the same N run the same items) and deselects the rest. ``SAMPLE_COUNT_FILE=PATH`` writes
the number of items before and after sampling as JSON, so the driver can extrapolate a
per-item cost to the whole suite (``benchmarks/gpu_bench.py``: the per-test clean-up run
on the full product, which would take hours whole).

Without ``SAMPLE_EVERY`` (or with 1) nothing is deselected: the plugin only counts.
"""

from __future__ import annotations

import json
import os

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    every = int(os.environ.get("SAMPLE_EVERY", "1") or 1)
    total = len(items)
    if every > 1:
        keep = items[::every]
        drop = [item for i, item in enumerate(items) if i % every]
        items[:] = keep
        config.hook.pytest_deselected(items=drop)
    path = os.environ.get("SAMPLE_COUNT_FILE")
    if path:
        with open(path, "w") as fh:
            json.dump({"collected": total, "kept": len(items), "every": every}, fh)
