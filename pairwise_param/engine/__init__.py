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

from dataclasses import dataclass

from pairwise_param.constraints import Feasibility
from pairwise_param.errors import InvalidArgument
from pairwise_param.model import IndexModel

__all__ = ["ENGINE_VERSION", "EngineOptions", "Generated", "generate"]

#: Bump whenever the rows produced for some model may change: it keys the cache.
ENGINE_VERSION = "2"

#: A t-tuple: (scope of axis indices, value indices), both sorted by axis.
TupleRef = tuple[tuple[int, ...], tuple[int, ...]]


@dataclass(frozen=True)
class EngineOptions:
    """How hard to work.

    ``effort`` 0 is the quick mode (constructions plus a short, fixed-budget
    row-elimination polish: well under a second); each further level grants
    the improver another fixed budget of work units (counted, never timed).
    ``seed`` feeds the one local random generator of the improver (the
    constructions are deterministic).
    """

    effort: int = 0
    seed: int = 0

    def __post_init__(self) -> None:
        if isinstance(self.effort, bool) or not isinstance(self.effort, int) or self.effort < 0:
            raise InvalidArgument(f"effort must be an int >= 0, got effort={self.effort!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise InvalidArgument(f"seed must be an int, got seed={self.seed!r}")


@dataclass(frozen=True)
class Generated:
    """The engine's answer."""

    rows: tuple[tuple[int, ...], ...]
    infeasible: tuple[TupleRef, ...]
    method: str


def generate(
    model: IndexModel, options: EngineOptions = EngineOptions(), feasibility: Feasibility | None = None
) -> Generated:
    """Build a covering array for ``model``.

    Infeasible tuples are computed first (exactly), then the algebraic
    shortcuts (unconstrained models without include rows) and the greedy
    constructions run; the smallest valid result wins and, with ``effort`` > 0,
    the improver shrinks it further.
    """
    from pairwise_param.engine.pipeline import run

    feas = feasibility if feasibility is not None else Feasibility(model.sizes, model.exclusions)
    rows, infeasible, method = run(model, options.effort, options.seed, feas)
    return Generated(rows, infeasible, method)
