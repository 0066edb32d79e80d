"""What a pytest suite covers: the per-test analysis (no printing).

:func:`analyze` takes the :class:`~pairwise_param.report.collect.Collection`
that :func:`~pairwise_param.report.collect.collect` recorded, groups the items by test function and measures, with
:mod:`pairwise_param.coverage`, the t-way coverage of each test's *option
tables* over the rows that were actually collected.  Rendering lives in
:mod:`pairwise_param.report.render`.

Which axes form an option table (the rule, also in ``docs/cli.md``):

1. ``@pairwise`` tests: the axes of each ``pairwise`` mark form one table
   (its model, constraints included); every other parametrized name is a
   counted axis.
2. Other tests (an audit of hand-written lists), per ``parametrize`` mark:

   * several names form a *case table* or an *option table*, as
     :func:`pairwise_param.report.classify.classify` decides (expectation
     columns, exceptions, shapes, keys, one-hot rows, the valid combinations
     -> case table); a case table is ONE grouped axis counted by its rows, an
     option table's full product is the product of the distinct values per
     name, and its coverage is measured over the values that appear in the list
     (against the constraints of a ``pairwise_options`` mark when it has them);
   * ``@pytest.mark.pairwise_cases`` / ``@pytest.mark.pairwise_options`` on the
     test, then ``cases`` / ``options`` of ``[tool.pairwise-param.report]``,
     override the rule;
   * a list that repeats a row gets a note (pytest runs the row twice);
   * a single name is one axis counted by its values.

3. Overrides: ``option_axes`` (``--option-axes``) replaces the automatic rule
   for tests without ``@pairwise``: exactly those names (where present) form
   the test's option table, each name one axis; ``grouped``
   (``--grouped``) names marks that are never option tables.  The names of a
   mark that ``option_axes`` does not list ride along with its rows: the full
   product multiplies by the most variants of them one option row has, not by
   all their values (``dtype,bias`` -> 4 rows, each with its ``atol``: FULL 4).

4. In-house helpers (:mod:`pairwise_param.report.helpers`): the axes of flashinfer's
   ``parametrize_product`` or of SGLang's ``get_ci_test_range`` lists form one option
   table whose FULL is the product they stand for (not the rows they run).

Names that no mark explains (fixture ``params``, other
``pytest_generate_tests`` hooks) are counted axes sized by the distinct values
collected.  Full product of a test = product of its tables' full products and
its counted axes' sizes.
"""


from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pairwise_param.coverage.reach import absent_values
from pairwise_param.errors import PairwiseError
from pairwise_param.model import Model
from pairwise_param.report.classify import all_ints, classify, duplicate_rows, key_column
from pairwise_param.report.collect import AuditMark, CollectedItem, Collection, CollectionError, MarkInfo
from pairwise_param.report.helpers import HelperTable
from pairwise_param.report.types import (
    AxisReport,
    StrengthCoverage,
    SuiteReport,
    TableReport,
    TestReport,
    Variants,
)
from pairwise_param.tables.product import Count, feasible_count
from pairwise_param.values import hashable, value_key, value_label

__all__ = ["analyze", "cumulative_series", "has_key_column", "is_shape_like", "measure_table"]


# -- value handling ---------------------------------------------------------------------------
def _key(value: Any) -> Any:
    """Identity of a value (equal values of different types stay apart), also for
    unhashable values, which :func:`~pairwise_param.values.hashable` stands in for."""
    return value_key(hashable(value))


def _distinct(values: Iterable[Any]) -> list[Any]:
    seen: set[Any] = set()
    out = []
    for v in values:
        k = _key(v)
        if k not in seen:
            seen.add(k)
            out.append(hashable(v))
    return out


def is_shape_like(mark: MarkInfo) -> bool:
    """All values plain ints (not bools): a shape tuple such as ``(n, k, m)``
    (:func:`pairwise_param.report.classify.all_ints`)."""
    return all_ints(mark.rows)


