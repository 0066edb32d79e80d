"""The engine's pipeline: requirements, then ONE table of candidate constructions.

:data:`STAGES` lists every candidate in the order it is tried: its name, when
it ``applies`` (a function of the index model and the options) and how it
``build``\\ s its rows from the :class:`Run` so far (the best rows, the lower
bound, the requirements).  :func:`run` walks the table; a candidate is adopted
when it is verified and smaller than the best so far (:func:`_adopt`, the one
place a candidate is checked: :func:`.verify.valid` sees every winner, so a
construction bug costs rows, never coverage).  A stage marked ``ends_at_bound``
ends the run when the best array is at the lower bound after it (nothing can be
smaller; the improver would only rebuild its state to find that out); a
candidate built ``optimal`` ends it at once.

The order, and why:

1. ``algebraic``: orthogonal arrays and binary pairwise (:mod:`.algebraic`;
   unconstrained, no include rows).
2. ``recursive-at-bound``: a recursive construction (:mod:`.recursive`) that
   meets the lower bound.  One above it waits for step 6: its rigid structure
   is a poor start for row elimination (4^100 quick: the product's 52 rows
   polish to 51, IPOG's 53 to 47).
3. ``greedy``: IPOG and the density greedy (:mod:`.construct`); every model.
4. ``starter``: a cover-starter array (:mod:`.starters`, unconstrained t=2) of
   at most :data:`STARTER_START` of the best rows, polished by the improver
   instead of them (the polish shrinks a greedy array by up to 13%: 6^11 63 ->
   55 against a 56-row starter).
5. ``improver``: redundant rows and row elimination within the budget of the
   effort level (:mod:`.budget`, :mod:`.improve`; on a constrained model an
   effort level goes on from quick mode's search, so it is never larger).
6. ``recursive``: the recursive construction, when smaller than the polished rows.
7. ``strength34``: :mod:`.strength3` (strength 3 and 4 over more than two
   values: v-ary doubling, group-developed starters).
8. ``late-starter``: a cover starter smaller than the polished rows, when step 4
   adopted none.
9. ``product``: an orthogonal array times the engine's own array of fewer
   columns (:func:`.recursive.product_with`, t=2, v >= 4).

Adding a construction is one :class:`Stage` in :data:`STAGES`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from itertools import combinations
from math import comb

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
from pairwise_param.feasibility import Feasibility
from pairwise_param.model import IndexModel

__all__ = ["STAGES", "Candidate", "Run", "Stage", "lower_bound", "run"]

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


@dataclass(frozen=True)
class Candidate:
    """A stage's rows and the method name they are reported under; ``optimal``:
    no array can be smaller (the run ends when it is adopted)."""

    rows: Rows
    method: str
    optimal: bool = False


@dataclass
class Run:
    """One engine run: its inputs, the best verified rows so far and what the
    improver spent; what a stage's ``build`` reads."""

    model: IndexModel
    options: EngineOptions
    feas: Feasibility
    req: Requirements
    #: no valid array has fewer rows (:func:`lower_bound`)
    lb: int
    best: Rows | None = None
    method: str = ""
    #: the names of the stages whose candidate was adopted, in order
    adopted: list[str] = field(default_factory=list)
    #: work units the improver spent, and whether an interrupt ended it
    work: int = 0
    interrupted: bool = False

    @property
    def size(self) -> int:
        """Rows of the best array so far (a stage after ``greedy`` always has one)."""
        assert self.best is not None
        return len(self.best)

    @cached_property
    def uniform(self) -> bool:
        """Are the scopes every ``strength``-subset of the axes (no sub-models)?
        Computed once: 2^3000 has 4.5 million scopes."""
        return _uniform(self.req, self.model.strength)

    @cached_property
    def recursive(self) -> tuple[Rows, str] | None:
        """The recursive construction (built once; steps 2 and 6 share it)."""
        return recursive(self.req.sizes, self.model.strength, self.uniform)


@dataclass(frozen=True)
class Stage:
    """One candidate construction of :data:`STAGES`."""

    name: str
    #: does the stage apply to this model at all (the cheap test, before any work)?
    applies: Callable[[IndexModel, EngineOptions], bool]
    #: its candidate, or None (it found nothing, or nothing smaller than ``run.best``)
    build: Callable[[Run], Candidate | None]
    #: the construction every model gets: its rows are verified even when they lose,
    #: and invalid rows are an engine bug (AssertionError), not a lost candidate
    required: bool = False
    #: after this stage, a best array at the floor (the lower bound, or the include
    #: rows) ends the run
    ends_at_bound: bool = False


# -- when a stage applies --------------------------------------------------------------
def _always(model: IndexModel, options: EngineOptions) -> bool:
    return True


def _direct(model: IndexModel, options: EngineOptions) -> bool:
    """Unconstrained, no include rows: the direct constructions' models."""
    return not model.exclusions and not model.include


def _direct_pairs(model: IndexModel, options: EngineOptions) -> bool:
    return _direct(model, options) and model.strength == 2


