"""``pairwise-param report`` on small suites written by the tests (pytester).

Every count and coverage number below is computed by hand in the comments;
the report's own numbers come from collecting the suite in-process.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from typing import Any

import pytest
from schema_check import validate

from pairwise_param.cli import main
from pairwise_param.cli.main import ExitCode
from pairwise_param.report.columns import fmt_percent
from pairwise_param.report.render import SCHEMA_VERSION
from pairwise_param.report.schema import REPORT_SCHEMA


# -- helpers -----------------------------------------------------------------------------------------
def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return int(code), out, err


def report_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code, out, _ = run(capsys, "report", "--format", "json", *args)
    doc = json.loads(out)
    validate(doc, REPORT_SCHEMA)
    assert doc["exit_code"] == code
    return code, doc


def by_function(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["id"].split("::", 1)[1]: t for t in doc["tests"]}


def cov(test: dict[str, Any], table: int, strength: int) -> dict[str, Any]:
    return next(c for c in test["tables"][table]["coverage"] if c["strength"] == strength)


# A hand-written option table with known holes, stacked on a single-name axis.
#   values: a {p, q}, b {True, False}, c {u, v}            full product 2*2*2 = 8
#   pairs  a-b: (p,T) (p,F) (q,T)      missing (q,F)
#          a-c: (p,u) (p,v) (q,v)      missing (q,u)
#          b-c: (T,u) (F,v) (T,v)      missing (F,u)
#   2-way: 9 of 12 = 75.0%; 3-way: 3 of 8 = 37.5%
#   x n [1, 2, 3]: full product 24, collected 9, reduction 2.7x
AUDIT = """
    import pytest

    ROWS = [("p", True, "u"), ("p", False, "v"), ("q", True, "v")]

    @pytest.mark.pairwise_options  # a short list: uncertain unless marked (docs/cli.md)
    @pytest.mark.parametrize("a,b,c", ROWS)
    @pytest.mark.parametrize("n", [1, 2, 3])
    def test_audit(n, a, b, c):
        pass

    @pytest.mark.parametrize("n,k,m", [(1, 8, 16), (2, 64, 64)])
    @pytest.mark.parametrize("dtype", ["bf16", "fp16"])
    def test_shapes(n, k, m, dtype):
        pass

    def test_plain():
        pass
