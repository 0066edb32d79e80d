"""The audit of hand-written lists on a suite (issue 10 section 2): case tables are
grouped axes, marks and pyproject override the rule, constraints audit "the valid
combinations", repeated rows are noted, and the @pairwise column shows the win."""

from __future__ import annotations

import pytest

from tests.report.test_cli_report import by_function, cov, report_json, run

SUITE = """
import pytest

@pytest.mark.parametrize("x,expected", [(1, 1), (2, 4), (2, 4)])
def test_square(x, expected):
    pass

@pytest.mark.parametrize("dtype,quant", [("f16", "fp8"), ("bf16", "fp8"), ("f32", "int8")])
def test_quant(dtype, quant):
    pass

@pytest.mark.parametrize("a,b,c", [(True, False, False), (False, True, False), (False, False, True)])
def test_one_hot(a, b, c):
    pass

@pytest.mark.parametrize("dtype,bias,fused", [("f16", True, True), ("f16", False, False), ("bf16", True, False)])
def test_gap(dtype, bias, fused):
    pass

@pytest.mark.parametrize("dtype,layout,fused", [("f16", "a", True), ("bf16", "b", False), ("f32", "c", True), ("f16", "b", False)])
def test_short(dtype, layout, fused):
    pass

@pytest.mark.parametrize("dtype,fused,unroll", [("f16", True, 1), ("f16", False, 2), ("bf16", True, 2), ("bf16", False, 1),
                                                ("f32", True, 1)])
def test_unsure(dtype, fused, unroll):
    pass

@pytest.mark.pairwise_cases
@pytest.mark.parametrize("dtype,bias,fused", [("f16", True, True), ("f16", False, False), ("bf16", True, False)])
def test_gap_said_cases(dtype, bias, fused):
    pass

@pytest.mark.pairwise_options
@pytest.mark.parametrize("dtype,bias,fused", [("f16", True, True), ("f16", False, False), ("bf16", True, False)])
def test_gap_said_options(dtype, bias, fused):
    pass

@pytest.mark.parametrize("dtype,bias,mode", [(d, b, m) for d in ("f16", "bf16") for b in (True, False)
                                             for m in ("a", "b", "c") if (d, m) != ("bf16", "c")])
def test_gap_options(dtype, bias, mode):
    pass

@pytest.mark.pairwise_options("mode,backend", constraints=[lambda mode, backend: backend != "fa3" or mode == "prefill"])
@pytest.mark.parametrize("mode,backend", [("prefill", "fa2"), ("prefill", "fa3"), ("decode", "fa2")])
def test_valid_only(mode, backend):
    pass

@pytest.mark.parametrize("dtype", ["f16", "bf16", "f32"])
@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("paged", [True, False])
@pytest.mark.parametrize("softcap", [None, 30.0])
@pytest.mark.parametrize("n", [1, 7, 64])
def test_stacked(dtype, causal, paged, softcap, n):
    pass
"""


def test_default_rule_on_a_suite(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    pytester.makepyfile(test_suite=SUITE)
    code, doc = report_json(capsys, "--strength", "2", "--fail-under", "100")
    tests = by_function(doc)
    for name in ("test_square", "test_quant", "test_one_hot", "test_short", "test_gap_said_cases"):
        t = tests[name]
        assert t["tables"] == [] and t["full_product"] == t["collected"] == t["axes"][0]["size"], name
        assert [a["kind"] for a in t["axes"]] == ["grouped"], name
    assert any("repeat an earlier row" in n and "row 2" in n for n in tests["test_square"]["notes"])
    assert any("case table" in n and "expected" in n for n in tests["test_square"]["notes"])
    # a short list (4 rows over 3x3x2, below 3/4 of a covering table's 9) is a case table
    assert any("case table" in n and "short list" in n for n in tests["test_short"]["notes"])
    # 3 rows over 2x2x2: a covering table's 4 rows less one, an option table with its hole gated
    gap = tests["test_gap"]
    assert [tb["verdict"] for tb in gap["tables"]] == ["option"] and gap["below_fail_under"]
    # options at a covering table's size but for an int column that may be sizes or codes
    # (unroll): uncertain, coverage shown, FULL counts its rows, never in the totals nor the gate
    unsure = tests["test_unsure"]
    assert [tb["verdict"] for tb in unsure["tables"]] == ["uncertain"]
    assert "'unroll'" in unsure["tables"][0]["verdict_reason"]
    assert unsure["full_product"] == 5 and unsure["tables"][0]["full_product"] == 12
    assert unsure["tables"][0]["coverage"][0]["percent"] < 100 and not unsure["below_fail_under"]
    assert any("uncertain table" in n and "pairwise_options" in n for n in unsure["notes"])
    # marked pairwise_options, the same list is an option table and fails the gate
    said = tests["test_gap_said_options"]
    assert [tb["verdict"] for tb in said["tables"]] == ["option"] and said["full_product"] == 8
    assert said["below_fail_under"]
    # 10 of 12 combinations, (bf16, c) never: an option table with a gap, audited
    opts = tests["test_gap_options"]
    assert [tb["verdict"] for tb in opts["tables"]] == ["option"] and opts["below_fail_under"]
    assert doc["totals"]["uncertain_tables"] == 1 and doc["totals"]["case_tables"] >= 4
    # the valid combinations audited against their constraint: 3 feasible rows, all pairs
    valid = tests["test_valid_only"]
    assert valid["full_product"] == 3 and cov(valid, 0, 2)["percent"] == 100.0
    assert cov(valid, 0, 2)["infeasible"] == 1
    # the marked list and the 7-of-8 table are below 100%
    assert code != 0
    stacked = tests["test_stacked"]
    w = stacked["with_pairwise"]
    assert w["axes"] == ["dtype", "causal", "paged", "softcap"] and w["product"] == 24
    assert w["rows"] < 24 and w["items"] == 3 * w["rows"] and stacked["full_product"] == 72
    assert w["convert_reorder"] is True and w["convert_options"] is None
    assert tests["test_square"]["with_pairwise"] is None


def test_pairwise_column_in_the_terminal(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    pytester.makepyfile(test_suite=SUITE)
    _, out, _ = run(capsys, "report", "--strength", "2")
    assert "@PAIRWISE" in out
    line = next(ln for ln in out.splitlines() if "test_stacked" in ln)
    # n sits below the options: convert keeps node ids by converting only the bottom run
    assert "(dtype,causal,paged,softcap; convert --reorder)" in line


def test_pyproject_says_which_lists_are_cases(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    pytester.makepyfile(test_suite=SUITE)
    pytester.makepyprojecttoml('[tool.pairwise-param.report]\ncases = ["dtype,bias,fused"]\noptions = ["x,expected"]\n')
    _, doc = report_json(capsys, "--strength", "2")
    tests = by_function(doc)
    assert tests["test_gap"]["tables"] == [] and tests["test_gap"]["full_product"] == 3
    square = tests["test_square"]
    assert [tb["axes"] for tb in square["tables"]] == [["x", "expected"]]


def test_pyproject_setting_must_be_a_list_of_strings(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    pytester.makepyfile(test_suite=SUITE)
    pytester.makepyprojecttoml("[tool.pairwise-param.report]\ncases = \"x,expected\"\n")
    code, _, err = run(capsys, "report")
    assert code == 2 and "cases must be a list of strings" in err
