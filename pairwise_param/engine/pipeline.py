"""The engine's pipeline: requirements -> shortcuts / constructions -> improver.

Kept apart from :mod:`pairwise_param.engine` (which only defines the public
types and entry point) so each step stays a small, separately testable
function.

Quick mode (effort 0) = algebraic shortcut when it meets the lower bound (or
is the optimal binary construction), else the smallest of the algebraic
candidate and the constructions, then redundant-row removal and a short
row-elimination polish whose work budget is small and fixed (a pure function
of the model, like everything else; well under a second).  Effort >= 1 grants
the row elimination ``default_budget(effort)`` work units.  Every result that
did not come straight from a construction is verified by :func:`.verify.valid`
before it replaces the previous one.
"""

from __future__ import annotations

from math import comb

from pairwise_param.constraints import Feasibility
from pairwise_param.engine.algebraic import algebraic
from pairwise_param.engine.construct import construct
from pairwise_param.engine.improve import default_budget, improve, quick_budget
from pairwise_param.engine.requirements import Requirements, requirements
from pairwise_param.engine.verify import valid
from pairwise_param.model import IndexModel

__all__ = ["run"]

Rows = list[tuple[int, ...]]


def _uniform(req: Requirements, strength: int) -> bool:
    n = len(req.sizes)
    return len(req.scopes) == comb(n, strength) and all(len(s) == strength for s in req.scopes)


def lower_bound(req: Requirements) -> int:
    """No valid array has fewer rows: each row covers one tuple per scope."""
    return max((t - len(b) for t, b in zip(req.totals, req.blocked)), default=1)


def run(
    model: IndexModel, effort: int, seed: int, feas: Feasibility
) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[tuple[int, ...], tuple[int, ...]], ...], str]:
    """(rows, infeasible tuples, method) for ``model``."""
    req = requirements(model, feas)
    lb = lower_bound(req)
    best: Rows | None = None
    method = ""
    if not req.constrained and not model.include:
        alg = algebraic(req.sizes, model.strength, _uniform(req, model.strength), limit=3 * lb)
        if alg is not None and valid(req, feas, alg[0]):
            best, method = alg
            if len(best) <= lb or method == "binary":
                return tuple(best), req.infeasible(), method
    rows, how = construct(model, req, feas)
    if not valid(req, feas, rows):  # pragma: no cover - would be an engine bug
        raise AssertionError(f"pairwise_param engine: construction {how!r} left a coverable tuple uncovered")
    if best is None or len(rows) < len(best):
        best, method = rows, how
    budget = default_budget(req, effort) if effort > 0 else quick_budget(req)
    better = improve(req, feas, best, model.include, budget, seed, lb)
    if len(better) < len(best) and valid(req, feas, better):
        best, method = better, method + ("+anneal" if effort > 0 else "+polish")
    return tuple(best), req.infeasible(), method
