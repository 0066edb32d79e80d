"""``pairwise-param convert FILE[::TEST]``: its arguments and file handling; the codemod is
:mod:`pairwise_param.cli.convert`, the file side :mod:`pairwise_param.cli.convert_file`."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from pairwise_param.cli.common import Command, ExitCode, UsageError

__all__ = ["COMMAND"]


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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


# -- convert ---------------------------------------------------------------------------------------
def run(args: argparse.Namespace, pytest_args: list[str], out: TextIO, err: TextIO) -> int:
    """``convert FILE[::TEST]``."""
    from pairwise_param.cli.convert import convert_source
    from pairwise_param.cli.convert_file import atomic_write, collect_check, line_length, read_source

    file_part, _, test = args.target.partition("::")
    path = Path(file_part)
    if path.is_dir():
        raise UsageError(f"{file_part!r} is a directory: convert takes one test file (FILE or FILE::TEST); "
                         f"`pairwise-param report {file_part}` lists the tests it would convert")
    if not path.is_file():
        raise UsageError(f"{file_part!r}: file not found")
    options = None
    if args.options is not None:
        options = [n.strip() for n in args.options.split(",") if n.strip()]
        if not options:
            raise UsageError("--options needs at least one name")
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
            raise UsageError(f"{file_part}: not written: the converted file does not collect (the file is "
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
    written = atomic_write(path, result.new_bytes)
    through = f" (through the link {file_part})" if path.is_symlink() else ""
    err.write(f"pairwise-param convert: wrote {written if through else file_part}{through}\n")
    return ExitCode.OK



COMMAND = Command("convert", add_parser, run)
