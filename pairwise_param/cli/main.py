"""Argument parsing and dispatch of the ``pairwise-param`` command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from pairwise_param._version import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pairwise-param",
        description="Covering test tables for the option axes of kernel tests.",
    )
    parser.add_argument("--version", action="version", version=f"pairwise-param {__version__}")
    parser.add_subparsers(dest="command", metavar="COMMAND")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
