"""Fast construction: run the constructions that apply, keep the smallest.

IPOG (:mod:`.ipog`) handles every model (any strength, mixed strength,
constraints, include rows).  The density greedy (:mod:`.density`) handles pair
interactions and often wins on uniform pairwise models.  Ties keep the earlier
construction, so the choice is deterministic.
"""

from __future__ import annotations

from pairwise_param.engine.density import applicable, density
from pairwise_param.engine.ipog import ipog
from pairwise_param.engine.requirements import Requirements
from pairwise_param.feasibility import Feasibility
from pairwise_param.model import IndexModel

__all__ = ["construct"]

#: Above this many required tuples the density greedy runs only one candidate
#: per row, to keep quick mode within its time budget.
_DENSITY_CHEAP = 60_000
#: Above this many it does not run: its one-candidate rows lose to IPOG there
#: (one candidate per row: 3^300 38 vs 37 rows, 3^1000 46 vs 42) and it would cost a quarter of
#: quick mode's time.
_DENSITY_MAX = 300_000


def construct(
    model: IndexModel, req: Requirements, feas: Feasibility, lower_bound: int = 1
) -> tuple[list[tuple[int, ...]], str]:
    """(rows, method) of the smallest construction.  IPOG rows at ``lower_bound``
    are returned at once: no construction can be smaller, and the density greedy
    would spend its rows up to the limit to find that out (528 of the 707 distinct
    option models of benchmarks/bench_collection_scale.py's 2000 tables)."""
    best = ipog(model, req, feas)
    method = "ipog"
    if len(best) <= lower_bound:
        return best, method
    if applicable(req) and req.coverable_count() <= _DENSITY_MAX:
        cands = 8 if req.coverable_count() <= _DENSITY_CHEAP else 1
        rows = density(model, req, feas, candidates=cands, limit=len(best) - 1)
        if rows is not None and len(rows) < len(best):
            best, method = rows, "density"
    return best, method
