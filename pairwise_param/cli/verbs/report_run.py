"""``pairwise-param report --run FILE`` and ``report --history``: a finished run, and the
accumulated coverage of the rotated tables, instead of a collection (every output through
the format registry :mod:`pairwise_param.cli.formats`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from pairwise_param.cli.common import ExitCode, UsageError, check_paths, expand_files, listing

if TYPE_CHECKING:
    from pairwise_param.runs.document import RunDocument

__all__ = ["check_report_args", "report_history", "report_run"]


def check_report_args(args: argparse.Namespace) -> None:
    """Usage errors argparse cannot see, found before anything is collected."""
    if args.plot_test and not args.plot:
        raise UsageError("--plot-test needs --plot FILE")
    if args.plot:
        from pairwise_param.report.plot import SUPPORTED_SUFFIXES

        if Path(args.plot).suffix.lower() not in SUPPORTED_SUFFIXES:
            raise UsageError(
                f"--plot {args.plot!r}: unsupported file type; use one of {', '.join(SUPPORTED_SUFFIXES)}"
            )
    option_names = {n.strip() for spec in (args.option_axes or []) for n in spec.split(",") if n.strip()}
    if args.option_axes is not None and not option_names:
        raise UsageError("--option-axes needs at least one name")
    grouped_names = {n.strip() for spec in args.grouped for n in spec.split(",") if n.strip()}
    both = sorted(option_names & grouped_names)
    if both:
        raise UsageError(f"{', '.join(both)} given both to --option-axes and --grouped")
    check_paths(args.paths)



def _expand(given: list[str]) -> list[str]:
    """``--run`` arguments -> run files: a glob's matches, a directory's ``*.json`` (a pytest
    cache directory: its last run), a file as given; in order, each once."""

    def directory(arg: str) -> list[str]:
        if (Path(arg) / "v" / "pairwise" / "lastrun").is_file():
            return [arg]  # a pytest cache directory: its last run
        return sorted(str(p) for p in Path(arg).glob("*.json")) or [arg]  # none: said by _load_run

    return expand_files(given, "--run ", directory)


def _load_run(path: str) -> RunDocument:
    """The run document of FILE, or of a pytest cache directory's last run (validated)."""
    from pairwise_param.errors import InvalidRunFile
    from pairwise_param.runs.document import load

    p = Path(path)
    if p.is_dir():
        p = p / "v" / "pairwise" / "lastrun"
        if not p.is_file():
            raise UsageError(f"--run {path!r}: no pairwise-param run recorded in this pytest cache directory ({p}), "
                             "and no run file (*.json) in it")
    try:
        return load(p)
    except InvalidRunFile as exc:
        raise UsageError(f"--run {path!r}: {exc.detail}") from None


