"""Argument parsing and dispatch of the ``pairwise-param`` command.

``report``: what a pytest suite covers (collects, runs nothing);
``check``: coverage of a list of rows against a model file;
``generate``: rows for a model file.

Results go to stdout, diagnostics (progress, counts, errors) to stderr.  Exit
codes are :class:`ExitCode`.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import sys
from collections.abc import Sequence
from enum import IntEnum
from pathlib import Path
from typing import Any, TextIO

from pairwise_param._version import __version__
from pairwise_param.contract import MODES
from pairwise_param.errors import PairwiseError

__all__ = ["ExitCode", "build_parser", "main"]


class ExitCode(IntEnum):
    """Exit status of every ``pairwise-param`` command."""

    #: Everything ran and every measured coverage meets the bar.
    OK = 0
    #: ``report``: some table's coverage is below ``--fail-under``; ``check``:
    #: coverage below ``--fail-under`` (default 100), or a row breaks a
    #: constraint or holds a value outside the model; ``localize``: some failure is
    #: still ambiguous or unexplained when the rounds end.
    COVERAGE_BELOW = 1
    #: Bad command line, unreadable or invalid model/rows file, unknown path,
    #: pytest refused its arguments.
    USAGE_ERROR = 2
    #: ``report``: a file or test failed to collect (the rest is still reported).
    COLLECTION_ERROR = 3
    #: ``generate``: Ctrl-C before the engine had a complete table; nothing written.
    #: (Ctrl-C during the improver writes the best table so far and exits 0, with a note.)
    INTERRUPTED = 130


class _UsageError(Exception):
    """A usage problem found after argparse (reported as ``error: ...``, exit 2)."""


# -- argument types ------------------------------------------------------------------------------
def _strengths(text: str) -> tuple[int, ...]:
    out: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if not part.isdigit() or int(part) < 1:
            raise argparse.ArgumentTypeError(
                f"{text!r}: strengths are integers >= 1 separated by commas, e.g. --strength 2,3"
            )
        t = int(part)
        if t > 6:
            raise argparse.ArgumentTypeError(f"{text!r}: strength {t} is too large to measure (at most 6)")
        if t not in out:
            out.append(t)
    if not out:
        raise argparse.ArgumentTypeError(f"{text!r}: give at least one strength, e.g. --strength 2")
    return tuple(sorted(out))


def _percent(text: str) -> float:
    try:
        value = float(text.rstrip("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number; give a percentage 0..100") from None
    if not 0.0 <= value <= 100.0:
        raise argparse.ArgumentTypeError(f"{text!r} is outside 0..100")
    return value


def _nonneg(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be >= 0")
    return value


def _engine_option(name: str, text: str) -> Any:
    """``--effort`` / ``--seed``: an int (or a name, where the engine takes one),
    validated by :class:`~pairwise_param.engine.EngineOptions`, their one home."""
    from pairwise_param.tables.build import engine_options

    value: Any = text.strip()
    with contextlib.suppress(ValueError):
        value = int(value)
    try:
        engine_options(**{name: value})
    except PairwiseError as exc:
        raise argparse.ArgumentTypeError(f"{text!r}: {exc.detail}") from None
    return value


def _effort(text: str) -> Any:
    return _engine_option("effort", text)


def _seed(text: str) -> Any:
    return _engine_option("seed", text)


def _format_option(parser: argparse.ArgumentParser, command: str) -> None:
    """``--format``, its choices and their help from the one registry."""
    from pairwise_param.cli import formats

    choices = formats.names(command)
    shown = "; ".join(f"{name}: {formats.describe(command, name)}" for name in choices)
    parser.add_argument("--format", choices=choices, default=choices[0],
                        help=f"output format (default: {choices[0]}). {shown}")


def _single_strength(text: str) -> int:
    value = _strengths(text)
    if len(value) != 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give one strength, e.g. --strength 2")
    return value[0]


def _listing(names: Sequence[str], limit: int = 8) -> str:
    """The first ``limit`` names, and how many more were left out."""
    more = len(names) - limit
    return ", ".join(names[:limit]) + (f", ... (+{more} more)" if more > 0 else "")


# -- the parser ------------------------------------------------------------------------------------
REPORT_EPILOG = """\
Option axes: the axes of each @pairwise mark form one option table. In tests
without @pairwise, a multi-name parametrize is an option table (full product =
product of its distinct values per name; coverage over the values that appear)
unless its values are all plain ints (shapes such as "n,k,m") or one of its
names takes a different value in every row (cases such as "dtype,atol"): then
it is one grouped axis counted by its rows. A single name is one axis counted
by its values. --option-axes replaces this rule, --grouped exempts marks from
it.

