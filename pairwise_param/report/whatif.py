"""What ``@pairwise`` would give a test that stacks full products of option axes.

The one place the report asks the engine for rows (lazily, through
:func:`pairwise_param.tables.covering.cover`): the analysis itself only measures what
was collected.  A maintainer sees ``1536 -> 192 with @pairwise(dtype, quant,
...)`` before touching a file; ``pairwise-param convert`` does the rewrite.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pairwise_param.report.types import WithPairwise

__all__ = ["with_pairwise"]


def with_pairwise(stacked: Sequence[tuple[str, Sequence[Any]]], full_product: int) -> WithPairwise | None:
    """``None`` unless at least three stacked option axes exist and a covering table of
    them is smaller than their product (two axes: pairwise IS their product)."""
    if len(stacked) < 3:
        return None
    from pairwise_param.tables.covering import cover

    product = 1
    for _, values in stacked:
        product *= len(values)
    rows = len(cover({name: list(values) for name, values in stacked}, strength=2))
    if rows >= product or product == 0:
        return None
    return WithPairwise(tuple(n for n, _ in stacked), rows, product, full_product // product * rows)
