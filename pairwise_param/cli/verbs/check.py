"""``pairwise-param check MODEL ROWS``: the t-way coverage of a list of rows against a model file."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from pairwise_param.cli.common import Command, ExitCode, format_option, nonneg, percent, strengths
from pairwise_param.errors import PairwiseError

__all__ = ["COMMAND"]


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
    chk.add_argument("--strength", type=strengths, default=None, metavar="T[,T...]",
                     help="strengths to measure (default: the model's)")
    format_option(chk, "check")
    chk.add_argument("--show-missing", action="store_true", help="list every missing tuple")
    chk.add_argument("--max-listed", type=nonneg, default=20, metavar="N")
    chk.add_argument("--fail-under", type=percent, default=100.0, metavar="PCT")



def _read_rows(path: str, model: Any) -> list[Any]:
    from pairwise_param.cli.rows import read_rows

    return read_rows(path, model)


def run(args: argparse.Namespace, pytest_args: list[str], out: TextIO, err: TextIO) -> int:
    """``check MODEL ROWS``."""
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



COMMAND = Command("check", add_parser, run)
