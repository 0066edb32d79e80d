"""benchmarks/upstream_ci_audit.py on a real family: the table states what the files hold."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses need the module registered
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def audit():
    return _load(ROOT / "benchmarks" / "upstream_ci_audit.py", "upstream_ci_audit")


def test_rmsnorm_row(audit, capsys):
    upstream = _load(ROOT / "kernel_tests" / "rmsnorm" / "upstream_ci.py", "rmsnorm_upstream_ci")
    from kernel_tests.rmsnorm.cases import BATCH_SIZES, HIDDEN_SIZES

    assert audit.main(["--family", "rmsnorm"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| rmsnorm |")]
    assert len(rows) == 1
    cells = [c.strip() for c in rows[0].strip("|").split("|")]
    pairs = upstream.RMSNORM_CASES
    batches = {b for b, _ in pairs}
    hiddens = {h for _, h in pairs}
    assert cells[2] == str(len(pairs) * 2 * 2)
    # every pair among dtype/specify_out and with them is covered; of the batch x hidden
    # pairs only the listed ones are
    missed = len(batches) * len(hiddens) - len(pairs)
    assert f"({missed} of " in cells[3]
    assert cells[5].startswith("100% (0 of ")
    assert cells[6] == str(len(BATCH_SIZES) * len(HIDDEN_SIZES) * 8)


def test_declared_reads_literals_without_importing(audit, tmp_path):
    f = tmp_path / "upstream_ci.py"
    f.write_text('import not_a_module\nAUDIT_SUITE = "test_x.py"\nAUDIT_OPTION_AXES = ["a", "b"]\n')
    assert audit.declared(f, "AUDIT_SUITE") == "test_x.py"
    assert audit.declared(f, "AUDIT_OPTION_AXES") == ["a", "b"]
    assert audit.declared(f, "MISSING") is None


def test_update_replaces_only_the_block(audit, tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text(f"before\n{audit.START}\nold\n{audit.END}\nafter\n")
    audit.update(doc, "new\n")
    assert doc.read_text() == f"before\n{audit.START}\nnew\n{audit.END}\nafter\n"
    doc.write_text("no block\n")
    with pytest.raises(SystemExit, match="has no"):
        audit.update(doc, "x\n")


def test_unknown_family_is_an_error(audit):
    with pytest.raises(SystemExit, match="no kernel_tests/<family>/upstream_ci.py for nope"):
        audit.main(["--family", "nope"])
