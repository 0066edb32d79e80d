"""What the rows of a run did: executed coverage (skips), values skipped at collection,
suspicious combinations (failures), the run file, and the same under pytest-xdist.

Expectations are derived from the planted skips and faults, and checked against an
independent brute-force oracle (:func:`lost_tuples`, :func:`explaining`) that reads the
run file's rows and outcomes, never against numbers copied from an earlier run."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from schema_check import validate

from pairwise_param.runs.analysis import is_executed
from pairwise_param.runs.schema import RUN_SCHEMA

pytest.importorskip("xdist")

Combo = tuple[tuple[int, int], ...]


def run(pytester: pytest.Pytester, *args: str, xdist: bool = False) -> tuple[pytest.RunResult, dict[str, Any]]:
    report = pytester.path / "run.json"
    if report.exists():
        report.unlink()
    flags = ["-p", "no:randomly", f"--pairwise-report={report}", "-rs", *args]
    result = pytester.runpytest_subprocess("-n", "2", *flags) if xdist else pytester.runpytest(*flags)
    doc = json.loads(report.read_text())
    validate(doc, RUN_SCHEMA)
    return result, doc


def table_of(doc: dict[str, Any], name: str) -> dict[str, Any]:
    (table,) = [t for t in doc["tables"] if t["test"].endswith("::" + name)]
    return table


def tuples(row: list[int], scopes: list[list[int]]) -> set[Combo]:
    return {tuple((a, row[a]) for a in s) for s in scopes}


def lost_tuples(table: dict[str, Any]) -> set[tuple[str, Combo]]:
    """Oracle: (shape, t-tuple) the collected table covers but no executed item of a
    shape that ran at all covered."""
    rows, scopes = table["rows"], table["scopes"]
    every: set[Combo] = set().union(*(tuples(r, scopes) for r in rows))
    out = set()
    for shape in {i["shape"] for i in table["items"]}:
        ran = [rows[i["row"]] for i in table["items"] if i["shape"] == shape and is_executed(i)]
        if ran:
            out |= {(shape, c) for c in every - set().union(*(tuples(r, scopes) for r in ran))}
    return out


def explaining(table: dict[str, Any], shape: str, signature: str) -> set[Combo]:
    """Oracle: the minimal combinations of 1..t cells held by every failing item of the
    group and by no passing item of its shape (brute force over every combination)."""
    items = [i for i in table["items"] if i["shape"] == shape]
    fail = [table["rows"][i["row"]] for i in items if i["outcome"] in ("failed", "error") and i["signature"] == signature]
    ok = [table["rows"][i["row"]] for i in items if i["outcome"] == "passed"]
    sizes = [len(a["values"]) for a in table["axes"]]
    found: set[Combo] = set()
    for size in range(1, table["strength"] + 1):
        for scope in itertools.combinations(range(len(sizes)), size):
            for values in itertools.product(*(range(sizes[a]) for a in scope)):
                c = tuple(zip(scope, values))
                holds = [all(r[a] == v for a, v in c) for r in fail]
                minimal = not any(set(f) < set(c) for f in found)
                if all(holds) and minimal and not any(all(r[a] == v for a, v in c) for r in ok):
                    found.add(c)
    return found


def combos(group: dict[str, Any]) -> list[Combo]:
    return [tuple(tuple(cell) for cell in c["combination"]) for c in group["candidates"] if c["failing"] == group["failed"]]


# -- skips ------------------------------------------------------------------------------------
BODY_SKIP = """
import pytest
from pairwise_param import pairwise

@pairwise(dtype=["fp16", "bf16"], bias_mode=[0, 1, 2], xnorm=[False, True], pdl=[False, True]{extra})
@pytest.mark.parametrize("n", [1, 64])
def test_k(n, dtype, bias_mode, xnorm, pdl):
    if pdl:
        pytest.skip("enable_pdl needs Hopper")
