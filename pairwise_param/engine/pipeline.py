"""The engine's pipeline: requirements -> shortcuts / constructions -> improver.

Kept apart from :mod:`pairwise_param.engine` (which only defines the public
types and entry point) so each step stays a small, separately testable
function.

1. Exact requirements (coverable tuples; :mod:`.requirements`).
2. Unconstrained models without include rows: the direct constructions of
   :mod:`.algebraic` and :mod:`.recursive`; one that meets the lower bound
   (or is the optimal binary strength-2 construction) is returned at once.
3. The greedy constructions (:mod:`.construct`); the smaller of them and the
   algebraic candidate is kept (ties keep the algebraic one).  A cover-starter
   array (:mod:`.starters`, unconstrained t=2) of at most
   :data:`STARTER_START` of its rows replaces it and is what the improver
   then polishes; a larger one competes with the polished array (step 5).
4. The improver with the budget of the effort level (:mod:`.budget`):
   redundant-row removal and row elimination (on a constrained model an
   effort level goes on from quick mode's search, so it is never larger).
5. A recursive candidate replaces the result when it is strictly smaller;
   so do one of :mod:`.strength3` (strength 3 and 4 over more than two
   values: v-ary doubling, group-developed starters), a cover-starter array
   not polished in step 3 and the product of an orthogonal array with the
   engine's own array of fewer columns (:func:`.recursive.product_with`, t=2, v >= 4).

Every candidate is verified by :func:`.verify.valid` before it can win, so
a construction bug costs rows, never coverage.
"""

from __future__ import annotations

from itertools import combinations
from math import comb

from pairwise_param.constraints import Feasibility
from pairwise_param.engine import EngineOptions, Generated
from pairwise_param.engine.algebraic import algebraic, fold
from pairwise_param.engine.budget import budget_for
from pairwise_param.engine.construct import construct
from pairwise_param.engine.improve import search
from pairwise_param.engine.recursive import product_with, recursive
from pairwise_param.engine.requirements import Requirements, requirements
from pairwise_param.engine.starters import cover_starter, smallest_size
from pairwise_param.engine.strength3 import strength34
from pairwise_param.engine.verify import valid
from pairwise_param.model import IndexModel

__all__ = ["lower_bound", "run"]

Rows = list[tuple[int, ...]]

#: A cover-starter array with at most this share of the greedy array's rows is
#: what the improver polishes; a larger one competes with the polished array.
STARTER_START = 0.8


def _uniform(req: Requirements, strength: int) -> bool:
    n = len(req.sizes)
    return len(req.scopes) == comb(n, strength) and all(len(s) == strength for s in req.scopes)


def lower_bound(req: Requirements) -> int:
    """No valid array has fewer rows: each row covers one tuple per scope."""
    if not req.constrained:
        return max(req.totals, default=1)
    return max((t - len(b) for t, b in zip(req.totals, req.blocked)), default=1)


def _direct(model: IndexModel, req: Requirements, feas: Feasibility, lb: int) -> tuple[Rows | None, Rows | None, str, str]:
    """(algebraic rows, recursive rows, their methods) of the direct
    constructions that apply (unconstrained, no include rows).  The algebraic
    rows have passed the check; the recursive ones are checked only if they
    win (a check of a large model is not free: 3^1000 has 499,500 scopes)."""
    if req.constrained or model.include:
        return None, None, "", ""
    uniform = _uniform(req, model.strength)
    alg = algebraic(req.sizes, model.strength, uniform, limit=3 * lb)
    rec = recursive(req.sizes, model.strength, uniform)
    alg_rows = alg[0] if alg is not None and valid(req, feas, alg[0]) else None
    rec_rows = rec[0] if rec is not None else None
    return alg_rows, rec_rows, alg[1] if alg else "", rec[1] if rec else ""


def _plain(k: int, v: int, constant_rows: bool = False) -> Rows:
    """The quick answer for ``v^k`` at strength 2 (a cover starter's fixed
    part; with ``constant_rows``, the v constant rows included: a product's
    inner array)."""
    sizes = (v,) * k
    include = tuple((x,) * k for x in range(v)) if constant_rows else ()
    plain = IndexModel(sizes, 2, tuple(combinations(range(k), 2)), (), include)
    return list(run(plain, EngineOptions(), Feasibility(sizes, ())).rows)


