"""``pairwise-param localize PATHS``: its arguments; the rounds are :mod:`pairwise_param.cli.localize`'s."""

from __future__ import annotations

import argparse
from typing import TextIO

from pairwise_param.cli.common import Command, UsageError, check_paths, nonneg

__all__ = ["COMMAND"]


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
    loc.add_argument("--budget", type=nonneg, default=20, metavar="N", help="extra cases at most (default 20)")
    loc.add_argument("--run", default=None, metavar="FILE",
                     help="the run to start from (a --pairwise-report file; default: pytest's cache)")
    loc.add_argument("--timeout", type=float, default=600.0, metavar="S",
                     help="seconds each round's pytest run may take (default 600); past it the run is killed "
                     "and localize says what stays unknown")
    loc.add_argument("--keep", default=None, metavar="DIR",
                     help="keep each round's request and report files in DIR (default: a temporary directory)")



def run(args: argparse.Namespace, pytest_args: list[str], out: TextIO, err: TextIO) -> int:
    """``localize PATHS``."""
    from pairwise_param.cli.localize import LocalizeError, localize

    check_paths(args.paths)
    try:
        return localize(args.paths, pytest_args, args.budget, args.run, out, err, args.keep,
                        args.timeout if args.timeout > 0 else None)
    except LocalizeError as exc:
        raise UsageError(str(exc)) from None



COMMAND = Command("localize", add_parser, run, pytest_args=True)
