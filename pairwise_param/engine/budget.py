"""How much work each effort level may spend: the one home of the budget rules.

Every budget is counted in work units (coverage counters looked at, plus a
fixed charge per move; see :mod:`.improve`), never seconds, so a level gives
the same rows on every machine.  On this project's reference machine (CPython
3.11, one core) one million units take about 0.1-0.15 s.

* Quick mode (effort 0) polishes the construction with a budget that scales
  with the model: ``QUICK_PER_TUPLE`` units per coverable tuple, at least
  ``QUICK_MIN`` and at most ``QUICK_MAX`` units.  Small models (up to a few
  thousand tuples) get enough to settle at their optimum, large ones a
  bounded share so quick mode stays under about a second.  A polish whose
  budget cannot pay for building the coverage state and dropping one row is
  not started at all (:func:`.improve.setup_cost`).  A model whose share is
  below the floor (fewer than ``QUICK_MIN / QUICK_PER_TUPLE`` coverable
  tuples: the tiny option models of kernel tests) gets its share only, at least
  ``QUICK_SMALL_MIN`` units, and stops after ``QUICK_STALL`` units without a
  smaller array: such models settle within a few thousand units (3^5: 2,603,
  kernel-b: 1,248, 3^6 t=3: 38,543), and the floor alone made them pay
  0.1-0.15 s for nothing (engine version 5).  Constrained models above the
  floor get ``QUICK_PER_TUPLE_CONSTRAINED`` units per tuple, at most
  ``QUICK_MAX_CONSTRAINED``; so do constrained models below it whose
  constrained share reaches ``QUICK_CONSTRAINED_FULL`` (no stall window:
  constrained t=3 models improve late, liger rmsnorm t=3 finds 42 rows after
  6.8 million units; engine version 6), at most ``QUICK_MAX_TRIPLES`` when
  every scope is a triple (their moves are cheaper: engine version 7).  The
  t=2 constrained kernel models (under 500 tuples) keep the small-model budget.
* Effort ``e`` >= 1 grants ``e * EFFORT_UNIT`` units, at most
  ``UNITS_PER_TUPLE`` per tuple per level (an unreachable row count must not
  cost a small model the full budget), and stops once ``e * STALL_UNITS``
  units in a row brought no smaller array: the level has converged.
* ``EngineOptions(work=N)`` replaces the budget by exactly ``N`` units (the
  stall rule of the effort level still applies).

Named levels (:data:`LEVELS`) are aliases of effort integers.
"""

from __future__ import annotations

from dataclasses import dataclass

from pairwise_param.engine.requirements import Requirements

__all__ = ["LEVELS", "Budget", "Progress", "budget_for"]

#: Effort levels by name.
LEVELS: dict[str, int] = {"quick": 0, "standard": 1, "thorough": 2, "exhaustive": 4}

#: Quick-mode polish: units per coverable tuple, floor and ceiling.
QUICK_PER_TUPLE = 1_000
QUICK_MIN = 1_200_000
QUICK_MAX = 3_000_000
#: Quick mode on constrained models: units per tuple and ceiling.  Their moves
#: cost more (repairs) and their arrays are small, so they get a larger share
#: (the constrained t=3 set of benchmarks/constrained_models.py: 424 rows in
#: all at the plain budget, 416 at 3,000 / 6 million (engine version 5; 417
#: with liger t=3 on the small budget), 411 at 7,000 / 8 million (version 6),
#: 0.4-0.7 s CPU on a loaded 2-core machine; the last new best of the set came
#: at 7.5 million units, and 10, 15 or 25 million found no fewer rows).
QUICK_PER_TUPLE_CONSTRAINED = 7_000
QUICK_MAX_CONSTRAINED = 8_000_000
#: The ceiling of constrained models whose scopes are all triples (t=3): their
#: search runs on the triple bitsets of :class:`.improve.triples.TripleState`, whose
#: units are charged what its moves cost there (engine version 7; 5 million
#: units are about 0.5-0.7 s on a loaded 2-core machine, some 12,000 moves
#: where version 6 made 1,500 in 8 million).
QUICK_MAX_TRIPLES = 5_000_000
#: A constrained model whose constrained share reaches this many units gets
#: it without a stall window even below the floor (liger rmsnorm t=3, 1,056
#: tuples: the stall window stopped it at 44 rows, its share reaches 42).
QUICK_CONSTRAINED_FULL = 5_000_000
#: Quick mode on models below the floor: at least this many units, and a stall window.
QUICK_SMALL_MIN = 20_000
QUICK_STALL = 150_000
#: Work units per effort level (about 35-45 s of CPython when all are spent).
EFFORT_UNIT = 320_000_000
#: Per effort level, at most this many work units per coverable tuple.
UNITS_PER_TUPLE = 20_000
#: An effort level stops after this many units (times the effort) without a
#: smaller array.
STALL_UNITS = 60_000_000


@dataclass(frozen=True)
class Budget:
    """Work units of one improver run and its stall window (0: none)."""

    units: int
    stall: int


@dataclass(frozen=True)
class Progress:
    """Where an improver run stands, for ``EngineOptions.on_progress``: the
    rows of the best valid array so far, the array's lower bound, and the work
    units spent out of the budget.  Reported, never read back: a callback sees
    the run, it cannot change its rows."""

    rows: int
    lower_bound: int
    work: int
    budget: int


def budget_for(req: Requirements, effort: int, work: int | None = None) -> Budget:
    """The budget of ``effort`` (an int >= 0) on ``req``; ``work`` overrides the units."""
    tuples = max(1, req.coverable_count())
    if effort == 0:
        share = QUICK_PER_TUPLE * tuples
        if req.constrained and QUICK_PER_TUPLE_CONSTRAINED * tuples >= QUICK_CONSTRAINED_FULL:
            cap = QUICK_MAX_TRIPLES if all(len(s) == 3 for s in req.scopes) else QUICK_MAX_CONSTRAINED
            units, stall = min(cap, QUICK_PER_TUPLE_CONSTRAINED * tuples), 0
        elif share < QUICK_MIN:
            units, stall = max(QUICK_SMALL_MIN, share), QUICK_STALL
        elif req.constrained:
            units, stall = min(QUICK_MAX_CONSTRAINED, QUICK_PER_TUPLE_CONSTRAINED * tuples), 0
        else:
            units, stall = min(QUICK_MAX, share), 0
    else:
        units = effort * min(EFFORT_UNIT, UNITS_PER_TUPLE * tuples)
        stall = effort * STALL_UNITS
    if work is not None:
        units = work
    return Budget(units, stall)
