"""docs/pytest.md's run-time options table says how each flag is written: a switch
(`--pairwise-no-cache`, `--pairwise-rotate`) takes no value on the command line
(issue 38 item 21: the table gave `--pairwise-rotate` "a boolean", and
`pytest --pairwise-rotate=true` was a usage error)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pairwise_param.plugin import hooks

ROOT = Path(__file__).resolve().parents[2]


class _Recorder:
    def __init__(self) -> None:
        self.options: dict[str, dict[str, Any]] = {}

    def getgroup(self, *args: Any, **kwargs: Any) -> _Recorder:
        return self

    def addoption(self, *names: str, **kwargs: Any) -> None:
        for n in names:
            self.options[n] = kwargs

    def addini(self, *args: Any, **kwargs: Any) -> None:
        pass


def test_every_switch_is_documented_as_a_switch_and_no_flag_value_is_promised() -> None:
    recorder = _Recorder()
    hooks.pytest_addoption(recorder)  # type: ignore[arg-type]
    switches = {n for n, kw in recorder.options.items() if kw.get("action") in ("store_true", "store_false")}
    assert "--pairwise-rotate" in switches
    rows = {line.split("|")[1].strip().split("`")[1]: line
            for line in (ROOT / "docs" / "pytest.md").read_text().splitlines()
            if line.startswith("| `--pairwise-")}
    for name in switches & set(rows):
        values = rows[name].split("|")[4]
        assert "switch" in values, (name, values)
