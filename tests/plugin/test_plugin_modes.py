"""Run-time modes: flag / env / ini, precedence, strict parsing, per-test override."""

from __future__ import annotations

import pytest

from pairwise_param.plugin import modes

SUITE = """
from pairwise_param import pairwise

@pairwise(dtype=["fp16", "bf16"], padded_a=[False, True], bias_mode=[0, 1, 2], xnorm=[False, True])
def test_cover(dtype, padded_a, bias_mode, xnorm):
    pass

@pairwise(a=[0, 1, 2], b=[0, 1], mode="full")
def test_always_full(a, b):
    pass

@pairwise(a=[0, 1], b=[0, 1], c=[0, 1], d=[0, 1], strength=3)
def test_t3(a, b, c, d):
    pass
"""


def count(result: pytest.RunResult, name: str) -> int:
    """Items of test ``name`` in a ``--collect-only`` listing (``-q`` lists node ids, the
    default a tree of ``<Function name[id]>``; the summary line shows in the latter only)."""
    return sum(1 for line in result.outlines if f"::{name}[" in line or f"<Function {name}[" in line)


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.delenv(modes.ENV_MODE, raising=False)
    monkeypatch.delenv(modes.ENV_STRENGTH, raising=False)
    pytester.makepyfile(test_suite=SUITE)
    return pytester


def test_default_cover_with_per_test_full(suite: pytest.Pytester) -> None:
    result = suite.runpytest("--collect-only")
    assert count(result, "test_cover") == 6
    assert count(result, "test_always_full") == 6
    assert 8 <= count(result, "test_t3") < 16
    result.stdout.fnmatch_lines(
        ["pairwise-param: * items from 3 tables stand for 46 full-product items*t=2..3, mode=cover+full"]
    )


@pytest.mark.parametrize("how", ["flag", "env", "ini"])
def test_full_mode_from_each_source(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    args = ["--collect-only"]
    if how == "flag":
        args.append("--pairwise-mode=full")
    elif how == "env":
        monkeypatch.setenv("PAIRWISE_MODE", "full")
    else:
        suite.makeini("[pytest]\npairwise_mode = full\n")
    result = suite.runpytest(*args)
    assert count(result, "test_cover") == 24
    assert count(result, "test_always_full") == 6
    assert count(result, "test_t3") == 16
    result.stdout.fnmatch_lines(
        ["pairwise-param: 46 items from 3 tables stand for 46 full-product items (1.0x fewer)*"]
    )


def test_precedence_flag_over_env_over_ini(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    suite.makeini("[pytest]\npairwise_mode = full\npairwise_strength = 1\n")
    result = suite.runpytest("--collect-only")
    assert count(result, "test_cover") == 24  # ini full
    monkeypatch.setenv("PAIRWISE_MODE", "cover")
    result = suite.runpytest("--collect-only")
    # env cover beats ini full; ini strength 1 lowers the default-strength test only
    assert count(result, "test_cover") == 3
    assert 8 <= count(result, "test_t3") < 16  # its own strength=3 is a floor
    result = suite.runpytest("--collect-only", "--pairwise-mode=full")
    assert count(result, "test_cover") == 24  # flag beats env
    monkeypatch.setenv("PAIRWISE_STRENGTH", "3")
    result = suite.runpytest("--collect-only", "--pairwise-strength=2")
    assert count(result, "test_cover") == 6  # flag 2 beats env 3


def test_strength_raises_and_clamps(suite: pytest.Pytester) -> None:
    result = suite.runpytest("--collect-only", "--pairwise-strength=4")
    assert count(result, "test_cover") == 24  # t=4 over 4 axes is the full product
    assert count(result, "test_t3") == 16
    result = suite.runpytest("--collect-only", "--pairwise-strength=9")
    assert count(result, "test_cover") == 24  # clamped to the number of axes, not an error
    result.stdout.fnmatch_lines(["pairwise-param: *t=2..4*"])


@pytest.mark.parametrize(
    ("args", "env", "ini", "message"),
    [
        (
            ["--pairwise-mode=fulll"],
            {},
            "",
            "*--pairwise-mode='fulll' is not a pairwise mode; use one of: cover, full*",
        ),
        (["--pairwise-strength=0"], {}, "", "*--pairwise-strength='0' is out of range*"),
        (["--pairwise-strength=2.5"], {}, "", "*--pairwise-strength='2.5' is not a strength*"),
        ([], {}, "pairwise_mode = nope", "*pairwise_mode (ini)='nope' is not a pairwise mode*"),
        ([], {}, "pairwise_strength = -1", "*pairwise_strength (ini)='-1' is not a strength*"),
    ],
)
def test_bad_values_are_usage_errors(
    suite: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    env: dict,
    ini: str,
    message: str,
) -> None:
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    if ini:
        suite.makeini(f"[pytest]\n{ini}\n")
    result = suite.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: pairwise-param: " + message.lstrip("*")])


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"PAIRWISE_MODE": "exhaustive"}, "PAIRWISE_MODE='exhaustive' is not a pairwise mode"),
        ({"PAIRWISE_STRENGTH": "two"}, "PAIRWISE_STRENGTH='two' is not a strength"),
    ],
)
def test_bad_env_value_only_matters_where_a_table_is_expanded(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, env: dict, message: str
) -> None:
    # was: EVERY pytest run exited 4 (usage error), --help and suites without @pairwise included
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    assert pytester.runpytest("--help").ret == pytest.ExitCode.OK
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    plain = pytester.runpytest("test_plain.py")
    plain.assert_outcomes(passed=1)
    assert message not in plain.stdout.str() + plain.stderr.str()
    pytester.makepyfile(
        test_pw="""
        from pairwise_param import pairwise

        @pairwise(a=[1, 2], b=[3, 4])
        def test_pw(a, b):
            pass
        """
    )
    result = pytester.runpytest("test_pw.py", "test_plain.py")
    assert result.ret == pytest.ExitCode.INTERRUPTED  # a collection error
    result.stdout.fnmatch_lines([f"*test_pw.py::test_pw: environment variable {message}*"])
    # a flag overrides the environment: no error then
    flag = "--pairwise-mode=cover" if "MODE" in next(iter(env)) else "--pairwise-strength=2"
    pytester.runpytest("test_pw.py", flag).assert_outcomes(passed=4)


