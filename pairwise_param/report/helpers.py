"""Reading the in-house reduced-CI helpers a suite already uses, so the report shows the
full product they stand for and audits the rows they run.

Two helpers are read, each where it can be read without running a test:

* flashinfer's ``parametrize_product(argnames, axes, *, regular=..., ids=None)``
  (``tests/test_helpers/parametrize.py``; also its mapping form
  ``parametrize_product({"a": [...], "b,c": [...]}, regular=pairwise_product_cases)``):
  the decorator evaluates its arguments and leaves a spec on the function
  (``_flashinfer_product_spec``: ``argname_groups``, ``axes``, ``regular``); its own
  ``pytest_generate_tests`` then parametrizes with NO mark.  The spec is the one true
  reading (the axes are comprehensions, the regular rows often a function of them), so
  :func:`product_spec` reads it from the collected item's function, duck-typed.
* SGLang's ``NAME = get_ci_test_range(full_range, ci_range)`` (``python/sglang/jit_kernel``):
  it returns a plain list, so nothing of it is left at run time.  :func:`ci_ranges`
  reads the module's source with :mod:`ast`, finds the module-level assignments of such
  calls and evaluates both arguments in the module's namespace, replaying first the
  earlier module-level assignments they depend on (``BS_LIST += [...]`` before
  ``BS_LIST = get_ci_test_range(BS_LIST, ...)``); :func:`match_ranges` then finds
  which ``parametrize`` marks hold them (by value: a mark of one name whose list is a
  range, a product of ranges, or a range of whole cases).

Both give :class:`HelperTable`: the axes with their FULL values, what the report audits
as one option table (``report/analyze.py``).  Nothing here imports pytest.
"""

from __future__ import annotations

import ast
import inspect
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pairwise_param.values import value_key

__all__ = ["CiRange", "HelperTable", "ci_ranges", "match_ranges", "product_spec"]

#: the helpers' names, as the report's notes and ``TableReport.source`` name them
PRODUCT_HELPER = "parametrize_product"
CI_RANGE = "get_ci_test_range"
#: the attribute flashinfer's decorator leaves on the test function
_SPEC_ATTR = "_flashinfer_product_spec"


@dataclass(frozen=True)
class HelperTable:
    """The axes a helper stands for: ``groups[i]`` are the argument names axis ``i``
    binds (several: a grouped axis whose values are tuples), ``values[i]`` its FULL
    values; ``allowed``: the FULL rows when the helper lists whole cases (a row not in
    it is not part of FULL, so the table's coverable tuples are those some row holds)."""

    helper: str
    groups: tuple[tuple[str, ...], ...]
    values: tuple[tuple[Any, ...], ...]
    allowed: tuple[tuple[Any, ...], ...] | None = None
    #: what the helper runs by default (its regular / CI rows), for the note
    regular: int = 0

    @property
    def argnames(self) -> tuple[str, ...]:
        return tuple(n for g in self.groups for n in g)

    @property
    def full(self) -> int:
        if self.allowed is not None:
            return len(self.allowed)
        out = 1
        for v in self.values:
            out *= len(v)
        return out

    def axes(self) -> list[tuple[str, list[Any]]]:
        """``(axis name, values)`` for a :class:`~pairwise_param.model.Model`."""
        return [(",".join(g), list(v)) for g, v in zip(self.groups, self.values)]

    def constraints(self) -> list[Any]:
        """The one constraint of a case list: a row must be one of ``allowed``."""
        if self.allowed is None:
            return []
        allowed = {tuple(value_key(x) for x in r) for r in self.allowed}
        names = self.argnames

        def listed(**cells: Any) -> bool:
            return tuple(value_key(cells[n]) for n in names) in allowed

        # the axes it reads, as a signature: the model binds a constraint by its parameters
        param = inspect.Parameter.POSITIONAL_OR_KEYWORD
        listed.__signature__ = inspect.Signature([inspect.Parameter(n, param) for n in names])  # type: ignore[attr-defined]
        listed.__name__ = f"a row of the {CI_RANGE} full list"
        return [listed]


def product_spec(function: Any) -> HelperTable | None:
    """The table flashinfer's ``parametrize_product`` left on ``function`` (None: none)."""
    spec = getattr(function, _SPEC_ATTR, None)
    if spec is None:
        return None
    try:
        axes = tuple(tuple(a) for a in spec.axes)
        groups = getattr(spec, "argname_groups", None)
        groups = tuple(tuple(g) for g in groups) if groups else tuple((n,) for n in spec.argnames)
        regular = len(tuple(spec.regular))
    except (AttributeError, TypeError):
        return None
    if len(groups) != len(axes) or not axes:
        return None
    return HelperTable(PRODUCT_HELPER, groups, axes, None, regular)


@dataclass(frozen=True)
class CiRange:
    """``name = get_ci_test_range(full, ci)`` at module level, both lists evaluated."""

    name: str
    full: tuple[Any, ...]
    ci: tuple[Any, ...]


def _is_ci_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
    return name == CI_RANGE and len(node.args) + len(node.keywords) == 2


def _targets(stmt: ast.stmt) -> list[str]:
    if isinstance(stmt, ast.Assign):
        return [t.id for t in stmt.targets if isinstance(t, ast.Name)]
    if isinstance(stmt, (ast.AugAssign, ast.AnnAssign)) and isinstance(stmt.target, ast.Name):
        return [stmt.target.id]
    return []


def _names(node: ast.AST | None) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} if node is not None else set()


