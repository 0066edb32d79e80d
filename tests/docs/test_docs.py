"""The documentation cannot drift: its generated outputs are current, its examples run.

* ``docs/gen_examples.py --check``: every output a page includes (the tutorial's runs,
  the reports, the CLI option table from the argument parser) is what the command
  produces now.
* every fenced ``python`` block of README.md and docs/**.md runs: the blocks of one page
  in order, in one namespace (a later block may use an earlier one's names), as a reader
  would paste them.  Blocks that are fragments by design are listed in ``FRAGMENTS``
  with the reason; a listed block that no longer exists fails, so the list cannot rot.
  A block that only includes a file (``--8<-- "docs/examples/..."``), or a copy of it
  inlined by ``gen_examples.py`` (the tutorial, the how-tos), shows a test file that
  ``gen_examples.py`` runs with pytest, so it must be one of that script's commands.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
SNIPPET = re.compile(r'^--8<-- "([^"]+)"\s*$')
FENCE = re.compile(r"^```python[^\n]*\n(.*?)^```", re.DOTALL | re.MULTILINE)

#: (page, first line of the block) -> why it is not executed
FRAGMENTS = {
    ("docs/pytest.md", "pairwise(axes_mapping=None, /, *, strength=None, sub_models=(), constraints=(),"):
        "a signature, not a call",
    ("docs/pytest.md", 'for mark in item.iter_markers("pairwise"):'):
        "the mark contract, shown on a collected pytest item",
    ("docs/pytest.md", "from hypothesis import given, strategies as st"):
        "fragments over names defined elsewhere (AXES, no_fp32_bias2); the runnable "
        "version is docs/how-to/hypothesis.md",
}


def _blocks(page: Path) -> list[str]:
    if "generated" in page.parts:
        return []
    return [m.group(1) for m in FENCE.finditer(page.read_text())]


def _rel(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def _inlined(page: Path) -> dict[str, str]:
    """The copy -> the file of each file inlined into ``page`` (``docs/gen_examples.py``)."""
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import gen_examples
    finally:
        sys.path.remove(str(ROOT / "docs"))
    return {copy: path for path, copy in gen_examples.inlined_blocks(page.read_text())}


def _generated_commands() -> set[str]:
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import gen_examples
    finally:
        sys.path.remove(str(ROOT / "docs"))
    return {arg for argv in gen_examples.COMMANDS.values() for arg in argv}


def test_generated_outputs_are_current() -> None:
    proc = subprocess.run([sys.executable, "docs/gen_examples.py", "--check"], check=False, cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_fragment_list_names_existing_blocks() -> None:
    for page, first in FRAGMENTS:
        firsts = [b.splitlines()[0] for b in _blocks(ROOT / page) if b.strip()]
        assert first in firsts, f"{page}: no python block starts with {first!r} any more"


@pytest.mark.parametrize("page", [p for p in PAGES if _blocks(p)], ids=_rel)
def test_python_examples_run(page: Path, capsys: pytest.CaptureFixture[str]) -> None:
    namespace: dict[str, object] = {"__name__": f"docs_example_{page.stem}"}
    ran = 0
    inlined = _inlined(page)
    for block in _blocks(page):
        if (_rel(page), block.splitlines()[0]) in FRAGMENTS:
            continue
        if block in inlined:  # a test file inlined for raw reading: as an include, below
            block = f'--8<-- "{inlined[block]}"\n'
        if (inc := SNIPPET.match(block.strip())) is not None:
            assert inc.group(1) in _generated_commands(), (
                f"{_rel(page)} shows {inc.group(1)}, which docs/gen_examples.py never runs")
            ran += 1
            continue
        if re.search(r"^\s*import torch", block, re.MULTILINE):
            pytest.importorskip("torch")
        if re.search(r"^\s*from hypothesis", block, re.MULTILINE):
            pytest.importorskip("hypothesis")
        exec(compile(block, f"{_rel(page)} (python block)", "exec"), namespace)  # noqa: S102 -- our own docs
        ran += 1
    assert ran, f"{_rel(page)}: every python block is a listed fragment"


def test_api_reference_lists_every_public_name() -> None:
    """docs/reference/api.md names each public name (``__all__`` of the public modules)."""
    import importlib

    text = (ROOT / "docs" / "reference" / "api.md").read_text()
    documented = set(re.findall(r"^::: [\w.]*?(\w+)$", text, re.MULTILINE))
    documented |= set(re.findall(r"^\s+- (\w+)$", text, re.MULTILINE))
    whole_modules = set(re.findall(r"^::: ([\w.]+)\n    options:\n      show_root_heading: false\n(?!      members)",
                                   text, re.MULTILINE))
    for whole in whole_modules:  # a module rendered whole documents its __all__
        documented |= set(importlib.import_module(whole).__all__)
    missing = []
    for modname in ("pairwise_param", "pairwise_param.coverage", "pairwise_param.strategies",
                    "pairwise_param.errors"):
        for name in importlib.import_module(modname).__all__:
            if name != "__version__" and name not in documented:
                missing.append(f"{modname}.{name}")
    assert not missing, f"not in docs/reference/api.md: {missing}"
