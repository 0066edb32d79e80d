"""The run file as one typed document (pairwise_param.runs.document): load validates, dump
writes what the plugin wrote, every malformed file is a clear InvalidRunFile naming the place."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pairwise_param.errors import InvalidRunFile
from pairwise_param.runs.document import RunDocument, document_from_json, dump, load, to_json

SUITE = """
import pytest
from pairwise_param import pairwise

@pairwise(dtype=["fp16", "bf16"], bias=[0, 1, 2], xnorm=[False, True], pdl=[False, True])
@pytest.mark.parametrize("n", [1, 64])
def test_k(n, dtype, bias, xnorm, pdl):
    if pdl and n == 64:
        pytest.skip("enable_pdl needs Hopper")
    assert not (dtype == "bf16" and bias == 2), "mismatch"

@pairwise({"m,k": [(1, 64), (8, 128)]}, flag=[True, False])
def test_grouped(m, k, flag):
    pass
"""


@pytest.fixture(scope="module")
def run_text(tmp_path_factory: pytest.TempPathFactory) -> str:
    pytester_dir = tmp_path_factory.mktemp("suite")
    (pytester_dir / "test_suite.py").write_text(SUITE)
    import subprocess
    import sys

    out = pytester_dir / "run.json"
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
                    f"--pairwise-report={out}", str(pytester_dir / "test_suite.py")], cwd=pytester_dir, check=False,
                   capture_output=True)
    return out.read_text(encoding="utf-8")


def test_dump_writes_back_what_the_plugin_wrote(run_text: str, tmp_path: Path) -> None:
    doc = load(run_text)
    assert isinstance(doc, RunDocument) and len(doc.tables) == 2
    assert dump(doc) == run_text
    f = tmp_path / "r.json"
    f.write_text(run_text)
    assert load(f) == doc and load(str(f)) == doc
    assert document_from_json(json.loads(run_text)) == doc
    k = next(t for t in doc.tables if t.test.endswith("test_k"))
    assert k.axes[0].values == ("fp16", "bf16") and k.counts.failed > 0 and k.coverage.percent is not None
    grouped = next(t for t in doc.tables if t.test.endswith("test_grouped"))
    assert grouped.axes[0].reprs[0] == ("1", "64")  # a grouped value: one text per part


def _mutations() -> list[tuple[str, Callable[[dict[str, Any]], Any], str]]:
    def t0(d: dict[str, Any]) -> dict[str, Any]:
        return d["tables"][0]  # type: ignore[no-any-return]

    return [
        ("values shortened", lambda d: t0(d)["axes"][1]["values"].pop(), "$.tables[0].axes[1].reprs"),
        ("values shortened, reprs too",
         lambda d: (t0(d)["axes"][1]["values"].pop(), t0(d)["axes"][1]["reprs"].pop()), "outside its axis"),
        ("strength 99", lambda d: t0(d).update(strength=99), "$.tables[0].strength: 99, but the table has 4 axes"),
        ("tables null", lambda d: d.update(tables=None), "$.tables: None is not array"),
        ("a cell 0.9", lambda d: t0(d)["rows"][0].__setitem__(1, 0.9), "$.tables[0].rows[0][1]: 0.9 is not integer"),
        ("a cell True", lambda d: t0(d)["rows"][0].__setitem__(1, True), "$.tables[0].rows[0][1]: True is not integer"),
        ("a cell '1'", lambda d: t0(d)["rows"][0].__setitem__(1, "1"), "$.tables[0].rows[0][1]: '1' is not integer"),
        ("no rows", lambda d: t0(d).update(rows=[]), "$.tables[0].rows: no rows"),
        ("percent 110.8", lambda d: t0(d)["coverage"].update(percent=110.8), "is above the maximum 100"),
        ("percent disagrees", lambda d: t0(d)["coverage"].update(percent=12.5), "$.tables[0].coverage.percent: 12.5"),
        ("executed > collected",
         lambda d: t0(d)["coverage"].update(executed=t0(d)["coverage"]["collected"] + 1), "coverage.executed"),
        ("counts disagree", lambda d: t0(d)["counts"].update(passed=999), "$.tables[0].counts.passed: 999"),
        ("a scope outside", lambda d: t0(d)["scopes"].append([0, 7]), "$.tables[0].scopes["),
        ("row ids short", lambda d: t0(d)["row_ids"].pop(), "$.tables[0].row_ids"),
        ("infeasible outside", lambda d: t0(d)["infeasible"].append([[0, 5], [1, 0]]), "$.tables[0].infeasible[0][0]"),
        ("absent outside", lambda d: t0(d)["absent"].append({"axis": 9, "value": 0, "reason": "x"}),
         "$.tables[0].absent[0]"),
        ("lost outside", lambda d: t0(d)["coverage"]["lost"].append(
            {"combination": [[0, 9]], "text": "x", "shapes": [], "because": []}), "$.tables[0].coverage.lost"),
        ("a stray shape", lambda d: t0(d)["coverage"]["shapes"].append("zzz"), "'zzz' is the shape of no item"),
        ("item row outside", lambda d: t0(d)["items"][0].update(row=999), "$.tables[0].items[0].row: 999"),
        ("outcome", lambda d: t0(d)["items"][0].update(outcome="weird"), "'weird' is not one of"),
        ("a key missing", lambda d: t0(d).pop("fingerprint"), "$.tables[0]: the key 'fingerprint' is missing"),
        ("a grouped repr of ints", lambda d: t0(d)["axes"][0]["reprs"].__setitem__(0, [1, 2]),
         "$.tables[0].axes[0].reprs[0]"),
        ("version 9", lambda d: d.update(schema_version=9), "run file version 9"),
        ("a shard past the count", lambda d: d.update(shard={"index": 3, "count": 3, "source": "x"}),
         "$.shard.index: 3, but there are 3 shards"),
        ("a platform without a name", lambda d: d.update(platform={"device": "x"}), "the key 'name' is missing"),
        ("another schema", lambda d: d.update(schema="x"), "not a pairwise-param run file"),
        ("empty axes", lambda d: d.update(empty=[{"test": "t", "location": ["t.py", 1], "axes": []}]),
         "$.empty[0].axes: 0 items"),
    ]


@pytest.mark.parametrize(("name", "mutate", "message"), _mutations(), ids=[m[0] for m in _mutations()])
def test_every_malformed_file_is_a_clear_error(run_text: str, name: str, mutate: Callable[[dict[str, Any]], Any],
                                               message: str) -> None:
    doc = json.loads(run_text)
    doc["tables"].sort(key=lambda t: not t["test"].endswith("test_k"))  # tables[0]: test_k (4 axes)
    bad = copy.deepcopy(doc)
    mutate(bad)
    with pytest.raises(InvalidRunFile) as info:
        load(json.dumps(bad))
    assert message in str(info.value), str(info.value)


@pytest.mark.parametrize("text", ["[" * 100_000, "{" + '"a":[' * 50_000, "", "not json", "[]", "42", "\xff"])
def test_text_that_is_no_run_file_is_a_clear_error(text: str, tmp_path: Path) -> None:
    f = tmp_path / "r.json"
    f.write_bytes(text.encode("latin-1") if text == "\xff" else text.encode())
    with pytest.raises(InvalidRunFile) as info:
        load(f)
    assert str(f) in str(info.value)


def test_a_missing_file_names_it(tmp_path: Path) -> None:
    with pytest.raises(InvalidRunFile, match="cannot read it"):
        load(tmp_path / "none.json")


def test_to_json_is_the_layout(run_text: str) -> None:
    from schema_check import validate

    from pairwise_param.runs.schema import RUN_SCHEMA

    data = to_json(load(run_text))
    validate(data, RUN_SCHEMA)
    assert list(data) == ["schema", "schema_version", "exitstatus", "shard", "build", "platform", "collected",
                          "tables", "empty"]


def test_a_version_1_file_still_reads(run_text: str) -> None:
    old = json.loads(run_text)
    old["schema_version"] = 1
    for key in ("shard", "build", "platform", "collected"):
        del old[key]
    doc = load(json.dumps(old))
    assert doc.schema_version == 1 and doc.shard is None and doc.build is None and doc.collected is None
    assert doc.tables == load(run_text).tables
    assert json.loads(dump(doc))["schema_version"] == 2  # written again: the current version


def _paths(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON document (the first two entries of each list)."""
    out = [path]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node[:2]):
            out += _paths(v, (*path, i))
    return out


@pytest.mark.parametrize("swap", [None, "text", -1, True, [], {}, 1.5])
def test_the_compiled_schema_accepts_exactly_what_the_messages_accept(run_text: str, swap: Any) -> None:
    """runs/schema._valid (one function per sub-schema, the fast pass over a run) and
    _check (the messages) agree at every place of a real run file, for every kind of
    value put there."""
    from pairwise_param.runs.schema import RUN_SCHEMA, _check, _valid

    doc = json.loads(run_text)
    assert _valid(RUN_SCHEMA)(doc)
    for path in _paths(doc)[1:]:
        bad = copy.deepcopy(doc)
        node = bad
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = swap
        found: list[str] = []
        _check(bad, RUN_SCHEMA, "$", found, 10)
        assert _valid(RUN_SCHEMA)(bad) == (not found), (path, swap, found)