def _call_args(call: ast.Call) -> tuple[ast.expr, ast.expr]:
    args = list(call.args)
    kw = {k.arg: k.value for k in call.keywords}
    full = args[0] if args else kw["full_range"]
    ci = args[1] if len(args) > 1 else kw["ci_range"]
    return full, ci


def ci_ranges(module: Any) -> list[CiRange]:
    """The ``get_ci_test_range`` assignments of ``module`` (an imported module), both
    lists evaluated as the module computed them (see the module docstring); a call
    whose arguments cannot be evaluated is left out."""
    try:
        source = inspect.getsource(module)
    except (OSError, TypeError):
        return []
    if CI_RANGE not in source:
        return []
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return []
    stmts = [s for s in body if _targets(s)]
    calls = [s for s in stmts if isinstance(s, ast.Assign) and len(s.targets) == 1 and _is_ci_call(s.value)]
    if not calls:
        return []
    # the earlier assignments the ranges' arguments depend on (transitively)
    needed: set[str] = set()
    for call in calls:
        needed |= _names(getattr(call, "value", None))
    for stmt in reversed(stmts):
        if set(_targets(stmt)) & needed:
            needed |= _names(getattr(stmt, "value", None))
    namespace = dict(vars(module))
    out: list[CiRange] = []
    for s in stmts:
        target = _targets(s)
        if isinstance(s, ast.Assign) and s in calls and isinstance(s.value, ast.Call):
            try:
                full_expr, ci_expr = _call_args(s.value)
                full = tuple(eval(compile(ast.Expression(full_expr), "<full_range>", "eval"), namespace))
                ci = tuple(eval(compile(ast.Expression(ci_expr), "<ci_range>", "eval"), namespace))
            except Exception:  # noqa: BLE001 - a user's expression may raise anything: not read
                namespace[target[0]] = vars(module).get(target[0])
                continue
            out.append(CiRange(target[0], full, ci))
            namespace[target[0]] = list(ci)  # what CI runs: later ranges built on it see that
        elif set(target) & needed:
            try:
                exec(compile(ast.Module([s], []), "<module>", "exec"), namespace)  # noqa: S102
            except Exception:  # noqa: BLE001,S112 - a failing statement keeps the module's own value
                continue
    return out


def _same(a: Iterable[Any], b: Iterable[Any]) -> bool:
    return [value_key(x) for x in a] == [value_key(x) for x in b]


def _distinct(values: Iterable[Any]) -> list[Any]:
    seen: set[Any] = set()
    out = []
    for v in values:
        k = value_key(v)
        if k not in seen:
            seen.add(k)
            out.append(v)
    return out


def _range_of(values: Sequence[Any], ranges: Sequence[CiRange]) -> CiRange | None:
    return next((r for r in ranges if _same(values, r.ci) or _same(values, r.full)), None)


def match_ranges(
    marks: Sequence[tuple[tuple[str, ...], tuple[tuple[Any, ...], ...]]], ranges: Sequence[CiRange]
) -> HelperTable | None:
    """One table of the ``parametrize`` marks (``(argnames, rows)``, top-down) that hold
    ``get_ci_test_range`` lists: a mark of one name whose list is a range (an axis of
    its FULL values), a mark whose rows are the product of its columns with some column a
    range (each column an axis: a range's FULL values, else its own), or a mark whose
    rows are a range of whole cases (its FULL rows; ``allowed``).  None: no mark does."""
    groups: list[tuple[str, ...]] = []
    values: list[tuple[Any, ...]] = []
    allowed: tuple[tuple[Any, ...], ...] | None = None
    case_cols: list[int] = []
    ran = 1
    for argnames, rows in marks:
        if len(argnames) == 1:
            r = _range_of([row[0] for row in rows], ranges)
            if r is not None:
                groups.append(argnames)
                values.append(tuple(_distinct(r.full)))
                ran *= len(rows)
            continue
        whole = _range_of(rows, ranges)
        if whole is not None and allowed is None and all(
            isinstance(x, (tuple, list)) and len(x) == len(argnames) for x in whole.full
        ):
            full_rows = tuple(tuple(x) for x in whole.full)
            case_cols = list(range(len(groups), len(groups) + len(argnames)))
            for i, n in enumerate(argnames):
                groups.append((n,))
                values.append(tuple(_distinct(x[i] for x in full_rows)))
            allowed = full_rows
            ran *= len(rows)
            continue
        cols = [_distinct(row[i] for row in rows) for i in range(len(argnames))]
        product = list(itertools.product(*cols))
        col_ranges = [_range_of(c, ranges) for c in cols]
        if any(col_ranges) and _same(map(tuple, rows), product):
            for n, c, r in zip(argnames, cols, col_ranges):
                groups.append((n,))
                values.append(tuple(_distinct(r.full)) if r is not None else tuple(c))
            ran *= len(rows)
    if not groups:
        return None
    if allowed is not None and len(case_cols) != len(groups):
        # a case range beside other axes: FULL is its rows times their product
        rest = [i for i in range(len(groups)) if i not in case_cols]
        rows_out = []
        for case in allowed:
            for other in itertools.product(*(values[i] for i in rest)):
                cells = dict(zip(case_cols, case)) | dict(zip(rest, other))
                rows_out.append(tuple(cells[i] for i in range(len(groups))))
        allowed = tuple(rows_out)
    return HelperTable(CI_RANGE, tuple(groups), tuple(values), allowed, ran)
