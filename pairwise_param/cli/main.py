"""Argument parsing and dispatch of the ``pairwise-param`` command: one verb per module
of :mod:`pairwise_param.cli.verbs`, behind one command table (:data:`COMMANDS`).

``report``: what a pytest suite covers (collects, runs nothing), what a finished run
executed (``--run``), the history of the rotated tables (``--history``);
``check``: coverage of a list of rows against a model file;
``generate``: rows for a model file;
``localize``: follow-up rows that pin each failure of the last run to one combination;
``convert``: stacked parametrize over options -> one ``@pairwise`` (a diff; ``--write``);
``merge-history``: the rotation histories of a build's shards -> one history.

Results go to stdout, diagnostics (progress, counts, errors) to stderr.  Exit
codes are :class:`ExitCode`.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Sequence

from pairwise_param._version import __version__
from pairwise_param.cli.common import Command, ExitCode, UsageError
from pairwise_param.cli.verbs import check, convert, generate, localize, merge_history, report
from pairwise_param.errors import PairwiseError

__all__ = ["COMMANDS", "ExitCode", "build_parser", "main"]

#: the command table: every verb, in the order ``--help`` lists them
COMMANDS: tuple[Command, ...] = (
    report.COMMAND, check.COMMAND, generate.COMMAND, localize.COMMAND, convert.COMMAND, merge_history.COMMAND,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pairwise-param",
        description="Covering test tables for the option axes of kernel tests.",
    )
    parser.add_argument("--version", action="version", version=f"pairwise-param {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(sub)
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
    verb = next(c for c in COMMANDS if c.name == args.command)
    if pytest_args and not verb.pytest_args:
        takes = " and ".join(c.name for c in COMMANDS if c.pytest_args)
        print(f"pairwise-param {args.command}: error: `--` (pytest arguments) only applies to {takes}",
              file=sys.stderr)
        return ExitCode.USAGE_ERROR
    try:
        if args.command == "report":
            args.argv = args_list  # the report's own arguments: a re-run with --expand-items repeats them
        return verb.run(args, pytest_args, sys.stdout, sys.stderr)
    except BrokenPipeError:
        # stdout closed early (`pairwise-param generate m.toml | head`): not an error of
        # ours; silence the interpreter's own flush of stdout at exit as well
        import os

        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return ExitCode.OK
    except UsageError as exc:
        print(f"pairwise-param {args.command}: error: {exc}", file=sys.stderr)
        return ExitCode.USAGE_ERROR
    except PairwiseError as exc:
        print(f"pairwise-param {args.command}: error: {exc}", file=sys.stderr)
        return ExitCode.USAGE_ERROR



if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
