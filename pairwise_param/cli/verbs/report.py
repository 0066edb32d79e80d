"""``pairwise-param report``: what a pytest suite covers (a collection), what a finished run
executed (``--run``), the accumulated coverage of the rotated tables (``--history``)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from pairwise_param.cli.common import (
    Command,
    ExitCode,
    UsageError,
    format_option,
    isatty,
    listing,
    nonneg,
    percent,
    strengths,
    width,
)
from pairwise_param.cli.verbs.report_run import check_report_args, report_history, report_run
from pairwise_param.errors import PairwiseError

__all__ = ["COMMAND"]


# -- the parser ------------------------------------------------------------------------------------
REPORT_EPILOG = """\
Option axes: the axes of each @pairwise mark form one option table. In tests
without @pairwise, a multi-name parametrize is read from the list itself, never
from whether it covers its pairs: a case table (one grouped axis counted by its
rows) when it shows a sign of cases (an expected/error column, shapes, a key
column, a column of sizes, fewer rows than 3/4 of a covering table, one value
favoured, ids=); else an option table (full product = product of its distinct
values per name), complete or not, so a hole in it fails --fail-under. A
single name is one axis counted by its values. --option-axes replaces this
rule, --grouped exempts marks from it (docs/cli.md, "the rule").

Exit codes: 0 ok, 1 coverage below --fail-under, 2 usage error,
3 collection error, 5 no tests collected. Arguments after `--` go to pytest
unchanged.
"""


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    rep = sub.add_parser(
        "report",
        help="what a pytest suite covers: counts, reduction, t-way coverage per test",
        description="Collect a pytest suite in-process (no test runs) and report, per test function, "
        "its axes, full-product and collected counts, the reduction, and the measured t-way coverage "
        "of its option axes.",
        epilog=REPORT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rep.add_argument("paths", nargs="*", metavar="PATH", help="files, directories or node ids (default: pytest's own)")
    rep.add_argument("--strength", type=strengths, default=None, metavar="T[,T...]",
                     help="strengths to measure and gate (default: measure 2,3; --fail-under gates each "
                     "table at the strength it was built for)")
    format_option(rep, "report")
    rep.add_argument("--show-missing", action="store_true", help="list missing and infeasible tuples")
    rep.add_argument("--max-listed", type=nonneg, default=20, metavar="N",
                     help="list at most N tuples per table and strength (0: no limit; default 20)")
    rep.add_argument("--fail-under", type=percent, default=None, metavar="PCT",
                     help="exit 1 when any option table's coverage is below PCT (each table at its own "
                     "strength unless --strength picks; an empty table always fails)")
    rep.add_argument("--strict-platform", action="store_true",
                     help="count the tuples that cannot run here (values skipped at collection) as missing")
    rep.add_argument("--plot", metavar="FILE", help="draw cumulative coverage vs rows (.png, .svg or .pdf)")
    rep.add_argument("--plot-test", metavar="NAME",
                     help="plot this test (id, id suffix or function name) instead of the whole suite")
    rep.add_argument("--option-axes", action="append", default=None, metavar="NAMES",
                     help="comma-separated argument names that are the option axes of tests without "
                     "@pairwise (replaces the automatic rule; repeatable)")
    rep.add_argument("--grouped", action="append", default=[], metavar="NAMES",
                     help='a multi-name parametrize (e.g. "x,expected") that is one grouped axis, '
                     "never an option table (repeatable)")
    counting = rep.add_mutually_exclusive_group()
    counting.add_argument("--from-marks", dest="counting", action="store_const", const="marks", default="auto",
                          help="count each test function's parametrize rows from its marks instead of building "
                          "one pytest item per row: time and memory follow the test functions (the default "
                          "unless rows are selected; given, a selection of rows by -k/-m or a hook is "
                          "reported as not honoured; docs/cli.md)")
    counting.add_argument("--expand-items", dest="counting", action="store_const", const="items",
                          help="let pytest build one item per row, as a test run does (the default when the "
                          "pytest arguments select rows, or after counting from the marks found rows deselected)")
    rep.add_argument("--include-unparametrized", action="store_true",
                     help="list tests without parameters too (1 -> 1)")
    prog = rep.add_mutually_exclusive_group()
    prog.add_argument("--progress", dest="progress", action="store_true", default=None,
                      help="show collection progress on stderr (default: only when stderr is a terminal)")
    prog.add_argument("--no-progress", dest="progress", action="store_false")
    rep.add_argument("--print-schema", action="store_true",
                     help="print the JSON Schema of --format json (with --run: of the run file) and exit")
    rep.add_argument("--run", metavar="FILE", nargs="+",
                     help="instead of collecting, show what a pytest run's @pairwise rows did: executed "
                     "coverage, lost tuples and suspicious combinations, from the file of "
                     "`pytest --pairwise-report=FILE` (or a .pytest_cache directory: its last run); "
                     "--fail-under then gates on executed coverage. Several files, directories of them or "
                     "globs: the runs (CI shards) merged into one union per table, gated as one; a missing, "
                     "doubled, overlapping or empty shard and items never reported are named and fail "
                     "the gate; a table two runs built differently is an error. A pytest --junitxml file "
                     "(.xml) may stand in for a shard's lost run file: its rows and outcomes, on the other "
                     "runs' tables")
    rep.add_argument("--per-platform", action="store_true",
                     help="with --run: merge and gate the runs of each platform apart (the run files "
                     "record cuda, rocm, xpu, cpu), and name the tuples only one platform ran")
    rep.add_argument("--history", metavar="PATH", nargs="?", const="",
                     help="instead of collecting, show per table the accumulated coverage at t, t+1 and t+2 "
                     "of the tables `pytest --pairwise-rotate` ran, and how many more runs reach 100%% at "
                     "t+1, from the history file PATH (default: the one in .pytest_cache)")
    rep.add_argument("--last", type=int, default=None, metavar="N",
                     help="with --history: only the last N runs of each table")



def run(args: argparse.Namespace, pytest_args: list[str], out: TextIO, err: TextIO) -> int:
    """``report``: a collection, or a finished run (``--run``) or the history (``--history``)."""
    from pairwise_param.cli import formats

    if args.run is not None and args.history is not None:
        raise UsageError("--run FILE and --history PATH are two reports: give one")
    if args.last is not None and args.history is None:
        raise UsageError("--last N applies to --history (the accumulated coverage of the last N runs)")
    if args.run is not None:
        return report_run(args, out, err)
    if args.history is not None:
        return report_history(args, out, err)
    if args.print_schema:
        from pairwise_param.report.schema import REPORT_SCHEMA

        out.write(json.dumps(REPORT_SCHEMA, indent=2) + "\n")
        return ExitCode.OK
    check_report_args(args)
    show_progress = args.progress if args.progress is not None else isatty(err)
    counting = getattr(args, "counting", "items")
    auto = counting == "auto"
    if auto:  # decided before collecting: a selection of rows needs pytest's items
        counting = "items" if _selection(args.paths, pytest_args) is not None else "marks"
    try:
        collection = _collect(args, pytest_args, err, show_progress, counting == "marks")
    except ModuleNotFoundError as exc:
        if exc.name not in ("pytest", "_pytest"):
            raise
        # the core has no dependency on pytest; report is the one command that needs it
        raise UsageError(
            f"report collects the suite with pytest, which this Python ({sys.executable}) cannot "
            "import; install it there: pip install pytest  (or: pip install 'pairwise-param[pytest]')"
        ) from None
    if collection is None:
        return ExitCode.COLLECTION_ERROR
    if auto and collection.from_marks_lost:
        err.write("pairwise-param report: rows were deselected (a hook, or -k/-m/--deselect from the "
                  "configuration), which counting from the marks cannot honour: collecting again with "
                  "--expand-items\n")
        return _rerun_items(args, pytest_args, out, err, show_progress)
    from pairwise_param.report import names

    if not collection.items and not collection.errors:  # nothing to gate: fail closed, as pytest does
        err.write(f"pairwise-param report: error: {names.nothing_collected(args.paths, pytest_args)}\n")
        return ExitCode.NO_TESTS
    names.check_names(names.collected_names(collection), option_axes=args.option_axes, grouped=args.grouped)

    def tick(i: int, n: int) -> None:
        if show_progress and (i == n or i % 10 == 0):
            err.write(f"\ranalyzing {i}/{n} tests")
            if i == n:
                err.write("\n")
            err.flush()

    from pairwise_param.report import analyze

    limit = args.max_listed or None
    settings = _report_settings(Path.cwd())
    report = analyze(
        collection,
        strengths=args.strength or (2, 3),
        strict_platform=args.strict_platform,
        gate_strengths=args.strength,
        option_axes=args.option_axes,
        grouped=args.grouped,
        cases=settings.get("cases", []),
        options=settings.get("options", []),
        list_limit=limit,
        fail_under=args.fail_under,
        include_unparametrized=args.include_unparametrized,
        on_test=tick,
    )
    if report.errors:
        exit_code = ExitCode.COLLECTION_ERROR
    elif args.fail_under is not None and report.below(args.fail_under):
        exit_code = ExitCode.COVERAGE_BELOW
    else:
        exit_code = ExitCode.OK
    if args.plot:
        _plot(args, report, err)
    output = formats.Output(show_missing=args.show_missing, list_limit=limit, exit_code=exit_code,
                            width=width(out))
    out.write(formats.render("report", args.format, report, output))
    err.write(
        f"pairwise-param report: {report.collected_items} items collected in {collection.seconds:.1f}s"
        + (f", {len(report.errors)} collection error(s)" if report.errors else "")
        + "\n"
    )
    return exit_code



#: pytest options that select rows (by keyword, mark or id): counting from the marks cannot honour them
_SELECTING = ("-k", "-m", "--deselect", "--lf", "--last-failed", "--ff", "--failed-first", "--sw", "--stepwise",
              "--sw-skip", "--stepwise-skip", "--lfnf", "--last-failed-no-failures")


def _selection(paths: Sequence[str], pytest_args: Sequence[str]) -> str | None:
    """What in the arguments selects rows (``report --counting`` auto), or ``None``."""
    for a in pytest_args:
        name = a.split("=", 1)[0]
        if name in _SELECTING or (a[:2] in ("-k", "-m") and not a.startswith("--")):
            return name if name in _SELECTING else a[:2]
    for a in (*paths, *(p for p in pytest_args if not p.startswith("-"))):
        if "::" in a and "[" in a:
            return f"the row id {a!r}"
    return None


def _rerun_items(args: argparse.Namespace, pytest_args: list[str], out: TextIO, err: TextIO,
                 show_progress: bool) -> int:
    """The report again, in a fresh interpreter, with ``--expand-items``: a second collection
    in this process would see the modules the first one imported (different numbers)."""
    import subprocess

    argv = list(getattr(args, "argv", None) or ["report", *args.paths])
    extra = ["--progress"] if show_progress and args.progress is None else []
    cmd = [sys.executable, "-m", "pairwise_param.cli", *argv, *extra, "--expand-items", "--", *pytest_args]
    out.flush()
    err.flush()
    # the process's own streams are handed over (progress shows as it comes); others are relayed
    done = subprocess.run(cmd, stdout=None if out is sys.__stdout__ else subprocess.PIPE,
                          stderr=None if err is sys.__stderr__ else subprocess.PIPE, text=True, check=False)
    if done.stdout is not None:
        out.write(done.stdout)
    if done.stderr is not None:
        err.write(done.stderr)
    return done.returncode


def _collect(args: argparse.Namespace, pytest_args: list[str], err: TextIO, show_progress: bool,
             from_marks: bool) -> Any:
    """pytest's collection of the suite; pytest's own usage errors become ours.
    Returns the collection, or ``None`` after an internal error of pytest (reported)."""
    from pairwise_param.report import collect
    from pairwise_param.report.collect import conftest_error

    collection = collect(args.paths, pytest_args, progress=err if show_progress else None,
                         from_marks=from_marks)
    code = collection.pytest_exit
    broken = conftest_error(collection.output) if code == 4 else None
    if broken is not None:  # a conftest that raised: a collection error (exit 3), not a usage error
        collection.errors.append(broken)
        return collection
    if code == 4:  # pytest.ExitCode.USAGE_ERROR
        # pytest's message starts at "ERROR:"; a -k/-m expression is rejected only after
        # collection, so what precedes it is the collection listing and our summary: noise
        lines = collection.output.strip().splitlines()
        first = next((i for i, line in enumerate(lines) if line.startswith("ERROR:")), 0)
        text = "\n".join(lines[first:])
        raise UsageError("pytest rejected the arguments" + (f":\n{text}" if text else ""))
    if code == 3 and not collection.errors:  # pytest.ExitCode.INTERNAL_ERROR
        err.write(collection.output)
        err.write("pairwise-param report: error: pytest failed with an internal error (output above)\n")
        return None
    return collection


def _plot(args: argparse.Namespace, report: Any, err: TextIO) -> None:
    """``--plot FILE`` (and ``--plot-test NAME``): draw and say where."""
    from pairwise_param.report.plot import plot_coverage

    if args.plot_test:
        found = report.find(args.plot_test)
        if not found:
            names = listing([t.test_id for t in report.tests])
            raise UsageError(f"--plot-test {args.plot_test!r} matches no test (tests: {names})")
        if len(found) > 1:
            names = listing([t.test_id for t in found])
            raise UsageError(f"--plot-test {args.plot_test!r} matches {len(found)} tests: {names}")
        tables = found[0].tables
        title = f"{found[0].test_id}: cumulative coverage"
    else:
        tables = [tb for t in report.tests for tb in t.tables]
        title = f"{len(report.tests)} tests: cumulative coverage (option tables in order)"
    try:
        path = plot_coverage(tables, args.strength or (2, 3), args.plot, title=title)
    except PairwiseError as exc:
        if not report.errors:
            raise
        # the suite's collection errors are the likely cause: say so rather than hide them
        broken = report.errors[0]
        raise UsageError(
            f"{exc.detail}; {len(report.errors)} file(s) failed to collect, first "
            f"{broken.where}: {broken.message}"
        ) from None
    err.write(f"pairwise-param report: wrote {path}\n")


def _report_settings(start: Path) -> dict[str, list[str]]:
    """``[tool.pairwise-param.report]`` of the nearest ``pyproject.toml`` (upwards from
    ``start``): ``cases`` / ``options``, lists of argument-name sets (``"x,expected"``)
    whose hand-written lists are case tables / option tables whatever the default rule
    says.  A malformed table is a usage error naming the file."""
    for folder in (start, *start.parents):
        path = folder / "pyproject.toml"
        if not path.is_file():
            continue
        from pairwise_param.cli.modelfile import load_toml  # the one TOML reader (tomli on 3.10)

        try:
            data = load_toml(path.read_text(encoding="utf-8"), str(path))
        except (OSError, PairwiseError) as exc:
            raise UsageError(f"{path}: cannot read: {exc}") from None
        table = data.get("tool", {}).get("pairwise-param", {}).get("report", {})
        out: dict[str, list[str]] = {}
        for key in ("cases", "options"):
            value = table.get(key, [])
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise UsageError(
                    f"{path}: [tool.pairwise-param.report] {key} must be a list of strings such as "
                    f'"x,expected", got {value!r}'
                )
            out[key] = value
        return out
    return {}



COMMAND = Command("report", add_parser, run, pytest_args=True)