"""


# -- counts and coverage -----------------------------------------------------------------------------
def test_audit_counts_and_coverage_by_hand(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    pytester.makepyfile(test_audit=AUDIT)
    code, doc = report_json(capsys, "--show-missing")
    assert code == ExitCode.OK
    tests = by_function(doc)
    assert set(tests) == {"test_audit", "test_shapes"}
    assert doc["unparametrized_tests"] == 1

    audit = tests["test_audit"]
    assert (audit["full_product"], audit["collected"]) == (24, 9)
    assert audit["reduction"] == pytest.approx(24 / 9, abs=1e-3)
    assert not audit["pairwise"]
    kinds = {a["name"]: (a["kind"], a["size"]) for a in audit["axes"]}
    assert kinds == {"a": ("option", 2), "b": ("option", 2), "c": ("option", 2), "n": ("axis", 3)}
    [table] = audit["tables"]
    assert table["source"] == "parametrize"
    assert (table["full_product"], table["rows"]) == (8, 3)
    two, three = cov(audit, 0, 2), cov(audit, 0, 3)
    assert (two["covered"], two["coverable"], two["missing"], two["infeasible"]) == (9, 12, 3, 0)
    assert two["percent"] == 75.0
    assert (three["covered"], three["coverable"]) == (3, 8)
    assert three["percent"] == 37.5
    assert two["missing_tuples"] == [
        {"a": "q", "b": "False"},
        {"a": "q", "c": "u"},
        {"b": "False", "c": "u"},
    ]

    # shape-like "n,k,m" is ONE grouped axis counted by rows; no option table
    shapes = tests["test_shapes"]
    assert {a["name"]: (a["kind"], a["size"]) for a in shapes["axes"]} == {
        "n,k,m": ("grouped", 2),
        "dtype": ("axis", 2),
    }
    assert (shapes["full_product"], shapes["collected"], shapes["tables"]) == (4, 4, [])
    assert shapes["coverage"][0]["percent"] is None

    assert doc["totals"]["full_product"] == 28 and doc["totals"]["collected"] == 13
    assert doc["totals"]["coverage"][0] == {
        "strength": 2, "covered": 9, "coverable": 12, "percent": 75.0, "min_percent": 75.0,
    }


def test_known_missing_pair_in_handwritten_list(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    # vLLM-style 6-row list over dtype x padded_a x bias_mode x xnorm (2x2x3x2 = 24) whose
    # fifth row was changed so that no row runs bias_mode=1 with xnorm=False: 29 of 30 pairs.
    pytester.makepyfile(
        test_krc="""
        import pytest

        OPTIONS = [
            ("bf16", False, 0, False),
            ("bf16", True, 1, True),
            ("bf16", False, 2, True),
            ("fp16", True, 0, True),
            ("fp16", False, 1, True),
            ("fp16", True, 2, False),
        ]

        @pytest.mark.parametrize("dtype,padded_a,bias_mode,xnorm", OPTIONS)
        @pytest.mark.parametrize("n", [13, 128])
        @pytest.mark.parametrize("k", [2880, 3072])
        def test_wvsplitkrc(n, k, dtype, padded_a, bias_mode, xnorm):
            pass

        @pytest.mark.pairwise_options
        @pytest.mark.parametrize("dtype,padded_a,bias_mode,xnorm", OPTIONS)
        @pytest.mark.parametrize("n", [13, 128])
        @pytest.mark.parametrize("k", [2880, 3072])
        def test_marked(n, k, dtype, padded_a, bias_mode, xnorm):
            pass
        """
    )
    code, out, _ = run(capsys, "report", "--strength", "2", "--show-missing", "--", "-k", "wvsplitkrc")
    # six rows of 24 over option columns (bias_mode: int codes, whatif.axis_kind): an option
    # table with a hole (issue 35: the verdict never depends on the hole), audited and gated
    assert code == ExitCode.OK
    assert "2-way missing (1 of 30): {bias_mode=1, xnorm=False}" in out
    assert "96 -> 24, 4.0x, 2-way 96.6%" in out and "?" not in out.split("2-way missing")[0]
    code, out, _ = run(capsys, "report", "--strength", "2", "--", "-k", "marked")
    assert "96 -> 24, 4.0x, 2-way 96.6%" in out
    code, out, _ = run(capsys, "report", "--strength", "2", "--fail-under", "100")
    assert code == ExitCode.COVERAGE_BELOW
    assert "FAIL test_krc.py::test_wvsplitkrc: 2-way coverage 96.6% < 100% (1 of 30 tuples missing)" in out
    assert "FAIL test_krc.py::test_marked: 2-way coverage 96.6% < 100% (1 of 30 tuples missing)" in out


def test_pairwise_test_with_constraint(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    # 3 x 3 x 2 options; {dtype=c, bias=2} is forbidden: 2-way total 9+6+6 = 21, coverable 20,
    # 1 infeasible; the full product is what full mode runs: 18 - 2 forbidden rows
    # ({c, 2, False}, {c, 2, True}) = 16 option rows, x 2 shapes (grouped) -> 32, the same
    # number the plugin's summary line gives ("stand for").
    pytester.makepyfile(
        test_pw="""
        import pytest
        from pairwise_param import pairwise

        @pairwise(dtype=["a", "b", "c"], bias=[0, 1, 2], xnorm=[False, True],
                  constraints=[lambda dtype, bias: not (dtype == "c" and bias == 2)])
        @pytest.mark.parametrize("n,k", [(1, 8), (2, 16)])
        def test_kernel(n, k, dtype, bias, xnorm):
            pass
        """
    )
    code, doc = report_json(capsys, "--show-missing", "--strength", "2")
    assert code == ExitCode.OK
    [test] = doc["tests"]
    assert test["pairwise"] and test["full_product"] == 32
    [table] = test["tables"]
    assert table["full_product"] == 16 and table["sizes"] == [3, 3, 2]
    assert table["source"] == "pairwise" and table["axes"] == ["dtype", "bias", "xnorm"]
    assert test["collected"] == table["rows"] * 2
    two = cov(test, 0, 2)
    assert (two["covered"], two["coverable"], two["infeasible"], two["percent"]) == (20, 20, 1, 100.0)
    assert two["infeasible_tuples"] == [{"dtype": "c", "bias": "2"}]
    assert table["violating_rows"] == 0
    # in full mode nothing is reduced: FULL == COLLECTED, 1.0x (it was 36 -> 32, "1.1x")
    code, doc = report_json(capsys, "--strength", "2", "--", "--pairwise-mode=full")
    [test] = doc["tests"]
    assert (test["full_product"], test["collected"], test["reduction"]) == (32, 32, 1.0)
    assert doc["totals"]["reduction"] == 1.0


def test_classes_fixture_params_and_grouping(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    pytester.makepyfile(
        test_cls="""
        import pytest

        @pytest.fixture(params=["cpu", "gpu"])
        def device(request):
            return request.param

        @pytest.mark.pairwise_options("x,flag")  # two columns short of their product: an audit
        @pytest.mark.parametrize("x,flag", [("a", True), ("b", False), ("a", False)])
        class TestThing:
            def test_one(self, x, flag, device):
                pass

            @pytest.mark.parametrize("size", [1, 2, 3])
            def test_two(self, x, flag, size):
                pass
        """
    )
    _, doc = report_json(capsys, "--strength", "2")
    tests = by_function(doc)
    one, two = tests["TestThing::test_one"], tests["TestThing::test_two"]
    assert one["class"] == "TestThing" and one["function"] == "test_one"
    # x,flag: option table of 3 rows over 2x2 values (3 of 4 pairs) x device (observed, 2)
    assert (one["full_product"], one["collected"]) == (8, 6)
    assert {a["name"]: a["source"] for a in one["axes"]}["device"] == "observed"
    assert cov(one, 0, 2)["covered"] == 3 and cov(one, 0, 2)["coverable"] == 4
    assert (two["full_product"], two["collected"]) == (12, 9)


def test_option_axes_and_grouped_overrides(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    pytester.makepyfile(
        test_ov="""
        import pytest

        @pytest.mark.parametrize("a", ["x", "y"])
        @pytest.mark.parametrize("b", [0, 1, 2])
        @pytest.mark.parametrize("n", [1, 2])
        def test_stacked(a, b, n):
            pass

        @pytest.mark.parametrize("dtype,atol", [("fp16", 1e-3), ("bf16", 1e-2), ("fp32", 1e-5)])
        def test_cases(dtype, atol):
            pass

        @pytest.mark.pairwise_options
        @pytest.mark.parametrize("mode,flag", [("a", True), ("a", False), ("b", True)])
        def test_modes(mode, flag):
            pass
        """
    )
    _, doc = report_json(capsys, "--strength", "2")
    tests = by_function(doc)
    assert tests["test_stacked"]["tables"] == []  # single names: counted axes only
    # a key column (one tolerance per dtype): a list of cases, one grouped axis of 3 rows
    cases = tests["test_cases"]
    assert cases["tables"] == [] and cases["full_product"] == 3
    assert cases["axes"] == [
        {"name": "dtype,atol", "kind": "grouped", "size": 3, "source": "parametrize", "table": None}
    ]
    modes = tests["test_modes"]  # an option table by its mark: 2x2 = 4, 3 pairs of 4
    assert modes["full_product"] == 4 and cov(modes, 0, 2)["covered"] == 3

    _, doc = report_json(capsys, "--strength", "2", "--option-axes", "a,b", "--grouped", "mode,flag")
    tests = by_function(doc)
    stacked = tests["test_stacked"]
    [table] = stacked["tables"]
    assert table["source"] == "option-axes" and sorted(table["axes"]) == ["a", "b"]
    assert cov(stacked, 0, 2)["percent"] == 100.0 and stacked["full_product"] == 12
    # with --option-axes the automatic rule is off; --grouped is honoured either way
    assert tests["test_modes"]["tables"] == [] and tests["test_modes"]["full_product"] == 3

    _, doc = report_json(capsys, "--strength", "2", "--grouped", "mode,flag")
    assert by_function(doc)["test_modes"]["full_product"] == 3
    _, doc = report_json(capsys, "--strength", "2", "--option-axes", "dtype,atol")
    cases = by_function(doc)["test_cases"]  # forced: 3x3 = 9, only the 3 diagonal pairs
    assert cases["full_product"] == 9 and cov(cases, 0, 2)["covered"] == 3


def test_deselected_rows_lower_the_coverage(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    # coverage is measured over the rows actually collected: dropping a row loses its pairs
    pytester.makepyfile(
        test_sel="""
        import pytest

        @pytest.mark.parametrize("a,b", [("x", "u"), ("x", "v"), ("y", "u"), ("y", "v")])
        def test_it(a, b):
            pass
        """
    )
    _, doc = report_json(capsys, "--strength", "2")
    assert cov(doc["tests"][0], 0, 2)["percent"] == 100.0
    _, doc = report_json(capsys, "--strength", "2", "--", "-k", "not y-v")
    test = doc["tests"][0]
    assert test["collected"] == 3 and test["full_product"] == 4
    assert cov(test, 0, 2)["covered"] == 3 and cov(test, 0, 2)["coverable"] == 4


# -- formats -----------------------------------------------------------------------------------------
def test_terminal_format(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    pytester.makepyfile(test_audit=AUDIT)
    code, out, err = run(capsys, "report")
    assert code == ExitCode.OK
    lines = out.splitlines()
    assert lines[0].startswith("pairwise-param report: 2 parametrized tests in 1 file, 13 items (+1 unparametrized)")
    header = next(ln for ln in lines if ln.startswith("TEST"))
    assert header.split() == ["TEST", "AXES", "FULL", "COLLECTED", "REDUCTION", "2-WAY", "3-WAY"]
    audit = next(ln for ln in lines if ln.startswith("  test_audit "))
    assert audit.split()[-5:] == ["24", "9", "2.7x", "75.0%", "37.5%"]
    assert "[a:2 b:2 c:2 -> 3/8] x n:3" in audit
    shapes = next(ln for ln in lines if ln.startswith("  test_shapes "))
    assert shapes.split()[-5:] == ["4", "4", "1.0x", "-", "-"]
    assert "28 -> 13, 2.2x, 2-way 75.0% (lowest 75.0%), 3-way 37.5% (lowest 37.5%)" in out
    assert "tuples missing: 2-way in 1 table, 3-way in 1 table; --show-missing lists them" in out
    assert "items collected" in err and "collecting ..." not in err  # no progress: not a tty


def test_markdown_format(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    pytester.makepyfile(test_audit=AUDIT)
    code, out, _ = run(capsys, "report", "--format", "markdown", "--show-missing", "--strength", "2")
    assert code == ExitCode.OK
    assert out.startswith("### pairwise-param report\n")
    assert "| Test | Axes | Full product | Collected | Reduction | 2-way |" in out
    assert "| `test_audit.py::test_audit` | `[a:2 b:2 c:2 -> 3/8] x n:3` | 24 | 9 | 2.7x | 75.0% |" in out
    assert "| **Total** (2 tests) |  | **28** | **13** | **2.2x** | **75.0%** |" in out
    assert "<details><summary>Missing and infeasible tuples</summary>" in out
    assert "{a=q, b=False}" in out


def test_json_format_is_stable_and_valid(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    pytester.makepyfile(test_audit=AUDIT)
    code, doc = report_json(capsys, "--fail-under", "50", "--strength", "2,3")
    assert code == ExitCode.COVERAGE_BELOW  # 3-way 37.5% < 50
    assert doc["schema"] == "pairwise-param/report" and doc["schema_version"] == SCHEMA_VERSION == 1
    assert doc["strengths"] == [2, 3] and doc["fail_under"] == 50.0 and doc["tuples_listed"] is False
    audit = by_function(doc)["test_audit"]
    assert audit["below_fail_under"] is True
    assert cov(audit, 0, 2)["missing_tuples"] == []  # listed only with --show-missing
    # the schema rejects a broken document (the validator is really checking)
    doc["tests"][0]["collected"] = "9"
    with pytest.raises(AssertionError, match="collected"):
        validate(doc, REPORT_SCHEMA)


def test_print_schema(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "report", "--print-schema")
    assert code == ExitCode.OK
    assert json.loads(out) == json.loads(json.dumps(REPORT_SCHEMA))


def test_schema_file_matches_module() -> None:
    from pathlib import Path

    # the checkout's copy (tox tests an installed wheel, which may not ship the file)
    path = Path(__file__).resolve().parents[2] / "pairwise_param" / "report" / "report.schema.json"
    assert json.loads(path.read_text()) == json.loads(json.dumps(REPORT_SCHEMA)), (
        "regenerate with: pairwise-param report --print-schema > pairwise_param/report/report.schema.json"
    )


# -- exit codes and errors ---------------------------------------------------------------------------
def test_exit_code_enum() -> None:
    assert {e.name: int(e) for e in ExitCode} == {
        "OK": 0, "COVERAGE_BELOW": 1, "USAGE_ERROR": 2, "COLLECTION_ERROR": 3, "NO_TESTS": 5, "INTERRUPTED": 130,
    }


@pytest.mark.parametrize(
    "args, code",
    [
        (["--fail-under", "100", "--strength", "2"], ExitCode.COVERAGE_BELOW),
        (["--fail-under", "75", "--strength", "2"], ExitCode.OK),  # 75.0% meets 75
        (["--fail-under", "75.1", "--strength", "2"], ExitCode.COVERAGE_BELOW),
        (["--fail-under", "70", "--strength", "2,3"], ExitCode.COVERAGE_BELOW),  # 3-way 37.5%
        (["--fail-under", "0"], ExitCode.OK),
        ([], ExitCode.OK),
    ],
)
def test_fail_under(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], args: list[str], code: int) -> None:
    pytester.makepyfile(test_audit=AUDIT)
    assert run(capsys, "report", *args)[0] == code


@pytest.mark.parametrize(
    "args, message",
    [
        (["--strength", "0"], "strengths are integers >= 1"),
        (["--strength", "two"], "strengths are integers >= 1"),
        (["--fail-under", "101"], "outside 0..100"),
        (["--fail-under", "lots"], "not a number"),
        (["--format", "html"], "invalid choice"),
        (["missing_dir"], "'missing_dir': file or directory not found"),
        (["--plot", "out.gif"], "unsupported file type"),
        (["--plot-test", "x"], "--plot-test needs --plot FILE"),
        (["--option-axes", "a", "--grouped", "a,b"], "a given both to --option-axes and --grouped"),
        (["--", "--no-such-pytest-option"], "pytest rejected the arguments"),
        (["-k", "fast"], "pytest options go after `--`"),
    ],
)
def test_usage_errors(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    pytester.makepyfile(test_audit=AUDIT)
    code, out, err = run(capsys, "report", *args)
    assert code == ExitCode.USAGE_ERROR
    assert message in err
    assert out == ""


# One small @pairwise table (2 x 2 options -> 4 rows), for tests about report errors.
SMALL_PAIRWISE = """
from pairwise_param import pairwise

