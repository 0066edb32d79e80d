"""What every verb of ``pairwise-param`` shares: the exit codes, the usage error, the
command table's entry, the argument types and the few helpers of more than one verb."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from enum import IntEnum
from pathlib import Path
from typing import NamedTuple, TextIO

__all__ = [
    "Command", "ExitCode", "UsageError", "check_paths", "expand_files", "format_option", "isatty", "listing", "nonneg",
    "percent", "single_strength", "strengths", "width",
]


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
    #: ``report``: no test was collected (a folder of files not named ``test_*.py``, a
    #: ``-k`` that selects nothing): nothing to report or gate.  pytest's own code for it.
    NO_TESTS = 5
    #: ``generate``: Ctrl-C before the engine had a complete table; nothing written.
    #: (Ctrl-C during the improver writes the best table so far and exits 0, with a note.)
    INTERRUPTED = 130


class UsageError(Exception):
    """A usage problem found after argparse (reported as ``error: ...``, exit 2)."""



class Command(NamedTuple):
    """One verb of the command table (:data:`pairwise_param.cli.main.COMMANDS`)."""

    #: the verb, as typed
    name: str
    #: adds the verb's sub-parser (its arguments, help and description) to the subparsers
    add_parser: Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None]
    #: runs it: (arguments, pytest arguments after ``--``, stdout, stderr) -> exit code
    run: Callable[[argparse.Namespace, list[str], TextIO, TextIO], int]
    #: whether arguments after ``--`` (pytest's) apply to it
    pytest_args: bool = False


# -- argument types ------------------------------------------------------------------------------
def strengths(text: str) -> tuple[int, ...]:
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


def percent(text: str) -> float:
    try:
        value = float(text.rstrip("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number; give a percentage 0..100") from None
    if not 0.0 <= value <= 100.0:
        raise argparse.ArgumentTypeError(f"{text!r} is outside 0..100")
    return value


def nonneg(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be >= 0")
    return value


def format_option(parser: argparse.ArgumentParser, command: str) -> None:
    """``--format``, its choices and their help from the one registry."""
    from pairwise_param.cli import formats

    choices = formats.names(command)
    shown = "; ".join(f"{name}: {formats.describe(command, name)}" for name in choices)
    parser.add_argument("--format", choices=choices, default=choices[0],
                        help=f"output format (default: {choices[0]}). {shown}")


def single_strength(text: str) -> int:
    value = strengths(text)
    if len(value) != 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give one strength, e.g. --strength 2")
    return value[0]


def listing(names: Sequence[str], limit: int = 8) -> str:
    """The first ``limit`` names, and how many more were left out."""
    more = len(names) - limit
    return ", ".join(names[:limit]) + (f", ... (+{more} more)" if more > 0 else "")



def check_paths(paths: Sequence[str]) -> None:
    for p in paths:
        if p.startswith("-"):
            raise UsageError(f"{p!r} looks like a pytest option: put pytest options after `--`")
        file_part = p.split("::", 1)[0]
        if not Path(file_part).exists():
            raise UsageError(f"{p!r}: file or directory not found")


def expand_files(given: Sequence[str], label: str = "",
                 directory: Callable[[str], list[str]] | None = None) -> list[str]:
    """File arguments -> files, in order, each once: a glob's matches (sorted; a glob that
    matches nothing is a :class:`UsageError`, ``label`` before the argument), a directory as
    ``directory`` lists it (None: as given), anything else as given."""
    import glob

    out: list[str] = []
    for arg in given:
        if any(c in arg for c in "*?[") and not Path(arg).exists():
            found = sorted(glob.glob(arg))
            if not found:
                raise UsageError(f"{label}{arg!r}: no file matches")
        elif directory is not None and Path(arg).is_dir():
            found = directory(arg)
        else:
            found = [arg]
        out.extend(f for f in found if f not in out)
    return out


def width(stream: TextIO) -> int | None:
    """The width the terminal table must fit: ``COLUMNS`` when set (as pytest and
    argparse read it), else the terminal's own when ``stream`` is one; None (no
    limit) for a file or a pipe, so a saved report is never cut."""
    import os
    import shutil

    given = os.environ.get("COLUMNS", "").strip()
    if given.isdecimal() and int(given) > 0:
        return int(given)
    if isatty(stream):
        return shutil.get_terminal_size().columns
    return None


def isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False

