"""Rotating a compile-aware table: the variant list rotates too, never growing
(``--pairwise-rotate`` with ``compile_axes=``; the mirror jobs alike).

:func:`pairwise_param.tables.rotate.rotate` knows nothing of compile axes: its value
permutations and spare rows scatter a rotated run over many more kernel variants than
the fixed table compiles (fused norm's table: 7 variants fixed, 19-24 per rotated run,
measured on the CPU).  So a rotated run of a compile-aware table is built in two steps:

1. **Its variant list.**  The fixed table's variants (those of its must-include rows
   first, kept as they are) spread (:func:`pairwise_param.tables.build.rotation_variants`,
   :mod:`pairwise_param.engine.spread`) to hold the compile axes' (t+1)-tuples that the
   history's runs have not compiled: as many variants as the fixed table's (the hard
   rule), every tuple of the compile model still covered.  The history is the rotation's
   own (the runs handed in), its cycles the rotation's (:func:`.rotate_levels.cycle_of`
   over the variants: once the runs have compiled every feasible compile (t+1)-tuple, a
   new cycle starts).
2. **Its rows.**  The engine's table of the model restricted to that list (one more
   exclusion over the compile axes), rotated against the history like any table
   (:func:`~pairwise_param.tables.rotate.rotate`).

Nothing lost: the result is verified against the *unrestricted* model (every coverable
t-tuple, no constraint broken).  Where the moved list loses a tuple (constraints
between compile and other axes can tie a tuple to some variants), the fixed variants
whose rows held the lost tuples are kept as they are and step 1 runs once more; where
that fails too, the run keeps the fixed table's variants (its rows still rotate).  So
a rotated run compiles at most as many variants as the fixed table, and may compile
others: that is how the runs reach the compile axes' (t+1)-tuples the fixed list lacks
(a warm kernel cache then compiles the new ones once; the plugin's summary counts
the variants of each run).

With a ``compile_key`` (variants are classes of combinations) the run keeps the fixed
table's classes: its rows rotate over every combination of a kept class.
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

Row = tuple[int, ...]

#: step 1 runs at most this many times (each next one keeps the variants that held what the last lost)
_TRIES = 4


def _restricted(model: Model, variants: set[Row]) -> Model:
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


def _fixed_variants(model: Model, fixed: Table) -> list[Row]:
    """The fixed table's variants in row order (its must-include rows' first)."""
    return list(dict.fromkeys(model.index_model.variant(r) for r in fixed.rows))


def _seen(model: Model, runs: Sequence[Sequence[Sequence[int]]]) -> list[Row]:
    """The variants of the runs of the current cycle at the compile model's strength + 1."""
    from pairwise_param.tables.build import compile_view
    from pairwise_param.tables.rotate_levels import cycle_of

    cmodel, cfeas = compile_view(model)
    variant = model.index_model.variant
    return cycle_of(cmodel.sizes, cfeas, [[variant(r) for r in run] for run in runs], cmodel.strength + 1)


def _variant_list(model: Model, fixed: Table, listed: Sequence[Row], seen: Sequence[Row], seed: int,
                  keep: Sequence[Row] = ()) -> list[Row]:
    """Step 1: the variant list of a rotated run (as many as the fixed table's ``listed``),
    spread against the history's variants ``seen`` with the rotation's ``seed``; the
    variants of the must-include rows and ``keep`` stay as they are."""
    from pairwise_param.tables.build import rotation_variants

    pinned = list(dict.fromkeys([*(model.index_model.variant(r) for r in fixed.rows[:len(model.include)]), *keep]))
    ordered = pinned + [v for v in listed if v not in pinned]
    return rotation_variants(model, ordered, seen, len(pinned), seed)


def _lost(model: Model, fixed: Table, table: Table) -> list[Row]:
    """The fixed variants whose rows hold a tuple ``table`` lists as infeasible that the
    fixed table covers (a tuple the restriction lost)."""
    known = set(fixed.infeasible)
    out: list[Row] = []
    for scope, values in table.infeasible:
        if (scope, values) in known:
            continue
        row = next((r for r in fixed.rows if all(r[a] == v for a, v in zip(scope, values))), None)
        if row is not None:
            out.append(model.index_model.variant(row))
    return list(dict.fromkeys(out))


def rotate_compile_aware(model: Model, fixed: Table, runs: Sequence[Sequence[Sequence[int]]]) -> Table:
    """The rotated table of a compile-aware ``model``: at most the fixed table's number of
    variants, the list itself rotated (module doc); the fixed table when ``runs`` is empty."""
    from pairwise_param.tables.build import build_table
    from pairwise_param.tables.rotate import rotate

    if not runs:
        return fixed  # run 1 is the fixed table, exactly
    fixed_list = _fixed_variants(model, fixed)
    listed, base = fixed_list, fixed
    if not model.index_model.compile_classes:
        from pairwise_param.tables.rotate import seed_of

        seen, seed = _seen(model, runs), seed_of(model, runs)  # the history's, once for every try
        keep: list[Row] = []
        for _ in range(_TRIES):
            moved = _variant_list(model, fixed, fixed_list, seen, seed, keep)
            if set(moved) == set(fixed_list):
                break
            base = build_table(_restricted(model, set(moved)))
            if verified(model, base):
                listed = moved
                break
            keep = list(dict.fromkeys([*keep, *_lost(model, fixed, base)]))
            base = fixed
    rows = rotate(_restricted(model, set(listed)), base, runs).table
    # the fixed table's method and full-product count, the rotation's rows (and their infeasible tuples: the
    # model's own, or the verification below fails)
    rotated = dataclasses.replace(fixed, rows=rows.rows, infeasible=rows.infeasible)
    used = {model.index_model.variant(r) for r in rotated.rows}
    if not verified(model, rotated) or not used <= set(listed) or len(used) > len(fixed_list):
        return fixed  # pragma: no cover - rotate() verifies against the restricted model already
    return rotated
