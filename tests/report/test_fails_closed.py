"""Issue 35: every degenerate input of ``pairwise-param report`` fails closed, with a
message naming it (nothing collected; a name in --option-axes / --grouped that no test has)."""

from __future__ import annotations

import pytest

from pairwise_param.cli import main
from pairwise_param.cli.main import ExitCode

SUITE = """
from pairwise_param import pairwise

@pairwise(dtype=["fp16", "bf16"], fused=[False, True], act=["relu", "gelu"])
def test_k(dtype, fused, act):
    pass
"""


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return int(code), out, err


def test_a_folder_without_test_files_is_no_tests(pytester: pytest.Pytester,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    sub = pytester.mkpydir("suite")
    (sub / "kernel_check.py").write_text(SUITE)  # not test_*.py: pytest collects nothing
    code, _, err = run(capsys, "report", "suite", "--fail-under", "100")
    assert code == ExitCode.NO_TESTS == 5
    assert "error: no tests collected from suite" in err and "test_*.py" in err


@pytest.mark.parametrize("fmt", ["terminal", "json"])
def test_a_selection_that_matches_nothing_is_no_tests(pytester: pytest.Pytester,
                                                      capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    pytester.makepyfile(test_k=SUITE)
    code, _, err = run(capsys, "report", "test_k.py", "--format", fmt, "--fail-under", "100", "--", "-k", "nomatch")
    assert code == ExitCode.NO_TESTS
    assert "the selection (-k nomatch) matched no test" in err
    # the same file, selected, is reported and passes
    assert run(capsys, "report", "test_k.py", "--fail-under", "100")[0] == ExitCode.OK


@pytest.mark.parametrize(("option", "spec", "shown"), [
    ("--option-axes", "dtype,layuot,act", "--option-axes names 'layuot', which no collected test"),
    ("--grouped", "dtpye,fused", "--grouped names 'dtpye' (did you mean 'dtype'?)"),
    ("--option-axes", "dtype,fsued", "'fsued' (did you mean 'fused'?)"),
])
def test_a_name_that_no_test_has_is_an_error(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str],
                                             option: str, spec: str, shown: str) -> None:
    pytester.makepyfile(test_k=SUITE)
    code, out, err = run(capsys, "report", "test_k.py", option, spec)
    assert code == ExitCode.USAGE_ERROR
    assert shown in err and "arguments: act, dtype, fused" in err
    assert out == ""
    # spelled right, both are accepted
    good = spec.replace("layuot,", "").replace("dtpye", "dtype").replace("fsued", "fused")
    assert run(capsys, "report", "test_k.py", option, good)[0] == ExitCode.OK


def test_names_of_parametrize_marks_count(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    pytester.makepyfile(test_p="""
import pytest

@pytest.mark.parametrize("x,expected", [(1, 1), (2, 4)])
@pytest.mark.parametrize("dtype", ["a", "b"])
def test_p(x, expected, dtype):
    pass
""")
    assert run(capsys, "report", "test_p.py", "--grouped", "x,expected")[0] == ExitCode.OK
    code, _, err = run(capsys, "report", "test_p.py", "--grouped", "x,expectd")
    assert code == ExitCode.USAGE_ERROR and "'expectd' (did you mean 'expected'?)" in err
