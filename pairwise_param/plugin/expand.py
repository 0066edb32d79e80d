"""Expansion: the ``pairwise`` marks of one test -> ``metafunc.parametrize`` arguments.

Each mark becomes ONE parametrize over all of its argument names, with the
rows of its table (cover mode) or of the full product (full mode) as
``pytest.param(..., id=..., marks=...)``.  Before any table is built, every
argument name is checked against the test (an argument of the test, not
parametrized elsewhere, not in two tables, an ``indirect`` axis with a
fixture), so pytest's terse errors are pre-empted by ours, naming the test.
"""

from __future__ import annotations

import contextlib
import inspect
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from pairwise_param.contract import INVALID_MARK, ROW_MARK_FLAG
from pairwise_param.decorator import PairwiseSpec
from pairwise_param.errors import AxisCollision, EmptyAxis, InvalidArgument, PairwiseWarning
from pairwise_param.model import Model
from pairwise_param.plugin import modes
from pairwise_param.plugin.absent import model_for, split_infeasible
from pairwise_param.tables.build import Table, build_with_invalid, engine_options, exhaustive
from pairwise_param.tables.cache import TableCache
from pairwise_param.tables.ids import row_ids, stacked_order, value_param_ids
from pairwise_param.tables.product import feasible_count

__all__ = ["Plan", "Record", "expand"]

#: (argument names, ``pytest.param`` rows, ``indirect``) for one ``metafunc.parametrize``
Plan = tuple[list[str], list[Any], Any]


@dataclass
class Record:
    """What one ``pairwise`` mark of one test produced (for the terminal summary)."""

    rows: int
    full: int
    strength: int
    mode: str
    infeasible: str = ""
    #: False when ``full`` is only an upper bound (:class:`pairwise_param.tables.product.Count`)
    full_exact: bool = True
    n_infeasible: int = 0
    #: rows of the negative part (each holds one invalid value; not in ``rows``)
    invalid_rows: int = 0
    #: pairs (invalid value, valid value) that constraints forbid
    invalid_infeasible: str = ""
    #: with ``--pairwise-extra-rows``: row id -> the shapes to run it for (None: a normal table)
    wanted: dict[str, set[str]] | None = None
    #: values whose skip mark was true at collection, left out (:mod:`pairwise_param.plugin.absent`),
    #: and the text / number of the tuples lost with them
    absent: tuple[tuple[int, int, str], ...] = ()
    absent_text: str = ""
    absent_tuples: tuple[Any, ...] = ()
    #: the model, table and row ids (what ran is measured against them: plugin/outcomes.py);
    #: None for a table with invalid values (its outcomes are not tracked)
    model: Any = None
    table: Any = None
    ids: tuple[str, ...] = ()
    #: the argument names of the table's rows (its axes, then its derived= values)
    argnames: tuple[str, ...] = ()
    #: how many of ``argnames`` are axes (the rest are derived= values, not in the link)
    n_axes: int = 0
    #: the model that decodes ``rows`` (for a table with invalid values: the full model)
    #: and the rows the items were made from, in ``ids`` order
    decoder: Any = None
    rows_run: tuple[tuple[int, ...], ...] = ()
    _keys: dict[tuple[int, ...], int] | None = field(default=None, repr=False, compare=False)

    def row_of(self, params: Mapping[str, Any]) -> int | None:
        """The index of the row an item runs (its position in ``ids``), from the item's
        ``callspec.params``, or None when the item is not one of this table's.

        An item keeps the very value objects of its ``pytest.param`` (pytest stores
        them in ``callspec.params``, direct or indirect), and within one table two
        rows never hold the same objects on every axis: the values of an axis are
        distinct (a duplicate is refused), so distinct objects.  The objects live as
        long as the model and the items, so their ``id()`` is stable for the session.
        This replaces a one-row ``parametrize`` mark per item as the item -> row link
        (25,290 such marks cost 0.8 s of a 2000-table collection: issue 24)."""
        names = self.argnames[: self.n_axes]
        if self.decoder is None:
            return None
        if self._keys is None:  # built on first use: a --collect-only run never needs it
            decode = self.decoder.decode
            self._keys = {}
            for index, row in enumerate(self.rows_run):
                values = decode(row)
                self._keys[tuple(id(values[n]) for n in names)] = index
        try:
            key = tuple(id(params[name]) for name in names)
        except KeyError:
            return None
        return self._keys.get(key)


