"""Constraint repairs of a move: the fixed inputs of one search (:class:`Context`),
the incremental constraint check (:func:`breaks`), and the cell changes that
write a tuple into a row and keep it valid (:func:`repaired`, :func:`repairs`)."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field

from pairwise_param.engine.improve.state import State
from pairwise_param.engine.requirements import Requirements
from pairwise_param.feasibility import Feasibility

__all__ = ["Context", "breaks", "linked_axes", "repaired", "repairs", "rules_by_axis", "trial"]

#: Work units of one repair: per exclusion looked at, per freed cell.
REPAIR_UNIT = 4
#: Work units of a repair found in the memo (the all-triple constrained search).
REPAIR_HIT = 8


@dataclass(frozen=True)
class Context:
    """The fixed inputs of the repair moves (one search)."""

    req: Requirements
    feas: Feasibility
    deg: list[int]
    eval_cost: int
    locked: int
    fixed: list[list[bool]]
    sample: int
    tenure: int
    pairs: bool
    #: linked[a]: the other axes of a's constraint component (() when unconstrained)
    linked: tuple[tuple[int, ...], ...] = ()
    #: rules[a]: (scope, forbidden value tuples) of every exclusion holding axis a
    rules: tuple[tuple[tuple[tuple[int, ...], frozenset[tuple[int, ...]]], ...], ...] = ()
    #: the all-triple constrained search (:class:`TripleState`): its moves are
    #: charged what they cost there, and repairs are memoised
    triples: bool = False
    #: the work counter from which the triple search draws its tenures (:data:`TRIPLE_SPREAD`)
    spread_from: int = 0
    #: repairs already computed: (writes, the row's cells on the written axes'
    #: components) -> the cell changes (a pure function, so memoising keeps the rows)
    memo: dict[tuple[tuple[tuple[int, int], ...], tuple[int, ...]], tuple[tuple[int, int], ...] | None] = field(
        default_factory=dict
    )
    #: the valid value combinations of each small constraint component (by its index)
    projections: dict[int, list[tuple[int, ...]]] = field(default_factory=dict)
    #: :func:`repairs`' answers: (writes, the row's cells on the component) -> change lists
    options: dict[tuple[tuple[tuple[int, int], ...], tuple[int, ...]], tuple[tuple[tuple[int, int], ...], ...]] = field(
        default_factory=dict
    )



def rules_by_axis(feas: Feasibility, n: int) -> tuple[tuple[tuple[tuple[int, ...], frozenset[tuple[int, ...]]], ...], ...]:
    out: list[list[tuple[tuple[int, ...], frozenset[tuple[int, ...]]]]] = [[] for _ in range(n)]
    for ex in feas.exclusions:
        for a in ex.scope:
            out[a].append((ex.scope, ex.forbidden))
    return tuple(tuple(x) for x in out)


def breaks(ctx: Context, row: list[int], axes: Iterable[int]) -> bool:
    """Does ``row`` break an exclusion holding one of ``axes``?  Exact for a
    row that was valid before only the cells of ``axes`` changed: the only
    exclusions it can break are those (the incremental constraint check)."""
    rules = ctx.rules
    for a in axes:
        for scope, forbidden in rules[a]:
            if tuple([row[b] for b in scope]) in forbidden:
                return True
    return False


def linked_axes(feas: Feasibility, n: int) -> tuple[tuple[int, ...], ...]:
    out: list[tuple[int, ...]] = [()] * n
    for comp in feas.components:
        for a in comp:
            out[a] = tuple(b for b in comp if b != a)
    return tuple(out)



def repaired(ctx: Context, r: int, row: list[int], writes: dict[int, int]) -> tuple[list[tuple[int, int]] | None, int]:
    """The cell changes that write ``writes`` into ``row`` (row ``r``) and keep it
    valid: the other cells of the axes linked to the written ones by constraints
    are re-chosen, each keeping its current value when it can
    (:meth:`Feasibility.complete` with the row as preference), so a tuple that
    breaks an exclusion in this row can still be placed by changing the cells
    that forbid it (the repair moves of constrained local search, as CASA and
    TCA / FastCA do over the feasible space).  Cells of an include row's given
    values never change.  Returns (changes or None when impossible, work units)."""
    key = None
    if ctx.triples and r >= ctx.locked:
        comp = sorted({b for a in writes for b in ctx.linked[a]} | set(writes))
        key = (tuple(sorted(writes.items())), tuple([row[b] for b in comp]))
        if key in ctx.memo:
            hit = ctx.memo[key]
            return (None if hit is None else list(hit)), REPAIR_HIT
    partial: list[int | None] = list(row)
    for a, v in writes.items():
        partial[a] = v
    free = []
    for a in writes:
        for b in ctx.linked[a]:
            if b not in writes and partial[b] is not None and not (r < ctx.locked and ctx.fixed[r][b]):
                partial[b] = None
                free.append(b)
    cost = REPAIR_UNIT * len(ctx.feas.exclusions) * (1 + len(free))
    full = ctx.feas.complete(partial, prefer=row) if free and ctx.feas.completable(partial) else None
    out = None if full is None else [(a, full[a]) for a in range(len(row)) if full[a] != row[a]]
    if key is not None:
        ctx.memo[key] = None if out is None else tuple(out)
    return out, cost



#: The all-triple constrained search repairs a candidate row with the valid
#: assignment of the written axes' constraint component that changes the
#: fewest other cells (:func:`repairs`; :func:`repaired`'s greedy completion
#: keeps values in axis order, which may change more).  Scoring the best 4
#: such repairs instead of one was measured and lost (quick, three seeds: 662-663
#: rows over the t=3 set with 4, 660-662 with 1).
REPAIR_OPTIONS = 1
#: ... when the component has at most this many value combinations (else the
#: one repair of :func:`repaired`).
REPAIR_PRODUCT = 4096


def repairs(ctx: Context, r: int, row: list[int], writes: dict[int, int]) -> tuple[list[list[tuple[int, int]]], int]:
    """Up to :data:`REPAIR_OPTIONS` ways to write ``writes`` into ``row`` and keep
    it valid, fewest changed cells first (ties in value order): the valid
    assignments of the one constraint component the written axes touch, found
    once per component and filtered per (writes, the row's cells there),
    memoised.  Falls back to :func:`repaired` for include rows, writes over two
    components and components of more than :data:`REPAIR_PRODUCT` combinations.
    Returns (the change lists, work units)."""
    feas = ctx.feas
    comps = {feas.component_of[a] for a in writes if a in feas.component_of}
    c = next(iter(comps)) if len(comps) == 1 else -1
    comp = feas.components[c] if c >= 0 else ()
    size = 1
    for a in comp:
        size *= feas.sizes[a]
    if r < ctx.locked or c < 0 or size > REPAIR_PRODUCT or any(a not in comp for a in writes):
        one, cost = repaired(ctx, r, row, writes)
        return ([] if one is None else [one]), cost
    here = tuple([row[a] for a in comp])
    key = (tuple(sorted(writes.items())), here)
    hit = ctx.options.get(key)
    if hit is not None:
        return [list(x) for x in hit], REPAIR_HIT
    cost = REPAIR_HIT
    valid = ctx.projections.get(c)
    if valid is None:
        scratch = list(row)
        valid = []
        for combo in itertools.product(*(range(feas.sizes[a]) for a in comp)):
            for a, v in zip(comp, combo):
                scratch[a] = v
            if not breaks(ctx, scratch, comp):
                valid.append(combo)
        ctx.projections[c] = valid
        cost += REPAIR_UNIT * size * len(feas.exclusions)
    pos = [(comp.index(a), v) for a, v in sorted(writes.items())]
    ranked = []
    for combo in valid:
        if all(combo[i] == v for i, v in pos):
            ranked.append((sum(1 for x, y in zip(combo, here) if x != y), combo))
    cost += len(valid)
    ranked.sort()
    out = tuple(
        tuple((a, x) for a, x, y in zip(comp, combo, here) if x != y) for _, combo in ranked[:REPAIR_OPTIONS]
    )
    ctx.options[key] = out
    return [list(x) for x in out], cost



def trial(ctx: Context, state: State, r: int, changes: list[tuple[int, int]]) -> tuple[int, int]:
    """(change of the missing count, work units) of writing ``changes`` into row
    ``r`` (:meth:`State.delta_many`, read only)."""
    d, reads = state.delta_many(r, changes)
    return d, 4 * reads

