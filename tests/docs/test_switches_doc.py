"""The run-time options table (docs/generated/run_options.md, included by docs/pytest.md)
writes each flag as it is typed: a switch (`--pairwise-no-cache`, `--pairwise-rotate`)
without a value, every other flag with its `=VALUE` (issue 38 item 21: the table gave
`--pairwise-rotate` "a boolean", and `pytest --pairwise-rotate=true` was a usage error;
a value would swallow the path after it, `pytest --pairwise-rotate tests/`)."""

from __future__ import annotations

from pathlib import Path

from pairwise_param.plugin.modes import RUN_OPTIONS

ROOT = Path(__file__).resolve().parents[2]


def test_every_switch_is_shown_without_a_value_and_every_other_flag_with_one() -> None:
    rows = [line for line in (ROOT / "docs" / "generated" / "run_options.md").read_text().splitlines()
            if line.startswith("| `--pairwise-")]
    flags = {line.split("|")[1].strip().strip("`"): line for line in rows}
    switches = [o for o in RUN_OPTIONS if o.flag and o.switch]
    assert "--pairwise-rotate" in [o.flag for o in switches]
    for option in RUN_OPTIONS:
        if not option.flag:
            continue
        shown = [f for f in flags if f.split("=")[0] == option.flag]
        assert len(shown) == 1, (option.flag, list(flags))
        assert ("=" in shown[0]) != option.switch, (option.flag, shown[0])
    pytest_md = (ROOT / "docs" / "pytest.md").read_text()
    assert "--pairwise-rotate=true" not in pytest_md and "--pairwise-rotate=1" not in pytest_md
