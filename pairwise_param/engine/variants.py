"""Compile-aware tables: every t-tuple covered with the fewest kernel variants.

A model may declare *compile axes* (:attr:`pairwise_param.model.IndexModel.compile_axes`):
the axes whose values select a kernel variant (Triton constexprs, JIT template
arguments).  A row's projection on them is its variant, and each distinct variant
costs a compilation.  No complete table can use fewer variants than a covering array
of the compile axes alone (every tuple over compile axes must appear in some row), so
that is the target:

1. **The variants.**  The compile model: the compile axes, each interaction scope
   projected on them (a pair scope inside the compile axes stays a pair; a scope with
   one compile axis asks for each of its values once), and as exclusions every
   combination of compile values that no valid row of the whole model holds (an exact
   projection of the constraints, enumerated: at most :data:`MAX_VARIANT_PRODUCT`
   combinations).  The engine's own covering array of it is the variant list ``K``.
2. **The rows.**  The whole model with one extra exclusion over the compile axes:
   every combination outside ``K``.  The engine's table of that model covers every
   tuple the restriction leaves coverable, and every row's variant is in ``K``.
3. **Nothing lost.**  A tuple coverable in the model but not under the restriction
   (constraints between compile and other axes can do that) gets one more variant,
   the compile part of a valid row holding it (one variant per round serves every
   lost tuple it can), and step 2 runs again; the answer says how many were added.

**Spread one strength up** (:mod:`.spread`).  Among equally small variant lists some
hold many more of the compile axes' (t+1)-tuples than others, and the rows can hold no
compile (t+1)-tuple the list lacks; so step 1's array is moved (same size, every tuple
of the compile model still covered) to hold more of them, and step 2's rows likewise
(same rows, more (t+1)-tuples of all axes).  Where the spread moved the variant list,
steps 2-3 also run on the array as built, and the spread list serves unless the other
gives fewer variants or, with as many, fewer rows: a tie-break, never a cost.

**Rotated runs** (:func:`rotation_variants`, for
:mod:`pairwise_param.tables.rotate_variants`): the fixed table's variant list moved by the
same spread, against the history's variants (``seen``: their (t+1)-tuples are no gain),
from the list and value-permuted copies of it: as many variants, every tuple of the
compile model covered, the compile (t+1)-tuples the earlier runs missed reached.

With a ``compile_key`` (:attr:`~pairwise_param.model.IndexModel.compile_classes`: several
combinations of the compile axes are one variant) the variants are classes: step 1
takes the fewer of the classes of ``K`` and a greedy cover of the compile model's
tuples by classes (each class covers every tuple its valid combinations hold), step 2
allows every valid combination of the chosen classes, and step 3 adds a lost tuple's
whole class.  A model whose key merges nothing takes the path above, unchanged.

The result is verified against the *unrestricted* model like every table
(:func:`.verify.valid`): it covers every coverable tuple and breaks no constraint.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence

from pairwise_param.engine import EngineOptions, Generated, TupleRef
from pairwise_param.errors import InvalidArgument
from pairwise_param.feasibility import Feasibility, merge_exclusions
from pairwise_param.model import IndexModel

__all__ = ["compile_aware", "compile_model", "rotation_variants"]

#: The compile axes' value combinations are enumerated (each checked for a valid
#: completion); past this many the declaration is refused with the fix.
MAX_VARIANT_PRODUCT = 1 << 16

#: Rounds of step 3 (each adds at least one variant); a bound, never reached in practice.
_MAX_ROUNDS = 64


@dataclasses.dataclass(frozen=True)
class Variants:
    """The variant list of a compile-aware table: ``rows`` over the compile axes
    (``axes``), the first ``planned`` of them the compile model's covering array, the
    rest added so that no coverable tuple is lost."""

    axes: tuple[int, ...]
    rows: tuple[tuple[int, ...], ...]
    planned: int

    @property
    def added(self) -> int:
        return len(self.rows) - self.planned


def _cells(n: int, axes: Sequence[int], values: Sequence[int]) -> list[int | None]:
    cells: list[int | None] = [None] * n
    for a, v in zip(axes, values):
        cells[a] = v
    return cells


def _scopes(model: IndexModel, pos: dict[int, int]) -> tuple[tuple[int, ...], ...]:
    """The interaction scopes projected on the compile axes; a projection inside a
    longer one is dropped (covering the longer covers it)."""
    projected = {tuple(pos[a] for a in s if a in pos) for s in model.interactions} - {()}
    kept = [s for s in projected if not any(len(o) > len(s) and set(s) <= set(o) for o in projected)]
    return tuple(sorted(kept, key=lambda s: (len(s), s)))


def compile_model(model: IndexModel, feas: Feasibility) -> IndexModel:
    """The model of the compile axes alone (step 1), constraints projected exactly."""
    axes = model.compile_axes
    sizes = tuple(model.sizes[a] for a in axes)
    total = 1
    for s in sizes:
        total *= s
    if total > MAX_VARIANT_PRODUCT:
        raise InvalidArgument(
            f"compile_axes span {total} value combinations (limit {MAX_VARIANT_PRODUCT}); declare only the "
            "axes whose values select a kernel variant"
        )
    n = len(model.sizes)
    pos = {a: i for i, a in enumerate(axes)}
    # the user's exclusions among compile axes as written (so a model whose constraints keep
    # compile and other axes apart gets exactly the array cover() gives those axes alone),
    # then what the other constraints forbid on top of them, as one exclusion over all
    inside = [(tuple(pos[a] for a in e.scope), e.forbidden) for e in model.exclusions if set(e.scope) <= set(axes)]
    own = Feasibility(sizes, merge_exclusions(inside))
    forbidden = frozenset(
        combo for combo in itertools.product(*(range(s) for s in sizes))
        if own.violates(combo) is None and not feas.completable(_cells(n, axes, combo))
    )
    exclusions = merge_exclusions([*inside, (tuple(range(len(axes))), forbidden)])
    scopes = _scopes(model, pos)
    return IndexModel(sizes, max(len(s) for s in scopes), scopes, exclusions, ())


def _restricted(model: IndexModel, variants: Sequence[tuple[int, ...]]) -> tuple[IndexModel, Feasibility]:
    """The whole model whose rows may only hold the listed variants (step 2)."""
    axes = model.compile_axes
    allowed = set(variants)
    forbidden = frozenset(c for c in itertools.product(*(range(model.sizes[a]) for a in axes)) if c not in allowed)
    exclusions = merge_exclusions(
        [*((e.scope, e.forbidden) for e in model.exclusions), (axes, forbidden)]
    )
    restricted = dataclasses.replace(model, exclusions=exclusions, compile_axes=(), compile_classes=())
    return restricted, Feasibility(restricted.sizes, restricted.exclusions)


def _spread_variants(cmodel: IndexModel, cfeas: Feasibility, array: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """Step 1's array spread (:mod:`.spread`): as many variants, every tuple of the compile
    model still covered, more of the compile axes' (t+1)-tuples (the ceiling of what the
    table's rows can hold over them).  Verified; the array as built where it is not."""
    from pairwise_param.engine.requirements import requirements
    from pairwise_param.engine.spread import spread
    from pairwise_param.engine.verify import valid

    moved = spread(cmodel.sizes, cmodel.interactions, cfeas, array)
    return moved if valid(requirements(cmodel, cfeas), cfeas, moved) else array