def _product(model: IndexModel, req: Requirements, below: int) -> tuple[Rows | None, str]:
    """:func:`.recursive.product_with` for an unconstrained uniform t=2 model, or None."""
    if req.constrained or model.include or model.strength != 2 or max(req.sizes) < 4 or not _uniform(req, 2):
        return None, ""  # (v < 4 first: 3^1000 and 2^3000 pay no uniformity check)
    got = product_with(req.sizes, below, lambda k, v: _plain(k, v, constant_rows=True))
    return (None, "") if got is None else got


def _starter(model: IndexModel, req: Requirements, below: int) -> tuple[Rows | None, str]:
    """A cover-starter array with fewer than ``below`` rows (unconstrained,
    no include rows, uniform strength 2; smaller axes folded), or None."""
    if req.constrained or model.include or model.strength != 2:
        return None, ""
    if smallest_size(len(req.sizes), max(req.sizes)) >= below or not _uniform(req, 2):
        return None, ""
    got = cover_starter(len(req.sizes), max(req.sizes), below, _plain)
    if got is None:
        return None, ""
    return fold(got[0], req.sizes), got[1]


def run(model: IndexModel, options: EngineOptions, feas: Feasibility) -> Generated:
    """The engine's answer for ``model``.

    The algebraic candidate competes with the greedy one before the improver
    (the smaller is improved).  A recursive candidate competes with the
    improved result instead: its rigid structure is a poor start for row
    elimination (4^100 quick: the product's 52 rows polish to 51, IPOG's 53
    to 47), so it is kept as it is when nothing smaller was found.
    """
    req = requirements(model, feas)
    lb = lower_bound(req)
    best: Rows | None = None
    method = ""
    alg, rec, alg_how, rec_how = _direct(model, req, feas, lb)
    if alg is not None:
        best, method = alg, alg_how
        if len(best) <= lb or method == "binary":
            return Generated(tuple(best), req.infeasible(), method)
    if rec is not None and len(rec) <= lb and valid(req, feas, rec):
        return Generated(tuple(rec), req.infeasible(), rec_how)
    rows, how = construct(model, req, feas, lb)
    if not valid(req, feas, rows):  # pragma: no cover - would be an engine bug
        raise AssertionError(f"pairwise_param engine: construction {how!r} left a coverable tuple uncovered")
    if best is None or len(rows) < len(best):
        best, method = rows, how
    if len(best) <= max(lb, len(model.include)):
        # at the lower bound the improver has nothing to remove (it would return these
        # rows after building its state: most of a tiny model's engine time)
        return Generated(tuple(best), req.infeasible(), method)
    # A starter array at most STARTER_START of the greedy one is polished instead of it
    # (the polish shrinks a greedy array by up to 13%: 6^11 63 -> 55 against a 56-row
    # starter); a larger one only competes with the polished result below.
    starter, starter_how = _starter(model, req, int(STARTER_START * len(best)) + 1)
    adopted = starter is not None and valid(req, feas, starter)
    if starter is not None and adopted:
        best, method = starter, starter_how
    effort = options.level
    budget = budget_for(req, effort, options.work)
    # Constrained models: an effort level first runs quick mode's search, then goes on from it.
    warm = budget_for(req, 0) if effort > 0 and req.constrained and options.work is None else None
    result = search(
        req, feas, best, model.include, budget.units, options.seed, lb, budget.stall,
        on_progress=options.on_progress, interruptible=options.interruptible,
        warmup=warm.units if warm else 0, warmup_stall=warm.stall if warm else 0,
    )
    if len(result.rows) < len(best) and valid(req, feas, result.rows):
        best, method = result.rows, method + ("+tabu" if effort > 0 else "+polish")
    if rec is not None and len(rec) < len(best) and valid(req, feas, rec):
        best, method = rec, rec_how
    if not req.constrained and not model.include:
        s34 = strength34(
            req.sizes, model.strength, _uniform(req, model.strength), len(best) - 1, effort, options.seed, req.coverable_count()
        )
        if s34 is not None and valid(req, feas, s34[0]):
            best, method = s34
    if not adopted:
        starter, starter_how = _starter(model, req, len(best))
        if starter is not None and len(starter) < len(best) and valid(req, feas, starter):
            best, method = starter, starter_how
    prod, prod_how = _product(model, req, len(best))
    if prod is not None and len(prod) < len(best) and valid(req, feas, prod):
        best, method = prod, prod_how
    return Generated(tuple(best), req.infeasible(), method, result.work, result.interrupted)