def test_mode_values_are_case_insensitive_and_blank_is_unset(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAIRWISE_MODE", "  ")
    result = suite.runpytest("--collect-only", "--pairwise-mode= FULL ")
    assert count(result, "test_cover") == 24


def _native_toml_supported() -> bool:
    return tuple(int(p) for p in pytest.__version__.split(".")[:2]) >= (9, 0)


@pytest.mark.skipif(not _native_toml_supported(), reason="native [tool.pytest] TOML config is pytest >= 9")
def test_native_toml_int_strength(suite: pytest.Pytester) -> None:
    # `pairwise_strength = 3` in [tool.pytest] is a TOML int: pytest refused it ("expects a
    # string, got int"), and a TOML 0 was taken as unset instead of an error
    suite.makepyprojecttoml("[tool.pytest]\npairwise_strength = 3\n")
    result = suite.runpytest("--collect-only")
    assert result.ret == 0, result.stderr.str()
    assert count(result, "test_cover") > 6  # raised from t=2 (6 rows) to t=3
    result.stdout.fnmatch_lines(["pairwise-param: * t=2..3*"])
    suite.makepyprojecttoml("[tool.pytest]\npairwise_strength = 0\n")
    result = suite.runpytest("--collect-only")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: pairwise-param: pairwise_strength (ini)='0' is out of range*"])


# Regression (issue 8, defect 1): on pytest 9.0.x a TOML int was an INTERNALERROR (the option was
# registered as a string, which 9.0 checks strictly; 9.1's `int | str` was refused by 9.0). CI runs
# this module under the oldest and newest supported pytest (tox envs pytest-oldest / pytest-newest).
@pytest.mark.parametrize("section", ["tool.pytest.ini_options", "tool.pytest"])
def test_toml_int_strength_on_every_supported_pytest(suite: pytest.Pytester, section: str) -> None:
    if section == "tool.pytest" and not _native_toml_supported():
        pytest.skip("pytest < 9 reads only [tool.pytest.ini_options]")
    suite.makepyprojecttoml(f"[{section}]\npairwise_strength = 3\n")
    result = suite.runpytest("--collect-only")
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    assert result.ret == 0, result.stderr.str()
    assert count(result, "test_cover") > 6  # raised from t=2 (6 rows) to t=3
    result.stdout.fnmatch_lines(["pairwise-param: * t=2..3*"])


def test_ini_text_strength_that_is_no_number_is_a_usage_error(suite: pytest.Pytester) -> None:
    suite.makeini("[pytest]\npairwise_strength = three\n")
    result = suite.runpytest("--collect-only")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    result.stderr.fnmatch_lines(["ERROR: pairwise-param: pairwise_strength (ini)*"])


# -- pure logic ----------------------------------------------------------------------
def test_resolve_unit() -> None:
    s = modes.resolve(environ={})
    assert (s.mode, s.strength, s.mode_source) == ("cover", None, "default")
    s = modes.resolve(flags={"mode": None}, environ={"PAIRWISE_MODE": "full"}, ini={"mode": "cover"})
    assert (s.mode, s.mode_source) == ("full", "PAIRWISE_MODE")
    s = modes.resolve(environ={}, ini={"strength": "3"})
    assert (s.strength, s.strength_source) == (3, "pairwise_strength (ini)")
    with pytest.raises(modes.ModeError, match="use an integer >= 1"):
        modes.resolve(flags={"strength": "٣"}, environ={})  # non-ASCII digit
    # a bad environment value is kept for the expansion, never raised here; a flag overrides it
    s = modes.resolve(environ={"PAIRWISE_MODE": "nope", "PAIRWISE_STRENGTH": "0"})
    assert "PAIRWISE_MODE='nope'" in s.env_error and "PAIRWISE_STRENGTH='0'" in s.env_error
    s = modes.resolve(flags={"mode": "full", "strength": "3"}, environ={"PAIRWISE_MODE": "nope", "PAIRWISE_STRENGTH": "0"})
    assert (s.mode, s.strength, s.env_error) == ("full", 3, "")


def test_resolve_empty_axis_and_ids() -> None:
    s = modes.resolve(environ={})
    assert (s.empty_axis, s.ids) == ("skip", "readable")
    s = modes.resolve(environ={}, ini={"empty_axis": "Error ", "ids": "pytest"})
    assert (s.empty_axis, s.ids) == ("error", "pytest")
    s = modes.resolve(environ={}, flags={"empty_axis": "skip", "ids": "readable"},
                      ini={"empty_axis": "error", "ids": "pytest"})
    assert (s.empty_axis, s.ids) == ("skip", "readable")  # the flag wins
    with pytest.raises(modes.ModeError, match=r"--pairwise-ids='short' is not valid; use one of: readable, pytest"):
        modes.resolve(environ={}, flags={"ids": "short"})
    with pytest.raises(modes.ModeError, match=r"pairwise_empty_axis \(ini\)='warn'"):
        modes.resolve(environ={}, ini={"empty_axis": "warn"})


@pytest.mark.parametrize(
    ("run_mode", "run_t", "test_mode", "test_t", "n", "expected"),
    [
        ("cover", None, None, None, 4, ("cover", None)),
        ("full", None, None, None, 4, ("full", None)),
        ("cover", None, "full", None, 4, ("full", None)),
        ("full", None, "cover", None, 4, ("full", None)),
        ("cover", 3, None, None, 4, ("cover", 3)),
        ("cover", 9, None, None, 4, ("cover", 4)),
        ("cover", 1, None, 3, 4, ("cover", 3)),
        ("cover", 3, None, 2, 4, ("cover", 3)),
        ("cover", None, None, 5, 4, ("cover", 5)),  # the test's own error stays visible
    ],
)
def test_effective_unit(run_mode, run_t, test_mode, test_t, n, expected) -> None:  # type: ignore[no-untyped-def]
    settings = modes.Settings(mode=run_mode, strength=run_t)
    assert modes.effective(settings, test_mode, test_t, n) == expected