Exit codes: 0 ok, 1 coverage below --fail-under, 2 usage error,
3 collection error. Arguments after `--` go to pytest unchanged.
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pairwise-param",
        description="Covering test tables for the option axes of kernel tests.",
    )
    parser.add_argument("--version", action="version", version=f"pairwise-param {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

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
    rep.add_argument("--strength", type=_strengths, default=None, metavar="T[,T...]",
                     help="strengths to measure and gate (default: measure 2,3; --fail-under gates each "
                     "table at the strength it was built for)")
    _format_option(rep, "report")
    rep.add_argument("--show-missing", action="store_true", help="list missing and infeasible tuples")
    rep.add_argument("--max-listed", type=_nonneg, default=20, metavar="N",
                     help="list at most N tuples per table and strength (0: no limit; default 20)")
    rep.add_argument("--fail-under", type=_percent, default=None, metavar="PCT",
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
    rep.add_argument("--run", metavar="FILE",
                     help="instead of collecting, show what a pytest run's @pairwise rows did: executed "
                     "coverage, lost tuples and suspicious combinations, from the file of "
                     "`pytest --pairwise-report=FILE` (or a .pytest_cache directory: its last run); "
                     "--fail-under then gates on executed coverage")
    rep.add_argument("--history", metavar="PATH", nargs="?", const="",
                     help="instead of collecting, show per table the accumulated coverage at t, t+1 and t+2 "
                     "of the tables `pytest --pairwise-rotate` ran, and how many more runs reach 100%% at "
                     "t+1, from the history file PATH (default: the one in .pytest_cache)")
    rep.add_argument("--last", type=int, default=None, metavar="N",
                     help="with --history: only the last N runs of each table")

    chk = sub.add_parser(
        "check",
        help="coverage of a list of rows (CSV or JSON) against a model file",
        description="Measure the t-way coverage of ROWS (CSV with a header of argument names, or JSON: "
        "a list of objects, or {\"rows\": [...]} as `generate --format json` writes) against MODEL "
        "(JSON or TOML). Exit 1 when coverage is below --fail-under (default 100) or a row breaks a "
        "constraint or holds a value the model lacks.",
    )
    chk.add_argument("model", metavar="MODEL")
    chk.add_argument("rows", metavar="ROWS")
    chk.add_argument("--strength", type=_strengths, default=None, metavar="T[,T...]",
                     help="strengths to measure (default: the model's)")
    _format_option(chk, "check")
    chk.add_argument("--show-missing", action="store_true", help="list every missing tuple")
    chk.add_argument("--max-listed", type=_nonneg, default=20, metavar="N")
    chk.add_argument("--fail-under", type=_percent, default=100.0, metavar="PCT")

    gen = sub.add_parser(
        "generate",
        help="rows for a model file (JSON or TOML) as CSV, JSON or Markdown",
        description="Generate a covering array for MODEL (JSON or TOML; format in docs/cli.md). Rows on "
        "stdout, diagnostics on stderr.",
    )
    gen.add_argument("model", metavar="MODEL")
    _format_option(gen, "generate")
    gen.add_argument("--strength", type=_single_strength, default=None, metavar="N",
                     help="override the model's strength")
    gen.add_argument("--mode", choices=MODES, default=MODES[0],
                     help="cover: a covering array of the model's strength (default); full: every row "
                     "of the full product that breaks no constraint (what --pairwise-mode=full runs)")
    gen.add_argument("--effort", type=_effort, default=None, metavar="N",
                     help="engine improver effort (0 = quick; default: the model file's or 0)")
    gen.add_argument("--seed", type=_seed, default=None, metavar="N",
                     help="seed of the improver (default: the model file's or 0)")
    gen.add_argument("--progress", action="store_true",
                     help="a progress line on stderr every few seconds while the improver runs "
                     "(default: only when stderr is a terminal)")

    loc = sub.add_parser(
        "localize",
        help="run the few follow-up rows that pin each failure of the last run to one combination",
        description="Read the last run's outcomes (pytest's cache, or --run FILE from --pairwise-report), "
        "then run, round by round, follow-up rows that keep one candidate combination and change every "
        "other value to one known harmless, until each failure (table x shape x error signature) is "
        "down to one minimal combination or --budget extra cases are spent. Prints the combination and "
        "node ids that reproduce it with plain pytest. Never edits test files. Exit 0: every failure "
        "decided; 1: some remain ambiguous.",
    )
    loc.add_argument("paths", nargs="*", metavar="PATH", help="what pytest runs (files, directories, node ids)")
    loc.add_argument("--budget", type=_nonneg, default=20, metavar="N", help="extra cases at most (default 20)")
    loc.add_argument("--run", default=None, metavar="FILE",
                     help="the run to start from (a --pairwise-report file; default: pytest's cache)")
    loc.add_argument("--timeout", type=float, default=600.0, metavar="S",
                     help="seconds each round's pytest run may take (default 600); past it the run is killed "
                     "and localize says what stays unknown")
    loc.add_argument("--keep", default=None, metavar="DIR",
                     help="keep each round's request and report files in DIR (default: a temporary directory)")

    conv = sub.add_parser(
        "convert",
        help="rewrite stacked parametrize over options into one @pairwise (diff; --write applies)",
        description="Rewrite the stacked @pytest.mark.parametrize option axes of FILE's tests (or of "
        "FILE::TEST) into one @pairwise, keeping shapes as parametrize, comments and formatting "
        "(libcst: pip install 'pairwise-param[convert]'). Prints a unified diff; --write writes the "
        "file. `pytest --pairwise-mode=full` on the result runs the original items.",
    )
    conv.add_argument("target", metavar="FILE[::TEST]")
    conv.add_argument("--options", default=None, metavar="A,B,C",
                      help="the argument names that are option axes (default: the split of docs/cli.md: "
                      "single-name lists of option values, int codes such as bias_mode=[0, 1, 2] included, "
                      "in tests with three or more)")
    conv.add_argument("--write", action="store_true",
                      help="write the converted file instead of a diff (atomically, after collecting it: a file "
                      "that does not collect is not written)")
    conv.add_argument("--no-check", dest="check", action="store_false",
                      help="with --write: do not collect the original and the converted file first")
    conv.add_argument("--reorder", action="store_true",
                      help="also convert option decorators that sit above a shape parametrize (their node ids "
                      "then list the @pairwise part first; by default only the bottom run is converted, so "
                      "--pairwise-mode=full keeps every node id)")
    conv.add_argument("--keep-rows", action="store_true",
                      help="flashinfer's parametrize_product: keep its hand-written regular rows as include= rows "
                      "of the @pairwise table (default: the generated table replaces them)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (never raises SystemExit)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    pytest_args: list[str] = []
    if "--" in args_list:
        cut = args_list.index("--")
        args_list, pytest_args = args_list[:cut], args_list[cut + 1 :]
    parser = build_parser()
    try:
        args, extra = parser.parse_known_args(args_list)
        if extra:
            hint = (
                "; pytest options go after `--`, e.g. pairwise-param report tests -- -k fast"
                if getattr(args, "command", None) == "report" and any(e.startswith("-") for e in extra)
                else ""
            )
            parser.error(f"unrecognized arguments: {' '.join(extra)}{hint}")
    except SystemExit as exc:  # --help, --version (0) and argparse errors (2)
        return int(exc.code) if isinstance(exc.code, int) else ExitCode.USAGE_ERROR
    if args.command is None:
        if pytest_args:
            parser.print_usage(sys.stderr)
            print("pairwise-param: error: `--` needs a command (report)", file=sys.stderr)
            return ExitCode.USAGE_ERROR
        parser.print_help()
        return ExitCode.OK
    if pytest_args and args.command not in ("report", "localize"):
        print(f"pairwise-param {args.command}: error: `--` (pytest arguments) only applies to report and localize",
              file=sys.stderr)
        return ExitCode.USAGE_ERROR
    try:
        if args.command == "report":
            args.argv = args_list  # the report's own arguments: a re-run with --expand-items repeats them
            return _report(args, pytest_args, sys.stdout, sys.stderr)
        if args.command == "check":
            return _check(args, sys.stdout, sys.stderr)
        if args.command == "convert":
            return _convert(args, sys.stdout, sys.stderr)
        if args.command == "localize":
            return _localize(args, pytest_args, sys.stdout, sys.stderr)
        return _generate(args, sys.stdout, sys.stderr)
    except BrokenPipeError:
        # stdout closed early (`pairwise-param generate m.toml | head`): not an error of
        # ours; silence the interpreter's own flush of stdout at exit as well
        import os

        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return ExitCode.OK
    except _UsageError as exc:
        print(f"pairwise-param {args.command}: error: {exc}", file=sys.stderr)
        return ExitCode.USAGE_ERROR
    except PairwiseError as exc:
        print(f"pairwise-param {args.command}: error: {exc}", file=sys.stderr)
        return ExitCode.USAGE_ERROR


def _localize(args: argparse.Namespace, pytest_args: list[str], out: TextIO, err: TextIO) -> int:
    from pairwise_param.cli.localize import LocalizeError, localize

    _check_paths(args.paths)
    try:
        return localize(args.paths, pytest_args, args.budget, args.run, out, err, args.keep,
                        args.timeout if args.timeout > 0 else None)
    except LocalizeError as exc:
        raise _UsageError(str(exc)) from None


# -- report ----------------------------------------------------------------------------------------
def _check_paths(paths: Sequence[str]) -> None:
    for p in paths:
        if p.startswith("-"):
            raise _UsageError(f"{p!r} looks like a pytest option: put pytest options after `--`")
        file_part = p.split("::", 1)[0]
        if not Path(file_part).exists():
            raise _UsageError(f"{p!r}: file or directory not found")


def _check_report_args(args: argparse.Namespace) -> None:
    """Usage errors argparse cannot see, found before anything is collected."""
    if args.plot_test and not args.plot:
        raise _UsageError("--plot-test needs --plot FILE")
    if args.plot:
        from pairwise_param.report.plot import SUPPORTED_SUFFIXES

        if Path(args.plot).suffix.lower() not in SUPPORTED_SUFFIXES:
            raise _UsageError(
                f"--plot {args.plot!r}: unsupported file type; use one of {', '.join(SUPPORTED_SUFFIXES)}"
            )
    option_names = {n.strip() for spec in (args.option_axes or []) for n in spec.split(",") if n.strip()}
    if args.option_axes is not None and not option_names:
        raise _UsageError("--option-axes needs at least one name")
    grouped_names = {n.strip() for spec in args.grouped for n in spec.split(",") if n.strip()}
    both = sorted(option_names & grouped_names)
    if both:
        raise _UsageError(f"{', '.join(both)} given both to --option-axes and --grouped")
    _check_paths(args.paths)


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
        raise _UsageError("pytest rejected the arguments" + (f":\n{text}" if text else ""))
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
            names = _listing([t.test_id for t in report.tests])
            raise _UsageError(f"--plot-test {args.plot_test!r} matches no test (tests: {names})")
        if len(found) > 1:
            names = _listing([t.test_id for t in found])
            raise _UsageError(f"--plot-test {args.plot_test!r} matches {len(found)} tests: {names}")
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
        raise _UsageError(
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
            raise _UsageError(f"{path}: cannot read: {exc}") from None
        table = data.get("tool", {}).get("pairwise-param", {}).get("report", {})
        out: dict[str, list[str]] = {}
        for key in ("cases", "options"):
            value = table.get(key, [])
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise _UsageError(
                    f"{path}: [tool.pairwise-param.report] {key} must be a list of strings such as "
                    f'"x,expected", got {value!r}'
                )
            out[key] = value
        return out
    return {}


def _load_run(path: str) -> dict[str, Any]:
    """The run document of FILE, or of a pytest cache directory's last run."""
    from pairwise_param.runs.schema import SCHEMA_ID, SCHEMA_VERSION

    p = Path(path)
    if p.is_dir():
        p = p / "v" / "pairwise" / "lastrun"
        if not p.is_file():
            raise _UsageError(f"--run {path!r}: no pairwise-param run recorded in this pytest cache directory ({p})")
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise _UsageError(f"--run {path!r}: cannot read it: {exc.strerror or exc}") from None
    except (ValueError, RecursionError) as exc:
        raise _UsageError(f"--run {path!r}: not JSON: {exc}") from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA_ID:
        raise _UsageError(f"--run {path!r}: not a pairwise-param run file (write one with pytest --pairwise-report=FILE)")
    if doc.get("schema_version") != SCHEMA_VERSION or not isinstance(doc.get("tables"), list):
        raise _UsageError(
            f"--run {path!r}: run file version {doc.get('schema_version')!r}; this pairwise-param reads "
            f"version {SCHEMA_VERSION}"
        )
    return doc


def _report_run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``report --run FILE``: a run file instead of a collection."""
    if args.print_schema:
        from pairwise_param.runs.schema import RUN_SCHEMA

        out.write(json.dumps(RUN_SCHEMA, indent=2) + "\n")
        return ExitCode.OK
    if args.paths:
        raise _UsageError("--run FILE reads a finished run; give no PATH (or drop --run to collect PATHs)")
    # options of a collection that a finished run has no use for: refused, never ignored
    unused = [flag for flag, given in (
        ("--option-axes", args.option_axes is not None), ("--grouped", bool(args.grouped)),
        ("--include-unparametrized", args.include_unparametrized),
        ("--progress / --no-progress", args.progress is not None),
    ) if given]
    if unused:
        raise _UsageError(f"--run FILE reads a finished run of @pairwise tables; {', '.join(unused)} "
                          "applies to collecting a suite (drop --run, or drop the option)")
    _check_report_args(args)
    doc = _load_run(args.run)
    try:
        from pairwise_param.runs.text import render_run, run_below

        below = args.fail_under is not None and bool(
            run_below(doc, args.fail_under, args.strict_platform, args.strength)
        )
        if args.format == "json":
            out.write(json.dumps(doc, indent=2) + "\n")
        else:
            out.write(render_run(doc, list_limit=args.max_listed or None, fail_under=args.fail_under,
                                 strict=args.strict_platform, strengths=args.strength,
                                 show_missing=args.show_missing, markdown=args.format == "markdown"))
        if args.plot:
            _plot_run(args, doc, err)
    except (KeyError, TypeError, IndexError, ValueError) as exc:
        raise _UsageError(f"--run {args.run!r}: malformed run file ({type(exc).__name__}: {exc})") from None
    return ExitCode.COVERAGE_BELOW if below else ExitCode.OK


def _plot_run(args: argparse.Namespace, doc: dict[str, Any], err: TextIO) -> None:
    """``report --run FILE --plot OUT``: cumulative EXECUTED coverage after each executed item."""
    from pairwise_param.report.plot import plot_coverage
    from pairwise_param.report.types import StrengthCoverage, TableReport
    from pairwise_param.runs.analysis import executed_at

    tables = doc["tables"]
    if args.plot_test:
        tables = [t for t in tables if t["test"] == args.plot_test or t["test"].endswith("::" + args.plot_test)]
        if not tables:
            names = _listing([t["test"] for t in doc["tables"]])
            raise _UsageError(f"--plot-test {args.plot_test!r} matches no table of the run (tables: {names})")
    strengths = args.strength or tuple(sorted({int(t["strength"]) for t in tables}))
    reports = []
    for t in tables:
        levels = []
        for k in strengths:
            got = executed_at(t, k)
            if got is not None:
                r, cumulative = got
                levels.append(StrengthCoverage(k, r.runnable, r.covered, 0, cumulative=cumulative))
        axis_names = tuple(str(a["name"]) for a in t["axes"])
        reports.append(TableReport("pairwise", axis_names, tuple(len(a["values"]) for a in t["axes"]), 0,
                                   len(t["rows"]), 0, levels))
    title = (f"{args.plot_test}: executed coverage" if args.plot_test
             else f"run of {len(tables)} tables: executed coverage (items in order)")
    path = plot_coverage(reports, strengths, args.plot, title=title)
    err.write(f"pairwise-param report: wrote {path}\n")


def _report_history(args: argparse.Namespace, out: TextIO) -> int:
    """``report --history PATH``: the accumulated coverage of the rotated tables."""
    from pairwise_param.runs import history

    if args.paths:
        raise _UsageError("--history PATH reads the history file; give no test PATH")
    if args.last is not None and args.last < 1:
        raise _UsageError(f"--last {args.last}: give a number of runs >= 1")
    path = Path(args.history) if args.history else history.DEFAULT_PATH
    got, problem = history.read(path)
    if got is None:
        raise _UsageError(f"--history: {problem}")
    if args.format == "json":
        doc = [dataclasses.asdict(history.progress(got.tables[k], args.last)) for k in sorted(got.tables)]
        out.write(json.dumps({"last": args.last, "tables": doc}, indent=2) + "\n")
    else:
        out.write(history.render(got, args.last, markdown=args.format == "markdown"))
    return ExitCode.OK


def _report(args: argparse.Namespace, pytest_args: list[str], out: TextIO, err: TextIO) -> int:
    from pairwise_param.cli import formats

    if args.run is not None:
        return _report_run(args, out, err)
    if args.history is not None:
        return _report_history(args, out)
    if args.print_schema:
        from pairwise_param.report.schema import REPORT_SCHEMA

        out.write(json.dumps(REPORT_SCHEMA, indent=2) + "\n")
        return ExitCode.OK
    _check_report_args(args)
    show_progress = args.progress if args.progress is not None else _isatty(err)
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
        raise _UsageError(
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
                            width=_width(out))
    out.write(formats.render("report", args.format, report, output))
    err.write(
        f"pairwise-param report: {report.collected_items} items collected in {collection.seconds:.1f}s"
        + (f", {len(report.errors)} collection error(s)" if report.errors else "")
        + "\n"
    )
    return exit_code


def _width(stream: TextIO) -> int | None:
    """The width the terminal table must fit: ``COLUMNS`` when set (as pytest and
    argparse read it), else the terminal's own when ``stream`` is one; None (no
    limit) for a file or a pipe, so a saved report is never cut."""
    import os
    import shutil

    given = os.environ.get("COLUMNS", "").strip()
    if given.isdecimal() and int(given) > 0:
        return int(given)
    if _isatty(stream):
        return shutil.get_terminal_size().columns
    return None


def _isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


# -- check -----------------------------------------------------------------------------------------
def _read_rows(path: str, model: Any) -> list[Any]:
    from pairwise_param.cli.rows import read_rows

    return read_rows(path, model)


def _check(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from pairwise_param import coverage
    from pairwise_param.cli import formats
    from pairwise_param.cli.modelfile import load_model

    spec = load_model(args.model)
    model = spec.model
    rows = _read_rows(args.rows, model)
    strengths = args.strength or (model.strength,)
    try:
        res = coverage.measure(model, rows, strengths=strengths)
    except PairwiseError as exc:  # the model is valid (loaded above): the problem is in ROWS
        raise type(exc)(exc.detail, where=args.rows) from None
    below = formats.below(res, args.fail_under)
    bad = bool(res.violations or res.out_of_model)
    code = ExitCode.COVERAGE_BELOW if (below or bad) else ExitCode.OK
    output = formats.Output(
        show_missing=args.show_missing,
        list_limit=args.max_listed or None,
        exit_code=code,
        fail_under=args.fail_under,
        rows_path=args.rows,
        model_path=args.model,
    )
    out.write(formats.render("check", args.format, res, output))
    return code


# -- generate --------------------------------------------------------------------------------------
def _is_tty(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (OSError, ValueError):
        return False


def _generate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from pairwise_param.cli import formats
    from pairwise_param.cli.modelfile import load_model
    from pairwise_param.tables.covering import build_array

    spec = load_model(args.model, strength=args.strength)
    effort = args.effort if args.effort is not None else (spec.effort or 0)
    seed = args.seed if args.seed is not None else (spec.seed or 0)
    on_progress = None
    if args.progress or _is_tty(err):
        from pairwise_param.cli.progress import ProgressLine

        on_progress = ProgressLine(err)
    try:
        array = build_array(spec.model, mode=args.mode, effort=effort, seed=seed, on_progress=on_progress,
                            interruptible=True)
    except KeyboardInterrupt:
        err.write("pairwise-param generate: interrupted before a complete table was found; nothing written\n")
        return ExitCode.INTERRUPTED
    out.write(formats.render("generate", args.format, array, formats.Output(effort=effort, seed=seed)))
    model = spec.model
    if array.interrupted:
        err.write(
            f"pairwise-param generate: interrupted: wrote the best table found so far ({len(array)} rows, "
            "verified to cover every coverable tuple); a full run may find fewer rows\n"
        )
    # the full product is the FEASIBLE one, as @pairwise and report count it; big ints, no float
    from pairwise_param.tables.product import big_int_text, feasible_count, reduction_text

    full = feasible_count(model)
    red = reduction_text(full.value, len(array))
    full_text = big_int_text(full.value) if full.exact else f"at most {big_int_text(full.value)}"
    err.write(
        f"pairwise-param generate: {len(array)} rows, strength {model.strength}, {len(model.axes)} axes, "
        f"full product {full_text} ({red if full.exact else 'up to ' + red} fewer), method {array.method}, "
        f"effort {effort}, seed {seed}\n"
    )
    if array.infeasible:
        err.write(f"  infeasible (excluded by constraints): {array.describe_infeasible()}\n")
    return ExitCode.OK


# -- convert ---------------------------------------------------------------------------------------
def _convert(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from pairwise_param.cli.convert import convert_source
    from pairwise_param.cli.convert_file import atomic_write, collect_check, line_length, read_source

    file_part, _, test = args.target.partition("::")
    path = Path(file_part)
    if not path.is_file():
        raise _UsageError(f"{file_part!r}: file not found")
    options = None
    if args.options is not None:
        options = [n.strip() for n in args.options.split(",") if n.strip()]
        if not options:
            raise _UsageError("--options needs at least one name")
    result = convert_source(read_source(path), file_part, test=test or None, options=options, reorder=args.reorder,
                            keep_rows=args.keep_rows, line_length=line_length(path))
    prefix = f"pairwise-param convert: {file_part}::"
    for name, axes in result.converted.items():
        note = f" ({result.notes[name]})" if name in result.notes else ""
        err.write(f"{prefix}{name}: @pairwise({', '.join(axes)}){note}\n")
    err.writelines(f"{prefix}{name}: unchanged ({why})\n" for name, why in result.skipped.items())
    if not result.converted:
        err.write(f"pairwise-param convert: {file_part}: nothing to convert\n")
        return ExitCode.OK
    if not args.write:
        out.write(result.diff())
        return ExitCode.OK
    if args.check:
        check = collect_check(path, result.new_bytes, original_args=result.full_args)
        if not check.converted_ok and check.original_ok:
            raise _UsageError(f"{file_part}: not written: the converted file does not collect (the file is "
                              f"unchanged; convert one test with FILE::TEST, or name --options):\n{check.error}")
        if not check.original_ok:
            err.write(f"pairwise-param convert: {file_part}: not checked by collection: the original does not "
                      f"collect here either{' (the converted file does not either)' if not check.converted_ok else ''}\n")
        elif check.ids_identical:
            err.write(f"pairwise-param convert: {file_part}: collects; --pairwise-mode=full gives the "
                      f"{len(check.full)} original node ids\n")
        else:
            lost = sorted(set(check.original) - set(check.full))
            err.write(f"pairwise-param convert: {file_part}: collects; --pairwise-mode=full gives "
                      f"{len(check.full)} items for {len(check.original)}, node ids "
                      f"{'in another order' if not lost and len(check.full) == len(check.original) else 'changed'}"
                      f"{(': first missing ' + lost[0]) if lost else ''}\n")
    atomic_write(path, result.new_bytes)
    err.write(f"pairwise-param convert: wrote {file_part}\n")
    return ExitCode.OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
