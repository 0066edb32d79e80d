"""The 10^20 table size the docs quote is the engine's (issue 38 item 21: the README said
187, docs/explanation/sizes.md 188 / 183, docs/engine.md 156 / 155; the engine builds 156
quick and 155 at effort 1)."""

from __future__ import annotations

import re
from pathlib import Path

from pairwise_param.tables.covering import cover

ROOT = Path(__file__).resolve().parents[2]


def test_the_quick_10_to_the_20_size_quoted_by_the_docs_is_the_engines() -> None:
    quick = len(cover({f"p{i}": list(range(10)) for i in range(20)}))
    readme = (ROOT / "README.md").read_text()
    assert re.findall(r"10\^20: (\d+), PICT", readme) == [str(quick)]
    sizes = (ROOT / "docs" / "explanation" / "sizes.md").read_text()
    row = next(line for line in sizes.splitlines() if line.startswith("| 10^20 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[3] == str(quick), row  # "ours, quick (effort 0)"
    assert int(cells[4]) <= quick and int(cells[4]) >= int(cells[2]), row  # effort 1: between best known and quick
    engine = (ROOT / "docs" / "engine.md").read_text()
    assert f"({quick} quick, " in engine