def has_key_column(mark: MarkInfo) -> bool:
    """Fewer than two rows, or some name takes a different value in every row: a list of
    cases, not a covering table (:func:`pairwise_param.report.classify.key_column`)."""
    return len(mark.rows) < 2 or key_column(mark.argnames, mark.rows) is not None


# -- the coverage adapter: the only place that talks to pairwise_param.coverage -----------------
def _labels(combo: Any) -> dict[str, str]:
    """Axis -> value text of a t-tuple; a grouped axis shows each bound name, as its
    test ids do (``n=1, k=64``, not ``n,k=(1, 64)``)."""
    out: dict[str, str] = {}
    for a, v in zip(combo.axes, combo.values):
        parts = [p.strip() for p in a.split(",")]
        if len(parts) > 1 and isinstance(v, tuple) and len(v) == len(parts):
            out.update((p, value_label(x)) for p, x in zip(parts, v))
        else:
            out[a] = value_label(v)
    return out


def measure_table(
    model: Model, rows: Sequence[Mapping[str, Any]], strengths: Sequence[int], *, list_limit: int | None = None,
    absent: Mapping[tuple[int, int], str] | None = None, strict: bool = False,
) -> tuple[list[StrengthCoverage], int, int, StrengthCoverage | None]:
    """Coverage of ``rows`` (argname -> value mappings) against ``model`` at
    each strength (strengths above the number of axes are skipped), the number
    of rows that break a constraint, the number with a cell outside the model,
    and (for models with sub-models) the coverage of the model's own
    interactions.  All the counting is :func:`pairwise_param.coverage.measure`'s.

    ``absent``: (axis, value) -> reason of the values skipped at collection
    (:func:`pairwise_param.coverage.reach.absent_values`): a missing tuple that holds one
    is *not runnable here* (:mod:`pairwise_param.coverage.reach`), out of ``coverable``
    unless ``strict``."""
    from pairwise_param import coverage as cov

    res = cov.measure(model, list(rows), strengths=sorted(set(strengths)))
    absent = absent or {}

    def value_reason(c: Any) -> str | None:
        for a, v in zip(*c.index):
            if (a, v) in absent:
                return f"{model.axes[a].name}={value_label(model.axes[a].values[v])}: {absent[a, v]}"
        return None

    def convert(level: Any, strength: int, label: str | None = None) -> StrengthCoverage:
        gone = [(c, r) for c in level.missing if (r := value_reason(c)) is not None]
        unrunnable = [c for c, _ in gone]
        missing = level.missing if strict else [c for c in level.missing if value_reason(c) is None]
        if list_limit is not None:
            missing = missing[:list_limit]
            unrunnable = unrunnable[:list_limit]
        infeasible = level.infeasible if list_limit is None else level.infeasible[:list_limit]
        return StrengthCoverage(
            strength=strength,
            coverable=level.coverable - (0 if strict else len(gone)),
            covered=level.covered,
            infeasible=len(level.infeasible),
            missing_tuples=[_labels(c) for c in missing],
            infeasible_tuples=[_labels(c) for c in infeasible],
            cumulative=list(level.cumulative),
            label=label,
            unrunnable=len(gone),
            unrunnable_tuples=[_labels(c) for c in unrunnable],
            reasons=list(dict.fromkeys(r for _, r in gone)),
            strict=strict,
        )

    out = [
        convert(level, level.strength)
        for level in res.levels
        if level.applicable and level.strength is not None
    ]
    overall = convert(res.overall, model.strength, res.overall.name) if model.sub_models else None
    violating = len({v.row for v in res.violations})
    outside = len({o.row for o in res.out_of_model})
    return out, violating, outside, overall


# -- grouping -----------------------------------------------------------------------------------
@dataclass
class _Group:
    test_id: str
    path: str
    cls: str | None
    function: str
    items: list[CollectedItem]