#: starting lists a rotated run's variant choice spreads (:func:`rotation_variants`):
#: the fixed list and value-permuted copies of it (a few milliseconds each)
ROTATION_STARTS = 32


def _up_held(rows: Sequence[tuple[int, ...]], scopes: Sequence[tuple[int, ...]]) -> set[tuple[int, tuple[int, ...]]]:
    """The tuples of ``scopes`` that ``rows`` hold."""
    return {(si, tuple(r[a] for a in s)) for r in rows for si, s in enumerate(scopes)}


def rotation_variants(
    model: IndexModel, feas: Feasibility, fixed: Sequence[tuple[int, ...]], seen: Sequence[tuple[int, ...]],
    frozen: int = 0, seed: int = 0,
) -> list[tuple[int, ...]]:
    """A rotated run's variant list (:mod:`pairwise_param.tables.rotate_variants`): as
    many variants as the fixed table's ``fixed``, every tuple of the compile model
    covered, the first ``frozen`` kept as they are, holding as many of the compile
    axes' (t+1)-tuples that none of ``seen`` (the variants of the history's current
    cycle) holds as the search finds.  The search: ``fixed`` and up to
    :data:`ROTATION_STARTS` copies of it with each axis's values permuted (drawn from
    ``random.Random(seed)``; a copy that breaks a constraint or leaves a tuple
    uncovered is dropped), each spread (:mod:`.spread`) against ``seen``; the first
    list holding the most new (t+1)-tuples wins.  Every list is verified; ``fixed``
    itself where none moved."""
    import random

    from pairwise_param.engine.requirements import requirements
    from pairwise_param.engine.spread import spread, up_scopes
    from pairwise_param.engine.verify import valid

    cmodel = compile_model(model, feas)
    cfeas = Feasibility(cmodel.sizes, cmodel.exclusions)
    req = requirements(cmodel, cfeas)
    up = up_scopes(len(cmodel.sizes), cmodel.interactions)
    old = _up_held(seen, up)
    head, tail = [tuple(v) for v in fixed[:frozen]], [tuple(v) for v in fixed[frozen:]]
    rng = random.Random(seed)
    best, best_new = list(fixed), len(_up_held(fixed, up) - old)
    for k in range(ROTATION_STARTS + 1):
        start = head + tail
        if k:
            perms = [rng.sample(range(size), size) for size in cmodel.sizes]
            start = head + [tuple(p[v] for p, v in zip(perms, r)) for r in tail]
            if len(set(start)) < len(start) or any(cfeas.violates(r) is not None for r in start) or not valid(req, cfeas, start):
                continue
        moved = spread(cmodel.sizes, cmodel.interactions, cfeas, start, frozen=frozen, seen=seen)
        new = len(_up_held(moved, up) - old)
        if new > best_new and valid(req, cfeas, moved):
            best, best_new = moved, new
    return best


