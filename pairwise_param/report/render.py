"""Rendering a :class:`~pairwise_param.report.types.SuiteReport`: terminal table,
Markdown (CI step summaries, PR comments) and JSON (schema in
:mod:`pairwise_param.report.schema`, documented in ``docs/cli.md``).

All three read the one column list, :data:`pairwise_param.report.columns.COLUMNS`:
which columns a report shows, their headings, cells, totals, JSON keys and legend.
The terminal output fits ``width`` (the CLI passes the terminal's: ``COLUMNS``, else
the terminal's own size; no limit when the output is not a terminal): a test's name goes
on its own line above its row, the AXES column is cut, and the summary lines are
wrapped.  Pure functions from a report to text; nothing here prints.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pairwise_param._version import __version__
from pairwise_param.report.columns import Shown, fmt_percent, json_values, num, reduction_cell, shown_columns
from pairwise_param.report.types import StrengthCoverage, SuiteReport, TableReport, TestReport

__all__ = ["SCHEMA_ID", "SCHEMA_VERSION", "render_json", "render_markdown", "render_terminal"]

SCHEMA_ID = "pairwise-param/report"
#: Bump on any incompatible change of the JSON document (a removed or renamed
#: key, a changed type); adding keys keeps the version.
SCHEMA_VERSION = 1


def _tuple_text(d: dict[str, str]) -> str:
    return "{" + ", ".join(f"{k}={v}" for k, v in d.items()) + "}"


def _totals_line(report: SuiteReport) -> str:
    tot = report.totals
    full = str(tot.full_product) if tot.full_exact else f"at most {tot.full_product}"
    reduction = reduction_cell(tot.full_product, tot.collected)
    parts = [f"{full} -> {tot.collected}", reduction if tot.full_exact else f"up to {reduction}"]
    for t in report.strengths:
        if t not in tot.coverage:
            continue
        covered, coverable = tot.coverage[t]
        p = tot.percent(t)
        text = f"{t}-way {fmt_percent(p, covered >= coverable)}"
        low = tot.min_percent.get(t)
        if low is not None and covered < coverable:
            text += f" (lowest {fmt_percent(low)})"
        parts.append(text)
    return ", ".join(parts)


def _tables_line(report: SuiteReport) -> str | None:
    """The line under the totals: what the totals count (option tables) and what they do not
    (case tables, uncertain tables); None when no hand-written list was taken apart."""
    tot = report.totals
    if not tot.case_tables and not tot.uncertain_tables:
        return None
    text = (f"option tables {tot.option_tables} (in the totals); case tables {tot.case_tables} "
            "(counted by their rows, not audited)")
    if tot.uncertain_tables:
        text += (f"; uncertain {tot.uncertain_tables} (shown with ?, not in the totals nor --fail-under: "
                 "mark pairwise_options or pairwise_cases)")
    return text


def _incomplete(report: SuiteReport) -> list[tuple[TestReport, TableReport, StrengthCoverage]]:
    return [
        (test, table, c)
        for test in report.tests
        for table in test.tables
        for c in table.coverage
        if not c.complete
    ]


#: width of the --show-missing lists (wrapped between tuples, continuation lines indented)
_WRAP = 100


def _wrapped(head: str, items: Sequence[str], tail: str = "", indent: str = "      ", wrap: int = _WRAP) -> list[str]:
    """``head`` then ``items`` joined by ``, `` and wrapped before ``wrap`` columns, never
    inside a tuple; continuation lines start with ``indent``."""
    lines: list[str] = []
    line = head
    for i, item in enumerate(items):
        piece = item + ("," if i < len(items) - 1 else tail)
        sep = "" if line in (head, indent) else " "
        if line != indent and len(line) + len(sep) + len(piece) > wrap:
            lines.append(line.rstrip())
            line, sep = indent, ""
        line += sep + piece
    if not items and tail:
        line += tail
    lines.append(line)
    return lines


def _missing_lines(report: SuiteReport, limit: int | None, wrap: int = _WRAP) -> list[str]:
    lines: list[str] = []
    for test in report.tests:
        for k, table in enumerate(test.tables):
            head = test.test_id + (f" (table {k + 1}: {', '.join(table.axes)})" if len(test.tables) > 1 else "")
            block: list[str] = []
            for c in table.coverage:
                if c.missing:
                    shown = c.missing_tuples if limit is None else c.missing_tuples[:limit]
                    more = c.missing - len(shown)
                    block.extend(_wrapped(
                        f"  {c.strength}-way missing ({c.missing} of {c.coverable}): ",
                        [_tuple_text(d) for d in shown], f" (+{more} more)" if more > 0 else "", wrap=wrap,
                    ))
                if c.unrunnable and not c.strict:
                    shown = c.unrunnable_tuples if limit is None else c.unrunnable_tuples[:limit]
                    more = c.unrunnable - len(shown)
                    block.extend(_wrapped(
                        f"  {c.strength}-way not runnable here ({c.unrunnable}, skipped at collection: "
                        f"{'; '.join(c.reasons)}): ",
                        [_tuple_text(d) for d in shown], f" (+{more} more)" if more > 0 else "", wrap=wrap,
                    ))
                if c.infeasible:
                    shown = c.infeasible_tuples if limit is None else c.infeasible_tuples[:limit]
                    more = c.infeasible - len(shown)
                    block.extend(_wrapped(
                        f"  {c.strength}-way infeasible ({c.infeasible}, excluded by constraints): ",
                        [_tuple_text(d) for d in shown], f" (+{more} more)" if more > 0 else "", wrap=wrap,
                    ))
            if table.empty_axes:
                block.append(f"  {table.reach(StrengthCoverage(2, 0, 0, 0)).why()}")
            mc = table.model_coverage
            if mc is not None:
                block.append(
                    f"  the model's own interactions ({mc.label}): {mc.covered} of {mc.coverable} covered "
                    f"({fmt_percent(mc.percent, mc.complete)})"
                )
                if mc.missing:
                    shown = mc.missing_tuples if limit is None else mc.missing_tuples[:limit]
                    block.extend(_wrapped("    missing: ", [_tuple_text(d) for d in shown], wrap=wrap))
            if table.violating_rows:
                block.append(f"  {table.violating_rows} collected row(s) break a constraint")
            if table.outside_rows:
                block.append(f"  {table.outside_rows} collected row(s) hold a value outside the model")
            if table.invalid_rows:
                block.append(f"  + {table.invalid_rows} invalid-value row(s), one invalid value each "
                             "(not counted in the coverage above)")
            if block:
                lines.append(head)
                lines.extend(block)
    return lines


# -- terminal ------------------------------------------------------------------------------------
def _terminal_heading(report: SuiteReport) -> str:
    files = sorted({t.path for t in report.tests})
    head = (
        f"pairwise-param report: {len(report.tests)} parametrized test"
        f"{'s' if len(report.tests) != 1 else ''} in {len(files)} file{'s' if len(files) != 1 else ''}, "
        f"{sum(t.collected for t in report.tests)} items"
    )
    if report.unparametrized:
        head += f" (+{report.unparametrized} unparametrized)"
    return head


def _terminal_table(report: SuiteReport, width: int | None) -> list[str]:
    """The aligned table: a heading per file, a row per test, the totals.  Where it would
    be wider than ``width``, it is stacked (:func:`_stacked`); past that, the columns
    that may be cut give way (``...``), one character at a time, down to each one's
    ``cut`` width: by ``give_way``, then the widest first."""
    cols = shown_columns(report)
    rows: list[list[str] | str] = []  # a str is a file heading
    current = None
    # files in the order they were given and collected (the command line's), tests in theirs
    file_order: dict[str, int] = {}
    for each in report.tests:
        file_order.setdefault(each.path, len(file_order))
    tests = sorted(report.tests, key=lambda tr: file_order[tr.path])
    for test in tests:
        if test.path != current:
            current = test.path
            rows.append(test.path)
        rows.append([c.cell(test, report) for c in cols])
    total_row = [c.total(report) for c in cols]
    header = [c.head for c in cols]
    cells = [r for r in rows if isinstance(r, list)]
    widths = [max(len(r[i]) for r in [header, total_row, *cells]) for i in range(len(cols))]
    keys = [c.column.key for c in cols]
    if width is not None and sum(widths) + 2 * (len(cols) - 1) > width and keys[:2] == ["test", "axes"]:
        return _stacked(report, tests, rows, cols, width)
    if width is not None:
        _give_way(report, tests, cols, cells, header, total_row, widths, width)

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            (c.rjust(widths[k]) if cols[k].column.right else c.ljust(widths[k])) for k, c in enumerate(cells)
        ).rstrip()

    out = [line(header)]
    out.extend(r if isinstance(r, str) else line(r) for r in rows)
    out.append(line(["-" * w for w in widths]))
    out.append(line(total_row))
    return out


def _give_way(report: SuiteReport, tests: Sequence[TestReport], cols: Sequence[Shown], cells: list[list[str]],
              header: list[str], total_row: list[str], widths: list[int], width: int) -> None:
    """Cut the columns that may be cut until the table fits ``width`` (or each is at its floor)."""
    floor = [max(c.column.cut, len(header[i]), len(total_row[i])) if c.column.cut is not None else widths[i]
             for i, c in enumerate(cols)]
    limit = list(widths)
    while sum(limit) + 2 * (len(cols) - 1) > width:
        i = max(range(len(cols)), key=lambda k: (limit[k] > floor[k], -cols[k].column.give_way, limit[k], -k))
        if limit[i] <= floor[i]:
            break
        limit[i] -= 1
    for i, c in enumerate(cols):
        if limit[i] < widths[i]:
            for test, r in zip(tests, cells):
                r[i] = c.fitted(test, report, limit[i])
            widths[i] = max(len(header[i]), len(total_row[i]), *(len(r[i]) for r in cells))


def _stacked(report: SuiteReport, tests: Sequence[TestReport], rows: Sequence[list[str] | str],
             cols: Sequence[Shown], width: int) -> list[str]:
    """The table for a terminal too narrow for one line per test: each test's name and AXES
    on a line of their own (the name whole: it tells rows apart; AXES cut to what is left),
    its numbers on the line below, under the headings of the wide table."""
    num_cols = list(cols[2:])
    lead = len(cols[0].head) + 2 + len(cols[1].head) + 2  # "TEST  AXES  "
    header = [c.head for c in num_cols]
    total_row = [c.total(report) for c in num_cols]
    cells = [r[2:] for r in rows if isinstance(r, list)]
    widths = [max(len(r[i]) for r in [header, total_row, *cells]) for i in range(len(num_cols))]
    _give_way(report, tests, num_cols, cells, header, total_row, widths, width - lead)

    def line(cells: Sequence[str], left: str = "") -> str:
        return (left.ljust(lead) + "  ".join(
            (c.rjust(widths[k]) if num_cols[k].column.right else c.ljust(widths[k])) for k, c in enumerate(cells)
        )).rstrip()

    axes_floor = cols[1].column.cut or 0
    out = [line(header, f"{cols[0].head}  {cols[1].head}")]
    k = 0
    for r in rows:
        if isinstance(r, str):
            out.append(r)  # a file's path is never cut
            continue
        test = tests[k]
        name = _fit(r[0], width)
        room = width - len(name) - 2
        if room >= axes_floor:
            out.append(f"{name}  {cols[1].fitted(test, report, room) if len(r[1]) > room else r[1]}")
        else:
            out.append(name)
            out.append("    " + (cols[1].fitted(test, report, width - 4) if len(r[1]) > width - 4 else r[1]))
        out.append(line(cells[k]))
        k += 1
    out.append(line(["-" * w for w in widths]))
    total = cols[0].total(report)
    out.append(line(total_row, total if len(total) < lead - 1 else total.split(" ")[0]))
    return out


def _fit(text: str, width: int | None) -> str:
    """``text`` cut to ``width`` (``...`` at its end)."""
    return text if width is None or len(text) <= width else text[: max(width - 3, 0)] + "..."


def _wrap(text: str, width: int | None, indent: str = "  ") -> list[str]:
    """A summary line wrapped at spaces to ``width`` (None: one line), continuation lines
    indented; a word longer than the width (a path) is kept whole."""
    if width is None or len(text) <= width:
        return [text]
    import textwrap

    return textwrap.wrap(text, width, subsequent_indent=indent, break_long_words=False,
                         break_on_hyphens=False) or [text]


def _legend(cols: Sequence[Shown], width: int | None) -> list[str]:
    """One line per column but TEST: what it means, cut to ``width``."""
    shown = [c for c in cols if c.column.key not in ("test",)]
    pad = max(len(c.head) for c in shown)
    lines = ["columns (docs/cli.md):"]
    for c in shown:
        text = f"  {c.head.ljust(pad)}  {c.legend}"
        if width is not None and len(text) > width:
            text = text[: max(width - 3, 0)] + "..."
        lines.append(text)
    return lines


def _terminal_footer(report: SuiteReport, show_missing: bool, list_limit: int | None,
                     width: int | None = None) -> list[str]:
    """Missing tuples (or how many), tables below --fail-under, collection errors."""
    out: list[str] = []
    incomplete = _incomplete(report)
    if show_missing:
        lines = _missing_lines(report, list_limit, _WRAP if width is None else min(width, _WRAP))
        if lines:
            out.append("")
            out.extend(lines)
    elif incomplete:
        per_t: dict[int, int] = {}
        for _test, _table, c in incomplete:
            per_t[c.strength] = per_t.get(c.strength, 0) + 1
        parts = [f"{t}-way in {n} table{'s' if n != 1 else ''}" for t, n in sorted(per_t.items())]
        out.append(f"tuples missing: {', '.join(parts)}; --show-missing lists them")
    out.extend(_unrunnable_note(report))
    if report.fail_under is not None:
        below = report.below(report.fail_under)
        if below:
            out.append("")
            for test, table, c in below:
                out.append(_fail_line(report, test, table, c))
    later = [e for e in report.errors if not e.first]
    if later:
        out.append("")
        for e in later:
            out.append(f"ERROR {e.where}: {e.message}")
    return out


def _fail_line(report: SuiteReport, test: TestReport, table: TableReport, c: StrengthCoverage,
               md: bool = False) -> str:
    """A table the gate fails, with its reason (:meth:`pairwise_param.coverage.reach.Reach.why`)."""
    name = f"`{test.test_id}`" if md else test.test_id
    head = "" if md else "FAIL "
    reach = table.reach(c)
    if table.empty_axes:
        return f"{head}{name}: {reach.why()}"
    return (f"{head}{name}: {c.strength}-way coverage {fmt_percent(c.percent, c.complete)} "
            f"< {report.fail_under:g}% ({reach.why(report.strict_platform)})")


def _unrunnable_note(report: SuiteReport) -> list[str]:
    """What could not run here (values skipped at collection), under every report."""
    out = []
    for test in report.tests:
        for table in test.tables:
            c = min(table.coverage, key=lambda c: c.strength, default=None)
            if c is not None and c.unrunnable and not report.strict_platform:
                out.append(f"not runnable here: {test.test_id}: {c.unrunnable} {c.strength}-way tuples, "
                           f"skipped at collection ({'; '.join(c.reasons)}); --strict-platform counts them missing")
    return out


def _first_errors(report: SuiteReport) -> list[str]:
    """Explanations that come before any number (the plugin is not loaded, ...)."""
    return [f"ERROR {e.where}: {e.message}" for e in report.errors if e.first]


def render_terminal(
    report: SuiteReport, *, show_missing: bool = False, list_limit: int | None = 20, width: int | None = None
) -> str:
    """The report as an aligned table for a terminal ``width`` columns wide (None: no limit)."""
    first = _first_errors(report)
    out = [*first, *([""] if first else []), *_wrap(_terminal_heading(report), width), ""]
    if report.tests:
        out.extend(_terminal_table(report, width))
        out.append("")
        out.extend(_wrap(_totals_line(report), width))
        tables = _tables_line(report)
        if tables:
            out.extend(_wrap(tables, width))
    else:
        out.append("no parametrized tests collected")
    for line in _terminal_footer(report, show_missing, list_limit, width):
        out.extend([line] if show_missing and line.startswith(" ") else _wrap(line, width))
    if report.tests:
        out += ["", *_legend(shown_columns(report), width)]
    return "\n".join(out) + "\n"


# -- markdown ------------------------------------------------------------------------------------
def _md(text: str) -> str:
    return text.replace("|", "\\|")


def render_markdown(report: SuiteReport, *, show_missing: bool = False, list_limit: int | None = 20) -> str:
    out = ["### pairwise-param report", ""]
    for line in _first_errors(report):
        out += [f"> **{_md(line)}**", ""]
    if not report.tests:
        out.append("No parametrized tests collected.")
    else:
        cols = shown_columns(report)
        out.append("| " + " | ".join(c.title for c in cols) + " |")
        out.append("|" + "|".join("--:" if c.column.right else "---" for c in cols) + "|")
        for test in report.tests:
            out.append("| " + " | ".join(c.markdown(test, report) for c in cols) + " |")
        out.append("| " + " | ".join(c.markdown_total(report) for c in cols) + " |")
        out.append("")
        out.append(f"**{_md(_totals_line(report))}**")
        tables = _tables_line(report)
        if tables:
            out += ["", _md(tables)]
        out.append("")
        out.append("<sub>" + "; ".join(f"{c.title}: {_md(c.legend)}" for c in cols[1:]) + " (docs/cli.md)</sub>")
    if report.unparametrized:
        out.append("")
        out.append(f"{report.unparametrized} unparametrized test(s) not listed.")
    for line in _unrunnable_note(report):
        out += ["", _md(line)]
    if show_missing:
        lines = _missing_lines(report, list_limit)
        if lines:
            out += ["", "<details><summary>Missing and infeasible tuples</summary>", "", "```"]
            out += lines
            out += ["```", "", "</details>"]
    if report.fail_under is not None:
        below = report.below(report.fail_under)
        if below:
            out.append("")
            for test, table, c in below:
                out.append(f"- :x: {_md(_fail_line(report, test, table, c, md=True))}")
    if any(not e.first for e in report.errors):
        out += ["", "**Collection errors**", ""]
        for e in (e for e in report.errors if not e.first):
            out.append(f"- `{_md(e.where)}`: {_md(e.message)}")
    return "\n".join(out) + "\n"


# -- json ----------------------------------------------------------------------------------------
def _coverage_json(c: StrengthCoverage, listed: bool) -> dict[str, Any]:
    return {
        "strength": c.strength,
        "coverable": c.coverable,
        "covered": c.covered,
        "missing": c.missing,
        "infeasible": c.infeasible,
        "percent": num(c.percent),
        "complete": c.complete,
        "missing_tuples": c.missing_tuples if listed else [],
        "infeasible_tuples": c.infeasible_tuples if listed else [],
        "unrunnable": c.unrunnable,
        "unrunnable_tuples": c.unrunnable_tuples if listed else [],
        "reasons": list(c.reasons),
    }


def _table_json(tb: TableReport, show_missing: bool) -> dict[str, Any]:
    return {
        "source": tb.source,
        "axes": list(tb.axes),
        "sizes": list(tb.sizes),
        "full_product": tb.full_product,
        "full_product_exact": tb.full_exact,
        "rows": tb.rows,
        "verdict": tb.verdict,
        "verdict_reason": tb.verdict_reason,
        "violating_rows": tb.violating_rows,
        "outside_rows": tb.outside_rows,
        "empty_axes": list(tb.empty_axes),
        "coverage": [_coverage_json(c, show_missing) for c in tb.coverage],
        "model_coverage": (
            None
            if tb.model_coverage is None
            else {"label": tb.model_coverage.label, **_coverage_json(tb.model_coverage, show_missing)}
        ),
    }


def to_json(report: SuiteReport, *, show_missing: bool = False, exit_code: int = 0) -> dict[str, Any]:
    """The report as a JSON-able dict following :data:`SCHEMA_VERSION`."""
    tot = report.totals
    tests = []
    for test in report.tests:
        entry: dict[str, Any] = {
            "id": test.test_id,
            "path": test.path,
            "class": test.cls,
            "function": test.function,
            "pairwise": test.pairwise,
            "full_product_exact": test.full_exact,
            "axes": [
                {"name": a.name, "kind": a.kind, "size": a.size, "source": a.source, "table": a.table}
                for a in test.axes
            ],
            "tables": [_table_json(tb, show_missing) for tb in test.tables],
            "notes": list(test.notes),
        }
        entry.update(json_values(test, report))
        entry["below_fail_under"] = bool(
            report.fail_under is not None
            and bool(report.test_below(test, report.fail_under))
        )
        tests.append(entry)
    totals_cov = []
    for t in report.strengths:
        if t in tot.coverage:
            covered, coverable = tot.coverage[t]
            p = tot.percent(t)
            low = tot.min_percent.get(t)
            totals_cov.append(
                {
                    "strength": t,
                    "covered": covered,
                    "coverable": coverable,
                    "percent": None if p is None else num(p),
                    "min_percent": None if low is None else num(low),
                }
            )
    return {
        "schema": SCHEMA_ID,
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "pairwise-param", "version": __version__},
        "strengths": list(report.strengths),
        "fail_under": report.fail_under,
        "tuples_listed": show_missing,
        "exit_code": int(exit_code),
        "collected_items": report.collected_items,
        "columns": [{"key": c.column.key, "head": c.head, "title": c.title, "meaning": c.legend}
                    for c in shown_columns(report)],
        "unparametrized_tests": report.unparametrized,
        "tests": tests,
        "totals": {
            "tests": tot.tests,
            "full_product": tot.full_product,
            "full_product_exact": tot.full_exact,
            "collected": tot.collected,
            "reduction": num(tot.reduction),
            "coverage": totals_cov,
            "option_tables": tot.option_tables,
            "case_tables": tot.case_tables,
            "uncertain_tables": tot.uncertain_tables,
        },
        "errors": [{"where": e.where, "message": e.message} for e in report.errors],
    }


def render_json(report: SuiteReport, *, show_missing: bool = False, exit_code: int = 0) -> str:
    return json.dumps(to_json(report, show_missing=show_missing, exit_code=exit_code), indent=2) + "\n"