def _groups(collection: Collection) -> list[_Group]:
    groups: dict[str, _Group] = {}
    for it in collection.items:
        g = groups.get(it.test_id)
        if g is None:
            g = groups[it.test_id] = _Group(it.test_id, it.path, it.cls, it.function, [])
        g.items.append(it)
    return list(groups.values())


def _split_names(specs: Iterable[str]) -> list[tuple[str, ...]]:
    out = []
    for s in specs:
        names = tuple(n.strip() for n in s.split(",") if n.strip())
        if names:
            out.append(names)
    return out


def _project(items: Sequence[CollectedItem], names: Sequence[str]) -> list[dict[str, Any]]:
    """Distinct rows (in order of first appearance) of ``names`` among the items; an item
    counted from the marks (``static``) stands for the product of its marks' rows, so its
    projection is the product of each mark's distinct projected rows (never the items)."""
    seen: set[Any] = set()
    rows = []
    for it in items:
        parts: list[list[dict[str, Any]]] = [[{n: hashable(it.params[n]) for n in names if n in it.params}]]
        rest = [n for n in names if n not in it.params]
        for info in it.static:
            sub = [n for n in rest if n in info.argnames]
            if sub:
                idx = [info.argnames.index(n) for n in sub]
                parts.append([{n: hashable(r[i]) for n, i in zip(sub, idx)}
                              for r in _distinct_rows(info.rows, idx, len(info.argnames))])
                rest = [n for n in rest if n not in sub]
        if rest:
            continue
        for combo in itertools.product(*parts):
            row = {k: v for part in combo for k, v in part.items()}
            k = tuple(_key(row[n]) for n in names)
            if k not in seen:
                seen.add(k)
                rows.append({n: row[n] for n in names})
    return rows


def _distinct_rows(rows: Sequence[Sequence[Any]], idx: Sequence[int], n: int) -> list[Sequence[Any]]:
    """The rows of a mark, one per distinct projection on the columns ``idx``."""
    seen: set[Any] = set()
    out = []
    for r in rows:
        if len(r) != n:
            continue
        k = tuple(_key(r[i]) for i in idx)
        if k not in seen:
            seen.add(k)
            out.append(r)
    return out


def analyze(
    collection: Collection,
    *,
    strengths: Sequence[int] = (2, 3),
    option_axes: Sequence[str] | None = None,
    grouped: Sequence[str] = (),
    cases: Sequence[str] = (),
    options: Sequence[str] = (),
    list_limit: int | None = None,
    fail_under: float | None = None,
    include_unparametrized: bool = False,
    on_test: Callable[[int, int], None] | None = None,
    strict_platform: bool = False,
    gate_strengths: Sequence[int] | None = None,
) -> SuiteReport:
    """Turn a :class:`Collection` into a :class:`SuiteReport` (see the module
    docstring for the option-axis rule)."""
    forced: set[str] | None = None
    if option_axes:
        forced = {n for spec in _split_names(option_axes) for n in spec}
    grouped_sets = [frozenset(g) for g in _split_names(grouped)]
    configured = [AuditMark("case", tuple(frozenset(c) for c in _split_names([spec]))) for spec in cases]
    configured += [AuditMark("option", tuple(frozenset(c) for c in _split_names([spec]))) for spec in options]
    errors = list(collection.errors)
    tests: list[TestReport] = []
    unparametrized = 0
    groups = _groups(collection)
    # tests whose numbers an explanation shown first makes meaningless (no plugin, unittest)
    hidden = {t for e in collection.errors if e.first for t in e.tests}
    for i, g in enumerate(groups):
        if on_test is not None:
            on_test(i + 1, len(groups))
        if g.test_id in hidden:
            continue
        if not any(it.params or it.static for it in g.items) and not collection.marks.get(g.test_id, ([], []))[1]:
            unparametrized += 1
            if not include_unparametrized:
                continue
        try:
            tests.append(
                _analyze_group(g, collection, strengths, forced, grouped_sets, list_limit,
                               collection.audit_marks.get(g.test_id, []) + configured, strict_platform)
            )
        except PairwiseError as exc:  # a model the report cannot rebuild: say which test
            errors.append(CollectionError(g.test_id, f"cannot analyze: {type(exc).__name__}: {exc}"))
    return SuiteReport(
        tests=tests,
        errors=errors,
        strengths=tuple(strengths),
        unparametrized=unparametrized,
        collected_items=sum(it.weight for it in collection.items),
        fail_under=fail_under,
        seconds=collection.seconds,
        strict_platform=strict_platform,
        gate_strengths=None if gate_strengths is None else tuple(gate_strengths),
    )