def _spread_rows(restricted: IndexModel, rfeas: Feasibility, generated: Generated) -> Generated:
    """Step 2's rows spread (:mod:`.spread`): as many rows, every tuple they covered still
    covered, more (t+1)-tuples of all axes; the must-include rows stay first and as they
    are.  The caller verifies the table against the unrestricted model."""
    from pairwise_param.engine.spread import spread

    rows = spread(restricted.sizes, restricted.interactions, rfeas, generated.rows, frozen=len(restricted.include))
    return dataclasses.replace(generated, rows=tuple(rows))


def _serves(feas: Feasibility, cells: list[int | None], axes: Sequence[int], variant: Sequence[int]) -> bool:
    """Can a valid row hold both the tuple ``cells`` and ``variant``?"""
    merged = list(cells)
    for a, v in zip(axes, variant):
        if merged[a] is not None and merged[a] != v:
            return False
        merged[a] = v
    return feas.violates(merged) is None and feas.completable(merged)


def _add_variant(model: IndexModel, feas: Feasibility, lost: Sequence[TupleRef]) -> tuple[int, ...]:
    """The variant of a valid row holding the first lost tuple, chosen among the
    completions so that it serves as many lost tuples as the greedy choice can."""
    n, axes = len(model.sizes), model.compile_axes
    cells = _cells(n, *lost[0])
    first = feas.complete(cells)
    assert first is not None, "a lost tuple is coverable by definition"
    best = tuple(first[a] for a in axes)
    best_served = sum(_serves(feas, _cells(n, *t), axes, best) for t in lost)
    free = [a for a in axes if cells[a] is None]
    sizes = [model.sizes[a] for a in free]
    count = 1
    for s in sizes:
        count *= s
    if count <= 256:  # few open compile cells: try each, keep the one serving the most lost tuples
        for combo in itertools.product(*(range(s) for s in sizes)):
            trial = list(cells)
            for a, v in zip(free, combo):
                trial[a] = v
            variant = tuple(trial[a] for a in axes)
            if variant == best or not _serves(feas, cells, axes, variant):  # type: ignore[arg-type]
                continue
            served = sum(_serves(feas, _cells(n, *t), axes, variant) for t in lost)  # type: ignore[arg-type]
            if served > best_served:
                best, best_served = variant, served  # type: ignore[assignment]
    return best


def compile_aware(
    model: IndexModel, options: EngineOptions, feas: Feasibility, infeasible: frozenset[TupleRef]
) -> tuple[Generated, Variants]:
    """The table of ``model`` with the fewest variants (steps 1-3 above).
    ``infeasible``: the tuples the unrestricted model cannot cover (the engine's
    requirements); any other tuple missing under the restriction is lost and costs a
    variant.

    Step 1's array is spread one strength up (:func:`_spread_variants`); where that moved
    it, the array as built is tried too and the spread one serves unless the other
    gives fewer variants or, with as many, fewer rows (the spread is a tie-break among
    equally small variant lists, never a cost)."""
    from pairwise_param.engine.pipeline import run

    cmodel = compile_model(model, feas)
    cfeas = Feasibility(cmodel.sizes, cmodel.exclusions)
    first = list(run(cmodel, options, cfeas).rows)
    moved = _spread_variants(cmodel, cfeas, first)
    best: tuple[Generated, Variants] | None = None
    for planned in [moved] if moved == first else [moved, first]:
        got = _with_variants(model, options, feas, infeasible, cmodel, planned)
        if best is None or _cost(model, got[0]) < _cost(model, best[0]):
            best = got
    assert best is not None
    return best


def _cost(model: IndexModel, generated: Generated) -> tuple[int, int]:
    """Variants the rows compile (keys with a ``compile_key``), then rows."""
    return len({model.variant(r) for r in generated.rows}), len(generated.rows)