"""


@pytest.mark.parametrize("xdist", [False, True], ids=["serial", "xdist"])
def test_an_in_body_skip_loses_tuples_and_the_summary_names_them_and_the_fix(
    pytester: pytest.Pytester, xdist: bool
) -> None:
    pytester.makepyfile(test_k=BODY_SKIP.format(extra=""))
    result, doc = run(pytester, xdist=xdist)
    table = table_of(doc, "test_k")
    expected = lost_tuples(table)
    assert expected  # rows with pdl=True were the only ones to cover some other pairs
    got = {(s, tuple(tuple(c) for c in e["combination"])) for e in table["coverage"]["lost"] for s in e["shapes"]}
    assert got == expected
    cov = table["coverage"]
    assert cov["collected"] - cov["executed"] == len(expected)
    every = set().union(*(tuples(r, table["scopes"]) for r in table["rows"]))
    assert cov["collected"] == len(every) * len(cov["shapes"])
    assert cov["reasons"] == [{"reason": "skipped: enable_pdl needs Hopper", "items": table["counts"]["skipped"]}]
    assert [s["constraint"] for s in cov["suggestion"]] == ['{"never": {"pdl": True}}']
    out = result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "*pairwise-param: executed coverage below the collected table*",
            (f"test_k.py::test_k: executed {cov['executed']} of {cov['collected']} 2-tuples ({cov['percent']:.1f}%); "
            f"lost {len(cov['lost'])}: *; skipped: enable_pdl needs Hopper (*); "
            'a constraint keeps every other tuple running: constraints=[[]{"never": {"pdl": True}}]'),
        ]
    )
    # the warning, once, in pytest's warnings summary, at the test's line
    assert out.count("PairwiseWarning: in test_k.py::test_k: executed coverage") == 1
    line = 1 + (pytester.path / "test_k.py").read_text().splitlines().index(next(
        t for t in (pytester.path / "test_k.py").read_text().splitlines() if t.startswith("@pairwise")))
    result.stdout.fnmatch_lines([f"test_k.py:{line}", "*PairwiseWarning*(*tuples lost; skipped: enable_pdl needs Hopper)*"])


def test_a_table_with_derived_values_is_measured_too(pytester: pytest.Pytester) -> None:
    """derived= values ride in the row's one-row mark after the table's names: the
    table must still be matched to its items (it was silently left unmeasured)."""
    body = BODY_SKIP.format(extra=', derived={"atol": lambda dtype, xnorm: 0.1}')
    pytester.makepyfile(test_k=body.replace("xnorm, pdl):", "xnorm, pdl, atol):"))
    result, doc = run(pytester)
    table = table_of(doc, "test_k")
    assert len(table["items"]) == 2 * len(table["rows"])
    got = {(s, tuple(tuple(c) for c in e["combination"])) for e in table["coverage"]["lost"] for s in e["shapes"]}
    assert got == lost_tuples(table) and got
    result.stdout.fnmatch_lines(["*pairwise-param: executed coverage below the collected table*"])


def test_w_error_makes_a_run_that_lost_tuples_fail(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_k=BODY_SKIP.format(extra=""))
    result = pytester.runpytest("-p", "no:randomly", "-W", "error::pairwise_param.errors.PairwiseWarning")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    counts = result.parseoutcomes()
    assert counts["passed"] > 0 and counts["skipped"] > 0 and "failed" not in counts
    result.stdout.fnmatch_lines(["*-W error turns the executed-coverage PairwiseWarning into a failure*"])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


def test_applying_the_suggested_constraint_restores_full_executed_coverage(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_k=BODY_SKIP.format(extra=""))
    _, doc = run(pytester)
    rule = table_of(doc, "test_k")["coverage"]["suggestion"][0]["constraint"]
    pytester.makepyfile(test_k=BODY_SKIP.format(extra=f", constraints=[{rule}]"))
    result, doc = run(pytester)
    table = table_of(doc, "test_k")
    assert table["coverage"]["lost"] == [] and table["coverage"]["percent"] == 100.0
    assert table["counts"]["skipped"] == 0
    assert "executed coverage below" not in result.stdout.str()
    assert "PairwiseWarning" not in result.stdout.str()


def test_a_skip_for_one_shape_is_a_loss_named_with_the_shape(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_s="""
        import pytest
        from pairwise_param import pairwise

        @pairwise(dtype=["fp16", "bf16"], bias_mode=[0, 1, 2], xnorm=[False, True])
        @pytest.mark.parametrize("n", [1, 64])
        def test_s(n, dtype, bias_mode, xnorm):
            if n == 64 and bias_mode == 2:
                pytest.skip("bias 2 needs n < 64")
        """
    )
    result, doc = run(pytester)
    table = table_of(doc, "test_s")
    lost = table["coverage"]["lost"]
    assert lost and all(e["shapes"] == ["64"] for e in lost)
    assert {(s, tuple(tuple(c) for c in e["combination"])) for e in lost for s in e["shapes"]} == lost_tuples(table)
    assert all(any(a == 1 and v == 2 for a, v in e["combination"]) for e in lost)  # every loss holds bias_mode=2
    result.stdout.fnmatch_lines(
        [("test_s.py::test_s: executed * {dtype=fp16, bias_mode=2} [[]64], * (what did not run is specific to shape 64; "
         "the rule applies to every shape)")]
    )
    assert [(s["text"], s["shapes"]) for s in table["coverage"]["suggestion"]] == [("{bias_mode=2}", ["64"])]


def test_a_whole_skipped_test_or_shape_is_not_reported_as_lost(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_w="""
        import pytest
        from pairwise_param import pairwise

        @pytest.mark.skip(reason="no GPU")
        @pairwise(dtype=["fp16", "bf16"], bias_mode=[0, 1, 2])
        def test_all(dtype, bias_mode):
            pass

        @pairwise(dtype=["fp16", "bf16"], bias_mode=[0, 1, 2])
        @pytest.mark.parametrize("n", [1, 4096])
        def test_big(n, dtype, bias_mode):
            if n == 4096:
                pytest.skip("needs 80 GB")
        """
    )
    result, doc = run(pytester)
    assert table_of(doc, "test_all")["coverage"]["shapes_not_run"] == [""]
    big = table_of(doc, "test_big")["coverage"]
    assert big["shapes"] == ["1"] and big["shapes_not_run"] == ["4096"] and big["lost"] == []
    assert "executed coverage below" not in result.stdout.str()


def test_a_selection_is_counted_in_the_run_file_but_not_warned_about(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_sel="""
        from pairwise_param import pairwise

        @pairwise(dtype=["fp16", "bf16"], bias_mode=[0, 1, 2], xnorm=[False, True])
        def test_sel(dtype, bias_mode, xnorm):
            pass
        """
    )
    result, doc = run(pytester, "-k", "fp16")
    table = table_of(doc, "test_sel")
    assert table["coverage"]["lost"] and table["coverage"]["lost"] == [
        e for e in table["coverage"]["lost"] if e["because"] == ["not selected"]
    ]
    assert {(s, tuple(tuple(c) for c in e["combination"])) for e in table["coverage"]["lost"] for s in e["shapes"]} == (
        lost_tuples(table)
    )
    out = result.stdout.str()
    assert "executed coverage below" not in out and "PairwiseWarning" not in out


SKIP_MARK = """
import pytest
from pairwise_param import pairwise

