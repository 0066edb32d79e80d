"""The report's one column list (report/columns.py): every renderer reads it, the
terminal table fits the terminal, every column is explained where it appears."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from pairwise_param.report import columns
from pairwise_param.report.columns import COLUMNS, Column, axes_text, shown_columns
from pairwise_param.report.render import render_json, render_markdown, render_terminal
from pairwise_param.report.schema import REPORT_SCHEMA
from pairwise_param.report.types import (
    AxisReport,
    StrengthCoverage,
    SuiteReport,
    TableReport,
    TestReport,
    WithPairwise,
)

ROOT = Path(__file__).resolve().parents[2]


def _test(name: str, with_pairwise: bool = False) -> TestReport:
    table = TableReport("pairwise", ("dtype", "padded_a", "bias_mode", "xnorm"), (2, 2, 3, 2), 24, 6, 0,
                        [StrengthCoverage(2, 24, 24, 0), StrengthCoverage(3, 32, 20, 0)])
    axes = [AxisReport(a, "option", s, "pairwise", 0) for a, s in zip(table.axes, table.sizes)]
    axes += [AxisReport("n,k,m", "grouped", 18, "parametrize"), AxisReport("seed", "axis", 1, "parametrize")]
    wp = WithPairwise(("a", "b", "c"), 6, 24, 108) if with_pairwise else None
    return TestReport(f"test_k.py::{name}", "test_k.py", None, name, axes, [table], 24 * 18, 108,
                      with_pairwise=wp)


def _report(with_pairwise: bool = True) -> SuiteReport:
    tests = [_test("test_wvsplitk_with_a_long_name"), _test("test_other", with_pairwise)]
    return SuiteReport(tests, [], (2, 3), 0, 216)


def _header(text: str) -> list[str]:
    return next(line for line in text.splitlines() if line.startswith("TEST")).split()


def test_the_three_renderers_show_the_same_columns_in_the_same_order() -> None:
    for wp in (True, False):
        report = _report(wp)
        shown = shown_columns(report)
        assert _header(render_terminal(report)) == [c.head for c in shown]
        md_head = next(line for line in render_markdown(report).splitlines() if line.startswith("| Test"))
        assert [h.strip() for h in md_head.strip("|").split("|")] == [c.title for c in shown]
        doc = json.loads(render_json(report))
        assert [c["head"] for c in doc["columns"]] == [c.head for c in shown]
        assert ("@PAIRWISE" in _header(render_terminal(report))) is wp  # only where some test gains


def test_the_markdown_table_has_the_pairwise_column() -> None:
    # was: the terminal showed @PAIRWISE, the Markdown table (docs/cli.md: "the same table") did not
    md = render_markdown(_report())
    assert "| @pairwise |" in md.splitlines()[2] and "| 108 (a,b,c) |" in md


def test_a_new_column_reaches_every_renderer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Adding a column is one entry of COLUMNS: terminal, Markdown, JSON and the legends follow."""
    extra = Column(key="items_per_row", head="PER-ROW", title="Per row", legend="collected items per option row",
                   doc="collected / option rows", cell=lambda test, report, t: str(test.collected // 6),
                   total=lambda report, t: "", json_key="per_row",
                   json_value=lambda test, report: test.collected // 6, json_schema={"type": "integer"})
    monkeypatch.setattr(columns, "COLUMNS", (*COLUMNS, extra))
    report = _report()
    term = render_terminal(report)
    assert _header(term)[-1] == "PER-ROW" and "PER-ROW    collected items per option row" in term
    md = render_markdown(report)
    assert "| Per row |" in md and "Per row: collected items per option row" in md
    doc = json.loads(render_json(report))
    assert doc["tests"][0]["per_row"] == 18 and doc["columns"][-1]["key"] == "items_per_row"


def test_every_column_has_its_json_schema_and_a_legend_that_fits_80_columns() -> None:
    props = REPORT_SCHEMA["properties"]["tests"]["items"]["properties"]
    for c in COLUMNS:
        if c.json_key is not None:
            assert props[c.json_key] == c.json_schema
        assert c.legend and c.doc
        assert len(f"  {'@PAIRWISE'}  {c.legend.format(t=2)}") <= 80, c.key  # the docs' terminal


def test_every_column_is_explained_in_the_terminal_markdown_and_docs() -> None:
    report = _report()
    term, md = render_terminal(report), render_markdown(report)
    cli_md = (ROOT / "docs" / "generated" / "report_columns.md").read_text()
    for c in shown_columns(report)[1:]:
        assert f"{c.head.ljust(9)}  {c.legend}" in term
        assert f"{c.title}: {c.legend}" in md
    for c in COLUMNS:
        assert f"| {c.head.replace('{t}', 't')} |" in cli_md
    assert '--8<-- "docs/generated/report_columns.md"' in (ROOT / "docs" / "cli.md").read_text()


def test_the_terminal_table_fits_the_width_and_keeps_test_names_whole() -> None:
    """Issue 38 item 20: at 80 columns the table was 86-89 wide and test names were cut to
    11 characters; a table too wide for the terminal is stacked (name and AXES on a line,
    the numbers below, under the same headings), and AXES gives way to what is left."""
    report = _report()
    wide = render_terminal(report)
    assert "..." not in wide  # no width: never cut (a file, a pipe)
    def table_width(text: str) -> int:
        return max(len(line) for line in text.split("\n\n")[1].splitlines())

    for width in (table_width(wide) - 1, 100, 80, 70):
        text = render_terminal(report, width=width)
        assert table_width(text) <= width
        assert width != 80 or "[dtype:2 padded_a:2 ... -> 6/24] x ..." in text  # AXES cut beside the long name
        assert _header(text) == _header(wide)  # the columns stay, their text gives way
        assert "\n  test_wvsplitk_with_a_long_name  [dtype:2 " in text  # the name whole
    narrowest = table_width(render_terminal(report, width=1))
    assert table_width(render_terminal(report, width=40)) == narrowest  # never broken below the floors


def test_summary_lines_are_wrapped_to_the_width() -> None:
    report = _report()
    for width in (64, 80):
        lines = render_terminal(report, width=width).split("\n\ncolumns")[0].splitlines()
        assert max(map(len, lines)) <= width, [line for line in lines if len(line) > width]
    assert max(map(len, render_terminal(report, width=None).splitlines())) > 80  # a pipe: whole lines


def test_axes_give_way_trailing_axes_first_then_inner_axes() -> None:
    test = _test("t")
    full = axes_text(test)
    assert full == "[dtype:2 padded_a:2 bias_mode:3 xnorm:2 -> 6/24] x n,k,m:18 x seed:1"
    assert axes_text(test, len(full)) == full
    assert axes_text(test, 65) == "[dtype:2 padded_a:2 bias_mode:3 xnorm:2 -> 6/24] x n,k,m:18 x ..."
    assert axes_text(test, 60) == "[dtype:2 padded_a:2 bias_mode:3 xnorm:2 -> 6/24] x ..."
    assert axes_text(test, 50) == "[dtype:2 padded_a:2 bias_mode:3 ... -> 6/24] x ..."
    assert axes_text(test, 28) == "[dtype:2 ... -> 6/24] x ..."
    assert len(axes_text(test, 10)) == 10 and axes_text(test, 10).endswith("...")


def test_json_values_are_the_columns_values_whether_shown_or_not() -> None:
    report = _report(with_pairwise=False)
    doc = json.loads(render_json(report))
    assert "with_pairwise" not in [c["key"] for c in doc["columns"]]
    assert all(t["with_pairwise"] is None for t in doc["tests"])
    assert dataclasses.asdict(report.tests[0])["collected"] == doc["tests"][0]["collected"]


def test_the_command_fits_columns_and_never_cuts_a_file(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.report.test_cli_report import AUDIT, run

    pytester.makepyfile(test_audit=AUDIT)
    _, whole, _ = run(capsys, "report")  # not a terminal, no COLUMNS: the whole table
    assert "[a:2 b:2 c:2 -> 3/8] x n:3" in whole
    monkeypatch.setenv("COLUMNS", "80")
    _, fitted, _ = run(capsys, "report")
    table = fitted.split("\n\n")[1].splitlines()
    assert max(map(len, table)) <= 80 and "[a:2 b:2 c:2 -> 3/8] x n:3" in fitted  # nothing cut that fits


def test_the_variants_column_shows_only_with_compile_axes_in_every_renderer() -> None:
    from pairwise_param.report.types import Variants

    report = _report(False)
    assert "VARIANTS" not in _header(render_terminal(report))
    assert json.loads(render_json(report))["tests"][0]["variants"] is None
    for test in report.tests:
        test.tables[0].variants = Variants(4, 6, 8)
    assert "VARIANTS" in _header(render_terminal(report))
    terminal = render_terminal(report)
    assert "4/6/8" in terminal and "8/12/16" in terminal  # per test, and the TOTAL sums them
    assert "| 4/6/8 |" in render_markdown(report)
    assert json.loads(render_json(report))["tests"][0]["variants"] == {"collected": 4, "plain": 6, "full": 8}


def test_the_variants_column_on_a_real_compile_aware_table(tmp_path: Path) -> None:
    import subprocess
    import sys

    (tmp_path / "test_ca.py").write_text(
        "import pytest\nfrom pairwise_param import pairwise\n\n"
        "@pairwise(norm=['rms', 'layer'], dtype=['bf16', 'fp16', 'fp32'], w=[False, True], b=[False, True],\n"
        "          scale=['s', 'c', 'r'], shift=['s', 'c', 'r'], constraints=['w or not b'],\n"
        "          compile_axes=['norm', 'dtype', 'w', 'b'])\n"
        "def test_k(norm, dtype, w, b, scale, shift):\n    pass\n")
    out = subprocess.run([sys.executable, "-m", "pairwise_param.cli", "report", str(tmp_path / "test_ca.py"),
                          "--format", "json"], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    variants = json.loads(out)["tests"][0]["variants"]
    assert variants["collected"] == 7 and variants["full"] == 18 and variants["plain"] >= variants["collected"]


def test_with_pairwise_says_what_reorder_reaches_when_the_default_keeps_ids() -> None:
    """Issue 35: options stacked above a shape stay out of the default conversion (the node
    ids are kept), so the cell, the total and the JSON also give what ``--reorder`` reaches."""
    from pairwise_param.report.whatif import with_pairwise

    stacked = [("xnorm", [False, True]), ("n", [1, 2, 3, 4]), ("dtype", ["f16", "bf16"]),
               ("padded", [False, True]), ("bias_mode", [0, 1, 2])]
    w = with_pairwise(stacked, 96, order=[n for n, _ in stacked])
    assert w is not None and w.axes == ("dtype", "padded", "bias_mode") and not w.convert_reorder
    assert (w.items, w.items_reorder) == (48, 24)  # 96/12*6 kept ids; 96/24*6 with xnorm too
    below = with_pairwise(stacked[1:] + stacked[:1], 96)  # xnorm below the shape: the default has it
    assert below is not None and below.items == 24 and below.items_reorder is None
    test = dataclasses.replace(_test("test_k"), with_pairwise=w)
    report = SuiteReport([test], [], (2, 3), 0, 216)
    md = render_markdown(report)
    assert "| 48 (24 --reorder) (dtype,padded,bias_mode) |" in md and "**48 (24 --reorder)**" in md
    doc = json.loads(render_json(report))
    assert doc["tests"][0]["with_pairwise"]["items_reorder"] == 24
