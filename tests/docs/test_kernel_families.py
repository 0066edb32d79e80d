"""kernel_tests/support/README.md lists every edit point of a new kernel family, and the
family list has one home (``kernel_tests/support/families.FAMILIES``): each file the
README lists exists, and no other script, benchmark or test lists families by hand
(issue 34: ``benchmarks/rotation.py`` kept a copy, ``gpu_side_by_side.sh`` a hand list)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "kernel_tests" / "support" / "README.md"
CODE = (".py", ".sh", ".toml", ".yml", ".yaml", ".cfg", ".ini")


def _families() -> tuple[str, ...]:
    text = (ROOT / "kernel_tests" / "support" / "families.py").read_text(encoding="utf-8")
    m = re.search(r"^FAMILIES: tuple\[str, \.\.\.\] = \(([^)]*)\)", text, re.MULTILINE)
    assert m is not None
    return tuple(re.findall(r'"(\w+)"', m.group(1)))


def _edit_points() -> list[str]:
    section = README.read_text(encoding="utf-8").split("## Adding a family: every edit point\n", 1)[1]
    section = section.split("\n## ", 1)[0]
    return re.findall(r"^\d+\. `([^`]+)`", section, re.MULTILINE)


def test_every_edit_point_the_readme_lists_exists() -> None:
    points = _edit_points()
    assert "kernel_tests/support/families.py" in points and len(points) >= 5
    for point in points:
        for family in _families():
            assert (ROOT / point.replace("<family>", family)).exists(), point


def _hand_lists() -> list[str]:
    """Lines of code (outside the families' own folders) that name two families or more."""
    families = _families()
    names = [re.compile(rf"""(?:["'\s(]{f}["':/\s,)]|\b{f}:)""") for f in families]
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    found = []
    for rel in tracked.splitlines():
        path = Path(rel)
        if path.suffix not in CODE or (path.parts[0] == "kernel_tests" and path.parts[1] in families):
            continue
        if not (ROOT / path).is_file():
            continue
        for n, line in enumerate((ROOT / path).read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            code = line.strip()
            if code.startswith("#"):
                continue
            if sum(1 for name in names if name.search(f" {code} ")) >= 2:
                found.append(f"{rel}:{n}: {code[:100]}")
    return found


def test_no_script_lists_the_families_by_hand() -> None:
    points = set(_edit_points())
    stray = [line for line in _hand_lists() if line.split(":", 1)[0] not in points]
    assert stray == [], "read kernel_tests/support/families.FAMILIES instead (or list the file as an edit point)"
