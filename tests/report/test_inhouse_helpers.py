"""The report reads the in-house helpers (issue 37; report/helpers.py): flashinfer's
``parametrize_product`` shows the full product it stands for and audits its regular rows;
SGLang's ``get_ci_test_range`` lists are axes of their FULL values, the CI side audited."""

from __future__ import annotations

import pytest

from tests.report.inhouse import FI_CONFTEST, FI_TEST, SG_TEST
from tests.report.test_cli_report import by_function, cov, report_json


def test_flashinfer_helper_is_an_option_table_of_its_full_product(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    pytester.makeconftest(FI_CONFTEST)
    pytester.makepyfile(test_fi=FI_TEST)
    code, doc = report_json(capsys, "--strength", "2", "--fail-under", "100")
    tests = by_function(doc)
    paged = tests["test_paged"]
    (table,) = paged["tables"]
    assert table["source"] == "parametrize_product"
    # 4 * 2 * 6 (the grouped heads axis: a comprehension, read from the helper's spec) * 2
    assert table["full_product"] == 96 and paged["full_product"] == 96 * 2  # x head_dim
    assert 0 < table["rows"] < 96 and cov(paged, 0, 2)["percent"] == 100.0
    assert any("parametrize_product" in n and "(96)" in n for n in paged["notes"])
    # two hand-written regular rows of a 2x2 product: half the pairs, and the gate fails
    holes = tests["test_holes"]
    assert holes["tables"][0]["full_product"] == 4 and cov(holes, 0, 2)["percent"] == 50.0
    assert holes["below_fail_under"] and code != 0


def test_flashinfer_full_mode_covers_everything(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    pytester.makeconftest(FI_CONFTEST)
    pytester.makepyfile(test_fi=FI_TEST)
    _, doc = report_json(capsys, "--strength", "2", "--", "--full")
    paged = by_function(doc)["test_paged"]
    assert paged["tables"][0]["rows"] == 96 and cov(paged, 0, 2)["percent"] == 100.0


def test_sglang_ci_ranges_are_axes_of_their_full_values(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI_RUN", "1")
    pytester.makepyfile(test_sg=SG_TEST)
    _, doc = report_json(capsys, "--strength", "2")
    tests = by_function(doc)
    # BS_LIST is built in three statements (the += replayed): 8 values, the CI runs 2
    prod = tests["test_prod"]
    assert prod["tables"][0]["source"] == "get_ci_test_range"
    assert prod["tables"][0]["sizes"] == [8, 3, 2] and prod["full_product"] == 48
    assert prod["collected"] == 8 and cov(prod, 0, 2)["percent"] < 100
    # pairs: 8*3 + 8*2 + 3*2 = 46; the CI's 2 x 2 x 2 rows hold 4 + 4 + 4 of them
    assert (cov(prod, 0, 2)["coverable"], cov(prod, 0, 2)["covered"]) == (46, 12)
    stacked = tests["test_stacked"]
    assert stacked["tables"][0]["sizes"] == [8, 3] and stacked["full_product"] == 24
    # a range of whole cases: its FULL rows (4), the 2 CI rows audited
    cases = tests["test_cases"]
    assert cases["full_product"] == 4 and cov(cases, 0, 2)["percent"] == 50.0


def test_sglang_full_side_covers_everything(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    pytester.makepyfile(test_sg=SG_TEST)
    _, doc = report_json(capsys, "--strength", "2")
    prod = by_function(doc)["test_prod"]
    assert prod["full_product"] == 48 and cov(prod, 0, 2)["percent"] == 100.0
