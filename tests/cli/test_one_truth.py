"""One truth about coverage (issue 24): the static report, the plugin's summary, the run
file and the gate state one model (pairwise_param/coverage/reach.py) and agree."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from schema_check import validate

from pairwise_param.cli import main
from pairwise_param.cli.main import ExitCode
from pairwise_param.report.schema import REPORT_SCHEMA

SKIPS = """
import pytest
from pairwise_param import pairwise

BF16 = pytest.param("bf16", marks=pytest.mark.skipif(True, reason="bf16 needs sm80+"))

@pairwise(dtype=["fp16", BF16, "fp32"], bias_mode=[0, 1, 2], xnorm=[False, True], padded_a=[False, True])
def test_gemm(dtype, bias_mode, xnorm, padded_a):
    pass
"""


@pytest.fixture(autouse=True)
def _no_terminal_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests read whole report lines: no caller's ``COLUMNS`` (xdist workers may have
    one), under which the table is stacked and summary lines wrapped (tests/report/conftest.py)."""
    monkeypatch.delenv("COLUMNS", raising=False)


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = int(main(list(args)))
    return code, capsys.readouterr().out


# -- item 1: values skipped at collection ---------------------------------------------------------
def test_values_skipped_at_collection_are_named_and_the_gate_passes_what_can_run(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    pytester.makepyfile(test_skips=SKIPS)
    # bf16 pairs with 3 + 2 + 2 values: 7 two-way tuples cannot run here
    code, out = _run(capsys, "report", "--strength", "2", "--fail-under", "100")
    assert code == ExitCode.OK, out
    assert "test_gemm" in out and "100%" in out
    assert ("not runnable here: test_skips.py::test_gemm: 7 2-way tuples, skipped at collection "
            "(dtype=bf16: bf16 needs sm80+); --strict-platform counts them missing") in out
    code, out = _run(capsys, "report", "--strength", "2", "--fail-under", "100", "--strict-platform")
    assert code == ExitCode.COVERAGE_BELOW, out
    assert ("FAIL test_skips.py::test_gemm: 2-way coverage 81.0% < 100% (7 tuples not runnable here "
            "(counted missing: --strict-platform): skipped at collection (dtype=bf16: bf16 needs sm80+))") in out
    code, out = _run(capsys, "report", "--format", "json", "--strength", "2", "--show-missing")
    doc = json.loads(out)
    validate(doc, REPORT_SCHEMA)
    c = doc["tests"][0]["tables"][0]["coverage"][0]
    assert (c["coverable"], c["covered"], c["unrunnable"]) == (30, 30, 7)
    assert c["reasons"] == ["dtype=bf16: bf16 needs sm80+"]
    assert {"dtype": "bf16", "xnorm": "True"} in c["unrunnable_tuples"]

    # the plugin's summary and the run file say the same
    res = pytester.runpytest("-p", "no:randomly", "--pairwise-report=run.json")
    res.assert_outcomes(passed=6)
    res.stdout.fnmatch_lines(["*test_gemm: 7 tuples: skipped at collection (dtype=bf16: bf16 needs sm80+)*"])
    code, out = _run(capsys, "report", "--run", str(pytester.path / "run.json"), "--fail-under", "100")
    assert code == ExitCode.OK, out
    assert "100.0% (30/30)" in out
    assert "test_skips.py::test_gemm: 7 2-tuples, skipped at collection (dtype=bf16: bf16 needs sm80+)" in out
    code, out = _run(capsys, "report", "--run", str(pytester.path / "run.json"), "--fail-under", "100",
                     "--strict-platform")
    assert code == ExitCode.COVERAGE_BELOW, out
    assert "81.1% (30/37) < --fail-under" in out


# -- item 2: an empty axis is a hole --------------------------------------------------------------
EMPTY = """
from pairwise_param import pairwise

@pairwise(dtype=[], bias_mode=[0, 1, 2], xnorm=[False, True])
def test_k(dtype, bias_mode, xnorm):
    pass

@pairwise(a=[1, 2], b=[3, 4])
def test_ok(a, b):
    pass
"""


def test_an_empty_axis_is_a_hole_the_gate_fails_naming_it(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    pytester.makepyfile(test_empty=EMPTY)
    code, out = _run(capsys, "report")
    assert code == ExitCode.OK, out  # no gate asked for
    assert "empty" in out.split("test_k", 1)[1].splitlines()[0]
    code, out = _run(capsys, "report", "--fail-under", "100")
    assert code == ExitCode.COVERAGE_BELOW, out
    assert ("FAIL test_empty.py::test_k: axis 'dtype' has no values: the table is empty "
            "(pytest runs none of it)") in out
    assert "test_ok:" not in out
    code, out = _run(capsys, "report", "--fail-under", "0", "--format", "markdown")
    assert code == ExitCode.COVERAGE_BELOW, out
    assert "axis 'dtype' has no values" in out
    code, out = _run(capsys, "report", "--format", "json")
    doc = json.loads(out)
    validate(doc, REPORT_SCHEMA)
    k = next(t for t in doc["tests"] if t["function"] == "test_k")
    assert k["tables"][0]["empty_axes"] == ["dtype"]
    # the run itself still follows pytest's empty_parameter_set_mark
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=4, skipped=1)
    pytester.makeini("[pytest]\nempty_parameter_set_mark = xfail\n")
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=4, xfailed=1)


