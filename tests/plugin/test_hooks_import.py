"""What pytest pays for loading the plugin in every run: the hooks module imports no
engine module (issue 8's done-when), and the old module path still opts in."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

#: every pairwise_param module `import pairwise_param.plugin.hooks` may load
HOOKS_IMPORTS = {
    "pairwise_param",
    "pairwise_param._version",
    "pairwise_param.contract",
    "pairwise_param.plugin",
    "pairwise_param.plugin.hooks",
    "pairwise_param.plugin.modes",
}


def _loaded_after(statement: str) -> list[str]:
    code = (
        f"import sys, json; {statement}; "
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('pairwise_param'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_importing_the_hooks_module_loads_no_engine_module() -> None:
    loaded = _loaded_after("import pairwise_param.plugin.hooks")
    assert not [m for m in loaded if m.startswith("pairwise_param.engine")], loaded
    assert set(loaded) == HOOKS_IMPORTS


def test_the_facade_is_lazy_but_complete() -> None:
    assert _loaded_after("import pairwise_param") == ["pairwise_param", "pairwise_param._version"]
    loaded = _loaded_after("import pairwise_param; pairwise_param.cover({'a': [1, 2], 'b': [1, 2]})")
    assert "pairwise_param.engine" in loaded  # the engine comes with the first table


def test_the_old_module_path_still_opts_in(pytester: pytest.Pytester) -> None:
    # for a tree that is not pip-installed: PYTEST_PLUGINS / -p pairwise_param.pytest_plugin
    pytester.makepyfile(
        """
        from pairwise_param import pairwise

        @pairwise(a=[1, 2], b=[1, 2], c=[1, 2])
        def test_x(a, b, c):
            pass
        """
    )
    result = pytester.runpytest("-p", "no:pairwise_param", "-p", "pairwise_param.pytest_plugin", "-q")
    result.assert_outcomes(passed=4)


PW_TEST = """
from pairwise_param import pairwise

@pairwise(a=[1, 2], b=[1, 2], c=[1, 2])
def test_x(a, b, c):
    pass
"""


@pytest.mark.parametrize("autoload", [True, False])
@pytest.mark.parametrize("how", ["conftest", "env", "-p module", "-p entry point"])
def test_every_way_of_opting_in_works_with_autoload_on_and_off(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, how: str, autoload: bool
) -> None:
    # was: `pytest_plugins = ["pairwise_param.pytest_plugin"]` in a conftest (and
    # PYTEST_PLUGINS=...) with autoload on: "Plugin already registered under a different name"
    if not autoload:
        monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    else:
        monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    pytester.makepyfile(test_x=PW_TEST)
    args = ["-q"]
    if how == "conftest":
        pytester.makeconftest('pytest_plugins = ["pairwise_param.pytest_plugin"]\n')
    elif how == "env":
        monkeypatch.setenv("PYTEST_PLUGINS", "pairwise_param.pytest_plugin")
    elif how == "-p module":
        args += ["-p", "pairwise_param.pytest_plugin"]
    else:
        args += ["-p", "pairwise_param"]
    result = pytester.runpytest(*args)
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["pairwise-param: 4 items from 1 table*"])


def test_opting_out(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makepyfile(test_x=PW_TEST, test_plain="def test_plain():\n    pass\n")
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    off = pytester.runpytest("-p", "no:pairwise_param", "-q")
    off.assert_outcomes(passed=1, errors=1)  # a decorated test fails loudly without the plugin
    off.stdout.fnmatch_lines(["*fixture '_pairwise_param_plugin' not found*"])
    assert "--pairwise-mode" not in pytester.runpytest("-p", "no:pairwise_param", "--help").stdout.str()
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    assert "--pairwise-mode" not in pytester.runpytest("--help").stdout.str()


def test_the_helper_fixture_is_hidden_from_fixtures_unless_verbose(pytester: pytest.Pytester) -> None:
    # was: `pairwise_param_plugin` listed in every project's `pytest --fixtures`
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    assert "pairwise_param_plugin" not in pytester.runpytest("--fixtures").stdout.str()
    assert "_pairwise_param_plugin" in pytester.runpytest("--fixtures", "-v").stdout.str()


def test_a_whole_run_without_pairwise_tests_loads_only_the_hooks(tmp_path: Path) -> None:
    # the fixed cost of every pytest run: no summary, engine, expansion or values module
    (tmp_path / "test_plain.py").write_text("def test_plain():\n    pass\n")
    code = (
        "import sys, json, pytest; "
        f"rc = pytest.main(['-q', '-p', 'no:cacheprovider', {str(tmp_path)!r}]); "
        "print(); print(json.dumps([int(rc), sorted(m for m in sys.modules if m.startswith('pairwise_param'))]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path)
    rc, loaded = json.loads(out.stdout.strip().splitlines()[-1])
    assert rc == 0
    assert set(loaded) == HOOKS_IMPORTS
