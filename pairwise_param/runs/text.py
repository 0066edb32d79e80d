"""What a run did, in words: the lines the plugin's terminal summary and
``pairwise-param report --run`` print (one home, so both say the same thing).

Pure functions of the run file's TABLE entries (:mod:`pairwise_param.runs.schema`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pairwise_param.coverage.reach import Reach
from pairwise_param.runs.analysis import NOT_SELECTED, describe, executed_at, natural, reach
from pairwise_param.runs.document import EmptyTable, Group, RunDocument, RunTable

__all__ = [
    "coverage_line", "empty_line", "lost_at_run_time", "render_run", "run_below", "suspicious_lines", "warning_text",
]

#: shapes named in one line, then "... N more"
SHAPES_SHOWN = 5


def _shape_list(shapes: Sequence[str]) -> str:
    shown = ", ".join(shapes[:SHAPES_SHOWN])
    more = len(shapes) - SHAPES_SHOWN
    return shown + (f" ... {more} more" if more > 0 else "")


#: control characters (ANSI escapes from a test name) are shown escaped, never sent to the terminal
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _name(table: RunTable) -> str:
    name = _CONTROL.sub(lambda m: repr(m.group())[1:-1], table.test)
    return name + _table_no(table)


def _table_no(table: RunTable) -> str:
    return f" (table {table.table + 1})" if table.table else ""


def _listed(texts: Sequence[str], limit: int | None) -> str:
    shown = list(texts if limit is None else texts[:limit])
    more = len(texts) - len(shown)
    return ", ".join(shown) + (f" ... {more} more" if more > 0 else "")



def lost_at_run_time(table: RunTable) -> bool:
    """Did the table lose a tuple to something that happened in the run (a skip, a
    set-up error, an item that never ran), not only to the selection (``-k``,
    ``-m``, ``--lf``), which the user asked for?  The plugin's line and warning
    are for these; the run file and ``report --run`` show every loss."""
    return any(set(e.because) - {NOT_SELECTED} for e in table.coverage.lost)


def coverage_line(table: RunTable, limit: int | None = 10) -> str | None:
    """One line for a table whose executed coverage is below its collected
    coverage (None otherwise): the lost tuples (``limit`` of them, then
    ``... N more``), the reasons, and the constraints that would restore full
    coverage of what can run."""
    cov = table.coverage
    if not cov.lost:
        return None
    many = len(cov.shapes) > 1
    lost = [
        e.text + (f" [{_shape_list(e.shapes)}]" if many and len(e.shapes) < len(cov.shapes) else "")
        for e in cov.lost
    ]
    t = table.strength
    reasons = "; ".join(f"{r.reason} ({r.items} item{'s' if r.items != 1 else ''})" for r in cov.reasons)
    line = (
        f"{_name(table)}: executed {cov.executed} of {cov.collected} {t}-tuples ({cov.percent or 0.0:.1f}%); "
        f"lost {len(lost)}: {_listed(lost, limit)}; {reasons or 'no item reported'}"
    )
    if cov.suggestion:
        rules = ", ".join(s.constraint for s in cov.suggestion)
        line += f"; a constraint keeps every other tuple running: constraints=[{rules}]"
        partial = sorted({sh for s in cov.suggestion for sh in s.shapes}, key=natural)
        if many and len(partial) < len(cov.shapes):
            line += (
                f" (what did not run is specific to shape{'s' if len(partial) != 1 else ''} "
                f"{_shape_list(partial)}; the rule applies to every shape)"
            )
    else:
        line += "; no single combination explains what did not run (a condition known at collection belongs in constraints=)"
    return line


def warning_text(table: RunTable) -> str:
    """The one-line PairwiseWarning of a table that lost tuples at run time."""
    cov = table.coverage
    first = cov.reasons[0].reason if cov.reasons else "items did not run"
    fix = f"; add constraints=[{', '.join(s.constraint for s in cov.suggestion)}]" if cov.suggestion else ""
    return (
        f"executed coverage {cov.percent or 0.0:.1f}% < 100% of the collected table{_table_no(table)} "
        f"({len(cov.lost)} tuple{'s' if len(cov.lost) != 1 else ''} lost; {first}){fix}"
    )


def _verdict_text(g: Group, t: int, limit: int | None) -> str:
    """What one (shape x signature) group's failures point at, after its head."""
    # a very wide table: only smaller combinations were searched (a version-1 file written
    # before "size" existed searched up to the strength)
    t = min(t, g.size)
    cands = [c.text for c in g.candidates if c.failing == g.failed]
    total = g.explaining
    if g.verdict == "no-passing":
        return "no item of this shape passed, so no combination can be singled out"
    if g.verdict == "decided":
        return f"every failure holds {cands[0]}; no passing item holds it"
    if g.verdict == "ambiguous":
        shown = cands if limit is None else cands[:limit]
        more = f" ... {total - len(shown)} more" if total > len(shown) else ""
        return (
            f"{total} candidates remain (each held by every failure, by no passing item): "
            f"{', '.join(shown)}{more}; follow-up cases needed: `pairwise-param localize`"
        )
    top = [f"{c.text} ({c.failing} failure{'s' if c.failing != 1 else ''})" for c in g.candidates]
    text = f"no combination of up to {t} values is held by every failure and by no passing item"
    if top:
        text += f"; partial candidates: {_listed(top, limit)}"
    if g.unexplained_nodeids:
        n = len(g.unexplained_nodeids)
        text += (
            f"; {n} failing item{'s' if n != 1 else ''} hold{'s' if n == 1 else ''} no combination that "
            f"passed nowhere (flaky, or a fault of more than {t} values: try --pairwise-strength={t + 1})"
        )
    return text + "; follow-up cases needed: `pairwise-param localize`"