@pairwise(dtype=["a", "b"], bias=[0, 1])
def test_k(dtype, bias):
    pass
"""


def test_rejected_k_expression_shows_pytest_message_only(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    # pytest rejects a -k expression after collecting: the error used to come after the
    # whole collection listing and the plugin's summary line
    pytester.makepyfile(test_pw=SMALL_PAIRWISE)
    code, out, err = run(capsys, "report", "--", "-k", "dtype=a")
    assert code == ExitCode.USAGE_ERROR and out == ""
    assert "pytest rejected the arguments:\nERROR: Wrong expression passed to '-k'" in err
    assert "pairwise-param: 4 items" not in err and "test_pw.py" not in err


def test_collection_errors_name_the_file(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    pytester.makepyfile(
        test_good=AUDIT,
        test_broken="import pytest\nimport no_such_module_for_report\n",
        test_badmodel="""
        from pairwise_param import pairwise

        @pairwise(a=[1, 2], b=[3, 4], constraints=[lambda a, c: a != c])
        def test_bad(a, b):
            pass
        """,
    )
    code, out, err = run(capsys, "report", "--strength", "2")
    assert code == ExitCode.COLLECTION_ERROR
    assert "ERROR test_broken.py: ModuleNotFoundError: No module named 'no_such_module_for_report'" in out
    bad = next(ln for ln in out.splitlines() if ln.startswith("ERROR test_badmodel.py"))
    assert "test_bad" in bad and "unknown axis 'c'" in bad
    assert "Traceback" not in out and "Traceback" not in err
    assert "test_good.py" in out  # the rest is still reported
    _, doc = report_json(capsys, "--strength", "2")
    assert sorted(e["where"] for e in doc["errors"]) == ["test_badmodel.py", "test_broken.py"]
    assert doc["exit_code"] == ExitCode.COLLECTION_ERROR


def test_no_tests(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    pytester.makepyfile(test_empty="def test_nothing():\n    pass\n")
    code, out, _ = run(capsys, "report")
    assert code == ExitCode.OK
    assert "no parametrized tests collected" in out


def test_progress_on_request(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    pytester.makepyfile(test_audit=AUDIT)
    code, _, err = run(capsys, "report", "--progress")
    assert code == ExitCode.OK
    assert "collecting ... 14 items from 1 files" in err
    assert "analyzing 3/3 tests" in err  # the unparametrized one is looked at too


def test_help_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "report", "--help")
    assert code == ExitCode.OK and "--fail-under PCT" in out and "Exit codes" in out
    code, out, _ = run(capsys, "--version")
    assert code == ExitCode.OK and out.startswith("pairwise-param ")
    code, out, _ = run(capsys)
    assert code == ExitCode.OK and "report" in out and "generate" in out


def test_console_script_in_a_subprocess(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_audit=AUDIT)
    proc = subprocess.run(
        [sys.executable, "-m", "pairwise_param.cli", "report", "--strength", "2", "--fail-under", "100"],
        capture_output=True,
        text=True,
        cwd=pytester.path,
        timeout=120,
        check=False,
    )
    assert proc.returncode == ExitCode.COVERAGE_BELOW, proc.stderr
    assert "28 -> 13, 2.2x, 2-way 75.0%" in proc.stdout
    assert "items collected" in proc.stderr


# -- formatting helpers ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "p, complete, text",
    [(100.0, True, "100%"), (99.96, False, "99.9%"), (75.0, False, "75.0%"), (None, None, "n/a"), (0.0, False, "0.0%")],
)
def test_percent_never_rounds_up_to_100(p: float | None, complete: bool | None, text: str) -> None:
    assert fmt_percent(p, complete) == text


def test_report_module_does_not_import_torch() -> None:
    code = textwrap.dedent(
        """
        import sys
        import pairwise_param.report, pairwise_param.cli.main, pairwise_param.report.render
        import pairwise_param.cli.modelfile, pairwise_param.report.plot
        bad = [m for m in ("torch", "numpy", "matplotlib", "triton") if m in sys.modules]
        assert not bad, bad
        """
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_odd_parameter_values(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    # unhashable values (lists) are identified by repr; an empty parametrize is a 0-sized axis
    pytester.makepyfile(
        test_odd="""
        import pytest

        @pytest.mark.pairwise_options("cfg,mode")
        @pytest.mark.parametrize("cfg,mode", [([1, 2], "a"), ([3], "b"), ([1, 2], "b")])
        def test_lists(cfg, mode):
            pass

        @pytest.mark.parametrize("x,y", [])
        def test_empty(x, y):
            pass
        """
    )
    code, doc = report_json(capsys, "--strength", "2", "--show-missing")
    assert code == ExitCode.OK, doc["errors"]
    tests = by_function(doc)
    lists = tests["test_lists"]
    assert lists["full_product"] == 4 and lists["collected"] == 3
    assert cov(lists, 0, 2)["missing_tuples"] == [{"cfg": "[3]", "mode": "a"}]
    assert tests["test_empty"]["full_product"] == 0 and tests["test_empty"]["reduction"] == 0.0


def test_markdown_marks_tables_below_the_bar(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    pytester.makepyfile(test_audit=AUDIT)
    code, out, _ = run(capsys, "report", "--format", "markdown", "--strength", "2", "--fail-under", "80")
    assert code == ExitCode.COVERAGE_BELOW
    assert "| 75.0% :x: |" in out
    assert "- :x: `test_audit.py::test_audit`: 2-way coverage 75.0% < 80%" in out


def test_pairwise_sub_model_promise_is_reported(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    # 4 binary axes at t=2 with {a,b,c} at t=3: the model promises its 6 x 4 = 24 pairs
    # and the 8 triples of a,b,c: 32 tuples.
    pytester.makepyfile(
        test_sub="""
        from pairwise_param import pairwise

        @pairwise(a=[0, 1], b=[0, 1], c=[0, 1], d=["x", "y"], sub_models=[(("a", "b", "c"), 3)])
        def test_it(a, b, c, d):
            pass
        """
    )
    code, doc = report_json(capsys, "--strength", "2", "--show-missing")
    assert code == ExitCode.OK
    mc = doc["tests"][0]["tables"][0]["model_coverage"]
    assert mc["label"] == "t=2 + {a,b,c}@3"
    assert (mc["covered"], mc["coverable"], mc["complete"]) == (32, 32, True)
    code, out, _ = run(capsys, "report", "--strength", "2", "--show-missing")
    assert "the model's own interactions (t=2 + {a,b,c}@3): 32 of 32 covered (100%)" in out


def test_plot_test_ambiguous_name_says_how_many_are_not_listed(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], tmp_path: Any
) -> None:
    pytest.importorskip("matplotlib")
    body = "".join(
        f"@pytest.mark.parametrize('a', [1, 2])\ndef test_kern{i}(a):\n    pass\n\n" for i in range(10)
    )
    pytester.makepyfile(test_many="import pytest\n\n" + body)
    code, _, err = run(capsys, "report", "--plot", str(tmp_path / "c.png"), "--plot-test", "kern")
    assert code == ExitCode.USAGE_ERROR
    assert "matches 10 tests:" in err
    assert "test_many.py::test_kern7, ... (+2 more)" in err  # 8 listed; it said nothing of the other 2
    code, _, err = run(capsys, "report", "--plot", str(tmp_path / "c.png"), "--plot-test", "nosuch")
    assert code == ExitCode.USAGE_ERROR and "matches no test" in err and "(+2 more)" in err


def test_closed_stdout_is_not_a_traceback(tmp_path: Any) -> None:
    # `pairwise-param generate model | head -1`: a BrokenPipeError traceback before
    model = tmp_path / "m.json"
    # > 64 KiB of output, more than a pipe buffer holds
    model.write_text(json.dumps({"axes": {f"axis_number_{i}": list(range(8)) for i in range(30)}}))
    code = (
        "import subprocess, sys\n"
        f"p = subprocess.Popen([sys.executable, '-m', 'pairwise_param.cli', 'generate', {str(model)!r}, '--format', 'json'],"
        " stdout=subprocess.PIPE, stderr=subprocess.PIPE)\n"
        "p.stdout.close()\n"  # closed before anything is written: the write must hit EPIPE
        "err = p.stderr.read().decode(); rc = p.wait()\n"
        "assert 'Traceback' not in err and 'BrokenPipeError' not in err, err\n"
        "assert rc == 0, rc\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_disabled_plugin_is_an_error_not_a_silent_zero(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    # with -p no:pairwise_param the tables were not expanded and the report showed
    # "4 -> 1, 2-way 0.0%" with exit 0
    pytester.makepyfile(test_pw=SMALL_PAIRWISE)
    code, out, _ = run(capsys, "report", "--", "-p", "no:pairwise_param")
    assert code == ExitCode.COLLECTION_ERROR
    assert "the pairwise-param pytest plugin is not loaded" in out
    code, _, _ = run(capsys, "report")
    assert code == ExitCode.OK
