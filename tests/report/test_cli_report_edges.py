"""``pairwise-param report`` edges (issue 10 section 4): a conftest that raises, tests
whose tables were never expanded (no plugin, unittest), long --show-missing lists,
grouped values, files in command-line order."""

from __future__ import annotations

import json

import pytest

from pairwise_param.cli import main
from pairwise_param.cli.main import ExitCode

PAIRWISE = """
from pairwise_param import pairwise

@pairwise(a=[1, 2], b=[3, 4], c=[5, 6])
def test_pw(a, b, c):
    pass
"""

PLAIN = """
import pytest

@pytest.mark.parametrize("x,y", [(1, "a"), (2, "b"), (1, "b")])
def test_plain(x, y):
    pass
"""


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return int(code), out, err


@pytest.mark.parametrize(
    ("conftest", "shown"),
    [
        ("import does_not_exist_xyz\n", "ModuleNotFoundError: No module named 'does_not_exist_xyz'"),
        ("raise RuntimeError('no GPU here')\n", "RuntimeError: no GPU here"),
    ],
)
def test_conftest_error_is_a_collection_error(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], conftest: str, shown: str
) -> None:
    sub = pytester.mkpydir("suite")
    (sub / "conftest.py").write_text(conftest)
    (sub / "test_x.py").write_text(PAIRWISE)
    code, out, err = run(capsys, "report", "suite")
    assert code == ExitCode.COLLECTION_ERROR, err
    assert "error while loading conftest: " + shown in out
    assert "conftest.py" in out and "usage" not in err.lower() and "rejected" not in err
    code, out, _ = run(capsys, "report", "--format", "json", "suite")
    doc = json.loads(out)
    assert doc["exit_code"] == ExitCode.COLLECTION_ERROR
    assert doc["errors"][0]["where"].endswith("conftest.py") and shown in doc["errors"][0]["message"]


def test_without_the_plugin_the_explanation_comes_first_and_no_totals_mislead(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    pytester.makepyfile(test_pw=PAIRWISE, test_plain=PLAIN)
    code, out, _ = run(capsys, "report", "--", "-p", "no:pairwise_param")
    assert code == ExitCode.COLLECTION_ERROR
    lines = out.splitlines()
    assert lines[0].startswith("ERROR <session>: the pairwise-param pytest plugin is not loaded")
    assert "test_pw" not in out  # its unexpanded table (4 -> 1, 0%) is not counted
    assert "test_plain" in out  # the rest of the suite is still reported
    assert out.count("plugin is not loaded") == 1
    md = run(capsys, "report", "--format", "markdown", "--", "-p", "no:pairwise_param")[1]
    assert md.splitlines()[2].startswith("> **ERROR <session>: the pairwise-param pytest plugin")


def test_unittest_testcase_with_pairwise_is_explained_first(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    pytester.makepyfile(
        test_u="""
        import unittest
        from pairwise_param import pairwise

        class TestK(unittest.TestCase):
            @pairwise(a=[1, 2], b=[3, 4])
            def test_x(self, a, b):
                pass
        """,
        test_plain=PLAIN,
    )
    code, out, _ = run(capsys, "report")
    assert code == ExitCode.COLLECTION_ERROR
    first = out.splitlines()[0]
    assert first.startswith("ERROR <session>: test_u.py::TestK::test_x: @pairwise on a unittest.TestCase")
    assert "plain test class" in first
    assert "TestK" not in "\n".join(out.splitlines()[1:])
    assert "TOTAL (1 test)" in out


def test_show_missing_wraps_long_lists_between_tuples(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [(a, b) for a in range(12) for b in range(12) if (a + b) % 3]  # 96 of 144 pairs
    pytester.makepyfile(
        f"""
        import pytest

        @pytest.mark.pairwise_options
        @pytest.mark.parametrize("a,b", {rows!r})
        def test_t(a, b):
            pass
        """
    )
    code, out, _ = run(capsys, "report", "--show-missing", "--max-listed", "0")
    assert code == ExitCode.OK
    block = out.split("2-way missing (48 of 144): ", 1)[1].split("\n\n")[0].rstrip("\n").splitlines()
    assert len(block) > 3
    assert all(len(line) <= 100 for line in out.splitlines() if "{" in line)
    assert all(line.startswith("      {") for line in block[1:])  # continuation lines, indented
    listed = " ".join(block).replace("  ", " ")
    assert listed.count("{a=") == 48  # none lost in the wrapping, none split
    assert all(line.rstrip().endswith(("}", "},")) for line in block)


def test_grouped_values_print_as_their_ids(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    pytester.makepyfile(
        """
        from pairwise_param import pairwise

        @pairwise({"n,k": [(1, 64), (8, 128)]}, flag=[True, False], x=[0, 1], strength=2)
        def test_g(n, k, flag, x):
            pass
        """
    )
    ids = [line for line in pytester.runpytest("--co", "-q").outlines if "::" in line]
    assert any("n=1-k=64" in i for i in ids)
    _, out, _ = run(capsys, "report", "--show-missing", "--strength", "3")
    assert "{n=1, k=64, flag=" in out and "n,k=(1, 64)" not in out


def test_files_in_command_line_order(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    pytester.makepyfile(test_b=PAIRWISE.replace("test_pw", "test_b"), test_a=PLAIN.replace("test_plain", "test_a"))
    for order in (["test_b.py", "test_a.py"], ["test_a.py", "test_b.py"]):
        _, out, _ = run(capsys, "report", *order)
        lines = out.splitlines()
        heads = [line for line in lines if line in order]
        assert heads == order


def test_derived_values_and_empty_axes_are_not_axes(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    pytester.makepyfile(
        """
        from pairwise_param import pairwise

        TOL = {("sum", "f16"): 1e-2, ("sum", "f32"): 1e-5, ("mean", "f16"): 1e-3, ("mean", "f32"): 1e-6}

        @pairwise(reduction=["sum", "mean"], dtype=["f16", "f32"], chunked=[False, True],
                  derived={"atol": lambda reduction, dtype: TOL[reduction, dtype]})
        def test_loss(reduction, dtype, chunked, atol):
            pass

        @pairwise(fp8=[], n=[1, 2])
        def test_fp8(fp8, n):
            pass
        """
    )
    for mode, rows in (("cover", 4), ("full", 8)):
        code, out, _ = run(capsys, "report", "--format", "json", "--", f"--pairwise-mode={mode}")
        assert code == ExitCode.OK, out
        tests = {t["function"]: t for t in json.loads(out)["tests"]}
        loss = tests["test_loss"]
        assert [a["name"] for a in loss["axes"]] == ["reduction", "dtype", "chunked"]
        assert (loss["full_product"], loss["collected"]) == (8, rows)
        assert "is empty: the table has no row" in " ".join(tests["test_fp8"]["notes"])