@dataclass
class _Layout:
    """What the analysis of one test has found so far (filled step by step)."""

    axes: list[AxisReport] = field(default_factory=list)
    tables: list[TableReport] = field(default_factory=list)
    explained: set[str] = field(default_factory=set)
    pending_option: list[tuple[str, list[Any]]] = field(default_factory=list)
    tied: dict[int, int] = field(default_factory=dict)  # axis index -> its factor in FULL
    notes: list[str] = field(default_factory=list)
    stacked: list[tuple[str, list[Any]]] = field(default_factory=list)  # single-name axes, distinct values
    order: list[str | None] = field(default_factory=list)  # parametrize marks top-down: stacked name or None
    case_tables: int = 0  # multi-name lists taken as case tables
    by_rows: dict[int, int] = field(default_factory=dict)  # table index -> its rows, its factor in FULL

    def add_table(self, table: TableReport, axes: Iterable[tuple[str, int]], source: str) -> None:
        idx = len(self.tables)
        self.tables.append(table)
        self.axes.extend(AxisReport(name, "option", size, source, idx) for name, size in axes)


def _pairwise_tables(layout: _Layout, g: _Group, specs: Sequence[Any], strengths: Sequence[int],
                     list_limit: int | None, strict: bool = False) -> None:
    """Step 1: each ``@pairwise`` mark is one table, from the spec's own model."""
    for spec in specs:
        # derived= values are functions of the table's axes: explained by it, never axes
        layout.explained.update(getattr(spec, "derived", None) or ())
        empty = [str(n) for n, v in getattr(spec, "axes", {}).items() if isinstance(v, tuple) and not v]
        if empty:  # the plugin made the test one item treated as parametrize(..., []): a hole
            layout.explained.update(getattr(spec, "argnames", ()))
            layout.notes.append(
                f"@pairwise axis {', '.join(map(repr, empty))} is empty: the table has no row (pytest "
                "skips the test, as parametrize(..., []) is)"
            )
            names = tuple(str(n) for n in spec.axes)
            sizes = tuple(len(v) if isinstance(v, tuple) else 0 for v in spec.axes.values())
            hole = TableReport("pairwise", names, sizes, 0, 0, 0, [], empty_axes=tuple(empty))
            layout.add_table(hole, list(zip(names, sizes)), "pairwise")
            continue
        model = spec.model(g.test_id) if hasattr(spec, "model") else spec
        if not isinstance(model, Model):
            raise TypeError(f"pairwise mark holds {spec!r}, not a spec with .model()")
        argnames = model.argnames
        layout.explained.update(argnames)
        # the negative part (rows holding one invalid value) is counted apart: the
        # coverage is the valid part's, against the model of the valid values
        rows = _project([it for it in g.items if not it.invalid], argnames)
        invalid_rows = len(_project([it for it in g.items if it.invalid], argnames))
        values = getattr(spec, "value_params", None)
        absent = absent_values(spec.axes, values) if values else {}
        coverage, violating, outside, overall = measure_table(
            model, rows, strengths, list_limit=list_limit, absent=absent, strict=strict
        )
        # the full product a @pairwise table stands for is what full mode runs: the rows
        # no constraint forbids (the plugin's summary line counts the same)
        count = feasible_count(model)
        table = TableReport(
            "pairwise", model.names, model.sizes, count.value, len(rows), violating, coverage,
            outside, overall, model, invalid_rows, count.exact,
            variants=_variants(spec, model, rows, g.test_id) if model.compile_axes else None,
        )
        layout.add_table(table, [(a.name, len(a)) for a in model.axes], "pairwise")