def report_run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``report --run FILE``: a run file instead of a collection."""
    from pairwise_param.cli import formats

    if args.print_schema:
        return _print_run_schema(out)
    if args.paths:
        raise UsageError("--run FILE reads a finished run; give no PATH (or drop --run to collect PATHs)")
    # options of a collection that a finished run has no use for: refused, never ignored
    unused = [flag for flag, given in (
        ("--option-axes", args.option_axes is not None), ("--grouped", bool(args.grouped)),
        ("--include-unparametrized", args.include_unparametrized),
        ("--progress / --no-progress", args.progress is not None),
    ) if given]
    if unused:
        raise UsageError(f"--run FILE reads a finished run of @pairwise tables; {', '.join(unused)} "
                         "applies to collecting a suite (drop --run, or drop the option)")
    check_report_args(args)
    files = _expand(args.run)
    if len(files) > 1 or args.per_platform or any(f.endswith(".xml") for f in files):
        return _report_runs(args, files, out, err)
    doc = _load_run(files[0])
    from pairwise_param.runs.text import run_below

    below = args.fail_under is not None and bool(run_below(doc, args.fail_under, args.strict_platform, args.strength))
    output = formats.Output(show_missing=args.show_missing, list_limit=args.max_listed or None,
                            exit_code=ExitCode.COVERAGE_BELOW if below else ExitCode.OK, fail_under=args.fail_under,
                            strict=args.strict_platform, strengths=args.strength)
    out.write(formats.render("run", args.format, doc, output))
    if args.plot:
        _plot_run(args, doc, err)
    return ExitCode.COVERAGE_BELOW if below else ExitCode.OK


def _report_runs(args: argparse.Namespace, files: list[str], out: TextIO, err: TextIO) -> int:
    """``report --run A B C``: the runs merged (runs/merge.py), shown and gated as one run;
    ``--per-platform``: one union per platform, each gated, and the tuples one platform ran alone."""
    from pairwise_param.cli import formats
    from pairwise_param.errors import RunsDisagree
    from pairwise_param.runs.merge import by_platform, merge, mirror_problems, only_on
    from pairwise_param.runs.text import run_below

    if args.plot:
        raise UsageError("--plot draws one run; give one --run FILE (or merge the runs first)")
    parts = [(f, _load_run(f)) for f in files if not f.endswith(".xml")]
    notes = _junit_parts(parts, [f for f in files if f.endswith(".xml")], err)
    groups = by_platform(parts) if args.per_platform else {"": parts}
    # per platform, each union is a part of the mirror jobs: the set is checked once, below
    whole = mirror_problems(parts) if args.per_platform else []
    try:
        merged = {name: merge(group, mirrors=not args.per_platform) for name, group in groups.items()}
    except RunsDisagree as exc:
        raise UsageError(f"--run: the runs cannot be merged: {exc}") from None
    if notes:  # test cases of a JUnit XML file that no table holds: the gate fails closed
        from dataclasses import replace

        merged = {name: replace(m, problems=(*m.problems, *notes)) for name, m in merged.items()}
    code = ExitCode.OK
    for name, m in merged.items():
        below = args.fail_under is not None and (bool(m.problems) or bool(
            run_below(m.doc, args.fail_under, args.strict_platform, args.strength)))
        if below:
            code = ExitCode.COVERAGE_BELOW
        output = formats.Output(show_missing=args.show_missing, list_limit=args.max_listed or None,
                                exit_code=ExitCode.COVERAGE_BELOW if below else ExitCode.OK,
                                fail_under=args.fail_under, strict=args.strict_platform, strengths=args.strength,
                                runs=m.runs, problems=m.problems, platform=name)
        out.write(formats.render("run", args.format, m.doc, output))
        if args.format == "json":
            err.writelines(f"pairwise-param report: {p}\n" for p in m.problems)
    if args.per_platform:
        alone = only_on(merged)
        if alone and args.format != "json":
            out.write("\ntuples only one platform ran:\n" + "".join(line + "\n" for line in alone))
        if whole:
            (err if args.format == "json" else out).write(
                "\nthe mirror jobs as a set:\n" + "".join(f"- {p}\n" for p in whole))
            if args.fail_under is not None:
                code = ExitCode.COVERAGE_BELOW
    return code


def _junit_parts(parts: list[tuple[str, RunDocument]], xml_files: list[str], err: TextIO) -> list[str]:
    """JUnit XML files standing in for lost run files (runs/junit.py), appended to
    ``parts``: on the tables of the run files given; one XML file and one missing shard:
    it is that shard.  Returns the problems (test cases no table holds)."""
    if not xml_files:
        return []
    from dataclasses import replace

    from pairwise_param.errors import InvalidRunFile
    from pairwise_param.runs.junit import from_junit
    from pairwise_param.runs.where import Shard

    known = [d for _, d in parts]
    if not known:
        raise UsageError("--run FILE.xml: a JUnit XML file stands in for a lost run file next to the run files of "
                         "the other shards (it holds no table); give those too")
    counts = {d.shard.count for d in known if d.shard is not None}
    taken = {d.shard.index for d in known if d.shard is not None}
    count = next(iter(counts)) if len(counts) == 1 else 0
    missing = [i for i in range(count) if i not in taken]
    builds = {d.build for d in known}
    problems = []
    for f in xml_files:
        try:
            got = from_junit(f, known)
        except InvalidRunFile as exc:
            raise UsageError(f"--run {f!r}: {exc.detail}") from None
        doc = replace(got.doc, build=next(iter(builds)) if len(builds) == 1 else None)
        if len(xml_files) == 1 and len(missing) == 1:
            doc = replace(doc, shard=Shard(missing[0], count, "JUnit XML standing in for a lost run file"))
        err.write(f"pairwise-param report: {f}: JUnit XML stands in for a run file: it tells which rows ran and how "
                  "they ended, not the table, its model fingerprint, the shard or the build (the tables of the "
                  "other runs are assumed)\n")
        problems += [f"{f}: {case}: its row values are in no table of the other runs (another model?)"
                     for case in got.unplaced]
        parts.append((f, doc))
    return problems


def _print_run_schema(out: TextIO) -> int:
    import json

    from pairwise_param.runs.schema import RUN_SCHEMA

    out.write(json.dumps(RUN_SCHEMA, indent=2) + "\n")
    return ExitCode.OK


def _plot_run(args: argparse.Namespace, doc: RunDocument, err: TextIO) -> None:
    """``report --run FILE --plot OUT``: cumulative EXECUTED coverage after each executed item."""
    from pairwise_param.report.plot import plot_coverage
    from pairwise_param.report.types import StrengthCoverage, TableReport
    from pairwise_param.runs.analysis import executed_at

    tables = list(doc.tables)
    if args.plot_test:
        tables = [t for t in tables if t.test == args.plot_test or t.test.endswith("::" + args.plot_test)]
        if not tables:
            names = listing([t.test for t in doc.tables])
            raise UsageError(f"--plot-test {args.plot_test!r} matches no table of the run (tables: {names})")
    strengths = args.strength or tuple(sorted({t.strength for t in tables}))
    reports = []
    for t in tables:
        levels = []
        for k in strengths:
            got = executed_at(t, k)
            if got is not None:
                r, cumulative = got
                levels.append(StrengthCoverage(k, r.runnable, r.covered, 0, cumulative=cumulative))
        reports.append(TableReport("pairwise", tuple(a.name for a in t.axes), tuple(len(a.values) for a in t.axes), 0,
                                   len(t.rows), 0, levels))
    title = (f"{args.plot_test}: executed coverage" if args.plot_test
             else f"run of {len(tables)} tables: executed coverage (items in order)")
    path = plot_coverage(reports, strengths, args.plot, title=title)
    err.write(f"pairwise-param report: wrote {path}\n")


def report_history(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``report --history PATH``: the accumulated coverage of the rotated tables;
    ``--fail-under`` (and ``--strength``) gate it, options of a collection are refused."""
    from pairwise_param.runs import history

    if args.paths:
        raise UsageError("--history PATH reads the history file; give no test PATH")
    unused = [flag for flag, given in _collection_only(args) if given]
    if unused:  # refused, never ignored (--fail-under and --strength gate the accumulated coverage)
        raise UsageError(f"--history reads the accumulated coverage of rotated runs; {', '.join(unused)} "
                         "does not apply to it (drop --history, or drop the option)")
    if args.last is not None and args.last < 1:
        raise UsageError(f"--last {args.last}: give a number of runs >= 1")
    path = Path(args.history) if args.history else history.DEFAULT_PATH
    got, problem = history.read(path)
    if got is None:
        raise UsageError(f"--history: {problem}")
    from pairwise_param.cli import formats

    out.write(formats.render("history", args.format, got, formats.Output(last=args.last)))
    if args.fail_under is None:
        return ExitCode.OK
    if not got.tables:
        err.write(f"pairwise-param report: error: --history {path}: no table recorded yet; nothing to gate\n")
        return ExitCode.NO_TESTS
    try:
        short = history.below(got, args.fail_under, args.strength, args.last)
    except ValueError as exc:
        raise UsageError(f"--history --strength: {exc}") from None
    err.writelines(f"pairwise-param report: below --fail-under: {line}\n" for line in short)
    return ExitCode.COVERAGE_BELOW if short else ExitCode.OK


def _collection_only(args: argparse.Namespace) -> list[tuple[str, bool]]:
    """Options that only a collection (or a run file) gives a meaning: ``--history`` refuses them."""
    return [("--option-axes", args.option_axes is not None), ("--grouped", bool(args.grouped)),
            ("--include-unparametrized", args.include_unparametrized),
            ("--progress / --no-progress", args.progress is not None), ("--plot", args.plot is not None),
            ("--plot-test", args.plot_test is not None), ("--show-missing", bool(args.show_missing)),
            ("--from-marks / --expand-items", getattr(args, "counting", "auto") != "auto"),
            ("--strict-platform", bool(args.strict_platform))]
