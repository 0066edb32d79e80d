"""The table cache: keys, hits, misses, corrupted entries, and the plugin's use of it."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from pairwise_param.model import Model
from pairwise_param.tables.build import build_table
from pairwise_param.tables.cache import TableCache, table_key
from pairwise_param.tables.product import Count, feasible_count, full_rows

AXES = {"dtype": ["fp16", "bf16", "fp32"], "bias": [0, 1, 2], "x": [False, True], "y": ["a", "b"]}


def no_fp32_bias2(dtype: str, bias: int) -> bool:
    return not (dtype == "fp32" and bias == 2)


def model(**kw: Any) -> Model:
    return Model(AXES, constraints=[no_fp32_bias2], **kw)


class DictStore:
    def __init__(self) -> None:
        self.data: dict[str, Any] = {}

    def get(self, key: str, default: Any) -> Any:
        # round-trip through JSON like pytest's cache does
        return json.loads(self.data[key]) if key in self.data else default

    def set(self, key: str, value: Any) -> None:
        self.data[key] = json.dumps(value)


def test_miss_then_hit_returns_identical_table() -> None:
    store = DictStore()
    cold = TableCache(store)
    t1 = cold.get(model(), "cover")
    assert cold.stats == {"built": 1, "disk": 0, "memo": 0}
    assert cold.get(model(), "cover") is t1
    assert cold.stats["memo"] == 1
    warm = TableCache(store)
    t2 = warm.get(model(), "cover")
    assert warm.stats == {"built": 0, "disk": 1, "memo": 0}
    assert t2 == t1
    assert t1 == build_table(model(), "cover", count=True)  # a miss recomputes exactly
    assert t1.infeasible == (((0, 1), (2, 2)),)
    assert t1.full_count == 36 - 4


def test_keys_depend_on_everything_the_rows_depend_on() -> None:
    base = table_key(model(), "cover", 0, 0)
    assert base == table_key(model(), "cover", 0, 0)
    others = {
        table_key(model(), "full", 0, 0),
        table_key(model(), "cover", 1, 0),
        table_key(model(), "cover", 0, 1),
        table_key(model(strength=3), "cover", 0, 0),
        table_key(Model(AXES), "cover", 0, 0),
        table_key(model(include=[{"x": True}]), "cover", 0, 0),
    }
    assert base not in others and len(others) == 6


def test_models_of_one_shape_share_one_entry_built_once() -> None:
    """A table is value-index rows: other names and values over the same index model
    (sizes, strength, exclusions, include rows) give the same rows, so they share one
    key, one build per process and one stored entry."""
    other = Model({"kind": ["x", "y", "z"], "mode": [7, 8, 9], "p": [None, 1], "q": [1.0, -0.0]},
                  constraints=[{"never": {"kind": "z", "mode": 9}}])
    assert other.index_model == model().index_model and other.fingerprint() != model().fingerprint()
    assert table_key(other, "cover", 0, 0) == table_key(model(), "cover", 0, 0)
    store = DictStore()
    cache = TableCache(store)
    first = cache.get(model(), "cover")
    assert cache.get(other, "cover") is first
    assert cache.stats == {"built": 1, "disk": 0, "memo": 1} and len(store.data) == 1
    assert first == build_table(other, "cover", count=True)
    # a different shape is a different entry
    assert table_key(Model({**AXES, "y": ["a", "b", "c"]}), "cover", 0, 0) != table_key(Model(AXES), "cover", 0, 0)


def test_an_effort_level_name_and_its_number_share_one_key() -> None:
    m = Model({"a": [1, 2], "b": [1, 2]}, strength=2)
    assert table_key(m, "cover", "standard", 0) == table_key(m, "cover", 1, 0)
    assert table_key(m, "cover", "quick", 0) == table_key(m, "cover", 0, 0)
    assert table_key(m, "cover", "standard", 0) != table_key(m, "cover", 0, 0)


def test_engine_version_is_part_of_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    from pairwise_param import engine

    before = table_key(model(), "cover", 0, 0)
    monkeypatch.setattr(engine, "ENGINE_VERSION", engine.ENGINE_VERSION + "-next")
    assert table_key(model(), "cover", 0, 0) != before


@pytest.mark.parametrize(
    "corrupt",
    [
        lambda e: "not json",
        lambda e: None,
        lambda e: [],
        lambda e: {**e, "format": 0},
        lambda e: {**e, "engine": "0"},
        lambda e: {**e, "fingerprint": "x"},
        lambda e: {**e, "rows": [[0, 0, 0]]},
        lambda e: {**e, "rows": [[9, 0, 0, 0]]},
        lambda e: {**e, "rows": [[2, 2, 0, 0]]},  # breaks the constraint
        lambda e: {**e, "rows": [[0, 0, 0, 0], [0, 0, 0, 0]]},
        lambda e: {**e, "rows": [[True, 0, 0, 0]]},
        lambda e: {**e, "rows": []},
        lambda e: {**e, "infeasible": [[[0], [7]]]},
        lambda e: {**e, "full_count": "many"},
        lambda e: {**e, "full_exact": 1},
        lambda e: {**e, "format": 2},  # an entry of the format before full_exact
        lambda e: {k: v for k, v in e.items() if k != "rows"},
    ],
)
def test_corrupted_or_foreign_entries_are_rebuilt(corrupt: Any) -> None:
    store = DictStore()
    good = TableCache(store).get(model(), "cover")
    (key,) = store.data
    store.data[key] = json.dumps(corrupt(json.loads(store.data[key])))
    again = TableCache(store)
    assert again.get(model(), "cover") == good
    assert again.stats["built"] == 1
    assert json.loads(store.data[key])["rows"] == [list(r) for r in good.rows]  # overwritten


def _resign(entry: dict[str, Any], key: str) -> dict[str, Any]:
    """``entry`` with a digest recomputed as a careful forger would: only the
    semantic check can catch it then."""
    from pairwise_param.tables.build import Table
    from pairwise_param.tables.cache import _digest

    inf = tuple((tuple(s), tuple(v)) for s, v in entry["infeasible"])
    table = Table(tuple(tuple(r) for r in entry["rows"]), inf, entry["method"], entry["full_count"], entry["full_exact"])
    return {**entry, "digest": _digest(key, table)}


@pytest.mark.parametrize(
    "forge",
    [
        pytest.param(lambda e: {**e, "rows": e["rows"][:-1]}, id="row-dropped"),
        pytest.param(lambda e: {**e, "rows": e["rows"][1:]}, id="include-row-dropped"),
        pytest.param(lambda e: {**e, "rows": e["rows"][1:] + e["rows"][:1]}, id="include-row-moved"),
        pytest.param(lambda e: {**e, "infeasible": [*e["infeasible"], [[2, 3], [0, 0]]]}, id="fake-infeasible"),
        pytest.param(lambda e: {**e, "infeasible": []}, id="infeasible-dropped"),
    ],
)
@pytest.mark.parametrize("resign", [False, True], ids=["stale-digest", "forged-digest"])
def test_well_formed_but_incomplete_entries_are_rebuilt(forge: Any, resign: bool) -> None:
    """Regression (issue 17): a well-formed entry that lost rows or lies about
    infeasible tuples made pytest run fewer rows (2-way coverage 88.6%)."""
    m = model(include=[{"dtype": "fp32", "bias": 1, "x": True, "y": "b"}])
    store = DictStore()
    good = TableCache(store).get(m, "cover")
    (key,) = store.data
    entry = forge(json.loads(store.data[key]))
    store.data[key] = json.dumps(_resign(entry, key) if resign else entry)
    again = TableCache(store)
    assert again.get(m, "cover") == good
    assert again.stats == {"built": 1, "disk": 0, "memo": 0}


def test_a_changed_full_count_fails_the_digest() -> None:
    store = DictStore()
    good = TableCache(store).get(model(), "cover")
    (key,) = store.data
    store.data[key] = json.dumps({**json.loads(store.data[key]), "full_count": 1_679_616})
    again = TableCache(store)
    assert again.get(model(), "cover").full_count == good.full_count == 32
    assert again.stats["built"] == 1


def test_deeply_nested_entry_never_breaks_collection() -> None:
    store = DictStore()
    good = TableCache(store).get(model(), "cover")
    (key,) = store.data
    store.data[key] = "[" * 100_000 + "]" * 100_000  # json.loads: RecursionError
    again = TableCache(store)
    assert again.get(model(), "cover") == good
    assert again.stats["built"] == 1


def test_broken_store_never_breaks_collection() -> None:
    class Broken:
        def get(self, key: str, default: Any) -> Any:
            raise OSError("disk gone")

        def set(self, key: str, value: Any) -> None:
            raise OSError("read-only")

    cache = TableCache(Broken())
    assert cache.get(model(), "cover") == build_table(model(), "cover", count=True)


def test_full_mode_enumerates_and_is_not_stored() -> None:
    store = DictStore()
    t = TableCache(store).get(model(), "full")
    assert not store.data
    assert len(t.rows) == t.full_count == feasible_count(model()).value == 32
    assert t.rows == full_rows(model())
    assert list(t.rows) == sorted(t.rows)
    assert all(model().feasibility.violates(r) is None for r in t.rows)


# -- through pytest -------------------------------------------------------------------
SUITE = """
from pairwise_param import pairwise