def _variants(spec: Any, model: Model, rows: Sequence[dict[str, Any]], where: str) -> Variants:
    """The kernel variants of a compile-aware table: among the collected rows, in the plain
    table of the same model (``compile_axes`` left out) and in the full product (the
    combinations of the compile axes some valid row holds)."""
    import dataclasses

    from pairwise_param.compile_key import row_variant
    from pairwise_param.tables.build import build_table

    im = model.index_model
    names = [n for a in model.compile_axes for n in model.axes[a].names]
    seen = {tuple(hashable(r.get(n)) for n in names): r for r in rows}
    collected = len({row_variant(model, r) for r in seen.values()}) if im.compile_classes else len(seen)
    plain_model = dataclasses.replace(spec, compile_axes=(), compile_key=None).model(where)
    plain = len({im.variant(r) for r in build_table(plain_model).rows})
    full_variants: set[tuple[int, ...]] = set()
    for combo in itertools.product(*(range(len(model.axes[a])) for a in model.compile_axes)):
        cells: list[int | None] = [None] * len(model.axes)
        for a, v in zip(model.compile_axes, combo):
            cells[a] = v
        if model.feasibility.violates(cells) is None and model.feasibility.completable(cells):
            full_variants.add(im.variant(cells))
    return Variants(collected, plain, len(full_variants))


