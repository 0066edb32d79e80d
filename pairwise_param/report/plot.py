"""Cumulative t-way coverage against number of rows, as a step chart.

matplotlib is an optional extra (``pip install pairwise-param[plot]``) and is
imported only when a plot is drawn; the object-oriented API (``Figure`` +
``savefig``) is used so no global backend or pyplot state is touched.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pairwise_param.errors import InvalidArgument, MissingExtra
from pairwise_param.report.analyze import cumulative_series
from pairwise_param.report.columns import fmt_percent
from pairwise_param.report.types import TableReport

__all__ = ["SUPPORTED_SUFFIXES", "plot_coverage"]

SUPPORTED_SUFFIXES = (".png", ".svg", ".pdf")


def _figure() -> Any:
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise MissingExtra(
            "--plot needs matplotlib, which is not installed; install the extra with "
            "`pip install 'pairwise-param[plot]'` (or `pip install matplotlib`)"
        ) from None
    return Figure


def plot_coverage(
    tables: Sequence[TableReport],
    strengths: Sequence[int],
    path: str | Path,
    *,
    title: str,
) -> Path:
    """Draw cumulative coverage (percent of coverable t-tuples) after each
    distinct option row, one step line per strength, and save to ``path``
    (format by suffix: .png, .svg or .pdf).  Several tables are concatenated
    in order, their coverable tuples summed (the suite view)."""
    out = Path(path)
    if out.suffix.lower() not in SUPPORTED_SUFFIXES:
        raise InvalidArgument(
            f"--plot {str(path)!r}: unsupported file type; use one of {', '.join(SUPPORTED_SUFFIXES)}"
        )
    series = {t: s for t in strengths if (s := cumulative_series(tables, t)) is not None}
    if not series:
        raise InvalidArgument(
            f"--plot: nothing to draw ({title}): no option table with at least "
            f"{min(strengths)} axes (strengths {', '.join(map(str, strengths))})"
        )
    Figure = _figure()
    fig = Figure(figsize=(7.0, 4.2), dpi=110)
    ax = fig.add_subplot(1, 1, 1)
    xmax = max(xs[-1] for xs, _ in series.values())
    pad = max(0.5, xmax * 0.04)
    for t, (xs, ys) in series.items():
        # carry the last value on a little so the final step is visible
        ax.step([*xs, xs[-1] + pad], [*ys, ys[-1]], where="post", label=f"{t}-way ({fmt_percent(ys[-1])})",
                linewidth=1.8)
    ax.axhline(100.0, color="0.6", linewidth=0.8, linestyle="--")
    ax.set_xlim(0, xmax + pad)
    ax.set_ylim(0, 105)
    ax.set_xlabel("option rows")
    ax.set_ylabel("coverable t-tuples covered (%)")
    ax.set_title(title, fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out)
    return out