@pytest.mark.parametrize("xdist", [False, True])
def test_an_empty_table_is_in_the_run_file_and_fails_the_run_gate(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], xdist: bool
) -> None:
    """The run file lists a table that is a hole (it has no items to analyse), so
    ``report --run --fail-under`` fails it as the static gate does; a session whose only
    table is a hole still writes its run file (a stale one is never read instead)."""
    if xdist:
        pytest.importorskip("xdist")
    pytester.makepyfile(test_empty=EMPTY)
    flags = ["-p", "no:randomly", "--pairwise-report=run.json", *(["-n", "2"] if xdist else [])]
    run = pytester.runpytest_subprocess if xdist else pytester.runpytest
    result = run(*flags)
    result.assert_outcomes(passed=4, skipped=1)
    # the plugin's summary says it in the same words (pytest itself shows one skipped item)
    result.stdout.fnmatch_lines(["*pairwise-param: empty tables*",
                                 "test_empty.py::test_k: axis 'dtype' has no values: the table is empty*"])
    doc = json.loads((pytester.path / "run.json").read_text())
    from pairwise_param.runs.schema import problems

    assert problems(doc) == []
    assert doc["empty"] == [{"test": "test_empty.py::test_k", "location": ["test_empty.py", 3], "axes": ["dtype"]}]
    code, out = _run(capsys, "report", "--run", str(pytester.path / "run.json"))
    assert code == ExitCode.OK, out  # no gate asked for
    assert "test_empty.py::test_k: axis 'dtype' has no values: the table is empty" in out
    code, out = _run(capsys, "report", "--run", str(pytester.path / "run.json"), "--fail-under", "0")
    assert code == ExitCode.COVERAGE_BELOW, out
    code, out = _run(capsys, "report", "--run", str(pytester.path / "run.json"), "--fail-under", "100",
                     "--format", "markdown")
    assert code == ExitCode.COVERAGE_BELOW and "empty < --fail-under" in out, out
    # only the hole runs: the run file is written all the same (not left from the run before)
    run(*flags, "test_empty.py::test_k").assert_outcomes(skipped=1)
    doc = json.loads((pytester.path / "run.json").read_text())
    assert doc["tables"] == [] and [e["test"] for e in doc["empty"]] == ["test_empty.py::test_k"]
    code, out = _run(capsys, "report", "--run", str(pytester.path / ".pytest_cache"), "--fail-under", "100")
    assert code == ExitCode.COVERAGE_BELOW, out