def _parametrize_mark(layout: _Layout, g: _Group, mark: MarkInfo, strengths: Sequence[int],
                      forced: set[str] | None, grouped_sets: list[frozenset[str]],
                      list_limit: int | None, audit: Sequence[AuditMark] = ()) -> None:
    """Step 2, one ``parametrize`` mark: an axis, a grouped axis, or an option table."""
    names = [n for n in mark.argnames if n not in layout.explained]
    if not names:
        return
    layout.explained.update(names)
    if not mark.rows:  # parametrize with an empty list: pytest collects one skipped item
        layout.axes.append(AxisReport(",".join(names), "grouped" if len(names) > 1 else "axis", 0, "parametrize"))
        return
    cols = {n: [row[mark.argnames.index(n)] for row in mark.rows if len(row) == len(mark.argnames)]
            for n in names}
    if forced is not None:
        opt = [n for n in names if n in forced]
        rest = [n for n in names if n not in forced]
        for n in opt:
            layout.pending_option.append((n, _distinct(cols[n])))
        if rest:
            if len(rest) == len(mark.argnames):
                size = len(mark.rows)
            else:
                size = len(_distinct(tuple(row[mark.argnames.index(n)] for n in rest) for row in mark.rows))
            kind = "grouped" if len(rest) > 1 else "axis"
            if opt:
                # the rest rides along with the rows of the option names: FULL multiplies by the
                # most rest variants one option row has, not by all the rest's values
                variants: dict[Any, set[Any]] = {}
                for row in mark.rows:
                    if len(row) == len(mark.argnames):
                        o = tuple(_key(row[mark.argnames.index(n)]) for n in opt)
                        variants.setdefault(o, set()).add(tuple(_key(row[mark.argnames.index(n)]) for n in rest))
                layout.tied[len(layout.axes)] = max((len(v) for v in variants.values()), default=1)
                layout.notes.append(
                    f"{','.join(rest)} rides along with the rows of {','.join(opt)} (FULL counts its variants per row)"
                )
            layout.axes.append(AxisReport(",".join(rest), kind, size, "parametrize"))
        return
    if len(names) == 1:
        layout.axes.append(AxisReport(names[0], "axis", len(mark.rows), "parametrize"))
        values = _distinct(row[0] for row in mark.rows if len(row) == 1)
        if len(values) == len(mark.rows):
            # which of them are options: report/whatif.axis_kind (the rule convert shares)
            layout.stacked.append((names[0], values))
        return
    label = ",".join(names)
    dups = duplicate_rows(mark.rows)
    if dups:
        shown = ", ".join(str(i) for i in dups[:5]) + (f" (+{len(dups) - 5} more)" if len(dups) > 5 else "")
        layout.notes.append(f"{label}: row{'s' if len(dups) > 1 else ''} {shown} repeat an earlier row")
    said = next((a for a in audit if a.applies(mark.argnames)), None)
    grouped = frozenset(names) in grouped_sets or frozenset(mark.argnames) in grouped_sets
    uncertain = ""
    if said is None and not grouped:
        verdict = classify(mark.argnames, mark.rows, ids=mark.ids)
        if verdict.is_case:
            layout.notes.append(f"{label}: case table ({verdict.reason})")
        elif verdict.kind == "uncertain":
            uncertain = verdict.reason
            layout.notes.append(
                f"{label}: uncertain table ({verdict.reason}): coverage shown, not in the totals nor "
                "--fail-under; @pytest.mark.pairwise_options audits it, pairwise_cases silences it"
            )
    if grouped or (said is not None and said.kind == "case") or (said is None and verdict.is_case):
        layout.case_tables += 1
        layout.axes.append(AxisReport(label, "grouped", len(mark.rows), "parametrize"))
        return
    # an option table written by hand: measure it over the values that appear
    table_axes = [(n, _distinct(cols[n])) for n in names]
    constraints = said.constraints if said is not None else ()
    table = _audit_table("parametrize", table_axes, g, strengths, list_limit, constraints)
    if uncertain:
        table.verdict, table.verdict_reason = "uncertain", uncertain
        # FULL counts an uncertain list by its rows, as a case table: its product is no promise
        layout.by_rows[len(layout.tables)] = len(mark.rows)
    layout.add_table(table, [(n, len(v)) for n, v in table_axes], "parametrize")


def _helper_table(layout: _Layout, g: _Group, helper: HelperTable, strengths: Sequence[int],
                  list_limit: int | None) -> None:
    """Step 1b: an in-house helper's axes (:mod:`pairwise_param.report.helpers`) are one
    option table: FULL is the product they stand for, the rows that ran are audited."""
    names = helper.argnames
    layout.explained.update(names)
    model = Model(helper.axes(), strength=min(2, len(helper.groups)), constraints=helper.constraints(),
                  where=g.test_id)
    rows = _project(g.items, names)
    coverage, violating, outside, _ = measure_table(model, rows, strengths, list_limit=list_limit)
    table = TableReport(helper.helper, model.names, model.sizes, helper.full, len(rows), violating, coverage,
                        outside, None, model)
    layout.add_table(table, [(a.name, len(a)) for a in model.axes], "parametrize")
    layout.notes.append(
        f"{helper.helper}: the rows it runs by default ({helper.regular}) audited against the full "
        f"product it stands for ({helper.full})"
    )


def _observed_axes(layout: _Layout, g: _Group, strengths: Sequence[int], forced: set[str] | None,
                   list_limit: int | None) -> None:
    """Step 3: names no mark explains (fixture params, other generate_tests hooks), and the
    ``--option-axes`` table gathered on the way."""
    observed: dict[str, list[Any]] = {}
    for it in g.items:
        for n, v in it.params.items():
            if n not in layout.explained:
                observed.setdefault(n, []).append(v)
    for n, vals in observed.items():
        distinct = _distinct(vals)
        if forced is not None and n in forced:
            layout.pending_option.append((n, distinct))
        else:
            layout.axes.append(AxisReport(n, "axis", len(distinct), "observed"))
    if forced is not None and layout.pending_option:
        pending = layout.pending_option
        table = _audit_table("option-axes", pending, g, strengths, list_limit)
        layout.add_table(table, [(n, len(v)) for n, v in pending], "parametrize")


