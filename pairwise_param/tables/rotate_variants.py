"""Rotating a compile-aware table without compiling more (``--pairwise-rotate`` with
``compile_axes=``).

:func:`pairwise_param.tables.rotate.rotate` knows nothing of compile axes: its value
permutations and spare rows scatter a rotated run over many more kernel variants than
the fixed table compiles (fused norm's table: 7 variants fixed, 19-24 per rotated run,
measured on the CPU). Here the rotation runs on the model restricted to the fixed
table's variants (one more exclusion over the compile axes), so a rotated run holds no
variant the fixed table does not: the rows rotate, the compiled kernels stay. The result
is verified against the unrestricted model (every coverable t-tuple, no constraint
broken); a rotation that fails that check gives the fixed table back.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
from collections.abc import Sequence

from pairwise_param.feasibility import Feasibility, merge_exclusions
from pairwise_param.model import Model
from pairwise_param.tables.build import Table, verified

__all__ = ["rotate_compile_aware"]


def _restricted(model: Model, variants: set[tuple[int, ...]]) -> Model:
    """``model`` whose rows may hold only ``variants`` on its compile axes (a copy: the
    original is untouched; same fingerprint, so the rotation's seed is the table's)."""
    axes, im = model.compile_axes, model.index_model
    cells: list[int | None] = [None] * len(model.sizes)

    def allowed(combo: tuple[int, ...]) -> bool:  # with compile_key= every combination of a kept class
        for a, v in zip(axes, combo):
            cells[a] = v
        return im.variant(cells) in variants

    forbidden = frozenset(c for c in itertools.product(*(range(model.sizes[a]) for a in axes)) if not allowed(c))
    restricted = copy.copy(model)
    exclusions = merge_exclusions([*((e.scope, e.forbidden) for e in model.exclusions), (axes, forbidden)])
    restricted.exclusions = exclusions
    restricted.feasibility = Feasibility(model.sizes, exclusions)
    restricted.index_model = dataclasses.replace(model.index_model, exclusions=exclusions, compile_axes=(), compile_classes=())
    return restricted


def rotate_compile_aware(model: Model, fixed: Table, runs: Sequence[Sequence[Sequence[int]]]) -> Table:
    """The rotated table of a compile-aware ``model``: at most the fixed table's variants."""
    from pairwise_param.tables.rotate import rotate

    variants = {model.index_model.variant(r) for r in fixed.rows}
    rotated = rotate(_restricted(model, variants), fixed, runs).table
    if not verified(model, rotated) or not {model.index_model.variant(r) for r in rotated.rows} <= variants:
        return fixed  # pragma: no cover - rotate() verifies against the restricted model already
    return rotated
