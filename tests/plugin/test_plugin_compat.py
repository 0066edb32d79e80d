"""Adopting without a hard dependency (issue 37): ``pairwise_param.compat`` degrades to the
full product as plain ``parametrize`` (with a warning) when the plugin is off, and the
documented shim does the same when the package is absent.  Subprocess runs: an in-process
pytest session would see this session's plugin as active."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOWTO = ROOT / "docs" / "how-to" / "without-the-package.md"

TESTS = """
{imports}

@pairwise(a=[1, 2, 3], b=[1, 2, 3], c=[1, 2, 3], constraints=[lambda a, b: a != b])
def test_x(a, b, c):
    assert a != b

@pairwise(n=[1, 2], dtype=["f16", "bf16"])
class TestK:
    def test_m(self, n, dtype):
        pass
"""


def _passed(result: pytest.RunResult) -> int:
    return result.parseoutcomes().get("passed", 0)


def test_compat_is_pairwise_while_the_plugin_is_active(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_k=TESTS.format(imports="from pairwise_param.compat import pairwise"))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    assert _passed(result) == 9 + 4  # the t=2 cover table of test_x (its 3 forbidden pairs listed)
    assert "PairwiseWarning" not in result.stdout.str()


def test_compat_degrades_to_the_full_product_when_the_plugin_is_off(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_k=TESTS.format(imports="from pairwise_param.compat import pairwise"))
    result = pytester.runpytest_subprocess("-p", "no:pairwise_param", "-p", "no:cacheprovider", "-v")
    assert result.ret == pytest.ExitCode.OK
    assert _passed(result) == 18 + 4  # 27 minus the 9 rows with a == b; and 2 x 2
    out = result.stdout.str()
    assert "PairwiseWarning: test_k::test_x: the pairwise-param pytest plugin is not active" in out
    assert "18 rows as plain parametrize" in out
    assert "test_x[a=1-b=2-c=1]" in out  # the readable ids of --pairwise-mode=full


def test_the_ordinary_decorator_fails_loudly_without_the_plugin(pytester: pytest.Pytester) -> None:
    # what compat is for: pairwise_param.pairwise needs the plugin
    pytester.makepyfile(test_k=TESTS.format(imports="from pairwise_param import pairwise"))
    result = pytester.runpytest_subprocess("-p", "no:pairwise_param", "-p", "no:cacheprovider")
    assert "fixture '_pairwise_param_plugin' not found" in result.stdout.str()


def test_compat_with_derived_and_a_bare_decorator(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_d="""
        from pairwise_param.compat import pairwise

        @pairwise(a=[1, 2], b=[10, 20], derived={"s": lambda a, b: a + b})
        def test_d(a, b, s):
            assert s == a + b
        """)
    result = pytester.runpytest_subprocess("-p", "no:pairwise_param", "-p", "no:cacheprovider")
    assert _passed(result) == 4
    pytester.makepyfile(test_d="""
        from pairwise_param.compat import pairwise

        @pairwise
        def test_d(a, b):
            pass
        """)
    result = pytester.runpytest_subprocess("-p", "no:pairwise_param", "-p", "no:cacheprovider")
    assert "@pairwise is used without arguments" in result.stdout.str()


def _shim() -> str:
    blocks = re.findall(r"```python\n(.*?)```", HOWTO.read_text(encoding="utf-8"), re.DOTALL)
    shim = next(b for b in blocks if b.startswith("try:\n    from pairwise_param.compat import pairwise"))
    return shim


def test_the_documented_shim_runs_the_full_product_without_the_package(tmp_path: Path) -> None:
    (tmp_path / "test_k.py").write_text(TESTS.format(imports=_shim()), encoding="utf-8")
    # the package is blocked (every import of it fails, as where it is not installed) and its
    # entry point is not loaded
    (tmp_path / "run.py").write_text(BLOCKED, encoding="utf-8")
    proc = subprocess.run([sys.executable, "run.py"], check=False, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "22 passed" in proc.stdout
    assert "pairwise-param is not installed: 18 rows of the full product run" in " ".join(proc.stdout.split())


BLOCKED = """
import sys


class Block:
    def find_spec(self, name, path=None, target=None):
        if name == "pairwise_param" or name.startswith("pairwise_param."):
            raise ImportError(f"blocked: {name}")
        return None


sys.meta_path.insert(0, Block())
import pytest  # noqa: E402

# --assert=plain: pytest's rewriting hook would find the installed package's modules (it marks
# every entry point's files for rewriting) before the block above
sys.exit(pytest.main(["-p", "no:pairwise_param", "-p", "no:cacheprovider", "--assert=plain", "-q", "-W", "always",
                      "test_k.py"]))
"""


def test_the_documented_shim_is_compat_with_the_package(tmp_path: Path) -> None:
    namespace: dict[str, object] = {}
    exec(compile(_shim(), str(HOWTO), "exec"), namespace)  # noqa: S102 -- our own docs
    from pairwise_param import compat

    assert namespace["pairwise"] is compat.pairwise


def test_plugin_active_counts_the_sessions_that_configured_it(pytester: pytest.Pytester) -> None:
    from pairwise_param.compat import plugin_active
    from pairwise_param.plugin.hooks import sessions

    assert plugin_active()  # this very session
    before = sessions()
    pytester.makepyfile("def test_p():\n    pass\n")
    pytester.runpytest().assert_outcomes(passed=1)  # in-process: configured, then unconfigured
    pytester.runpytest("--pairwise-mode=nope")  # a usage error at configure
    assert sessions() == before