def _parametrized_names(metafunc: pytest.Metafunc) -> set[str]:
    names: set[str] = set()
    for mark in metafunc.definition.iter_markers("parametrize"):
        argnames = mark.args[0] if mark.args else mark.kwargs.get("argnames", ())
        if isinstance(argnames, str):
            names.update(n.strip() for n in argnames.split(",") if n.strip())
        else:
            names.update(str(n) for n in argnames)
    return names


def _signature_info(metafunc: pytest.Metafunc) -> tuple[list[str], set[str]]:
    """(argument names shown in messages, names that have a default value)."""
    try:
        params = list(inspect.signature(metafunc.function).parameters.values())
    except (TypeError, ValueError):
        return [], set()
    if metafunc.cls is not None and params and params[0].name in ("self", "cls"):
        params = params[1:]
    shown = [p.name for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    defaults = {p.name for p in params if p.default is not p.empty}
    return shown, defaults


def _given_names(metafunc: pytest.Metafunc) -> set[str]:
    """Arguments a Hypothesis ``@given`` draws (they vanish from the test's
    signature, so pytest cannot parametrize them).  No Hypothesis import: the
    handle ``@given`` attaches is read duck-typed."""
    inner = getattr(getattr(metafunc.function, "hypothesis", None), "inner_test", None)
    if inner is None:
        return set()
    try:
        outer = set(inspect.signature(metafunc.function).parameters)
        return set(inspect.signature(inner).parameters) - outer
    except (TypeError, ValueError):
        return set()


def _spec_of(mark: Any, nodeid: str) -> PairwiseSpec:
    spec = mark.args[0] if mark.args else None
    if not isinstance(spec, PairwiseSpec) or len(mark.args) != 1 or mark.kwargs:
        raise InvalidArgument(
            "the 'pairwise' mark takes one PairwiseSpec; apply it with @pairwise(...) from "
            "pairwise_param, not @pytest.mark.pairwise(...)",
            where=nodeid,
        )
    return spec


class _Names:
    """Checks the argument names of a test's tables against the test itself."""

    def __init__(self, metafunc: pytest.Metafunc) -> None:
        self.metafunc = metafunc
        self.nodeid = metafunc.definition.nodeid
        self.elsewhere = _parametrized_names(metafunc)
        self.seen: set[str] = set()

    @property
    def shown(self) -> list[str]:
        """The test's argument names, for messages (read only when one is raised)."""
        return _signature_info(self.metafunc)[0]

    @property
    def defaults(self) -> set[str]:
        """The test's arguments with a default value (read only when one is missing)."""
        return _signature_info(self.metafunc)[1]

    def check(self, spec: PairwiseSpec) -> None:
        for name in spec.argnames:
            self._check_one(spec, name)
            self.seen.add(name)
        for name in spec.derived or {}:
            if name in self.seen or name in self.elsewhere:
                raise AxisCollision(
                    f"derived value {name!r} of @pairwise is also an axis or parametrized elsewhere; "
                    "give it in one place only",
                    where=self.nodeid,
                )
            if name not in self.metafunc.fixturenames:
                args = ", ".join(self.shown) if self.shown else "none"
                raise AxisCollision(
                    f"derived value {name!r} of @pairwise is not an argument of the test (its "
                    f"arguments: {args}); add {name!r} to the signature",
                    where=self.nodeid,
                )
            self.seen.add(name)

    def _check_one(self, spec: PairwiseSpec, name: str) -> None:
        metafunc, nodeid = self.metafunc, self.nodeid
        if name in self.seen:
            raise AxisCollision(
                f"argument {name!r} is an axis of two @pairwise tables on this test; "
                "each argument may belong to one table only (merge them into one @pairwise)",
                where=nodeid,
            )
        if name in self.elsewhere:
            raise AxisCollision(
                f"axis {name!r} of @pairwise is also parametrized by @pytest.mark.parametrize; "
                "give it in one place only (an axis of the table, or a parametrize of its own)",
                where=nodeid,
            )
        indirect = spec.indirect is True or (not isinstance(spec.indirect, bool) and name in spec.indirect)
        known = getattr(metafunc, "_arg2fixturedefs", None)
        if indirect and name in metafunc.fixturenames and isinstance(known, dict) and name not in known:
            # pytest would only fail at set-up, once per item: "fixture 'x' not found"
            raise AxisCollision(
                f"axis {name!r} of @pairwise is indirect, but there is no fixture {name!r} to receive "
                "its values as request.param; define the fixture, or leave the axis out of "
                "indirect= to pass its values directly",
                where=nodeid,
            )
        if name not in metafunc.fixturenames:
            raise AxisCollision(f"axis {name!r} of @pairwise {self._why_missing(name, indirect)}", where=nodeid)

    def _why_missing(self, name: str, indirect: bool) -> str:
        if name in self.defaults:
            return "has a default value (pytest cannot pass it); remove the default"
        if indirect:
            return (
                f"is indirect, but the test uses no fixture {name!r}; request the fixture "
                "(argument or usefixtures) or drop it from indirect="
            )
        if name in _given_names(self.metafunc):
            return (
                "is also an argument of @given (Hypothesis draws it, so pytest cannot pass it); "
                "give it in one place only: an axis of the table, or a strategy of @given"
            )
        args = ", ".join(self.shown) if self.shown else "none"
        return (
            f"is not an argument of the test (its arguments: {args}); add {name!r} "
            "to the signature, or make it a fixture and list it in indirect="
        )


def _id_style(spec: PairwiseSpec, settings: modes.Settings) -> str:
    """The test's own ``ids="readable"|"pytest"`` wins over the run's setting."""
    return spec.ids if isinstance(spec.ids, str) else settings.ids


def _derived_calls(spec: PairwiseSpec) -> list[tuple[str, Any, list[str] | None]]:
    """(name, function, the axis names it takes -- None: all of them, ``**kwargs``)
    for each derived value: read from the signatures once per table, not per row."""
    import inspect

    calls: list[tuple[str, Any, list[str] | None]] = []
    for name, fn in (spec.derived or {}).items():
        params = inspect.signature(fn).parameters.values()
        if any(p.kind is p.VAR_KEYWORD for p in params):
            calls.append((name, fn, None))
        else:
            calls.append((name, fn, [p.name for p in params if p.kind is not p.POSITIONAL_ONLY]))
    return calls


def _derived(
    calls: list[tuple[str, Any, list[str] | None]], values: dict[str, Any], nodeid: str
) -> tuple[Any, ...]:
    """The row's derived values, each function called with the axis values it names."""
    out = []
    for name, fn, takes in calls:
        kwargs = dict(values) if takes is None else {n: values[n] for n in takes if n in values}
        try:
            out.append(fn(**kwargs))
        except Exception as exc:  # noqa: BLE001 - a user's function may raise anything
            row = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
            raise InvalidArgument(f"derived[{name!r}] raised {exc!r} for the row {{{row}}}", where=nodeid) from None
    return tuple(out)


def _params(
    spec: PairwiseSpec, model: Model, rows: tuple[tuple[int, ...], ...], cases: list[Any], nodeid: str, style: str,
    row_mark: bool,
) -> list[Any]:
    """One ``pytest.param`` per row, with its id and the marks of its values (and,
    on a row holding an invalid value, the ``pairwise_invalid`` mark; with
    ``row_mark``, the one-row ``parametrize`` mark of :func:`_as_parametrized`)."""
    # values given as pytest.param(value, marks=..., id=...): model axes are in spec order
    extra = [spec.value_params.get(name, {}) for name in spec.axes]
    try:
        ids = row_ids(
            [(a.names, a.values) for a in model.axes], rows, spec.ids, style, value_param_ids(extra)
        )
    except Exception as exc:  # noqa: BLE001 - a user's id function may raise anything
        raise InvalidArgument(f"an ids= function of @pairwise raised {exc!r}", where=nodeid) from None
    argnames = (*spec.argnames, *(spec.derived or {}))
    invalid_mark = getattr(pytest.mark, INVALID_MARK)
    calls = _derived_calls(spec)
    names = list(argnames)
    parametrize: Any = pytest.mark.parametrize  # looked up once per table, not per row
    marked = any(extra) or any(case is not None for case in cases)
    params = []
    axis_names = spec.argnames
    for row, rid, case in zip(rows, ids, cases):
        values = model.decode(row)
        axis_args = tuple(values[n] for n in axis_names)
        args = axis_args + _derived(calls, values, nodeid) if calls else axis_args
        if not (marked or row_mark):
            params.append(pytest.param(*args, id=rid))
            continue
        row_marks = [m for a, v in enumerate(row) if v in extra[a] for m in extra[a][v][0]]
        if case is not None:
            row_marks.append(invalid_mark(axis=case.axis, value=case.value, reason=case.reason))
        if row_mark:
            row_marks.append(_as_parametrized(parametrize, names, args, rid))
        params.append(pytest.param(*args, id=rid, marks=row_marks))
    return params


def _empty_axes(spec: PairwiseSpec) -> list[str]:
    return [str(name) for name, values in spec.axes.items() if isinstance(values, tuple) and not values]


def _empty_plan(
    specs: list[PairwiseSpec], settings: modes.Settings, nodeid: str
) -> list[Plan] | None:
    """An empty axis (a platform-dependent list such as the fp8 dtypes here): ``None``
    when there is none; else, under ``skip``, ONE empty ``parametrize`` over every
    argument of the test's tables, so pytest treats the test as ``parametrize(...,
    [])`` (its ``empty_parameter_set_mark`` decides: skip, xfail or fail_at_collect),
    the empty axes named first; under ``error``, a collection error."""
    empty = [name for spec in specs for name in _empty_axes(spec)]
    if not empty:
        return None
    if settings.empty_axis == "error":
        raise EmptyAxis(
            f"axis {', '.join(map(repr, empty))} of @pairwise has no values (pairwise_empty_axis = "
            "error); give at least one value, or set pairwise_empty_axis = skip to skip the test "
            "as parametrize(..., []) does",
            where=nodeid,
        )
    first = [n.strip() for name in empty for n in name.split(",")]
    names = list(dict.fromkeys([*first, *(n for spec in specs for n in (*spec.argnames, *(spec.derived or {})))]))
    indirect = [n for spec in specs for n in spec.argnames if spec.indirect is True or (
        not isinstance(spec.indirect, bool) and n in spec.indirect)]
    return [(names, [], indirect)]


def _driven_by_hypothesis(metafunc: pytest.Metafunc) -> bool:
    """Whether the test is a Hypothesis ``@given`` test (the handle ``@given``
    attaches, read duck-typed: no Hypothesis import)."""
    return getattr(metafunc.function, "hypothesis", None) is not None


def _as_parametrized(parametrize: Any, argnames: list[str], args: tuple[Any, ...], rid: str) -> Any:
    """A ``parametrize`` mark describing this one row, put on its item only, on the
    items of a ``@given`` test.

    Our rows come from ``metafunc.parametrize``, which leaves no mark.  Hypothesis's
    plugin keys the example database by the item's node id, and allows a class
    method to run on several instances (``differing_executors``), only for items
    that carry a ``parametrize`` mark: without it every row of a ``@pairwise`` +
    ``@given`` test shared one database key (one row's saved failure was deleted
    by the next row) and a method failed the health check.  Other tests' items go
    without it: 25,290 of these marks cost 0.8 s of CPU in a 2000-table collection
    (the allocations and the garbage collector's passes over them), and nothing
    else needs them (the plugin finds an item's row with :meth:`Record.row_of`).
    The mark is applied after parametrization (per-param marks go to the item,
    never to the function), so pytest does not expand it again; it carries
    :data:`~pairwise_param.contract.ROW_MARK_FLAG` so the suite report can tell it
    from the user's own ``parametrize`` marks.
    ``parametrize`` is ``pytest.mark.parametrize`` (typed ``Any``: ours is a flag keyword).
    """
    return parametrize(list(argnames), [pytest.param(*args, id=rid)], **{ROW_MARK_FLAG: True})


def expand(
    metafunc: pytest.Metafunc,
    marks: list[Any],
    settings: modes.Settings,
    tables: TableCache,
    extra: dict[str, list[dict[str, Any]]] | None = None,
    rows_for: Any = None,
) -> tuple[list[Plan], list[Record], list[str]]:
    """The parametrize plans of a test's ``pairwise`` marks, what each produced, and the
    names of its empty axes (then there is one empty plan and no record: the table is a
    hole, which the run file lists).
    ``extra`` (``--pairwise-extra-rows``: test -> follow-up requests of
    :mod:`pairwise_param.runs.localize`) replaces a table's rows by the rows asked for;
    ``rows_for`` (``--pairwise-rotate`` / ``--pairwise-replay``: an object of
    :mod:`pairwise_param.plugin.rotation`) picks the rows a cover table runs this time.
    Raises a :class:`~pairwise_param.errors.PairwiseError` naming the test."""
    nodeid = metafunc.definition.nodeid
    if settings.env_error:
        raise InvalidArgument(settings.env_error, where=nodeid)
    names = _Names(metafunc)
    specs = [_spec_of(mark, nodeid) for mark in marks]
    for spec in specs:
        names.check(spec)
    empty = _empty_plan(specs, settings, nodeid)
    if empty is not None:
        return empty, [], [name for spec in specs for name in _empty_axes(spec)]
    with _warnings_at_the_test(metafunc):
        return _expand(metafunc, specs, nodeid, settings, tables, extra, rows_for)


@contextlib.contextmanager
def _warnings_at_the_test(metafunc: pytest.Metafunc) -> Iterator[None]:
    """A :class:`PairwiseWarning` raised while a test's tables are built (a constraint
    that never holds, ...) is reported at the test's own line, where the user can act on
    it, not at the library line that raised it (warnings are grouped by location)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PairwiseWarning)
        yield
    code = getattr(inspect.unwrap(metafunc.function), "__code__", None)
    for w in caught:
        if issubclass(w.category, PairwiseWarning) and code is not None:
            warnings.warn_explicit(w.message, w.category, code.co_filename, code.co_firstlineno)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def _expand(
    metafunc: pytest.Metafunc,
    specs: list[PairwiseSpec],
    nodeid: str,
    settings: modes.Settings,
    tables: TableCache,
    extra: dict[str, list[dict[str, Any]]] | None,
    rows_for: Any,
) -> tuple[list[Plan], list[Record], list[str]]:
    plans: list[Plan] = []
    records: list[Record] = []
    row_mark = _driven_by_hypothesis(metafunc)
    for index, spec in enumerate(specs):
        mode, strength = modes.effective(settings, spec.mode, spec.strength, len(spec.axes))
        asked = [r for r in (extra or {}).get(nodeid, []) if r.get("table", 0) == index]
        original: Model | None = None
        absent: tuple[Any, ...] = ()
        if spec.invalid:
            rows, cases, table, model, negative = _with_invalid(spec, nodeid, mode, strength, tables)
        else:
            model, original, absent = model_for(spec, nodeid, strength, mode)
            table = tables.get(model, mode, spec.effort, spec.seed)
            if rows_for is not None:
                table = rows_for.table_for(nodeid, index, model, table, mode=mode, key=original)
            shapes: list[set[str]] = []
            if asked:
                table, shapes = _follow_up(model, table, asked)
            elif _id_style(spec, settings) == "stacked" and exhaustive(mode):
                # the order stacked parametrize decorators give the product (tables/ids.py)
                table = replace(table, rows=tuple(table.rows[i] for i in stacked_order(table.rows)))
            rows, cases, negative = table.rows, [None] * len(table.rows), ""
        params = _params(spec, model, rows, cases, nodeid, _id_style(spec, settings), row_mark)
        wanted: dict[str, set[str]] | None = None
        if asked:
            wanted = {str(p.id): shape for p, shape in zip(params, shapes)}
        argnames = [*spec.argnames, *(spec.derived or {})]
        # derived values go to the test directly, never through a fixture
        indirect = list(spec.argnames) if spec.indirect is True and spec.derived else spec.indirect
        plans.append((argnames, params, indirect))
        forbidden, lost = split_infeasible(original, table.infeasible)
        full_count = table.full if original is None else feasible_count(original)
        records.append(
            Record(
                rows=len(table.rows),
                full=full_count.value,
                full_exact=full_count.exact,
                strength=model.strength,
                mode=mode,
                infeasible=model.describe_tuples(forbidden) if forbidden else "",
                n_infeasible=len(forbidden),
                invalid_rows=len(rows) - len(table.rows),
                invalid_infeasible=negative,
                wanted=wanted,
                absent=absent,
                absent_text=model.describe_tuples(lost) if lost else "",
                absent_tuples=tuple(lost),
                model=None if spec.invalid else model,
                table=table,
                ids=tuple(str(p.id) for p in params),
                argnames=tuple(argnames),
                n_axes=len(spec.argnames),
                decoder=model,
                rows_run=tuple(rows),
            )
        )
    return plans, records, []


def _follow_up(model: Model, table: Table, asked: list[dict[str, Any]]) -> tuple[Table, list[set[str]]]:
    """The table of follow-up rows (:func:`pairwise_param.runs.localize.build_row`), in the
    order asked, and the shapes each row is asked for; a request whose row cannot
    be built is dropped (and stays unanswered), a row asked twice (for two shapes)
    is one row."""
    from pairwise_param.runs.localize import build_row

    rows: list[tuple[int, ...]] = []
    shapes: list[set[str]] = []
    for req in asked:
        row = build_row(model, req)
        if row is None:
            continue
        if row not in rows:
            rows.append(row)
            shapes.append(set())
        shapes[rows.index(row)].add(str(req.get("shape", "")))
    return replace(table, rows=tuple(rows), infeasible=()), shapes

def _with_invalid(
    spec: PairwiseSpec, nodeid: str, mode: str, strength: int | None, tables: TableCache
) -> tuple[tuple[tuple[int, ...], ...], list[Any], Table, Model, str]:
    """A table with invalid values: the valid part from the table cache, then the
    negative part (:func:`pairwise_param.tables.build.build_with_invalid`).
    Returns (rows, case per row, the valid table in full indices, the full model,
    the forbidden (invalid, valid) pairs described)."""
    split = spec.split(nodeid, strength=strength)
    valid = tables.get(split.valid, mode, spec.effort, spec.seed)
    built = build_with_invalid(split, valid, mode, engine_options(spec.effort, spec.seed, nodeid))
    cases = [None if k is None else split.case(k) for k in built.cases]
    forbidden = built.negative_infeasible
    text = split.full.describe_tuples(forbidden) if forbidden else ""
    return built.rows, cases, built.valid, split.full, text