def _with_variants(
    model: IndexModel, options: EngineOptions, feas: Feasibility, infeasible: frozenset[TupleRef],
    cmodel: IndexModel, planned: list[tuple[int, ...]],
) -> tuple[Generated, Variants]:
    """Steps 2 and 3 for the compile model's array ``planned``."""
    from pairwise_param.engine.pipeline import run

    axes = model.compile_axes
    variants = list(planned)
    for inc in model.include:  # a must-include row keeps a variant that can hold it
        if not any(_serves(feas, list(inc), axes, v) for v in variants):
            done = feas.complete(list(inc))
            assert done is not None, "include rows are completable (Model checks them)"
            variants.append(tuple(done[a] for a in axes))
    if model.compile_classes:
        return _by_class(model, options, feas, infeasible, cmodel, planned, variants[len(planned):])
    planned_count = len(planned)
    for _ in range(_MAX_ROUNDS):
        restricted, rfeas = _restricted(model, variants)
        generated = _spread_rows(restricted, rfeas, run(restricted, options, rfeas))
        lost = [t for t in generated.infeasible if t not in infeasible]
        if not lost:
            method = f"variants {len(variants)}" + (f" (+{len(variants) - planned_count})" if len(variants) > planned_count else "")
            return (
                dataclasses.replace(generated, method=f"{method}: {generated.method}"),
                Variants(axes, tuple(variants), planned_count),
            )
        variants.append(_add_variant(model, feas, lost))
    raise AssertionError(f"pairwise_param engine: compile-aware table still loses tuples after {_MAX_ROUNDS} variants added")  # pragma: no cover


def _class_members(model: IndexModel, cfeas: Feasibility) -> dict[int, list[tuple[int, ...]]]:
    """Per class of ``model.compile_classes``, its combinations that a valid row can hold."""
    members: dict[int, list[tuple[int, ...]]] = {}
    combos = itertools.product(*(range(model.sizes[a]) for a in model.compile_axes))
    for combo, cls in zip(combos, model.compile_classes):
        if cfeas.violates(combo) is None:
            members.setdefault(cls, []).append(combo)
    return members


def _greedy_classes(cmodel: IndexModel, members: dict[int, list[tuple[int, ...]]]) -> list[int]:
    """Classes covering every tuple of the compile model a valid combination holds,
    greedily (the class covering the most uncovered tuples first, the lowest id on ties)."""
    holds = {cls: {(s, tuple(c[a] for a in s)) for c in combos for s in cmodel.interactions}
             for cls, combos in members.items()}
    need = set().union(*holds.values()) if holds else set()
    chosen: list[int] = []
    while need:
        best = max(sorted(holds), key=lambda cls: len(holds[cls] & need))
        chosen.append(best)
        need -= holds[best]
    return chosen


def _by_class(
    model: IndexModel, options: EngineOptions, feas: Feasibility, infeasible: frozenset[TupleRef],
    cmodel: IndexModel, planned: list[tuple[int, ...]], kept: list[tuple[int, ...]],
) -> tuple[Generated, Variants]:
    """Steps 1-3 with a ``compile_key``: the variants are classes (module doc).
    ``planned``: the compile model's covering array; ``kept``: variants the include
    rows need."""
    from pairwise_param.engine.pipeline import run

    members = _class_members(model, Feasibility(cmodel.sizes, cmodel.exclusions))
    cls_of = {c: cls for cls, combos in members.items() for c in combos}
    from_array = list(dict.fromkeys(cls_of[v] for v in planned))
    greedy = _greedy_classes(cmodel, members)
    classes = greedy if len(greedy) < len(from_array) else from_array
    classes += [c for c in dict.fromkeys(cls_of[v] for v in kept) if c not in classes]
    planned_count = len(classes)
    for _ in range(_MAX_ROUNDS):
        allowed = [c for cls in classes for c in members[cls]]
        restricted, rfeas = _restricted(model, allowed)
        generated = _spread_rows(restricted, rfeas, run(restricted, options, rfeas))
        lost = [t for t in generated.infeasible if t not in infeasible]
        if not lost:
            used = len({model.variant(r) for r in generated.rows})
            extra = f" (+{len(classes) - planned_count})" if len(classes) > planned_count else ""
            return (
                dataclasses.replace(generated, method=f"variants {used}{extra}: {generated.method}"),
                Variants(model.compile_axes, tuple(allowed), len(allowed)),
            )
        classes.append(cls_of[_add_variant(model, feas, lost)])
    raise AssertionError(f"pairwise_param engine: compile-aware table still loses tuples after {_MAX_ROUNDS} variants added")  # pragma: no cover
