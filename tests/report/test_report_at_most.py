"""Issue 17: ``pairwise-param report`` says "<=" / "at most" / "up to" where a
feasible count is only an upper bound (a constrained group past
:data:`pairwise_param.tables.product.COUNT_LIMIT`), and the JSON report carries
``full_product_exact``.

4 x 4 x 2 options with ``a != b``: 24 feasible rows of 32, x 2 shapes -> FULL 48
exact; with the limit patched down to 3 the count is the bound 32 -> FULL <=64.
"""

from __future__ import annotations

import json

import pytest
from schema_check import validate

from pairwise_param.cli import main
from pairwise_param.report.schema import REPORT_SCHEMA
from pairwise_param.tables import product

SUITE = """
    import pytest
    from pairwise_param import pairwise

    @pairwise(a=[0, 1, 2, 3], b=[0, 1, 2, 3], c=[False, True], constraints=[lambda a, b: a != b])
    @pytest.mark.parametrize("n", [1, 2])
    def test_k(n, a, b, c):
        pass
"""


def report(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["report", "--strength", "2", *args]) == 0
    return capsys.readouterr().out


def test_json_report_flags_a_bound(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_k=SUITE)
    doc = json.loads(report(capsys, "--format", "json"))
    validate(doc, REPORT_SCHEMA)
    [test] = doc["tests"]
    assert (test["full_product"], test["full_product_exact"]) == (48, True)
    assert (test["tables"][0]["full_product"], test["tables"][0]["full_product_exact"]) == (24, True)
    assert doc["totals"]["full_product_exact"] is True
    monkeypatch.setattr(product, "COUNT_LIMIT", 3)
    doc = json.loads(report(capsys, "--format", "json"))
    validate(doc, REPORT_SCHEMA)
    [test] = doc["tests"]
    assert (test["full_product"], test["full_product_exact"]) == (64, False)
    assert (test["tables"][0]["full_product"], test["tables"][0]["full_product_exact"]) == (32, False)
    assert (doc["totals"]["full_product"], doc["totals"]["full_product_exact"]) == (64, False)


def test_terminal_and_markdown_say_at_most(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_k=SUITE)
    exact = report(capsys)
    assert "<=" not in exact and "at most" not in exact and "up to" not in exact
    monkeypatch.setattr(product, "COUNT_LIMIT", 3)
    out = report(capsys)
    row = next(line for line in out.splitlines() if line.lstrip().startswith("test_k "))
    assert "/<=32]" in row and " <=64 " in row and "<=" in row.split("<=64", 1)[1]  # FULL and REDUCTION
    total = next(line for line in out.splitlines() if line.startswith("TOTAL"))
    assert "<=64" in total
    assert "at most 64 -> " in out and "up to " in out
    md = report(capsys, "--format", "markdown")
    assert "<=64" in md and "**at most 64 -> " in md