# -- what a stage builds ---------------------------------------------------------------
def _plain(k: int, v: int, constant_rows: bool = False) -> Rows:
    """The quick answer for ``v^k`` at strength 2 (a cover starter's fixed
    part; with ``constant_rows``, the v constant rows included: a product's
    inner array)."""
    sizes = (v,) * k
    include = tuple((x,) * k for x in range(v)) if constant_rows else ()
    plain = IndexModel(sizes, 2, tuple(combinations(range(k), 2)), (), include)
    return list(run(plain, EngineOptions(), Feasibility(sizes, ())).rows)


def _algebraic(r: Run) -> Candidate | None:
    got = algebraic(r.req.sizes, r.model.strength, r.uniform, limit=3 * r.lb)
    return None if got is None else Candidate(got[0], got[1], optimal=got[1] == "binary")


def _recursive_at_bound(r: Run) -> Candidate | None:
    got = r.recursive
    return Candidate(*got) if got is not None and len(got[0]) <= r.lb else None


def _greedy(r: Run) -> Candidate:
    return Candidate(*construct(r.model, r.req, r.feas, r.lb))


def _starter(r: Run, below: int) -> Candidate | None:
    """A cover-starter array with fewer than ``below`` rows (uniform strength 2;
    smaller axes folded), or None."""
    req = r.req
    if smallest_size(len(req.sizes), max(req.sizes)) >= below or not r.uniform:
        return None
    got = cover_starter(len(req.sizes), max(req.sizes), below, _plain)
    return None if got is None else Candidate(fold(got[0], req.sizes), got[1])


def _early_starter(r: Run) -> Candidate | None:
    return _starter(r, int(STARTER_START * r.size) + 1)


def _improver(r: Run) -> Candidate:
    assert r.best is not None
    options, req = r.options, r.req
    effort = options.level
    budget = budget_for(req, effort, options.work)
    # Constrained models: an effort level first runs quick mode's search, then goes on from it.
    warm = budget_for(req, 0) if effort > 0 and req.constrained and options.work is None else None
    result = search(
        req, r.feas, r.best, r.model.include, budget.units, options.seed, r.lb, budget.stall,
        on_progress=options.on_progress, interruptible=options.interruptible,
        warmup=warm.units if warm else 0, warmup_stall=warm.stall if warm else 0,
    )
    r.work, r.interrupted = result.work, result.interrupted
    return Candidate(result.rows, r.method + ("+tabu" if effort > 0 else "+polish"))


def _recursive(r: Run) -> Candidate | None:
    got = r.recursive
    return None if got is None else Candidate(*got)


def _strength34(r: Run) -> Candidate | None:
    got = strength34(
        r.req.sizes, r.model.strength, r.uniform, r.size - 1, r.options.level, r.options.seed,
        r.req.coverable_count(),
    )
    return None if got is None else Candidate(*got)


def _late_starter(r: Run) -> Candidate | None:
    return None if "starter" in r.adopted else _starter(r, r.size)


def _product(r: Run) -> Candidate | None:
    """:func:`.recursive.product_with` for a uniform t=2 model over v >= 4 values."""
    if max(r.req.sizes) < 4 or not r.uniform:
        return None  # (v < 4 first: 3^1000 and 2^3000 pay no uniformity check)
    got = product_with(r.req.sizes, r.size, lambda k, v: _plain(k, v, constant_rows=True))
    return None if got is None else Candidate(*got)


#: THE candidate table, tried in this order (see the module docstring for why).
STAGES: tuple[Stage, ...] = (
    Stage("algebraic", _direct, _algebraic, ends_at_bound=True),
    Stage("recursive-at-bound", _direct, _recursive_at_bound, ends_at_bound=True),
    Stage("greedy", _always, _greedy, required=True, ends_at_bound=True),
    Stage("starter", _direct_pairs, _early_starter),
    Stage("improver", _always, _improver),
    Stage("recursive", _direct, _recursive),
    Stage("strength34", _direct, _strength34),
    Stage("late-starter", _direct_pairs, _late_starter),
    Stage("product", _direct_pairs, _product),
)


def _adopt(r: Run, stage: Stage, cand: Candidate) -> bool:
    """THE verify-and-compare: ``cand`` replaces the best rows when it is smaller
    and verified (a ``required`` stage's rows are verified even when they lose)."""
    smaller = r.best is None or len(cand.rows) < len(r.best)
    ok = (smaller or stage.required) and valid(r.req, r.feas, cand.rows)
    if stage.required and not ok:  # pragma: no cover - would be an engine bug
        raise AssertionError(f"pairwise_param engine: construction {cand.method!r} left a coverable tuple uncovered")
    if not (smaller and ok):
        return False
    r.best, r.method = cand.rows, cand.method
    r.adopted.append(stage.name)
    return True


def run(model: IndexModel, options: EngineOptions, feas: Feasibility, stages: tuple[Stage, ...] = STAGES) -> Generated:
    """The engine's answer for ``model``: the smallest verified candidate of ``stages``."""
    req = requirements(model, feas)
    r = Run(model, options, feas, req, lower_bound(req))
    floor = max(r.lb, len(model.include))
    for stage in stages:
        if not stage.applies(model, options):
            continue
        cand = stage.build(r)
        if cand is not None and _adopt(r, stage, cand) and cand.optimal:
            break
        if stage.ends_at_bound and r.best is not None and len(r.best) <= floor:
            break
    assert r.best is not None, "the greedy stage applies to every model"
    return Generated(tuple(r.best), req.infeasible(), r.method, r.work, r.interrupted)
