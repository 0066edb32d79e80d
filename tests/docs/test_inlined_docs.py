"""The tutorial and the how-tos read raw in the repository (GitHub shows Markdown as it is)
show their code and outputs, not `--8<--` include lines (issue 38 item 21); each inlined
copy is the file it came from (``docs/gen_examples.py`` refreshes them)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "docs"))
try:
    import gen_examples
finally:
    sys.path.remove(str(ROOT / "docs"))


def test_the_tutorial_and_the_how_tos_hold_no_include_lines() -> None:
    pages = gen_examples.inlined_pages()
    assert ROOT / "docs" / "tutorial.md" in pages and len(pages) > 5
    for page in pages:
        lines = [line for line in page.read_text().splitlines() if line.startswith("--8<--")]
        assert not lines, f"{page.relative_to(ROOT)} shows {lines[0]!r} where its code should be"


def test_every_inlined_copy_is_the_file_it_came_from() -> None:
    seen = 0
    for page in gen_examples.inlined_pages():
        text = page.read_text()
        for path, copy in gen_examples.inlined_blocks(text):
            assert copy == (ROOT / path).read_text(), f"{page.relative_to(ROOT)}: the copy of {path} differs"
            seen += 1
        assert gen_examples.refresh_inlined(text) == text
    assert seen >= 13  # the tutorial's 6, the how-tos' 7


def test_a_stale_copy_is_found_and_refreshed() -> None:
    page = (ROOT / "docs" / "tutorial.md").read_text()
    stale = page.replace("def test_", "def test_stale_", 1)
    assert stale != page
    path, copy = gen_examples.inlined_blocks(stale)[0]
    assert copy != (ROOT / path).read_text()
    assert gen_examples.refresh_inlined(stale) == page