@pairwise(a=[0, 1, 2], b=[0, 1], c=["x", "y", "z"], d=[False, True])
def test_one(a, b, c, d):
    pass

class TestTwo:
    @pairwise(p=[1, 2], q=[3, 4], r=[5, 6])
    def test_m1(self, p, q, r):
        pass

    @pairwise(p=[1, 2], q=[3, 4], r=[5, 6])
    def test_m2(self, p, q, r):
        pass
"""


def entries(pytester: pytest.Pytester) -> list[Path]:
    root = pytester.path / ".pytest_cache" / "v" / "pairwise_param" / "tables"
    return sorted(root.iterdir()) if root.exists() else []


def pack_file(pytester: pytest.Pytester) -> Path:
    return pytester.path / ".pytest_cache" / "v" / "pairwise_param" / "tables-pack"


def ids(result: pytest.RunResult) -> list[str]:
    return [line.strip() for line in result.outlines if "<Function" in line]


def test_plugin_cold_then_warm(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makepyfile(test_suite=SUITE)
    cold = pytester.runpytest("--collect-only", "-v", "-p", "no:randomly")  # compared in order
    cold.stdout.fnmatch_lines(["*[[]tables: 2 built, 0 from cache, 1 reused[]]"])
    assert entries(pytester) == []  # the plugin keeps one pack, not a file per table
    packed = json.loads(pack_file(pytester).read_text())["entries"]
    assert len(packed) == 2
    entry = next(iter(packed.values()))
    assert {"format", "engine", "fingerprint", "rows", "infeasible", "full_count"} <= set(entry)

    # a warm run never calls the engine
    from pairwise_param import engine

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("engine called on a warm cache")

    with monkeypatch.context() as mp:  # (not monkeypatch.undo(): pytester's chdir lives there)
        mp.setattr(engine, "generate", boom)
        warm = pytester.runpytest("--collect-only", "-v", "-p", "no:randomly")
    warm.stdout.fnmatch_lines(["*[[]tables: 0 built, 2 from cache, 1 reused[]]"])
    assert ids(warm) == ids(cold)

    # a corrupted entry is ignored, rebuilt and rewritten
    doc = json.loads(pack_file(pytester).read_text())
    first = min(doc["entries"])
    doc["entries"][first] = {"format": 1, "rows": [[0, 0]]}
    pack_file(pytester).write_text(json.dumps(doc))
    again = pytester.runpytest("--collect-only", "-v", "-p", "no:randomly")
    again.stdout.fnmatch_lines(["*[[]tables: 1 built, 1 from cache, 1 reused[]]"])
    assert ids(again) == ids(cold)
    assert json.loads(pack_file(pytester).read_text())["entries"][first]["rows"] == packed[first]["rows"]

    # a torn pack (two xdist workers wrote at once) is rebuilt, table by table
    pack_file(pytester).write_text(pack_file(pytester).read_text()[:-30])
    torn = pytester.runpytest("--collect-only", "-v", "-p", "no:randomly")
    torn.stdout.fnmatch_lines(["*[[]tables: 2 built, 0 from cache, 1 reused[]]"])
    assert ids(torn) == ids(cold)


@pytest.mark.parametrize("option", [["--pairwise-no-cache"], ["-p", "no:cacheprovider"]])
def test_plugin_without_disk_cache(pytester: pytest.Pytester, option: list[str]) -> None:
    pytester.makepyfile(test_suite=SUITE)
    for _ in range(2):
        result = pytester.runpytest("--collect-only", "-v", *option)
        result.stdout.fnmatch_lines(["*[[]tables: 2 built, 0 from cache, 1 reused[]]"])
    assert entries(pytester) == [] and not pack_file(pytester).exists()


def test_feasible_count_is_exact_above_a_million_combinations() -> None:
    """Regression (issue 17): a constrained group of 6^8 = 1,679,616
    combinations was counted as the unconstrained product ("21,261x") while
    full mode runs 1,287 rows (non-decreasing chains: C(13, 8))."""
    from math import comb

    names = [f"a{i}" for i in range(8)]
    chain = [eval(f"lambda {x}, {y}: {x} <= {y}") for x, y in itertools.pairwise(names)]
    m = Model({n: range(6) for n in names}, constraints=chain)
    assert m.full_product == 1_679_616
    assert feasible_count(m) == Count(comb(13, 8)) == Count(len(full_rows(m)))
    assert feasible_count(m).value == 1287 and feasible_count(m).exact
    # an unconstrained axis multiplies the count
    m2 = Model({**{n: range(6) for n in names}, "z": [1, 2, 3]}, constraints=chain)
    assert feasible_count(m2) == Count(3 * 1287)


def test_feasible_count_falls_back_to_an_upper_bound_past_the_work_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    from pairwise_param.tables import product

    m = Model({"a": range(4), "b": range(4), "c": range(2)}, constraints=[lambda a, b: a != b])
    assert feasible_count(m) == Count(12 * 2, exact=True)
    monkeypatch.setattr(product, "COUNT_LIMIT", 3)
    # the group's unconstrained product, never less, and marked as a bound
    assert feasible_count(m) == Count(16 * 2, exact=False)
    assert str(feasible_count(m)) == "at most 32"


# -- the pack: one store entry for every table (the plugin's layout) ---------------------
def test_pack_is_read_once_and_written_once_with_the_new_tables() -> None:
    from pairwise_param.tables.cache import PACK_KEY

    store = DictStore()
    cold = TableCache(store, pack=True)
    t1 = cold.get(model(), "cover")
    t2 = cold.get(model(strength=3), "cover")
    assert not store.data  # nothing written before the flush
    cold.flush()
    assert list(store.data) == [PACK_KEY]
    assert len(json.loads(store.data[PACK_KEY])["entries"]) == 2

    class Counting(DictStore):
        reads = 0
        writes = 0

        def get(self, key: str, default: Any) -> Any:
            Counting.reads += 1
            return super().get(key, default)

        def set(self, key: str, value: Any) -> None:
            Counting.writes += 1
            super().set(key, value)

    counting = Counting()
    counting.data = dict(store.data)
    warm = TableCache(counting, pack=True)
    assert warm.get(model(), "cover") == t1 and warm.get(model(strength=3), "cover") == t2
    assert warm.stats == {"built": 0, "disk": 2, "memo": 0}
    warm.flush()
    assert (Counting.reads, Counting.writes) == (1, 0)  # one read, no write: nothing new


@pytest.mark.parametrize("torn", [True, False])
def test_a_bad_pack_or_pack_entry_is_rebuilt_and_rewritten(torn: bool) -> None:
    from pairwise_param.tables.cache import PACK_KEY

    store = DictStore()
    first = TableCache(store, pack=True)
    good = first.get(model(), "cover")
    first.flush()
    doc = json.loads(store.data[PACK_KEY])
    (key,) = doc["entries"]
    if torn:
        store.data[PACK_KEY] = store.data[PACK_KEY][:-20]  # two workers wrote at once
    else:
        doc["entries"][key]["rows"] = doc["entries"][key]["rows"][:-1]
        store.data[PACK_KEY] = json.dumps(doc)
    again = TableCache(store, pack=True)
    assert again.get(model(), "cover") == good
    assert again.stats == {"built": 1, "disk": 0, "memo": 0}
    again.flush()
    assert json.loads(store.data[PACK_KEY])["entries"][key]["rows"] == [list(r) for r in good.rows]


def test_pack_reads_an_entry_of_the_one_file_layout_and_keeps_it() -> None:
    from pairwise_param.tables.cache import PACK_KEY

    store = DictStore()
    good = TableCache(store).get(model(), "cover")  # the one-file-per-table layout
    (key,) = store.data
    packed = TableCache(store, pack=True)
    assert packed.get(model(), "cover") == good
    assert packed.stats == {"built": 0, "disk": 1, "memo": 0}
    packed.flush()
    assert list(json.loads(store.data[PACK_KEY])["entries"]) == [key.rsplit("/", 1)[1]]
