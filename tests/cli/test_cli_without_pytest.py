"""``pairwise-param report`` in an environment without pytest (the core does
not depend on it): a message saying what to install, exit 2 (a usage error),
never a traceback with exit 1 (which means "coverage too low")."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

# pytest made unimportable in a fresh interpreter, as in an environment that lacks it
NO_PYTEST = (
    "import sys; sys.modules['pytest'] = None; sys.modules['_pytest'] = None; "
    "from pairwise_param.cli.main import main; sys.exit(main(sys.argv[1:]))"
)


def test_report_without_pytest_says_what_to_install_and_exits_2(tmp_path: Path) -> None:
    (tmp_path / "test_x.py").write_text("def test_x():\n    pass\n")
    done = subprocess.run(
        [sys.executable, "-c", NO_PYTEST, "report", str(tmp_path)],
        check=False, capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "pip install pytest" in done.stderr and "pairwise-param report: error:" in done.stderr
    # the commands that do not collect still work without pytest
    model = tmp_path / "m.json"
    model.write_text('{"axes": {"a": [1, 2], "b": [3, 4]}}')
    gen = subprocess.run(
        [sys.executable, "-c", NO_PYTEST, "generate", str(model)],
        check=False, capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )
    assert gen.returncode == 0, gen.stderr
