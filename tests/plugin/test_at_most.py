"""Issue 17: a feasible count past :data:`pairwise_param.tables.product.COUNT_LIMIT` is
an upper bound, and the plugin's summary line and table cache say so.

The limit is patched down to 3 transitions so that a 4 x 4 (x 2) model with
``a != b`` -- 24 feasible rows of 32 -- is too large to count exactly; its
count then falls back to the unconstrained 32, marked as a bound.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from pairwise_param.model import Model
from pairwise_param.tables import product
from pairwise_param.tables.build import build_table
from pairwise_param.tables.cache import TableCache

SUITE = """
    from pairwise_param import pairwise

    @pairwise(a=[0, 1, 2, 3], b=[0, 1, 2, 3], c=[False, True], constraints=[lambda a, b: a != b])
    def test_k(a, b, c):
        pass
"""


def model() -> Model:
    return Model({"a": range(4), "b": range(4), "c": [False, True]}, constraints=[lambda a, b: a != b])


class DictStore:
    def __init__(self) -> None:
        self.data: dict[str, str] = {}

    def get(self, key: str, default: Any) -> Any:
        return json.loads(self.data[key]) if key in self.data else default

    def set(self, key: str, value: Any) -> None:
        self.data[key] = json.dumps(value)


def test_summary_line_says_at_most_when_the_count_is_a_bound(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_k=SUITE)
    exact = pytester.runpytest("--collect-only", "-p", "no:cacheprovider")
    exact.stdout.fnmatch_lines(["pairwise-param: * items from 1 table stand for 24 full-product items (*x fewer), t=2"])
    assert "at most" not in exact.stdout.str()
    monkeypatch.setattr(product, "COUNT_LIMIT", 3)
    bound = pytester.runpytest("--collect-only", "-p", "no:cacheprovider")
    bound.stdout.fnmatch_lines(
        ["pairwise-param: * items from 1 table stand for at most 32 full-product items (up to *x fewer), t=2"]
    )


def test_a_bound_survives_the_table_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    assert build_table(model(), "cover", count=True).full_exact
    monkeypatch.setattr(product, "COUNT_LIMIT", 3)
    built = build_table(model(), "cover", count=True)
    assert (built.full_count, built.full_exact) == (32, False)
    store = DictStore()
    first = TableCache(store)
    assert first.get(model(), "cover") == built
    (key,) = store.data
    assert json.loads(store.data[key])["full_exact"] is False
    again = TableCache(store)
    assert again.get(model(), "cover") == built and again.stats["disk"] == 1
    # flipping the flag without re-signing fails the digest: rebuilt, not trusted
    store.data[key] = json.dumps({**json.loads(store.data[key]), "full_exact": True})
    third = TableCache(store)
    assert third.get(model(), "cover").full_exact is False and third.stats["built"] == 1


def test_full_mode_counts_its_rows_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(product, "COUNT_LIMIT", 3)
    full = build_table(model(), "full", count=True)
    assert (full.full_count, full.full_exact) == (24, True) == (len(full.rows), True)
