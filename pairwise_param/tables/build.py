"""Building a table: the one way to the rows of a model, and the engine's only client.

Every face asks here for rows: ``cover()`` and the CLI's ``generate``
(:mod:`pairwise_param.tables.covering`), the pytest plugin (through
:mod:`pairwise_param.tables.cache`), the Hypothesis strategies.  No other module
imports :mod:`pairwise_param.engine` (``tests/docs/test_architecture.py`` holds it).

* :func:`engine_options` -- the one way to build :class:`EngineOptions` (whose
  ``__post_init__`` validates effort and seed), naming the test or file in its error;
* :func:`run_engine` -- the engine's rows of a model (a row emitted twice kept once);
* :func:`build_table` -- a :class:`Table` of a model in a mode: THE dispatch of the
  modes (:data:`~pairwise_param.contract.MODES`).  ``"cover"`` runs the engine;
  ``"full"`` enumerates the full product minus the rows a constraint forbids
  (:func:`pairwise_param.tables.product.full_rows`), lists no infeasible tuple, is not
  worth caching and loses no tuple to a skipped value (:func:`exhaustive`);
* :func:`build_with_invalid` -- a table with invalid values
  (:mod:`pairwise_param.tables.invalid`): the valid part's table lifted to the full
  model, then each invalid value's rows (its strength-1 table, or in full mode its
  full product), written once for ``cover()`` and the plugin;
* :func:`compile_view` and :func:`rotation_variants` -- a compile-aware model's compile
  axes alone and a rotated run's variant list
  (:mod:`pairwise_param.tables.rotate_variants`);
* :func:`verified` -- is a table (one read back from the cache) a covering table of
  its model?

The engine is imported when rows are first built, so importing this module stays
cheap (:func:`exhaustive` is read by the run analysis without loading the engine).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pairwise_param.contract import MODES
from pairwise_param.contract import check_mode as contract_check_mode
from pairwise_param.errors import InvalidArgument

if TYPE_CHECKING:
    from pairwise_param.engine import EngineOptions, Generated, TupleRef
    from pairwise_param.feasibility import Feasibility
    from pairwise_param.model import IndexModel, Model
    from pairwise_param.tables.invalid import Split
    from pairwise_param.tables.product import Count

__all__ = [
    "Table",
    "WithInvalid",
    "build_table",
    "build_with_invalid",
    "check_mode",
    "compile_view",
    "engine_options",
    "engine_version",
    "exhaustive",
    "rotation_variants",
    "run_engine",
    "verified",
]

_COVER, _FULL = MODES
#: the method of a one-axis table built without the engine (every value once, as the engine gives it)
_ONE_AXIS = "one-axis"
#: from this many values a one-axis table skips the engine (below, the engine takes
#: milliseconds, and its method name stays in the golden rows)
ONE_AXIS_FAST = 64


def check_mode(mode: Any, where: str | None = None) -> str:
    """``mode`` if it is one of :data:`~pairwise_param.contract.MODES`; else
    :func:`pairwise_param.contract.check_mode`'s error (the one mode validator) as an
    :class:`~pairwise_param.errors.InvalidArgument` naming ``where``."""
    try:
        return contract_check_mode(mode)
    except ValueError as exc:
        raise InvalidArgument(str(exc), where=where) from None


def exhaustive(mode: str) -> bool:
    """Does ``mode`` run every feasible row?  Then it needs no engine, lists no
    infeasible tuple (no row was left out to cover it), is not worth caching (the
    enumeration costs less than a cache entry's checks) and cannot lose a tuple to
    a value skipped at collection (every row with the value is collected anyway)."""
    return check_mode(mode) == _FULL


def engine_options(effort: Any = 0, seed: Any = 0, where: str | None = None) -> EngineOptions:
    """``EngineOptions(effort=effort, seed=seed)``, whose ``__post_init__`` is
    THE validator of both options; its error is re-raised naming ``where``."""
    from pairwise_param.engine import EngineOptions

    try:
        return EngineOptions(effort=effort, seed=seed)
    except InvalidArgument as exc:
        if where is None or exc.where is not None:
            raise
        raise InvalidArgument(exc.detail, where=where) from None


def engine_version() -> str:
    """``ENGINE_VERSION``: it keys every cached table (and the rows' golden digest)."""
    from pairwise_param.engine import ENGINE_VERSION

    return str(ENGINE_VERSION)


def run_engine(model: Model, options: EngineOptions) -> Generated:
    """Rows of ``model`` from the engine.  A row the engine emits twice (two partial
    include rows completed alike) is kept once: it adds no coverage and would
    repeat a test id."""
    from pairwise_param.engine import generate

    generated = generate(model.index_model, options, model.feasibility)
    rows = tuple(dict.fromkeys(generated.rows))
    if len(rows) == len(generated.rows):
        return generated
    return dataclasses.replace(generated, rows=rows)


def compile_view(model: Model) -> tuple[IndexModel, Feasibility]:
    """The model of ``model``'s compile axes alone, constraints projected exactly, and
    its constraints (:func:`pairwise_param.engine.variants.compile_model`)."""
    from pairwise_param.engine.variants import compile_model
    from pairwise_param.feasibility import Feasibility

    cmodel = compile_model(model.index_model, model.feasibility)
    return cmodel, Feasibility(cmodel.sizes, cmodel.exclusions)


def rotation_variants(model: Model, fixed: Sequence[tuple[int, ...]], seen: Sequence[tuple[int, ...]],
                      frozen: int = 0, seed: int = 0) -> list[tuple[int, ...]]:
    """A rotated run's variant list: :func:`pairwise_param.engine.variants.rotation_variants`."""
    from pairwise_param.engine.variants import rotation_variants as engine_rotation_variants

    return engine_rotation_variants(model.index_model, model.feasibility, fixed, seen, frozen, seed)


@dataclass(frozen=True)
class Table:
    """The rows of one model in one mode: index rows (must-include rows first), the
    t-tuples constraints make impossible, the construction used, and (when asked
    for: the plugin's summary and cache) the feasible full-product count."""

    rows: tuple[tuple[int, ...], ...]
    infeasible: tuple[TupleRef, ...]
    method: str
    #: feasible rows of the full product (what full mode runs); None: not counted
    full_count: int | None = None
    #: False when ``full_count`` is only an upper bound (:class:`pairwise_param.tables.product.Count`)
    full_exact: bool = True
    #: True when Ctrl-C ended the improver early (the CLI's ``generate``): the rows
    #: are the best verified table found by then; such a table is never cached
    interrupted: bool = False

    @property
    def full(self) -> Count:
        """The feasible full-product count as a :class:`~pairwise_param.tables.product.Count`."""
        from pairwise_param.tables.product import Count

        if self.full_count is None:
            raise ValueError("the table was built without its full-product count (build_table(..., count=True))")
        return Count(self.full_count, self.full_exact)


def _rows(model: Model, mode: str, options: EngineOptions) -> Table:
    """THE dispatch of the modes: the engine's covering table, or the full product."""
    if exhaustive(mode):
        from pairwise_param.tables.product import full_rows

        return Table(full_rows(model), (), _FULL)
    if (len(model.axes) == 1 and model.sizes[0] >= ONE_AXIS_FAST and not model.exclusions and not model.include
            and not model.sub_models):
        # one long free axis: every value once, in order (the engine's rows, without its
        # quadratic search: an axis of 10,000 values is built in milliseconds)
        return Table(tuple((i,) for i in range(model.sizes[0])), (), _ONE_AXIS)
    generated = run_engine(model, options)
    infeasible = tuple((tuple(s), tuple(v)) for s, v in generated.infeasible)
    rows = tuple(tuple(r) for r in generated.rows)
    return Table(rows, infeasible, str(generated.method), interrupted=generated.interrupted)


def build_table(
    model: Model, mode: str = _COVER, options: EngineOptions | None = None, *, count: bool = False
) -> Table:
    """The :class:`Table` of ``model`` in ``mode`` (no cache); ``options`` default to
    effort 0, seed 0.  With ``count`` the feasible full-product count is filled in
    (exact, or an upper bound past :data:`~pairwise_param.tables.product.COUNT_LIMIT`)."""
    table = _rows(model, mode, options if options is not None else engine_options(where=model.where))
    if not count:
        return table
    if exhaustive(mode):
        return dataclasses.replace(table, full_count=len(table.rows), full_exact=True)
    from pairwise_param.tables.product import feasible_count

    full = feasible_count(model)
    return dataclasses.replace(table, full_count=full.value, full_exact=full.exact)


@dataclass(frozen=True)
class WithInvalid:
    """A table with invalid values (:mod:`pairwise_param.tables.invalid`), every
    index in the full model's: ``valid`` is the valid part's table (rows and
    infeasible tuples lifted), ``negative`` the rows holding one invalid value each,
    ``case_of_row`` the case (index into :attr:`Split.cases`) of each negative row,
    and ``negative_infeasible`` the pairs (invalid value, valid value of another
    axis) that constraints forbid, as t-tuples sorted by axis."""

    split: Split
    valid: Table
    negative: tuple[tuple[int, ...], ...]
    case_of_row: tuple[int, ...]
    negative_infeasible: tuple[TupleRef, ...]

    @property
    def rows(self) -> tuple[tuple[int, ...], ...]:
        """Every row: the valid part, then the negative part."""
        return self.valid.rows + self.negative

    @property
    def cases(self) -> tuple[int | None, ...]:
        """Per row, its case (None for a row of the valid part)."""
        return (None,) * len(self.valid.rows) + self.case_of_row


def build_with_invalid(split: Split, valid: Table, mode: str, options: EngineOptions) -> WithInvalid:
    """The table of a model with invalid values, from the table of its valid part
    (``valid``: built by :func:`build_table` on ``split.valid``, or the plugin's cached
    one): lifted to the full model, then, case by case in :attr:`Split.cases` order,
    the rows of each invalid value's part in the same ``mode``."""
    rows: list[tuple[int, ...]] = []
    owner: list[int] = []
    forbidden: list[TupleRef] = []
    for k, ((a, v, _), part) in enumerate(zip(split.cases, split.parts)):
        to_full = [(v,) if b == a else m for b, m in enumerate(split.valid_to_full)]
        table = _rows(part, mode, options)
        for scope, vals in table.infeasible:
            cells = {a: v, **{b: to_full[b][x] for b, x in zip(scope, vals)}}
            forbidden.append((tuple(sorted(cells)), tuple(cells[b] for b in sorted(cells))))
        for r in table.rows:
            rows.append(tuple(to_full[b][x] for b, x in enumerate(r)))
            owner.append(k)
    lifted = dataclasses.replace(valid, rows=split.lift(valid.rows), infeasible=split.lift_refs(valid.infeasible))
    return WithInvalid(split, lifted, tuple(rows), tuple(owner), tuple(forbidden))


def verified(model: Model, table: Table) -> bool:
    """Is ``table`` a valid covering table of ``model``?  Include rows first (each row
    agrees with its include row's fixed cells), and in every scope each value
    combination is covered by a row or listed as infeasible, every listed one
    impossible (not completable to a valid row).  Coverage by the engine's row
    bitsets (one big-int AND per combination; the per-(row, scope) tuple sets it
    replaced took 21.6 s on a warm 3^60 t=3 table that builds in 5.3 s) plus one
    completion test per listed tuple: far less than a build.  (The cache checks every
    entry it loads with it.)"""
    from pairwise_param.engine.requirements import scope_weights
    from pairwise_param.engine.verify import uncovered

    rows: Sequence[tuple[int, ...]] = table.rows
    if len(rows) < len(model.include):
        return False
    for inc, row in zip(model.include, rows):
        if any(v is not None and v != x for v, x in zip(inc, row)):
            return False
    sizes = model.sizes
    listed: dict[tuple[int, ...], set[tuple[int, ...]]] = {}
    for scope, values in table.infeasible:
        listed.setdefault(scope, set()).add(values)
    feas = model.feasibility
    scopes = model.index_model.interactions
    for scope, missing in zip(scopes, uncovered(sizes, scopes, rows)):
        claimed = listed.pop(scope, set())
        if len(missing) != len(claimed):
            return False
        if missing:
            weights, _ = scope_weights(tuple(sizes), scope)
            if {sum(v * w for v, w in zip(values, weights)) for values in claimed} != set(missing):
                return False
        for values in claimed:
            cells: list[int | None] = [None] * len(sizes)
            for a, v in zip(scope, values):
                cells[a] = v
            if feas.violates(cells) is None and feas.completable(cells):
                return False
    return not listed
