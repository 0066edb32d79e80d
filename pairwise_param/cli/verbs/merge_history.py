"""``pairwise-param merge-history FILE... --output OUT``: the rotation histories of a build's
shards merged into one before the next build (the merge is :mod:`pairwise_param.runs.history_merge`'s)."""

from __future__ import annotations

import argparse
from typing import TextIO

from pairwise_param.cli.common import Command, ExitCode, UsageError, expand_files

__all__ = ["COMMAND"]


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "merge-history",
        help="merge the rotation histories of a build's shards into one (before the next build)",
        description="Read each shard's history file (pytest --pairwise-rotate --pairwise-history=FILE, each "
        "shard restored from the same history and run with a build id: PAIRWISE_BUILD or the CI's) and write "
        "the one history the next build restores: per table, the runs matched by build id and the shards' "
        "rows of one build joined into one run, as a history shared by the shards would hold them. Fails "
        "(exit 2, nothing written) where the files cannot be one history: a table kept for different models "
        "by the same build, a build recorded twice, shards that did not restore the same history, a shard's "
        "run without a build id. OUT may be one of the inputs; it is written atomically.",
    )
    p.add_argument("inputs", nargs="+", metavar="FILE",
                   help="history files, or globs of them (quoted: 'histories/*.json')")
    p.add_argument("-o", "--output", required=True, metavar="OUT", help="the merged history file to write")


def run(args: argparse.Namespace, pytest_args: list[str], out: TextIO, err: TextIO) -> int:
    """``merge-history FILE... --output OUT``."""
    from pairwise_param.errors import RunsDisagree
    from pairwise_param.runs import history
    from pairwise_param.runs.history_merge import merge

    parts = []
    for path in expand_files(args.inputs):
        got, problem = history.read(path)
        if got is None:  # a lost or corrupt shard history is never merged as empty: its run would be lost
            raise UsageError(problem)
        parts.append((path, got))
    try:
        merged = merge(parts)
    except RunsDisagree as exc:
        raise UsageError(f"the histories cannot be merged: {exc}") from None
    try:
        history.write(args.output, merged)
    except OSError as exc:
        raise UsageError(f"--output {args.output}: cannot be written ({exc.strerror or exc})") from None
    runs = sum(len(t.runs) for t in merged.tables.values())
    out.write(f"pairwise-param merge-history: {len(parts)} histories -> {args.output}: {len(merged.tables)} tables, "
              f"{runs} runs\n")
    return ExitCode.OK


COMMAND = Command("merge-history", add_parser, run)
