"""``pairwise-param generate MODEL``: rows for a model file (JSON or TOML) as CSV, JSON or Markdown."""

from __future__ import annotations

import argparse
import contextlib
from typing import Any, TextIO

from pairwise_param.cli.common import Command, ExitCode, format_option, single_strength
from pairwise_param.contract import MODES
from pairwise_param.errors import PairwiseError

__all__ = ["COMMAND"]


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



def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    gen = sub.add_parser(
        "generate",
        help="rows for a model file (JSON or TOML) as CSV, JSON or Markdown",
        description="Generate a covering array for MODEL (JSON or TOML; format in docs/cli.md). Rows on "
        "stdout, diagnostics on stderr.",
    )
    gen.add_argument("model", metavar="MODEL")
    format_option(gen, "generate")
    gen.add_argument("--strength", type=single_strength, default=None, metavar="N",
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



def _is_tty(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (OSError, ValueError):
        return False


def run(args: argparse.Namespace, pytest_args: list[str], out: TextIO, err: TextIO) -> int:
    """``generate MODEL``."""
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



COMMAND = Command("generate", add_parser, run)