@pairwise(dtype=["fp16", pytest.param("bf16", marks={mark}), "fp32"],
          bias_mode=[0, 1, 2], xnorm=[False, True], padded=[False, True])
def test_m(dtype, bias_mode, xnorm, padded):
    pass
"""


@pytest.mark.parametrize(
    "mark",
    ['pytest.mark.skipif(True, reason="no bf16 here")', 'pytest.mark.skip(reason="no bf16 here")'],
    ids=["skipif-true", "skip"],
)
def test_a_value_skipped_at_collection_is_left_out_and_every_other_pair_runs(
    pytester: pytest.Pytester, mark: str
) -> None:
    pytester.makepyfile(test_m=SKIP_MARK.format(mark=mark))
    result, doc = run(pytester)
    table = table_of(doc, "test_m")
    assert table["absent"] == [{"axis": 0, "value": 1, "reason": "no bf16 here"}]
    assert table["counts"]["skipped"] == 0 and table["counts"]["executed"] == table["counts"]["items"]
    # every pair of the values that can run is executed; every pair with bf16 is listed
    sizes = [len(a["values"]) for a in table["axes"]]
    can_run = [[v for v in range(s) if (a, v) != (0, 1)] for a, s in enumerate(sizes)]
    ran = set().union(*(tuples(table["rows"][i["row"]], table["scopes"]) for i in table["items"]))
    for a, b in itertools.combinations(range(len(sizes)), 2):
        for va, vb in itertools.product(can_run[a], can_run[b]):
            assert ((a, va), (b, vb)) in ran
    listed = {tuple(tuple(c) for c in combo) for combo in table["infeasible_absent"]}
    assert listed == {((0, 1), (b, vb)) for b in range(1, len(sizes)) for vb in range(sizes[b])}
    assert table["infeasible"] == []
    result.stdout.fnmatch_lines(
        [
            "*t-tuples not covered (constraints or collection skips)*",
            (f"test_m.py::test_m: {len(listed)} tuples: skipped at collection (dtype=bf16: no bf16 here): "
            "{dtype=bf16, bias_mode=0}, *"),
        ]
    )
    # full mode keeps pytest's own counts: the value's rows are collected and skipped
    full = pytester.runpytest("-p", "no:randomly", "--pairwise-mode=full")
    full.assert_outcomes(passed=2 * 3 * 2 * 2, skipped=3 * 2 * 2)


def test_values_skipped_at_collection_give_the_same_run_under_xdist(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the platform comes from torch only where the tests imported it: an in-process run sees
    # this process's modules, xdist's workers their own; name it, as a CI would
    monkeypatch.setenv("PAIRWISE_PLATFORM", "cpu")
    pytester.makepyfile(test_m=SKIP_MARK.format(mark='pytest.mark.skipif(True, reason="no bf16 here")'))
    _, serial = run(pytester)
    result, dist = run(pytester, xdist=True)
    assert dist == serial
    result.stdout.fnmatch_lines(["*skipped at collection (dtype=bf16: no bf16 here)*"])


@pytest.mark.parametrize(
    "mark",
    ['pytest.mark.skipif(False, reason="r")', 'pytest.mark.skipif("1 == 1", reason="r")'],
    ids=["false", "string"],
)
def test_false_or_string_skip_conditions_keep_the_value_in_the_table(pytester: pytest.Pytester, mark: str) -> None:
    pytester.makepyfile(test_m=SKIP_MARK.format(mark=mark))
    _result, doc = run(pytester)
    table = table_of(doc, "test_m")
    assert table["absent"] == []
    assert any(row[0] == 1 for row in table["rows"])
    assert table["counts"]["skipped"] == (0 if "False" in mark else sum(1 for r in table["rows"] if r[0] == 1))


def test_every_value_of_an_axis_skipped_keeps_todays_behaviour(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_all="""
        import pytest
        from pairwise_param import pairwise

        S = pytest.mark.skip(reason="none")

        @pairwise(dtype=[pytest.param("a", marks=S), pytest.param("b", marks=S)], bias=[0, 1])
        def test_all(dtype, bias):
            pass
        """
    )
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(skipped=4)


# -- failures ---------------------------------------------------------------------------------
FAULTS = """
import pytest
from pairwise_param import pairwise