def suspicious_lines(table: RunTable, limit: int | None = 5) -> list[str]:
    """One line per (shape x signature) group of failures of the table; shapes whose
    failures read the same (same signature, counts and candidates) share one line."""
    t = table.strength
    groups = table.suspicious
    many = len({g.shape for g in groups}) > 1 or any(g.shape for g in groups)
    merged: dict[tuple[str, int, int, str], list[str]] = {}
    for g in groups:
        key = (g.signature, g.failed, g.items, _verdict_text(g, t, limit))
        merged.setdefault(key, []).append(g.shape)
    out = []
    for (sig, failed, items, text), shapes in merged.items():
        where = _name(table) + (f" [{_shape_list(shapes)}]" if many and any(shapes) else "")
        each = " per shape" if len(shapes) > 1 else ""
        out.append(f"{where}: {failed} of {items} items{each} failed with {sig}; {text}")
    return out


# -- a run file (`pairwise-param report --run FILE`) ------------------------------------------
def _reaches(table: RunTable, strengths: Sequence[int] | None) -> list[Reach | None]:
    """The table's reach at each of ``strengths`` (None: at its own strength, as the run
    file states it); None where it has fewer axes or no shape ran."""
    if strengths is None:
        return [reach(table)]
    out: list[Reach | None] = []
    for t in strengths:
        got = executed_at(table, t)
        out.append(None if got is None else got[0])
    return out


def run_below(doc: RunDocument, fail_under: float, strict: bool = False,
              strengths: Sequence[int] | None = None) -> list[RunTable | EmptyTable]:
    """The tables of a run the gate fails (:meth:`pairwise_param.coverage.reach.Reach.below`):
    each at the strength it was built for, or at each of ``strengths`` (``--strength``);
    then every table that is a hole (``empty``: an axis without values), which always fails."""
    return [*(t for t in doc.tables
              if any(r is not None and r.below(fail_under, strict) for r in _reaches(t, strengths))),
            *doc.empty]


def empty_line(test: str, axes: Sequence[str]) -> str:
    """A table that is a hole (``axes``: those without values), in the static report's words
    (:meth:`pairwise_param.coverage.reach.Reach.why`)."""
    from pairwise_param.coverage.reach import Reach

    why = Reach(0, 0, 0, empty_axes=tuple(axes)).why()
    return f"{_CONTROL.sub(lambda m: repr(m.group())[1:-1], test)}: {why}"


def _unrunnable_lines(doc: RunDocument, strict: bool, limit: int | None) -> list[str]:
    """What could not run here: per table, the tuples only values skipped at collection hold
    (``limit`` of them listed: 0 lists none)."""
    out = []
    for t in doc.tables:
        r = reach(t)
        if r is not None and r.unrunnable:
            tail = "counted missing (--strict-platform)" if strict else "--strict-platform counts them missing"
            line = (f"{_name(t)}: {r.unrunnable} {r.strength}-tuples, skipped at collection "
                    f"({'; '.join(r.reasons)}); {tail}")
            if limit != 0:
                texts = [describe(t.axes, c) for c in t.infeasible_absent]
                line += f": {_listed(texts, limit)}"
            out.append(line)
    for t in doc.tables:
        cov = t.coverage
        idle = cov.shapes_not_run
        if idle and cov.shapes:
            why: dict[str, int] = {}
            for i in t.items:
                if i.shape in idle:
                    key = i.reason or i.outcome
                    why[key] = why.get(key, 0) + 1
            top = max(why, key=lambda k: why[k]) if why else "?"
            out.append(f"{_name(t)}: {len(idle)} of {len(idle) + len(cov.shapes)} shapes not run "
                       f"({_shape_list(sorted(idle, key=natural))}): {top}")
    return out