def _analyze_group(
    g: _Group,
    collection: Collection,
    strengths: Sequence[int],
    forced: set[str] | None,
    grouped_sets: list[frozenset[str]],
    list_limit: int | None,
    audit: Sequence[AuditMark] = (),
    strict: bool = False,
) -> TestReport:
    marks, specs = collection.marks.get(g.test_id, ([], []))
    layout = _Layout()
    _pairwise_tables(layout, g, specs, strengths, list_limit, strict)
    helper = collection.helpers.get(g.test_id)
    if helper is not None and not specs:
        _helper_table(layout, g, helper, strengths, list_limit)
    # parametrize marks: outermost decorator last in iter_markers order, so reverse to read
    # them top-down as written
    for mark in reversed(marks):
        before = len(layout.stacked)
        _parametrize_mark(layout, g, mark, strengths, forced, grouped_sets, list_limit, audit)
        # the marks top-down: a stacked axis by name, None for any other (what convert may move)
        layout.order.append(layout.stacked[-1][0] if len(layout.stacked) > before else None)
    _observed_axes(layout, g, strengths, forced, list_limit)
    full = 1
    for i, t in enumerate(layout.tables):
        full *= layout.by_rows.get(i, t.full_product)
    for i, a in enumerate(layout.axes):
        if a.kind != "option":
            full *= layout.tied.get(i, a.size)
    notes = list(layout.notes)
    with_pairwise = None
    if not specs and forced is None:
        from pairwise_param.report.whatif import with_pairwise as what_if

        with_pairwise = what_if(layout.stacked, full, layout.order)
    if any(len(t.axes) < min(strengths, default=2) for t in layout.tables):
        notes.append("a table has fewer axes than the strength measured")
    return TestReport(
        g.test_id, g.path, g.cls, g.function, layout.axes, layout.tables, full,
        sum(it.weight for it in g.items), notes, with_pairwise,
        layout.case_tables,
    )


def _audit_table(
    source: str,
    table_axes: list[tuple[str, list[Any]]],
    g: _Group,
    strengths: Sequence[int],
    list_limit: int | None,
    constraints: Sequence[Any] = (),
) -> TableReport:
    names = [n for n, _ in table_axes]
    # the values that appear, in order of appearance (hashable stand-ins for lists & co.);
    # constraints (a pairwise_options mark's) make "the valid combinations only" auditable
    model = Model(table_axes, strength=min(2, len(table_axes)), constraints=list(constraints), where=g.test_id)
    rows = _project(g.items, names)
    coverage, violating, outside, _ = measure_table(model, rows, strengths, list_limit=list_limit)
    full = feasible_count(model) if constraints else Count(model.full_product)
    return TableReport(
        source, model.names, model.sizes, full.value, len(rows), violating, coverage, outside, None, model,
        full_exact=full.exact,
    )


def cumulative_series(
    tables: Sequence[TableReport], strength: int
) -> tuple[list[int], list[float]] | None:
    """x = rows, y = percent covered after that many rows, over ``tables`` in
    order (their coverable tuples summed); None if no table has ``strength``."""
    parts = [(t, c) for t in tables if (c := t.at(strength)) is not None]
    if not parts:
        return None
    total = sum(c.coverable for _, c in parts)
    xs = [0]
    ys = [0.0 if total else 100.0]
    done = 0
    n = 0
    for _, c in parts:
        for covered in c.cumulative:
            n += 1
            xs.append(n)
            ys.append(100.0 if total == 0 else 100.0 * (done + covered) / total)
        done += c.covered
    return xs, ys

