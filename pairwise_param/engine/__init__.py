"""The covering-array engine: pure functions of (index model, options).

The engine sees value indices and exclusions only (see
:class:`pairwise_param.model.IndexModel`); it knows nothing of pytest, torch or
the user's values.  :func:`generate` is its single entry point: it returns the
rows (must-include rows first), the tuples that constraints make impossible,
and which construction won.

Determinism: no iteration over hash-ordered containers of values, randomness
only from ``random.Random(seed)`` created locally, budgets in iterations.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pairwise_param.engine.budget import LEVELS, Progress
from pairwise_param.errors import InvalidArgument
from pairwise_param.feasibility import Feasibility
from pairwise_param.model import IndexModel

__all__ = ["ENGINE_VERSION", "LEVELS", "MAX_EFFORT", "EngineOptions", "Generated", "Progress", "TupleRef", "generate"]

#: Bump whenever the rows produced for some model may change: it keys the cache.
#: (Version 3: model-scaled quick budget, stall stop, new constructions;
#: version 4: one-value axes left out of the algebraic constructions;
#: version 5: repair moves for constrained models, small quick budget;
#: version 6: larger constrained quick budget (t=3 constrained tables);
#: version 7: strength-3/4 constructions of engine/strength3.py (t=3/t=4
#: tables over more than two values), cover starters for unconstrained
#: strength-2 models (engine/starters.py) and the all-triple constrained
#: search on bitsets (t=3 constrained tables); see
#: docs/engine.md and CHANGELOG.md for which tables changed;
#: version 8: compile-aware tables spread one strength up, engine/spread.py.)
ENGINE_VERSION = "8"

#: Largest effort level accepted: each level may spend about 40 s of CPU
#: (``budget.EFFORT_UNIT``), so 16 is about ten minutes; ``effort=1000``
#: would have run for hours with no word.
MAX_EFFORT = 16

#: A t-tuple: (scope of axis indices, value indices), both sorted by axis.
TupleRef = tuple[tuple[int, ...], tuple[int, ...]]


@dataclass(frozen=True)
class EngineOptions:
    """How hard to work.

    ``effort`` 0 (``"quick"``) is the quick mode: constructions plus a short
    row-elimination polish whose budget scales with the model (well under a
    second on the standard configurations).  Each further level grants the
    improver another fixed budget of work units (counted, never timed) and
    stops early once it stops finding smaller arrays.  A level may be given
    by name (:data:`LEVELS`: ``"quick"``, ``"standard"``, ``"thorough"``,
    ``"exhaustive"``), stored as its int.  ``work`` (optional) bounds the
    improver by exactly that many work units instead.  ``seed`` feeds the one
    local random generator of the improver (the constructions are
    deterministic).  The budget rules live in :mod:`.budget`.

    ``on_progress`` (optional) is called with a :class:`Progress` during the
    improver (after each smaller array and every few hundred moves); it only
    observes, so the rows are the same with or without it.  With
    ``interruptible`` a ``KeyboardInterrupt`` raised during the improver (Ctrl-C,
    or by ``on_progress``) ends it early: the best valid array found so far is
    verified and returned with ``Generated.interrupted`` set, as the CLI's
    ``generate`` wants; without it the interrupt propagates, as a library's should.

    This is the one validator of effort, seed and work: every front end
    (``cover()``, ``@pairwise``, the CLI) builds an ``EngineOptions``.
    """

    effort: int | str = 0
    seed: int = 0
    work: int | None = None
    on_progress: Callable[[Progress], None] | None = field(default=None, compare=False)
    interruptible: bool = field(default=False, compare=False)

    def __post_init__(self) -> None:
        effort: object = self.effort
        if isinstance(effort, str):
            if effort not in LEVELS:
                names = ", ".join(repr(n) for n in LEVELS)
                raise InvalidArgument(f"effort={effort!r} is no effort level; expected an int >= 0 or one of {names}")
            object.__setattr__(self, "effort", LEVELS[effort])
        elif isinstance(effort, bool) or not isinstance(effort, int) or effort < 0:
            raise InvalidArgument(
                f"effort must be an int >= 0 or a level name ({', '.join(LEVELS)}), got effort={effort!r}"
            )
        elif effort > MAX_EFFORT:
            raise InvalidArgument(
                f"effort={effort} is above the largest level {MAX_EFFORT}: each level may spend about "
                f"40 s of CPU, so effort={effort} could run for {effort * 40 // 60} minutes; use an effort "
                f"up to {MAX_EFFORT} (\"exhaustive\" is {LEVELS['exhaustive']}), or work=N for an exact budget"
            )
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise InvalidArgument(f"seed must be an int, got seed={self.seed!r}")
        work: object = self.work
        if work is not None and (isinstance(work, bool) or not isinstance(work, int) or work < 0):
            raise InvalidArgument(f"work must be None or an int >= 0 (work units), got work={work!r}")
        if self.on_progress is not None and not callable(self.on_progress):
            raise InvalidArgument(f"on_progress must be None or a callable, got on_progress={self.on_progress!r}")

    @property
    def level(self) -> int:
        """The effort as an int (a level name was replaced by its int)."""
        assert isinstance(self.effort, int)
        return self.effort


@dataclass(frozen=True)
class Generated:
    """The engine's answer."""

    rows: tuple[tuple[int, ...], ...]
    infeasible: tuple[TupleRef, ...]
    method: str
    #: Work units the improver spent (0 when it did not run): the machine-
    #: independent cost that benchmarks report alongside seconds.
    work: int = 0
    #: True when a KeyboardInterrupt ended the improver early
    #: (``EngineOptions.interruptible``): the rows are the best valid array found
    #: by then, verified, but not as small as the full budget might have made them.
    interrupted: bool = False


def generate(
    model: IndexModel, options: EngineOptions = EngineOptions(), feasibility: Feasibility | None = None
) -> Generated:
    """Build a covering array for ``model``.

    A model with compile axes gets the table with the fewest kernel variants
    (:mod:`.variants`).  Otherwise infeasible tuples are computed first (exactly), then the algebraic
    shortcuts (unconstrained models without include rows) and the greedy
    constructions run; the smallest valid result wins and, with ``effort`` > 0,
    the improver shrinks it further.
    """
    from pairwise_param.engine.pipeline import run

    feas = feasibility if feasibility is not None else Feasibility(model.sizes, model.exclusions)
    if model.compile_axes:
        return _compile_aware(model, options, feas)
    return run(model, options, feas)


def _compile_aware(model: IndexModel, options: EngineOptions, feas: Feasibility) -> Generated:
    """The table with the fewest variants (:mod:`.variants`), verified against the
    unrestricted model like every candidate."""
    from pairwise_param.engine.requirements import requirements
    from pairwise_param.engine.variants import compile_aware
    from pairwise_param.engine.verify import valid

    req = requirements(model, feas)
    generated, _ = compile_aware(model, options, feas, frozenset(req.infeasible()))
    if not valid(req, feas, generated.rows):  # pragma: no cover - would be an engine bug
        raise AssertionError("pairwise_param engine: a compile-aware table left a coverable tuple uncovered")
    return generated