# -- item 7: the gate holds a table to its own strength -------------------------------------------
def test_fail_under_gates_each_table_at_its_own_strength(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    pytester.makepyfile(
        test_t="""
        from pairwise_param import pairwise

        @pairwise(a=[1, 2, 3], b=[1, 2, 3], c=[1, 2, 3], d=[1, 2, 3])
        def test_pairs(a, b, c, d):
            pass

        @pairwise(a=[1, 2], b=[1, 2], c=[1, 2], d=[1, 2], strength=3)
        def test_triples(a, b, c, d):
            pass
        """
    )
    code, out = _run(capsys, "report", "--fail-under", "100")
    assert code == ExitCode.OK, out  # 3-way of the pairwise table is measured, not gated
    assert "!" not in out.split("TOTAL")[0]
    code, out = _run(capsys, "report", "--fail-under", "100", "--strength", "2,3")
    assert code == ExitCode.COVERAGE_BELOW, out
    assert "FAIL test_t.py::test_pairs: 3-way coverage" in out
    assert "test_triples: 3-way" not in out
    code, out = _run(capsys, "report", "--fail-under", "100", "--strength", "2,3,4")
    assert "FAIL test_t.py::test_triples: 4-way coverage" in out


def test_the_checked_in_report_schema_is_the_schema() -> None:
    import pairwise_param.report

    path = Path(pairwise_param.report.__file__).parent / "report.schema.json"
    assert json.loads(path.read_text()) == REPORT_SCHEMA


# -- item 3: report --run honours the options that apply, refuses the others ----------------------
def test_report_run_honours_format_show_missing_strength_plot(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    pytester.makepyfile(test_skips=SKIPS)
    pytester.runpytest("-p", "no:randomly", "--pairwise-report=run.json").assert_outcomes(passed=6)
    capsys.readouterr()
    run = str(pytester.path / "run.json")
    code, out = _run(capsys, "report", "--run", run, "--format", "markdown")
    assert code == ExitCode.OK
    assert out.startswith("### pairwise-param run: 1 table, pytest exit status 0\n")
    assert "| test_skips.py::test_gemm | 6 | 6 | 6 | 6 | 0 | 0 | 100.0% (30/30) |" in out
    assert "- test_skips.py::test_gemm: 7 2-tuples, skipped at collection" in out
    # without --show-missing the tuples not runnable here are counted, with it listed
    code, out = _run(capsys, "report", "--run", run)
    assert "{dtype=bf16, bias_mode=0}" not in out
    code, out = _run(capsys, "report", "--run", run, "--show-missing")
    assert "{dtype=bf16, bias_mode=0}" in out and "{dtype=bf16, padded_a=True}" in out
    # --strength measures the executed rows at any strength; the static report agrees at 3-way
    code, out = _run(capsys, "report", "--run", run, "--strength", "2,3", "--fail-under", "100")
    assert code == ExitCode.COVERAGE_BELOW, out
    assert "2-way 100.0% (30/30), 3-way 54.5% (24/44) < --fail-under" in out
    code, static = _run(capsys, "report", "--strength", "3")
    assert "54.5%" in static.split("test_gemm", 1)[1].splitlines()[0]
    assert _run(capsys, "report", "--run", run, "--strength", "2", "--fail-under", "100")[0] == ExitCode.OK
    # --plot draws the executed coverage
    pytest.importorskip("matplotlib")
    plot = pytester.path / "run.png"
    code, _ = _run(capsys, "report", "--run", run, "--plot", str(plot), "--plot-test", "test_gemm")
    assert code == ExitCode.OK and plot.stat().st_size > 0


@pytest.mark.parametrize(
    "option", [["--grouped", "a,b"], ["--option-axes", "a"], ["--include-unparametrized"], ["--no-progress"]]
)
def test_report_run_refuses_collection_options(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], option: list[str]
) -> None:
    pytester.makepyfile(test_skips=SKIPS)
    pytester.runpytest("-p", "no:randomly", "--pairwise-report=run.json")
    capsys.readouterr()
    code = int(main(["report", "--run", str(pytester.path / "run.json"), *option]))
    err = capsys.readouterr().err
    assert code == ExitCode.USAGE_ERROR, err
    assert f"{option[0].split()[0]}" in err and "applies to collecting a suite" in err


# -- item 4: one meaning of "full product" (the feasible product), any size -----------------------
def test_full_product_is_the_feasible_product_in_generate_plugin_and_report(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    # 3*2*3*2 = 36 rows; fp32 with bias_mode=2 forbids 2*2 = 4, bf16+xnorm+padded_a 3: 29 feasible
    model = {
        "strength": 2,
        "axes": {"dtype": ["bf16", "fp16", "fp32"], "padded_a": [False, True], "bias_mode": [0, 1, 2],
                 "xnorm": [False, True]},
        "constraints": ["not (dtype == 'fp32' and bias_mode == 2)",
                        {"never": {"dtype": "bf16", "xnorm": True, "padded_a": True}}],
    }
    path = pytester.path / "model.json"
    path.write_text(json.dumps(model))
    assert int(main(["generate", str(path)])) == ExitCode.OK
    _, err = capsys.readouterr()
    rows = int(err.split("generate: ")[1].split(" rows")[0])
    assert f"full product 29 ({29 / rows:.1f}x fewer)" in err
    pytester.makepyfile(
        test_m="""
        from pairwise_param import pairwise

        @pairwise(dtype=["bf16", "fp16", "fp32"], padded_a=[False, True], bias_mode=[0, 1, 2],
                  xnorm=[False, True],
                  constraints=["not (dtype == 'fp32' and bias_mode == 2)",
                               {"never": {"dtype": "bf16", "xnorm": True, "padded_a": True}}])
        def test_k(dtype, padded_a, bias_mode, xnorm):
            pass
        """
    )
    res = pytester.runpytest("-p", "no:randomly")
    res.stdout.fnmatch_lines([f"pairwise-param: {rows} items from 1 table stand for 29 full-product items*"])
    capsys.readouterr()
    _, doc = _run(capsys, "report", "--format", "json")
    assert json.loads(doc)["tests"][0]["full_product"] == 29


@pytest.mark.parametrize(("values", "axes", "text"), [(2, 1030, "1.15e+310"), (3, 1000, "1.32e+477"),
                                                      (2, 3000, "1.23e+903")])
def test_generate_prints_a_full_product_past_float(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], values: int, axes: int, text: str
) -> None:
    path = tmp_path / "wide.json"
    path.write_text(json.dumps({"strength": 1, "axes": {f"a{i}": list(range(values)) for i in range(axes)}}))
    assert int(main(["generate", str(path)])) == ExitCode.OK
    err = capsys.readouterr().err
    assert f"full product {text} (" in err
    assert "OverflowError" not in err


def test_the_plugin_summary_and_the_report_columns_take_a_full_product_past_float(
    pytester: pytest.Pytester,
) -> None:
    """3^700 (about 1e334) is past the largest float: the plugin's summary line (it crashed
    every pytest run with an INTERNALERROR) and the report's reduction are exact integer
    arithmetic; the report's JSON gives null for a ratio no float can hold."""
    pytester.makepyfile(
        test_wide="""
        from pairwise_param import pairwise

        AX = {f"a{i}": [0, 1, 2] for i in range(700)}
        ns = {}
        exec("def test_w(" + ", ".join(AX) + "):\\n    pass\\n", ns)
        test_w = pairwise(AX)(ns["test_w"])
        """
    )
    result = pytester.runpytest("-p", "no:randomly")
    assert result.ret == pytest.ExitCode.OK
    full = 3**700
    rows = int(result.stdout.str().split(" items from ")[0].rsplit("pairwise-param: ", 1)[1])
    from pairwise_param.tables.product import big_int_text, reduction_text

    result.stdout.fnmatch_lines([f"*stand for {big_int_text(full)} full-product items ({reduction_text(full, rows)} fewer)*"])
    assert "INTERNALERROR" not in result.stdout.str()
    from pairwise_param.report.columns import reduction_cell
    from pairwise_param.report.types import ratio

    assert ratio(full, rows) == float("inf") and ratio(10, 4) == 2.5 and ratio(1, 0) == float("inf")
    assert reduction_cell(full, rows) == reduction_text(full, rows) and reduction_cell(full, rows, False).startswith("<=")
    assert reduction_cell(7, 0) == "-" and reduction_cell(25, 2) == "12.5x"


# -- item 5: a crashed xdist worker does not erase what it ran ------------------------------------
def test_a_crashed_worker_keeps_what_ran_and_fails_the_gate(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("xdist")
    pytester.makepyfile(
        test_crash="""
        import os
        from pairwise_param import pairwise

        @pairwise(dtype=["fp16", "bf16", "fp32"], bias_mode=[0, 1, 2], xnorm=[False, True])
        def test_k(dtype, bias_mode, xnorm):
            if dtype == "fp32" and bias_mode == 2:
                os._exit(3)
        """
    )
    res = pytester.runpytest_subprocess("-p", "no:randomly", "-n", "2", "--pairwise-report=run.json")
    outcomes = res.parseoutcomes()
    crashed = outcomes.get("failed", 0)
    assert crashed >= 1 and outcomes.get("passed", 0) >= 1, res.stdout.str()
    doc = json.loads((pytester.path / "run.json").read_text())
    (table,) = doc["tables"]
    items = {i["nodeid"]: i for i in table["items"]}
    assert table["counts"]["passed"] == outcomes["passed"]
    crash = [i for i in items.values() if i["when"] == "crash"]
    assert len(crash) == crashed
    assert all(i["outcome"] == "failed" and "crashed while running" in i["signature"] for i in crash)
    assert table["counts"]["executed"] == outcomes["passed"]
    capsys.readouterr()
    code, out = _run(capsys, "report", "--run", str(pytester.path / "run.json"), "--fail-under", "0")
    assert code == ExitCode.COVERAGE_BELOW, out
    assert "crashed: worker" in out


# -- item 6: a budget that skips whole shapes passes the gate and says so -------------------------
def test_budget_skipping_whole_shapes_passes_the_gate_and_is_named(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    # as kernel_tests/rope now does: the costliest row decides for the whole batch size
    pytester.makepyfile(
        test_budget="""
        import pytest
        from pairwise_param import pairwise

        HEADS = [1, 2, 8]

        @pairwise(heads=HEADS, dim=[64, 128], neox=[False, True])
        @pytest.mark.parametrize("batch", [1, 16, 256])
        def test_shapes(batch, heads, dim, neox):
            if batch * max(HEADS) * 128 > 4e4:
                pytest.skip("too large for the Triton interpreter")

        @pairwise(heads=HEADS, dim=[64, 128], neox=[False, True])
        @pytest.mark.parametrize("batch", [1, 16, 256])
        def test_rows(batch, heads, dim, neox):
            if batch * heads * dim > 4e4:
                pytest.skip("too large for the Triton interpreter")
        """
    )
    res = pytester.runpytest("-p", "no:randomly", "--pairwise-report=run.json")
    res.stdout.fnmatch_lines(["*test_rows*executed coverage*"])
    assert "test_shapes: executed coverage" not in res.stdout.str()
    capsys.readouterr()
    code, out = _run(capsys, "report", "--run", str(pytester.path / "run.json"), "--fail-under", "100")
    assert code == ExitCode.COVERAGE_BELOW, out  # the per-row skips lose pairs
    assert "test_budget.py::test_shapes: 1 of 3 shapes not run (256): too large for the Triton interpreter" in out
    row = next(line for line in out.splitlines() if line.startswith("test_budget.py::test_shapes "))
    assert "100.0%" in row and "< --fail-under" not in row


# -- item 8: the smaller ones ---------------------------------------------------------------------
def test_a_set_valued_axis_is_refused_by_pairwise_as_by_cover(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from pairwise_param import pairwise

        @pairwise(x={1, 2, 3}, y=[1, 2])
        def test_k(x, y):
            pass
        """
    )
    res = pytester.runpytest("-p", "no:randomly")
    res.stdout.fnmatch_lines(["*axis 'x' values are a set, whose order changes from process to process*"])
    assert res.ret != 0


def test_a_set_inside_a_value_gives_the_same_ids_under_every_hash_seed(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(
        """
        from pairwise_param import pairwise

        @pairwise(x=[(1, frozenset({"b", "a", "c"})), (2, 3)], y=[{"k": {"m", "n", "o"}}, 2])
        def test_k(x, y):
            pass
        """
    )
    listings = []
    for seed in ("1", "2", "3"):
        monkeypatch.setenv("PYTHONHASHSEED", seed)
        res = pytester.runpytest_subprocess("--collect-only", "-q", "-p", "no:randomly", "-p", "no:cacheprovider")
        listings.append([line for line in res.outlines if "::" in line])
    assert listings[0] == listings[1] == listings[2]
    assert any("y={k:{m,n,o}}" in line for line in listings[0])


def test_zero_and_negative_zero_are_two_values(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from pairwise_param import pairwise

        @pairwise(x=[0.0, -0.0], y=[1, 2])
        def test_k(x, y):
            pass
        """
    )
    res = pytester.runpytest("-p", "no:randomly", "-v")
    res.assert_outcomes(passed=4)
    res.stdout.fnmatch_lines(["*x=-0.0*"])


def test_report_run_escapes_control_characters_and_refuses_a_non_numeric_percent(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    pytester.makepyfile(test_skips=SKIPS)
    pytester.runpytest("-p", "no:randomly", "--pairwise-report=run.json")
    capsys.readouterr()
    path = pytester.path / "run.json"
    doc = json.loads(path.read_text())
    doc["tables"][0]["test"] = "test_skips.py::test_\x1b[31mred"
    path.write_text(json.dumps(doc))
    code, out = _run(capsys, "report", "--run", str(path))
    assert code == ExitCode.OK
    assert "\x1b" not in out and "test_\\x1b[31mred" in out
    doc["tables"][0]["coverage"]["percent"] = "n/a"
    doc["tables"][0]["coverage"]["lost"] = [{"combination": [], "text": "{}", "shapes": [""], "because": []}]
    path.write_text(json.dumps(doc))
    code = int(main(["report", "--run", str(path)]))
    err = capsys.readouterr().err
    assert code == ExitCode.USAGE_ERROR and "malformed run file" in err and "Traceback" not in err


def test_an_unwritable_cache_under_w_error_does_not_fail_collection(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from pairwise_param import pairwise

        @pairwise(a=[1, 2], b=[3, 4], c=[5, 6])
        def test_k(a, b, c):
            pass
        """
    )
    (pytester.path / ".pytest_cache").mkdir()
    (pytester.path / ".pytest_cache" / "v").write_text("")  # every cache write fails
    res = pytester.runpytest_subprocess("-q", "-W", "error", "-p", "no:randomly")
    text = res.stdout.str() + res.stderr.str()
    assert "error during collection" not in text and "ERROR collecting" not in text
    assert "...." in res.stdout.str()  # pytest's own cache writes at the end are pytest's affair


def test_report_run_reads_a_version_1_file_written_before_size_existed(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    pytester.makepyfile(
        test_f="""
        from pairwise_param import pairwise

        @pairwise(dtype=["fp16", "bf16"], bias_mode=[0, 1, 2], xnorm=[False, True])
        def test_f(dtype, bias_mode, xnorm):
            assert dtype != "bf16", "mismatch"
        """
    )
    pytester.runpytest("-p", "no:randomly", "--pairwise-report=run.json")
    capsys.readouterr()
    path = pytester.path / "run.json"
    doc = json.loads(path.read_text())
    for group in doc["tables"][0]["suspicious"]:
        del group["size"]
    path.write_text(json.dumps(doc))
    code, out = _run(capsys, "report", "--run", str(path))
    assert code == ExitCode.OK
    assert "every failure holds {dtype=bf16}" in out


def test_cache_entries_and_lastrun_are_never_written_through_a_symlink(
    pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory
) -> None:
    pytester.makepyfile(
        """
        from pairwise_param import pairwise

        @pairwise(a=[1, 2], b=[3, 4], c=[5, 6])
        def test_k(a, b, c):
            pass
        """
    )
    outside = tmp_path_factory.mktemp("outside")
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=4)
    pairwise_dir = pytester.path / ".pytest_cache" / "v" / "pairwise"
    written = sorted(p.relative_to(pairwise_dir) for p in pairwise_dir.rglob("*") if p.is_file())
    assert written  # a table entry and lastrun
    for rel in written:  # every file we write becomes a link to a file outside the project
        target = outside / str(rel).replace("/", "_")
        target.write_text("keep")
        (pairwise_dir / rel).unlink()
        (pairwise_dir / rel).symlink_to(target)
    pytester.runpytest("-p", "no:randomly", "-p", "no:cacheprovider").assert_outcomes(passed=4)
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=4)
    assert all(p.read_text() == "keep" for p in outside.iterdir())