def _cells(table: RunTable, strengths: Sequence[int] | None, fail_under: float | None,
           strict: bool) -> str:
    parts = []
    picked: Sequence[int | None] = list(strengths) if strengths is not None else [None]
    for t, r in zip(picked, _reaches(table, strengths)):
        if r is None:
            text = "-" if t is None else f"{t}-way n/a"
        else:
            text = f"{r.percent(strict):.1f}% ({r.covered}/{r.total(strict)})"
            if t is not None:
                text = f"{t}-way {text}"
            if fail_under is not None and r.below(fail_under, strict):
                text += " < --fail-under"
        parts.append(text)
    return ", ".join(parts)


def render_run(doc: RunDocument, *, list_limit: int | None = 20, fail_under: float | None = None,
               strict: bool = False, strengths: Sequence[int] | None = None, show_missing: bool = False,
               markdown: bool = False, runs: Sequence[str] = (), problems: Sequence[str] = (),
               platform: str = "") -> str:
    """What a pytest run's ``@pairwise`` rows did (a run file, see :mod:`pairwise_param.runs.schema`):
    per table rows, items, outcomes and executed coverage (at ``strengths``, default each
    table's own), then the lost tuples (every one with ``show_missing``, which also lists
    the tuples not runnable here), the suspicious combinations, in the same words as the
    plugin's terminal summary; as a Markdown table and lists with ``markdown``.  A union of
    several ``runs`` (:func:`pairwise_param.runs.merge.merge`) says which, and its ``problems``."""
    tables = doc.tables
    head = ["TEST", "ROWS", "ITEMS", "RAN", "PASSED", "FAILED", "SKIPPED", "EXECUTED COVERAGE"]
    body = []
    for t in tables:
        c = t.counts
        failed = c.failed + c.error
        body.append([_name(t), str(c.rows), str(c.items), str(c.executed), str(c.passed), str(failed),
                     str(c.skipped), _cells(t, strengths, fail_under, strict)])
    holes = doc.empty
    for e in holes:
        cell = "empty" + (" < --fail-under" if fail_under is not None else "")
        body.append([_CONTROL.sub(lambda m: repr(m.group())[1:-1], e.test), "0", "-", "-", "-", "-", "-", cell])
    limit = None if show_missing else list_limit
    n = len(tables) + len(holes)
    title = f"pairwise-param run: {n} table{'s' if n != 1 else ''}, pytest exit status {doc.exitstatus}"
    if runs:
        title = (f"pairwise-param runs{' on ' + platform if platform else ''}: {len(runs)} merged, {n} "
                 f"table{'s' if n != 1 else ''}, worst pytest exit status {doc.exitstatus}")
    sections = [
        ("runs merged:", list(runs)),
        ("the runs as a set" + (" (each fails --fail-under):" if fail_under is not None else ":"),
         [_CONTROL.sub(lambda m: repr(m.group())[1:-1], p) for p in problems]),
        ("empty tables (pytest ran none of them):", [empty_line(e.test, e.axes) for e in holes]),
        ("executed coverage below the collected table:",
         [line for t in tables if (line := coverage_line(t, limit)) is not None]),
        ("not runnable here:", _unrunnable_lines(doc, strict, None if show_missing else 0)),
        ("suspicious combinations (held by failing items, by no passing item):",
         [line for t in tables for line in suspicious_lines(t, limit)]),
    ]
    if markdown:
        esc = [[cell.replace("|", "\\|") for cell in row] for row in [head, *body]]
        lines = [f"### {title}", "", "| " + " | ".join(esc[0]) + " |",
                 "|---|" + "--:|" * (len(head) - 2) + "---|"]
        lines += ["| " + " | ".join(row) + " |" for row in esc[1:]]
        for heading, items in sections:
            if items:
                lines += ["", f"**{heading}**", "", *(f"- {item.replace('|', chr(92) + '|')}" for item in items)]
        return "\n".join(lines) + "\n"
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
    lines = [title]
    lines += ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in [head, *body]]
    for heading, items in sections:
        if items:
            lines += ["", heading, *items]
    return "\n".join(lines) + "\n"
