"""Upstream's CI option rows measured against OUR option models (the whole domain).

``pairwise-param report kernel_tests/fused_norm/upstream_ci.py`` measures upstream's
lists over the values they mention themselves (bf16 only, eps 1e-6 only, two layouts),
so it cannot see what they never try. This command maps each upstream case onto our
option axes (``upstream_ci.fused_options_*``) and measures those rows against the models
of ``test_fused_norm.py`` (every dtype, eps, layout; constraints included)::

    python -m kernel_tests.fused_norm.audit            # markdown table on stdout

Our own tables are measured the same way (they cover 100% of the coverable pairs).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TextIO

from pairwise_param import Model, cover, measure


def _line(name: str, model: Model, rows: Sequence[Mapping[str, Any]]) -> str:
    report = measure(model, list(rows), strengths=(2, 3))
    two, three = report.level(2), report.level(3)
    return (f"| {name} | {len(rows)} | {two.covered} / {two.coverable} | {two.coverable - two.covered} "
            f"| {100.0 * three.covered / three.coverable:.1f}% |")


def audit(out: TextIO = sys.stdout) -> None:
    """Print the audit table (markdown)."""
    from kernel_tests.fused_norm.cases import FUSED_OPTIONS, NSS_OPTIONS, bias_needs_weight, gate_iff_layout
    from kernel_tests.fused_norm.upstream_ci import FUSED_ROWS, NSS_ROWS

    suites: list[tuple[str, Mapping[str, Any], Iterable[Callable[..., bool]], Mapping[str, list[Any]]]] = [
        ("fused_residual_norm_scale_shift", FUSED_OPTIONS, (gate_iff_layout, bias_needs_weight), FUSED_ROWS),
        ("norm_scale_shift", NSS_OPTIONS, (bias_needs_weight,), NSS_ROWS),
    ]
    out.write("| option rows | rows | 2-way tuples covered | 2-way missing | 3-way |\n")
    out.write("|---|---:|---:|---:|---:|\n")
    for op, axes, constraints, upstream in suites:
        model = Model(dict(axes), constraints=list(constraints))
        out.writelines(_line(f"{op}: upstream {name}", model, rows) + "\n" for name, rows in upstream.items())
        ours = cover(dict(axes), constraints=list(constraints))
        out.write(_line(f"{op}: ours (@pairwise)", model, list(ours)) + "\n")


if __name__ == "__main__":
    audit()
