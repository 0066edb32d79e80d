"""``pairwise_full_when``: the project's own switch of full mode (issue 37): flashinfer's
``--full`` flag (registered in their conftest), SGLang's
``SGLANG_JIT_KERNEL_RUN_FULL_TESTS=1``; the summary line says which mode ran and why."""

from __future__ import annotations

import pytest

from pairwise_param.plugin import modes

ENV = "SGLANG_JIT_KERNEL_RUN_FULL_TESTS"

TEST = """
from pairwise_param import pairwise

@pairwise(a=[1, 2, 3], b=[1, 2, 3], c=[1, 2, 3])
def test_x(a, b, c):
    pass
"""

CONFTEST = """
def pytest_addoption(parser):
    parser.addoption("--full", action="store_true", default=False, help="run the full product")
"""


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    for name in (ENV, "OTHER_SWITCH", modes.ENV_MODE, modes.ENV_STRENGTH):
        monkeypatch.delenv(name, raising=False)
    pytester.makepyfile(test_x=TEST)
    pytester.makeconftest(CONFTEST)
    return pytester


def _items(result: pytest.RunResult) -> int:
    return result.parseoutcomes().get("passed", 0)


def test_the_projects_flag_runs_full_mode_and_the_summary_says_why(suite: pytest.Pytester) -> None:
    suite.makeini("[pytest]\npairwise_full_when = --full\n")
    result = suite.runpytest("--full")
    assert _items(result) == 27
    result.stdout.fnmatch_lines(["pairwise-param: 27 items *, mode=full (pairwise_full_when: --full)"])
    result = suite.runpytest()
    assert _items(result) == 9
    result.stdout.fnmatch_lines(["pairwise-param: 9 items *, mode=cover (pairwise_full_when: none on of --full)"])


@pytest.mark.parametrize(("value", "items"), [("1", 27), ("true", 27), ("0", 9), ("", 9)])
def test_the_projects_environment_variable(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, value: str, items: int
) -> None:
    suite.makeini(f"[pytest]\npairwise_full_when = env:{ENV}\n")
    monkeypatch.setenv(ENV, value)
    result = suite.runpytest()
    assert _items(result) == items
    if items == 27:
        result.stdout.fnmatch_lines([f"*, mode=full (pairwise_full_when: env {ENV}={value})"])


def test_several_switches_the_first_that_is_on_is_named(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    suite.makeini(f"[pytest]\npairwise_full_when = --full env:OTHER_SWITCH env:{ENV}\n")
    monkeypatch.setenv(ENV, "yes")
    result = suite.runpytest()
    assert _items(result) == 27
    result.stdout.fnmatch_lines([f"*, mode=full (pairwise_full_when: env {ENV}=yes)"])


def test_a_toml_list(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    suite.makepyprojecttoml(f'[tool.pytest.ini_options]\npairwise_full_when = ["--full", "env:{ENV}"]\n')
    monkeypatch.setenv(ENV, "1")
    assert _items(suite.runpytest()) == 27


@pytest.mark.parametrize(
    ("args", "env", "ini_mode", "items", "why"),
    [
        (["--pairwise-mode=cover"], {ENV: "1"}, "", 9, "--pairwise-mode"),  # our flag wins
        ([], {ENV: "1", modes.ENV_MODE: "cover"}, "", 9, modes.ENV_MODE),  # our variable wins
        ([], {ENV: "1"}, "cover", 27, f"pairwise_full_when: env {ENV}=1"),  # over pairwise_mode (ini)
        ([], {}, "full", 27, f"pairwise_mode (ini); pairwise_full_when: none on of env:{ENV}"),
    ],
)
def test_precedence(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, args: list[str], env: dict[str, str], ini_mode: str,
    items: int, why: str
) -> None:
    ini = f"[pytest]\npairwise_full_when = env:{ENV}\n" + (f"pairwise_mode = {ini_mode}\n" if ini_mode else "")
    suite.makeini(ini)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    result = suite.runpytest(*args)
    assert _items(result) == items
    result.stdout.fnmatch_lines([f"*, mode={'full' if items == 27 else 'cover'} ({why})"])


def test_a_misspelt_flag_fails_closed_where_a_table_is_built(suite: pytest.Pytester) -> None:
    suite.makeini("[pytest]\npairwise_full_when = --ful\n")
    suite.makepyfile(test_plain="def test_p():\n    pass\n")
    result = suite.runpytest("test_plain.py")
    assert result.ret == pytest.ExitCode.OK  # a run without tables is not broken by it
    result = suite.runpytest("test_x.py")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*pairwise_full_when (ini): --ful is not an option of this pytest run*"])


def test_a_variable_that_is_no_boolean_fails_closed(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    suite.makeini(f"[pytest]\npairwise_full_when = env:{ENV}\n")
    monkeypatch.setenv(ENV, "maybe")
    result = suite.runpytest()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines([f"*pairwise_full_when (ini): env {ENV}='maybe' is not a boolean*"])


def test_an_entry_that_is_no_switch_is_a_usage_error(suite: pytest.Pytester) -> None:
    suite.makeini("[pytest]\npairwise_full_when = full\n")
    result = suite.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*pairwise_full_when (ini)='full': 'full' is neither a flag (--full) nor*"])


def test_without_the_setting_the_line_is_unchanged(suite: pytest.Pytester) -> None:
    result = suite.runpytest()
    line = next(x for x in result.outlines if x.startswith("pairwise-param: 9 items"))
    assert "mode=" not in line
    result = suite.runpytest("--pairwise-mode=full")
    result.stdout.fnmatch_lines(["*, mode=full (--pairwise-mode)"])


def test_resolve_unit() -> None:
    s = modes.resolve(environ={ENV: "on"}, ini={"full_when": f"--full env:{ENV}"}, option_value=lambda _: False)
    assert (s.mode, s.mode_source, s.full_when) == ("full", f"pairwise_full_when: env {ENV}=on", ("--full", f"env:{ENV}"))
    s = modes.resolve(environ={}, ini={"full_when": "--shards"}, option_value=lambda _: "2")
    assert (s.mode, modes.mode_why(s)) == ("full", "pairwise_full_when: --shards=2")
    s = modes.resolve(environ={}, ini={"full_when": "--full"}, option_value=lambda _: None)
    assert (s.mode, modes.mode_why(s)) == ("cover", "pairwise_full_when: none on of --full")
