"""Row elimination within a budget of work units (:func:`search`), redundant-row
removal, and what a search costs and returns (see :mod:`pairwise_param.engine.improve`)."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace

from pairwise_param.engine.budget import Progress
from pairwise_param.engine.improve.moves import fill
from pairwise_param.engine.improve.repair import Context, linked_axes, rules_by_axis
from pairwise_param.engine.improve.state import PairState, State
from pairwise_param.engine.improve.triples import TripleState
from pairwise_param.engine.requirements import Requirements
from pairwise_param.feasibility import Feasibility

__all__ = ["Improved", "improve", "remove_redundant", "search", "setup_cost"]

#: Tabu tenure (moves a changed cell stays frozen): unconstrained models, and
#: constrained ones, whose repair moves change several linked cells at once and
#: cycle back sooner (measured on the constrained t=3 set of
#: benchmarks/constrained_models.py: tenure 2 / 4 / 6 / 10 gave 430 / 424 / 425 /
#: 425 quick rows in all, 416 / 411 / 412 / 415 at effort 1).
TENURE = 2
CONSTRAINED_TENURE = 4

#: A staged search (:func:`search`'s ``warmup``): the seed of round ``k`` after
#: the first stage is ``seed + k * STAGE_SEED``, and each round may spend
#: ``ROUND_UNITS`` work units.
STAGE_SEED = 0x9E3779B9
ROUND_UNITS = 10_000_000

#: ... in the second half of its budget (from this share on; before it, the fixed tenure).
TRIPLE_SPLIT = 0.5
#: The all-triple constrained search abandons an attempt (restarts from the
#: best array, dropping the next row) after this many moves without fewer
#: missing tuples: it makes some 12,000 moves in quick mode, where the
#: version-6 search made 1,500 and never reached its patience of 100,000.
TRIPLE_PATIENCE = 2_000


def remove_redundant(req: Requirements, rows: list[list[int]], locked: int) -> list[list[int]]:
    """Drop rows (last first, never the first ``locked``) covering nothing alone."""
    state = State(req, [list(r) for r in rows])
    drop_redundant(state, locked)
    return state.rows


def drop_redundant(state: State, locked: int) -> None:
    r = len(state.rows) - 1
    while r >= locked:
        if state.unique(state.rows[r]) == 0:
            state.drop_row(r)
        r -= 1



@dataclass(frozen=True)
class Improved:
    """What a search returned: the best rows, the work units it spent, and the
    work counter when the best was found (how a stall window is tuned)."""

    rows: list[tuple[int, ...]]
    work: int
    found_at: int = 0
    #: a KeyboardInterrupt ended the search (``interruptible``): ``rows`` is the best so far
    interrupted: bool = False


def setup_cost(req: Requirements, n_rows: int) -> int:
    """Work units of building the coverage state of ``n_rows`` rows: two per
    (row, scope) counter update and two per tuple scanned (measured against
    the hot loop's units on 3^100, 4^100, 3^300 and 10^20: within a factor
    of two).  A search whose budget is below this cannot drop a single row, so
    it is not started: the gate that keeps quick mode cheap on huge models."""
    return 2 * (len(req.scopes) * max(1, n_rows) + sum(req.totals))


def score_cost(state: State, n_rows: int) -> int:
    """Work units of scoring ``n_rows`` rows by the tuples they cover alone."""
    if isinstance(state, PairState):
        return 4 * len(state.req.sizes) * n_rows
    return len(state.req.scopes) * n_rows


def improve(
    req: Requirements,
    feas: Feasibility,
    rows: list[tuple[int, ...]],
    include: tuple[tuple[int | None, ...], ...],
    budget: int,
    seed: int,
    lower_bound: int = 1,
    stall: int = 0,
) -> list[tuple[int, ...]]:
    """A valid array no larger than ``rows`` (same include rows first); see :func:`search`."""
    return search(req, feas, rows, include, budget, seed, lower_bound, stall).rows


def search(
    req: Requirements,
    feas: Feasibility,
    rows: list[tuple[int, ...]],
    include: tuple[tuple[int | None, ...], ...],
    budget: int,
    seed: int,
    lower_bound: int = 1,
    stall: int = 0,
    sample: int = 1000,
    tenure: int | None = None,
    patience: int | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    interruptible: bool = False,
    warmup: int = 0,
    warmup_stall: int = 0,
) -> Improved:
    """Row elimination within ``budget`` work units.

    Up to ``sample`` candidate rows are tried per move; the best move whose
    cells were not changed in the last ``tenure`` moves is always taken
    (``tenure=None``: :data:`TENURE`, or :data:`CONSTRAINED_TENURE` on a
    constrained model).  An
    attempt that finds no new best for ``patience`` moves is abandoned: the
    search restarts from the best array, dropping the next row in the order of
    fewest tuples covered alone.  The whole search ends after ``stall`` work
    units (0: never) without a new best array, at ``lower_bound`` rows, or
    when the budget is spent.

    ``on_progress`` is told the best row count after each new best and every
    :data:`PROGRESS_MOVES` repair moves (it reads, never steers: the rows do
    not depend on it).  With ``interruptible``, a KeyboardInterrupt (from
    Ctrl-C or from ``on_progress``) ends the search with the best array so far
    and ``interrupted`` set; ``best`` is only ever replaced by a complete
    array, so an interrupt mid-move cannot leave it half-repaired.

    With ``0 < warmup < budget`` the search runs in stages: the first is
    exactly the search of ``warmup`` units and stall window ``warmup_stall``
    (quick mode's, so an effort level never returns more rows than quick
    mode); then rounds of :data:`ROUND_UNITS` each start again from ``rows``
    with a generator of their own (``seed + k *`` :data:`STAGE_SEED`), and an
    array smaller than every earlier one replaces it, until the budget is
    spent or ``stall`` units brought none.
    """
    locked = len(include)
    work = setup_cost(req, len(rows))
    if budget < work:
        return Improved([tuple(r) for r in rows], 0)
    pairs = all(len(s) == 2 for s in req.scopes)
    triples = req.constrained and all(len(s) == 3 for s in req.scopes)
    make = PairState if pairs else TripleState if triples else State
    state = make(req, [list(r) for r in rows])
    drop_redundant(state, locked)
    work += score_cost(state, len(rows))
    best = [tuple(r) for r in state.rows]
    if len(best) <= max(lower_bound, locked):
        return Improved(best, work, work)
    rng = random.Random(seed)
    fixed = [[x is not None for x in inc] for inc in include]
    linked = linked_axes(feas, len(req.sizes)) if req.constrained else ()
    if tenure is None:
        tenure = CONSTRAINED_TENURE if req.constrained else TENURE
    if patience is None:
        patience = TRIPLE_PATIENCE if triples else 100_000
    staged = 0 < warmup < budget
    first, first_stall = (warmup, warmup_stall) if staged else (budget, stall)
    ctx = Context(
        req, feas, state.deg, state.eval_cost or 0, locked, fixed, sample, tenure, pairs, linked,
        rules_by_axis(feas, len(req.sizes)) if req.constrained else (), triples, int(first * TRIPLE_SPLIT),
    )
    # Dropping a row updates its counters; the bitset states also recount their bitsets.
    drop_cost = 2 * len(req.scopes) + (2 * sum(req.totals) if pairs or triples else 0)
    overall = best
    work_now = work
    found = work

    def tick(now: int) -> None:
        if on_progress is not None:
            on_progress(Progress(len(overall), lower_bound, now, budget))

    def stage(state: State, ctx: Context, rng: random.Random, end: int, end_stall: int) -> None:
        """Row elimination from ``state`` until ``end`` units (or ``end_stall``
        units without a smaller array of this stage); ``overall`` takes every
        array smaller than it."""
        nonlocal work_now, overall, found
        best = [tuple(r) for r in state.rows]
        work = work_now
        attempt = 0
        last_best = work
        try:
            while work < end and len(state.rows) > max(lower_bound, locked):
                if end_stall and work - last_best >= end_stall:
                    break
                # Drop the row covering fewest tuples alone (latest on ties); after
                # abandoned attempts, the next ones in that order.
                scores = sorted((state.unique(state.rows[r]), -r) for r in range(locked, len(state.rows)))
                work += score_cost(state, len(scores))
                _, neg_r = scores[attempt % len(scores)]
                state.drop_row(-neg_r)
                work += drop_cost
                limit = end if not end_stall else min(end, last_best + end_stall)
                work = fill(ctx, state, rng, work, limit, patience, tick if on_progress is not None else None)
                if state.missing:
                    if work >= limit:
                        break
                    attempt += 1
                    state = make(req, [list(r) for r in best])
                    work += setup_cost(req, len(best))
                    continue
                attempt = 0
                best = [tuple(r) for r in state.rows]
                last_best = work
                if len(best) < len(overall):
                    overall, found = best, work
                tick(work)
        finally:
            work_now = work

    try:
        stage(state, ctx, rng, first, first_stall)
        # Further rounds (an effort level on a constrained model, after quick
        # mode's search): each from the start array with its own generator,
        # ROUND_UNITS each, until the budget is spent or ``stall`` units
        # brought no smaller array.  Fresh starts, not the best array: from
        # quick mode's best the search stayed where it was (vLLM fused MoE t=3
        # and flash-attention fwd t=3: no new array in 60 million units),
        # while independent runs spread over 50-51 and 60-63 rows.
        k = 0
        while staged and work_now < budget and len(overall) > max(lower_bound, locked):
            if stall and work_now - found >= stall:
                break
            k += 1
            end = min(budget, work_now + ROUND_UNITS)
            fresh = make(req, [list(r) for r in rows])
            drop_redundant(fresh, locked)
            work_now += setup_cost(req, len(rows)) + score_cost(fresh, len(rows))
            round_ctx = replace(ctx, spread_from=work_now + int((end - work_now) * TRIPLE_SPLIT))
            stage(fresh, round_ctx, random.Random(seed + k * STAGE_SEED), end, 0)
    except KeyboardInterrupt:
        if not interruptible:
            raise
        return Improved(overall, work_now, found, interrupted=True)
    return Improved(overall, work_now, found)

