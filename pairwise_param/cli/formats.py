"""The one format registry of the command line: ``--format`` of every subcommand.

A format is registered once, for one subcommand, with its name, its help
text and a renderer ``(result, Output) -> str``; the parser takes its
``--format`` choices from here (:func:`names`) and every subcommand writes
its result through :func:`render`.  Renderers import what they need when they
run, so building the parser stays cheap.

=========  ==================================  =================================
command    result                              formats
=========  ==================================  =================================
report     :class:`~pairwise_param.report.types.SuiteReport`   terminal, markdown, json
run        :class:`~pairwise_param.runs.document.RunDocument`  terminal, markdown, json (``report --run``)
history    :class:`~pairwise_param.runs.history.History`       terminal, markdown, json (``report --history``)
check      :class:`~pairwise_param.coverage.CoverageReport`      terminal, json
generate   :class:`~pairwise_param.tables.covering.CoveringArray`        csv, json, markdown
=========  ==================================  =================================
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from pairwise_param.errors import InvalidArgument

__all__ = ["Output", "below", "describe", "names", "register", "render"]


@dataclass(frozen=True)
class Output:
    """What a renderer may use besides the result (each command fills its part)."""

    show_missing: bool = False
    list_limit: int | None = 20
    exit_code: int = 0
    fail_under: float | None = None
    effort: Any = 0
    seed: int = 0
    rows_path: str = ""
    model_path: str = ""
    #: the terminal's width (None: not a terminal, no limit): the terminal table fits it
    width: int | None = None
    #: ``report --run``: ``--strict-platform`` and ``--strength``
    strict: bool = False
    strengths: tuple[int, ...] | None = None
    #: ``report --history``: ``--last``
    last: int | None = None
    #: ``report --run A B C``: the runs merged, what is wrong with the set, the platform (--per-platform)
    runs: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    platform: str = ""


Renderer = Callable[[Any, Output], str]


@dataclass(frozen=True)
class Format:
    command: str
    name: str
    help: str
    render: Renderer


_FORMATS: dict[str, dict[str, Format]] = {}


def register(command: str, name: str, help: str) -> Callable[[Renderer], Renderer]:
    """Declare format ``name`` of ``command`` (decorates its renderer)."""

    def add(fn: Renderer) -> Renderer:
        formats = _FORMATS.setdefault(command, {})
        if name in formats:
            raise ValueError(f"format {name!r} of {command!r} registered twice")
        formats[name] = Format(command, name, help, fn)
        return fn

    return add


def names(command: str) -> tuple[str, ...]:
    """The ``--format`` choices of ``command``, in registration order (the first is the default)."""
    return tuple(_FORMATS.get(command, {}))


def describe(command: str, name: str) -> str:
    """The help text of one format (shown by ``--help``)."""
    return _FORMATS[command][name].help


def render(command: str, name: str, result: Any, output: Output) -> str:
    """``result`` of ``command`` as text in format ``name``."""
    fmt = _FORMATS.get(command, {}).get(name)
    if fmt is None:
        raise InvalidArgument(f"unknown format {name!r} for {command}; use one of {', '.join(names(command))}")
    return fmt.render(result, output)


# -- report ------------------------------------------------------------------------------------------
@register("report", "terminal", "aligned table for a terminal")
def _report_terminal(report: Any, o: Output) -> str:
    from pairwise_param.report.render import render_terminal

    return render_terminal(report, show_missing=o.show_missing, list_limit=o.list_limit, width=o.width)


@register("report", "markdown", "Markdown (CI step summaries, PR comments)")
def _report_markdown(report: Any, o: Output) -> str:
    from pairwise_param.report.render import render_markdown

    return render_markdown(report, show_missing=o.show_missing, list_limit=o.list_limit)


@register("report", "json", "JSON (schema: pairwise-param report --print-schema)")
def _report_json(report: Any, o: Output) -> str:
    from pairwise_param.report.render import render_json

    return render_json(report, show_missing=o.show_missing, exit_code=o.exit_code)


# -- report --run (a run document) -------------------------------------------------------------------
def _run_text(doc: Any, o: Output, markdown: bool) -> str:
    from pairwise_param.runs.text import render_run

    return render_run(doc, list_limit=o.list_limit, fail_under=o.fail_under, strict=o.strict, strengths=o.strengths,
                      show_missing=o.show_missing, markdown=markdown, runs=o.runs, problems=o.problems,
                      platform=o.platform)


@register("run", "terminal", "aligned table for a terminal")
def _run_terminal(doc: Any, o: Output) -> str:
    return _run_text(doc, o, markdown=False)


@register("run", "markdown", "Markdown (CI step summaries, PR comments)")
def _run_markdown(doc: Any, o: Output) -> str:
    return _run_text(doc, o, markdown=True)


@register("run", "json", "the run file (schema: pairwise-param report --run FILE --print-schema)")
def _run_json(doc: Any, o: Output) -> str:
    from pairwise_param.runs.document import dump

    return dump(doc, indent=2)


# -- report --history (the history of the rotated tables) ---------------------------------------------
@register("history", "terminal", "aligned table for a terminal")
def _history_terminal(got: Any, o: Output) -> str:
    from pairwise_param.runs.history import render

    return render(got, o.last, markdown=False)


@register("history", "markdown", "Markdown (CI step summaries, PR comments)")
def _history_markdown(got: Any, o: Output) -> str:
    from pairwise_param.runs.history import render

    return render(got, o.last, markdown=True)


@register("history", "json", "JSON: per table the accumulated coverage")
def _history_json(got: Any, o: Output) -> str:
    import dataclasses

    from pairwise_param.runs.history import progress

    doc = [dataclasses.asdict(progress(got.tables[k], o.last)) for k in sorted(got.tables)]
    return json.dumps({"last": o.last, "tables": doc}, indent=2) + "\n"


# -- check -------------------------------------------------------------------------------------------
def below(res: Any, fail_under: float) -> list[Any]:
    """The measured levels of a :class:`~pairwise_param.coverage.CoverageReport`
    below ``fail_under`` (and the overall level of a model with sub-models)."""
    from pairwise_param.coverage import fails_under

    out = [lv for lv in res.levels if lv.applicable and fails_under(lv.percent, fail_under)]
    overall = res.overall
    if res.model.sub_models and overall.percent is not None and fails_under(overall.percent, fail_under):
        out.append(overall)
    return out


@register("check", "terminal", "readable summary")
def _check_terminal(res: Any, o: Output) -> str:
    from pairwise_param.report.columns import fmt_percent

    model = res.model
    limit = o.list_limit
    head = (
        f"{o.rows_path}: {res.rows} rows against {o.model_path} ({len(model.axes)} axes, "
        f"full product {model.full_product})"
    )
    lines = [head]
    shown_levels = [lv for lv in res.levels if lv.applicable]
    if model.sub_models:
        shown_levels.append(res.overall)
    for lv in shown_levels:
        line = f"  {lv.name}: {lv.covered}/{lv.coverable} covered ({fmt_percent(lv.percent, lv.complete)})"
        if lv.infeasible:
            line += f", {len(lv.infeasible)} infeasible"
        lines.append(line)
        if not lv.missing:
            continue
        if not o.show_missing:
            lines.append(f"    {len(lv.missing)} missing; --show-missing lists them")
            continue
        items = lv.missing if limit is None else lv.missing[:limit]
        more = len(lv.missing) - len(items)
        lines.append("    missing: " + ", ".join(str(c) for c in items) + (f" (+{more} more)" if more > 0 else ""))
        if lv.infeasible:
            inf = lv.infeasible if limit is None else lv.infeasible[:limit]
            lines.append("    infeasible: " + ", ".join(str(c) for c in inf))
    # rows numbered from 1 (the first data row), as the rows file's own errors count them
    lines.extend(f"  VIOLATION {replace(v, row=v.row + 1)}" for v in res.violations[:20])
    lines.extend(f"  OUTSIDE MODEL {replace(x, row=x.row + 1)}" for x in res.out_of_model[:20])
    if o.fail_under is not None and below(res, o.fail_under):
        lines.append(f"FAIL: coverage below {o.fail_under:g}%")
    return "\n".join(lines) + "\n"


@register("check", "json", "JSON (schema pairwise-param/check)")
def _check_json(res: Any, o: Output) -> str:
    doc = {"schema": "pairwise-param/check", "schema_version": 1, "exit_code": int(o.exit_code)}
    doc.update(res.to_dict(limit=o.list_limit))
    return json.dumps(doc, indent=2) + "\n"


# -- generate ----------------------------------------------------------------------------------------
@register("generate", "csv", "CSV with a header of argument names (reads back in check)")
def _rows_csv(array: Any, o: Output) -> str:
    from pairwise_param.cli.rows import rows_csv

    return rows_csv(array)


@register("generate", "json", "JSON (schema pairwise-param/rows; reads back in check)")
def _rows_json(array: Any, o: Output) -> str:
    from pairwise_param.cli.rows import rows_json

    return rows_json(array, effort=o.effort, seed=o.seed)


@register("generate", "markdown", "Markdown table")
def _rows_markdown(array: Any, o: Output) -> str:
    from pairwise_param.cli.rows import rows_markdown

    return rows_markdown(array)