@pairwise(dtype=["fp16", "bf16", "fp32"], bias_mode=[0, 1, 2], xnorm=[False, True],
          padded_a=[False, True], acc=["fp32", "fp16"])
@pytest.mark.parametrize("n", [1, 64])
def test_k(n, dtype, bias_mode, xnorm, padded_a, acc):
    {body}
"""


def failure_groups(doc: dict[str, Any], name: str) -> list[dict[str, Any]]:
    return table_of(doc, name)["suspicious"]


@pytest.mark.parametrize("xdist", [False, True], ids=["serial", "xdist"])
def test_a_single_value_fault_is_named(pytester: pytest.Pytester, xdist: bool) -> None:
    pytester.makepyfile(test_k=FAULTS.format(body='assert dtype != "bf16", f"mismatch in {n} elements"'))
    result, doc = run(pytester, xdist=xdist)
    groups = failure_groups(doc, "test_k")
    assert {g["shape"] for g in groups} == {"1", "64"}
    table = table_of(doc, "test_k")
    every = set().union(*(tuples(r, table["scopes"]) for r in table["rows"]))
    assert table["coverage"]["collected"] == table["coverage"]["executed"] == 2 * len(every)  # nothing lost
    for g in groups:
        assert g["signature"] == "AssertionError: mismatch in <n> elements"  # one bug across n
        assert g["verdict"] == "decided"
        assert combos(g) == [((0, 1),)] == sorted(explaining(table_of(doc, "test_k"), g["shape"], g["signature"]))
    result.stdout.fnmatch_lines(
        [
            "*pairwise-param: suspicious combinations*",
            ("test_k.py::test_k [[]1, 64[]]: * items per shape failed with AssertionError: mismatch in <n> elements; "
            "every failure holds {dtype=bf16}; no passing item holds it"),
        ]
    )


def test_a_two_value_fault_is_among_the_candidates_and_the_list_is_exact(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_k=FAULTS.format(body="assert not (bias_mode == 2 and padded_a), 'wrong bias'"))
    result, doc = run(pytester)
    table = table_of(doc, "test_k")
    for g in table["suspicious"]:
        truth = ((1, 2), (3, 1))
        oracle = explaining(table, g["shape"], g["signature"])
        assert truth in oracle
        assert set(combos(g)) == oracle
        assert g["verdict"] == ("decided" if len(oracle) == 1 else "ambiguous")
    lines = [line for line in result.outlines if line.startswith("test_k.py::test_k [")]
    assert 1 <= len(lines) <= len(table["suspicious"])  # shapes that read the same share a line
    for g in table["suspicious"]:
        if g["verdict"] == "decided":
            want = "every failure holds {bias_mode=2, padded_a=True}; no passing item holds it"
        else:
            want = f"{g['explaining']} candidates remain"
        assert any(want in line and g["shape"] in line for line in lines)
    assert all("every failure holds" in line or "`pairwise-param localize`" in line for line in lines)


@pytest.mark.parametrize("xdist", [False, True], ids=["serial", "xdist"])
def test_two_faults_with_different_signatures_are_explained_separately(pytester: pytest.Pytester, xdist: bool) -> None:
    body = (
        "if dtype == 'fp32' and acc == 'fp16':\n"
        "        raise ValueError('fp16 accumulator for fp32 input')\n"
        "    assert bias_mode != 1, 'bias 1 mismatch'"
    )
    pytester.makepyfile(test_k=FAULTS.format(body=body))
    result, doc = run(pytester, xdist=xdist)
    table = table_of(doc, "test_k")
    by_sig: dict[str, list[dict[str, Any]]] = {}
    for g in table["suspicious"]:
        by_sig.setdefault(g["signature"], []).append(g)
    assert set(by_sig) == {"ValueError: fp16 accumulator for fp32 input", "AssertionError: bias <n> mismatch"}
    truth = {"ValueError: fp16 accumulator for fp32 input": ((0, 2), (4, 1)), "AssertionError: bias <n> mismatch": ((1, 1),)}
    for sig, groups in by_sig.items():
        for g in groups:
            assert truth[sig] in set(combos(g)) == explaining(table, g["shape"], sig)
    result.stdout.fnmatch_lines(["*failed with AssertionError: bias <n> mismatch; every failure holds {bias_mode=1}*"])


def test_a_fault_of_more_than_t_values_is_reported_as_undecided(pytester: pytest.Pytester) -> None:
    # full mode: every pair of the failing row also passes elsewhere (flaky-looking to t=2)
    pytester.makepyfile(
        test_f="""
        import pytest
        from pairwise_param import pairwise

        @pairwise(a=[0, 1], b=[0, 1], c=[0, 1], mode="full")
        def test_f(a, b, c):
            assert not (a and b and c), "three-way"
        """
    )
    result, doc = run(pytester)
    (g,) = table_of(doc, "test_f")["suspicious"]
    assert g["verdict"] == "unexplained" and g["candidates"] == []
    assert g["unexplained_nodeids"] == g["failing_nodeids"] and len(g["failing_nodeids"]) == 1
    result.stdout.fnmatch_lines(
        [
            ("test_f.py::test_f: 1 of 8 items failed with AssertionError: three-way; no combination of up to 2 "
            "values is held by every failure and by no passing item; 1 failing item holds no combination that "
            "passed nowhere (flaky, or a fault of more than 2 values: try --pairwise-strength=3)*")
        ]
    )


def test_mixed_outcomes_xfail_xpass_and_skip_are_not_failures(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_x="""
        import pytest
        from pairwise_param import pairwise

        XF = pytest.mark.xfail(reason="known", strict=False)

        @pairwise(dtype=["fp16", pytest.param("bf16", marks=XF)], bias=[0, 1, 2], flag=[False, True])
        def test_x(dtype, bias, flag):
            if flag and bias == 0:
                pytest.skip("later")
            assert not (dtype == "bf16" and bias == 1)
            assert bias != 2 or dtype == "bf16", "bias 2"
        """
    )
    _result, doc = run(pytester)
    table = table_of(doc, "test_x")
    c = table["counts"]
    assert c["xfailed"] >= 1 and c["failed"] >= 1
    (g,) = table["suspicious"]
    failing = {i["nodeid"] for i in table["items"] if i["outcome"] == "failed"}
    assert set(g["failing_nodeids"]) == failing
    assert all("bf16" not in n for n in failing)  # xfail/xpass rows are never counted as failures
    assert set(combos(g)) == explaining(table, "", g["signature"])


def test_errors_in_setup_are_failures_with_their_own_signature(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_e="""
        import pytest
        from pairwise_param import pairwise

        @pytest.fixture
        def dev(dtype):
            if dtype == "bf16":
                raise RuntimeError("no bf16 kernel built")

        @pairwise(dtype=["fp16", "bf16"], bias=[0, 1, 2], flag=[False, True])
        def test_e(dev, dtype, bias, flag):
            pass
        """
    )
    _result, doc = run(pytester)
    (g,) = table_of(doc, "test_e")["suspicious"]
    assert g["signature"] == "RuntimeError: no bf16 kernel built" and combos(g) == [((0, 1),)]
    # a set-up error is also a row that did not run
    assert table_of(doc, "test_e")["coverage"]["reasons"][0]["reason"].startswith("set-up error: RuntimeError")


# -- the run file, the cache, options -----------------------------------------------------------------
def test_the_run_is_cached_for_localize_but_not_by_collect_only(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_k=BODY_SKIP.format(extra=""))
    pytester.runpytest("-p", "no:randomly")
    cache = pytester.path / ".pytest_cache" / "v" / "pairwise" / "lastrun"
    doc = json.loads(cache.read_text())
    validate(doc, RUN_SCHEMA)
    first = cache.read_text()
    pytester.runpytest("--collect-only", "-q")
    assert cache.read_text() == first


def test_bad_report_path_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_k=BODY_SKIP.format(extra=""))
    result = pytester.runpytest(f"--pairwise-report={pytester.path}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--pairwise-report=* is not a file name*"])


def test_stacked_tables_are_measured_one_by_one(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_two="""
        import pytest
        from pairwise_param import pairwise

        @pairwise(a=[0, 1], b=[0, 1], c=[0, 1])
        @pairwise(x=["p", "q"], y=["p", "q"])
        def test_two(a, b, c, x, y):
            assert not (x == "q" and y == "q")
        """
    )
    _, doc = run(pytester)
    tables = sorted((t for t in doc["tables"] if t["test"].endswith("test_two")), key=lambda t: t["table"])
    assert [len(t["axes"]) for t in tables] == [3, 2] or [len(t["axes"]) for t in tables] == [2, 3]
    xy = next(t for t in tables if len(t["axes"]) == 2)
    (g,) = xy["suspicious"]
    assert combos(g) == [((0, 1), (1, 1))]


def test_the_run_file_is_the_same_with_and_without_xdist(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAIRWISE_PLATFORM", "cpu")  # see the test above: torch imported here or not
    body = "assert not (bias_mode == 2 and padded_a), 'wrong'\n    if acc == 'fp16' and n == 64:\n        pytest.skip('no')"
    pytester.makepyfile(test_k=FAULTS.format(body=body))
    _, serial = run(pytester)
    _, dist = run(pytester, xdist=True)
    assert dist == serial


def test_collect_only_matches_no_item_to_its_row_and_writes_no_run_file(pytester: pytest.Pytester) -> None:
    """``--collect-only`` runs nothing and writes no run file, so the plugin builds no
    run-file payload (collection cost at scale, issue 24 item 9); a run then writes it."""
    pytester.makepyfile(
        test_m="from pairwise_param import pairwise\n\n"
        "@pairwise(a=[1, 2, 3], b=[1, 2], c=['x', 'y'])\ndef test_m(a, b, c):\n    pass\n"
    )
    pytester.makeconftest(
        "def pytest_sessionfinish(session):\n"
        "    print('outcomes plugin:', session.config.pluginmanager.has_plugin('pairwise-param-outcomes'))\n"
    )
    collected = pytester.runpytest("--collect-only", "-q", "-s", "-p", "no:randomly")
    collected.stdout.fnmatch_lines(["*outcomes plugin: False*"])
    assert not (pytester.path / ".pytest_cache" / "v" / "pairwise" / "lastrun").exists()
    ran = pytester.runpytest("-q", "-s", "-p", "no:randomly")
    ran.stdout.fnmatch_lines(["*outcomes plugin: True*"])
    doc = json.loads((pytester.path / ".pytest_cache" / "v" / "pairwise" / "lastrun").read_text())
    (table,) = doc["tables"]
    assert len(table["items"]) == len(table["rows"]) == 6


def test_each_item_is_matched_to_the_row_it_received(pytester: pytest.Pytester) -> None:
    """The run file's row of every item is the row the item's arguments came from, with
    values that compare equal (0.0 and -0.0), a grouped axis, an indirect axis, derived=
    values, two tables on one test and a stacked parametrize (the item -> row link reads
    the item's own arguments, not a mark)."""
    pytester.makepyfile(
        test_k="""
        import json, pytest
        from pairwise_param import pairwise

        @pytest.fixture
        def kind(request):
            return request.param

        @pairwise({"n,k": [(1, 2), (3, 4), (5, 6)]}, z=[0.0, -0.0], kind=["a", "b"], indirect=["kind"],
                  derived={"tag": lambda z, kind: f"{z}{kind}"})
        @pairwise(flag=[False, True], level=[0, 1, 2])
        @pytest.mark.parametrize("shape", [8, 16])
        def test_k(request, n, k, z, kind, tag, flag, level, shape):
            with open("got.log", "a") as f:
                f.write(json.dumps([request.node.nodeid, [n, k], str(z), kind, tag, flag, level]) + "\\n")
        """
    )
    result, doc = run(pytester)
    result.assert_outcomes(passed=2 * 6 * 6)  # two shapes x 6 rows of each table (stacked: product)
    got: dict[str, dict[str, str]] = {}
    for line in (pytester.path / "got.log").read_text().splitlines():
        nodeid, (n, k), z, kind, tag, flag, level = json.loads(line)
        assert tag == f"{z}{kind}"
        got[nodeid] = {"n": repr(n), "k": repr(k), "z": z, "kind": repr(kind), "flag": repr(flag), "level": repr(level)}
    tables = [t for t in doc["tables"] if t["test"].endswith("::test_k")]
    assert len(tables) == 2
    for table in tables:
        assert sorted(i["nodeid"] for i in table["items"]) == sorted(got)
        for item in table["items"]:
            row = table["rows"][item["row"]]
            for axis, v in zip(table["axes"], row):
                reprs = axis["reprs"][v] if len(axis["names"]) > 1 else [axis["reprs"][v]]
                for name, text in zip(axis["names"], reprs):
                    assert got[item["nodeid"]][name] == text, (item, name)
