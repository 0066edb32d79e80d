"""The engine's own last check of a candidate array.

Cheap (one pass over rows per scope) and used before trusting a construction
whose correctness rests on algebra or on a code path that may have a bug: a
candidate that misses a coverable tuple or breaks an exclusion is discarded,
never returned.  (The separate :mod:`pairwise_param.coverage` module checks the
engine from outside; this one only protects the engine's choice.)
"""

from __future__ import annotations

from collections.abc import Sequence

from pairwise_param.constraints import Feasibility
from pairwise_param.engine.requirements import Requirements

__all__ = ["valid"]


def valid(req: Requirements, feas: Feasibility, rows: Sequence[Sequence[int]]) -> bool:
    """True when ``rows`` are full, in range, break no exclusion and cover
    every coverable tuple."""
    sizes = req.sizes
    n = len(sizes)
    for row in rows:
        if len(row) != n or any(not 0 <= x < s for x, s in zip(row, sizes)):
            return False
        if req.constrained and feas.violates(row) is not None:
            return False
    for si, scope in enumerate(req.scopes):
        ws = req.weights[si]
        seen = {sum(row[a] * w for a, w in zip(scope, ws)) for row in rows}
        need = req.totals[si] - len(req.blocked[si])
        if len(seen) < need:
            return False
        if req.blocked[si] and len(seen - set(req.blocked[si])) < need:
            return False
    return True
