"""``pairwise-param convert`` for the in-house reduced-CI helpers (issue 37).

* flashinfer's ``@parametrize_product(argnames, axes, *, regular=..., ids=None)`` (and its
  mapping form ``parametrize_product({"a": [...], "b,c": [...]}, regular=...)``) becomes
  ``@pairwise(..., ids="product-index")``: the same axes (a ``"b,c"`` group stays one
  grouped axis), the regular rows replaced by the generated table (``keep_rows``: kept as
  ``include=`` rows, literal rows only), and the ids the helper gives, ``case-{index in
  the full product}``, so ``--pairwise-mode=full`` lists exactly the node ids of the
  helper's ``--full`` (:data:`FULL_FLAG`, which the collection check passes the original).
  A helper call with ``ids=`` (its ids are ``{ids(case)}-case-{index}``) is left, named.
* SGLang's ``NAME = get_ci_test_range(full, ci)`` lists: see
  :func:`ci_range_names`; the axes of a test that are all such names (or their
  ``itertools.product``) become ``@pairwise`` axes of the FULL lists
  (:mod:`pairwise_param.cli.convert` does the decorators, this module the reading).

libcst is passed in (``cst``), never imported here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pairwise_param.cli.convert_write import Axis, code, comments

__all__ = [
    "CI_RANGE",
    "FULL_FLAG",
    "HELPER",
    "CiRanges",
    "ProductCall",
    "ci_ranges",
    "drop_unused_imports",
    "full_value",
    "is_helper",
    "mark_used",
    "product_of_ranges",
    "read_product",
    "split_ranges",
    "used_names",
]

#: the helper's name and its pytest flag for the full product (tests/test_helpers/parametrize.py)
HELPER = "parametrize_product"
FULL_FLAG = "--full"


@dataclass
class ProductCall:
    """A ``parametrize_product`` decorator read: its axes (values moved as written), the
    ``include=`` rows to keep, the comments to move; ``reason``: why it is left."""

    axes: list[Axis] = field(default_factory=list)
    include: Any = None  # a cst.List of row mappings, or None
    moved: list[str] = field(default_factory=list)
    reason: str = ""
    dropped_rows: str = ""  # what the generated table replaces (for the note)


def _callee(cst: Any, node: Any) -> str:
    f = node.func if isinstance(node, cst.Call) else None
    if isinstance(f, cst.Name):
        return str(f.value)
    if isinstance(f, cst.Attribute):
        return str(f.attr.value)
    return ""


def is_helper(cst: Any, dec: Any) -> bool:
    """``@parametrize_product(...)`` (or ``@module.parametrize_product(...)``)."""
    return _callee(cst, dec.decorator) == HELPER


def _strings(cst: Any, node: Any) -> list[str] | None:
    if isinstance(node, cst.SimpleString):
        return [str(node.evaluated_value)]
    if isinstance(node, (cst.List, cst.Tuple)) and all(isinstance(e.value, cst.SimpleString) for e in node.elements):
        return [str(e.value.evaluated_value) for e in node.elements]
    return None


def read_product(cst: Any, dec: Any, keep_rows: bool) -> ProductCall:
    """Read one ``@parametrize_product(...)`` decorator (see the module docstring)."""
    call = dec.decorator
    positional = [a.value for a in call.args if a.keyword is None]
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    out = ProductCall()
    if "ids" in keywords and not (isinstance(keywords["ids"], cst.Name) and keywords["ids"].value == "None"):
        out.reason = (f"{HELPER}(ids=...): its ids are '{{ids(case)}}-case-{{index}}', which "
                      "ids=\"product-index\" does not write; left as it is")
        return out
    unknown = set(keywords) - {"regular", "ids", "argnames", "axes"}
    if unknown:
        out.reason = f"{HELPER}({', '.join(sorted(unknown))}=...): not read; left as it is"
        return out
    first = positional[0] if positional else keywords.get("argnames")
    groups: list[list[str]] = []
    values: list[Any] = []
    notes: list[Any] = []  # the comment ending each mapping entry's line (it stays there)
    if isinstance(first, cst.Dict):
        for el in first.elements:
            if not isinstance(el, cst.DictElement) or not isinstance(el.key, cst.SimpleString):
                out.reason = f"{HELPER}: a mapping key that is not a string; left as it is"
                return out
            groups.append([n.strip() for n in str(el.key.evaluated_value).split(",")])
            values.append(el.value)
            after = el.comma.whitespace_after if isinstance(el.comma, cst.Comma) else None
            notes.append(after.first_line.comment if isinstance(after, cst.ParenthesizedWhitespace) else None)
    else:
        names = _strings(cst, first)
        axes = positional[1] if len(positional) > 1 else keywords.get("axes")
        if names is None or not isinstance(axes, (cst.List, cst.Tuple)):
            out.reason = f"{HELPER}: names or axes not written as literals; left as it is"
            return out
        if isinstance(first, cst.SimpleString):  # "a,b,c": one axis per name
            groups = [[n.strip()] for n in names[0].split(",")]
        else:  # ["a", "b,c"]: one axis per group
            groups = [[n.strip() for n in g.split(",")] for g in names]
        values = [e.value for e in axes.elements]
        if len(groups) != len(values):
            out.reason = f"{HELPER}: {len(groups)} name groups for {len(values)} axes; left as it is"
            return out
    notes += [None] * (len(values) - len(notes))
    out.axes = [Axis(0, g, v, dec, None, v, n) for g, v, n in zip(groups, values, notes)]
    out.moved = comments(cst, call, [*values, *(n for n in notes if n is not None)])
    regular = keywords.get("regular")
    if isinstance(regular, (cst.List, cst.Tuple)):
        out.dropped_rows = f"{len(regular.elements)} regular rows"
        if keep_rows:
            include = _include(cst, regular, groups)
            if include is None:
                out.reason = f"{HELPER}: --keep-rows: a regular row that is not a literal tuple; left as it is"
                return out
            out.include = include
    elif regular is not None:
        out.dropped_rows = f"regular={code(cst, regular).strip()}"
    return out


def _include(cst: Any, rows: Any, groups: list[list[str]]) -> Any:
    """The regular rows as ``include=`` mappings (``{"a": x, "b,c": (y, z)}``), one a line."""
    out = []
    for el in rows.elements:
        row = el.value
        if not isinstance(row, (cst.Tuple, cst.List)) or len(row.elements) != len(groups):
            return None
        cells = [
            cst.DictElement(key=cst.SimpleString(json.dumps(",".join(g))), value=cell.value,
                            comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            for g, cell in zip(groups, row.elements)
        ]
        cells[-1] = cells[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        out.append(cst.Element(value=cst.Dict(elements=cells)))
    return cst.List(elements=out)


def used_names(cst: Any, module: Any) -> set[str]:
    """The names a module uses outside its import lines."""
    used: set[str] = set()

    class Uses(cst.CSTVisitor):  # type: ignore[misc]  # libcst is imported lazily, as Any
        def visit_ImportFrom(self, node: Any) -> bool:
            return False

        def visit_Import(self, node: Any) -> bool:
            return False

        def visit_Name(self, node: Any) -> None:
            used.add(node.value)

    module.visit(Uses())
    return used


def drop_unused_imports(cst: Any, module: Any, before: set[str]) -> Any:
    """Drop from the module's top-level import lines the names the conversion left unused
    (used in ``before``, no longer now: the helper, ``itertools`` of a product it
    replaced); a line left with no name goes, its blank line before it staying the
    block's (none at the top of the file), as isort and ruff's formatter have it."""
    unused = before - used_names(cst, module)
    if not unused:
        return module

    def local(a: Any, plain: bool) -> str:
        return str(a.evaluated_alias or (a.evaluated_name.split(".")[0] if plain else a.evaluated_name))

    body: list[Any] = []
    carry: Any = None  # the leading lines of a removed line, for the next one
    for stmt in module.body:
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
        if isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
            plain = isinstance(small, cst.Import)
            keep = [a for a in small.names if local(a, plain) not in unused]
            if not keep:
                if carry is None:
                    carry = stmt.leading_lines
                continue
            if len(keep) < len(small.names):
                keep[-1] = keep[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                stmt = stmt.with_changes(body=[small.with_changes(names=keep)])
        if carry is not None:
            lines = stmt.leading_lines
            stmt = stmt.with_changes(leading_lines=carry if (not lines or not body) else lines)
            carry = None
        body.append(stmt)
    return module.with_changes(body=body)


# -- SGLang's get_ci_test_range ---------------------------------------------------------------
CI_RANGE = "get_ci_test_range"


@dataclass
class CiRanges:
    """The module-level ``NAME = get_ci_test_range(full, ci)`` lines of a module: name ->
    the name its FULL list gets (``NAME_FULL``, written just above the line, which then
    passes it as ``full``), and the names a converted test used."""

    full_names: dict[str, str] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)


def ci_ranges(cst: Any, module: Any) -> CiRanges:
    """Find the ranges (a name assigned a range once, at module level)."""
    out = CiRanges()
    bound: set[str] = set()
    for stmt in module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.Assign):
                for t in small.targets:
                    if isinstance(t.target, cst.Name):
                        bound.add(t.target.value)
                if (len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name)
                        and _callee(cst, small.value) == CI_RANGE and len(small.value.args) == 2):
                    name = small.targets[0].target.value
                    full = small.value.args[0].value
                    out.full_names[name] = full.value if isinstance(full, cst.Name) and full.value != name else ""
    for name, full in list(out.full_names.items()):
        if not full:
            new = f"{name}_FULL"
            while new in bound:
                new += "_"
            out.full_names[name] = new
    return out


def product_of_ranges(cst: Any, values: Any, names: Sequence[str], ranges: CiRanges) -> list[Any] | None:
    """``list(itertools.product(A, B, ...))`` (or ``itertools.product(...)``, ``product(...)``)
    over one argument per name, at least one of them a range: its arguments (None: not that)."""
    call = values
    if _callee(cst, call) == "list" and len(call.args) == 1:
        call = call.args[0].value
    if _callee(cst, call) != "product" or len(call.args) != len(names) or any(a.keyword or a.star for a in call.args):
        return None
    args = [a.value for a in call.args]
    if not any(isinstance(a, cst.Name) and a.value in ranges.full_names for a in args):
        return None
    return args


def full_value(cst: Any, node: Any, ranges: CiRanges) -> Any:
    """A range name -> the name of its FULL list; else ``node``."""
    if isinstance(node, cst.Name) and node.value in ranges.full_names:
        return cst.Name(ranges.full_names[node.value])
    return node


def mark_used(cst: Any, axes: Sequence[Axis], ranges: CiRanges) -> None:
    """Record the ranges whose FULL name the converted ``axes`` use."""
    of = {full: name for name, full in ranges.full_names.items()}
    ranges.used.update(of[a.values.value] for a in axes if isinstance(a.values, cst.Name) and a.values.value in of)


def split_ranges(cst: Any, module: Any, ranges: CiRanges) -> Any:
    """``NAME = get_ci_test_range(<full>, ci)`` of the used ranges -> ``NAME_FULL = <full>``
    above ``NAME = get_ci_test_range(NAME_FULL, ci)``: what CI runs is unchanged for every
    other user of ``NAME``, and ``@pairwise`` names the FULL list."""
    body = []
    for stmt in module.body:
        small: Any = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
        name = (small.targets[0].target.value if isinstance(small, cst.Assign) and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name) else None)
        if name in ranges.used and _callee(cst, small.value) == CI_RANGE:
            full_name = ranges.full_names[name]
            first = small.value.args[0]
            if not (isinstance(first.value, cst.Name) and first.value.value == full_name):
                body.append(stmt.with_changes(body=[cst.Assign(
                    targets=[cst.AssignTarget(target=cst.Name(full_name))], value=first.value)]))
                args = [first.with_changes(value=cst.Name(full_name)), *small.value.args[1:]]
                stmt = stmt.with_changes(leading_lines=(), body=[small.with_changes(value=small.value.with_changes(args=args))])
        body.append(stmt)
    return module.with_changes(body=body)
