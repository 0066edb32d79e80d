"""How ``pairwise-param convert`` writes: the ``@pairwise(...)`` decorator (keyword or
mapping form, the values moved as written, comments kept) and its import.  The reading
of stacked ``parametrize`` is :mod:`pairwise_param.cli.convert`'s, the in-house helpers'
:mod:`pairwise_param.cli.convert_helpers`'.  libcst is passed in (``cst``), never imported
here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["ALIAS", "LINE_LENGTH", "Axis", "add_import", "code", "comments", "pairwise_decorator", "pairwise_name"]

#: A one-line ``@pairwise(...)`` longer than this is written one axis a line: ruff's and
#: black's default, unless the file's project sets its own (``convert_file.line_length``).
LINE_LENGTH = 88

#: The name ``pairwise`` is imported under where the module binds ``pairwise`` already.
ALIAS = "pairwise_param_pairwise"


@dataclass
class Axis:
    """One axis of the ``@pairwise`` to write: its names and its values node, moved as written."""

    index: int  # position among the function's decorators
    names: list[str]
    values: Any  # the argvalues expression node, as it will be written
    decorator: Any = None  # the decorator node (its comments move with the axis)
    seen: list[Any] | None = None  # the split's view of the values (None: not statically known)
    written: Any = None  # the argvalues node as written (its comments stay inside the values)
    note: Any = None  # a comment that ends the axis's line (an in-house helper's mapping entry)


def code(cst: Any, node: Any) -> str:
    return str(cst.Module(body=[]).code_for_node(node))


def comments(cst: Any, node: Any, skip: Sequence[Any]) -> list[str]:
    """The comments inside ``node`` that are not inside any node of ``skip`` (in order)."""
    out: list[str] = []
    skipped = {id(n) for n in skip}

    class Finder(cst.CSTVisitor):  # type: ignore[misc]  # libcst is imported lazily, as Any
        def on_visit(self, n: Any) -> bool:
            if id(n) in skipped:
                return False
            if isinstance(n, cst.Comment):
                out.append(n.value)
            return True

    node.visit(Finder())
    return out


# -- the decorator -------------------------------------------------------------------------------------
def _rows_as_tuples(cst: Any, values: Any) -> Any:
    """Literal list rows of a grouped axis become tuples (``[[1, 64]]`` -> ``[(1, 64)]``)."""
    if not isinstance(values, (cst.List, cst.Tuple)):
        return values
    elements = []
    for el in values.elements:
        v = el.value
        if isinstance(v, cst.List):
            inner = list(v.elements)
            if len(inner) == 1 and inner[0].comma is cst.MaybeSentinel.DEFAULT:
                inner[0] = inner[0].with_changes(comma=cst.Comma())
            v = cst.Tuple(elements=inner, lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        elements.append(el.with_changes(value=v))
    return values.with_changes(elements=elements)


def _decorator_options() -> frozenset[str]:
    from pairwise_param.decorator import OPTIONS

    return frozenset(o.name for o in OPTIONS)


def pairwise_decorator(
    cst: Any, params: list[Axis], template: Any, depth: int, name: str, *, ids: str = "stacked",
    extra: Sequence[tuple[str, Any]] = (), moved: list[str] | None = None, line_length: int = LINE_LENGTH,
) -> Any:
    """``@pairwise(...)`` over ``params`` (their value expressions moved as written), in
    decorator order, with ``ids=`` the style given and the ``extra`` keyword arguments
    (``include=``), in the place of ``template`` (so the comments above it stay).
    ``moved``: the comments to move above it (default: those inside each axis's decorator
    call that are not in its values).

    The mapping form (an axis of several names, or one named like an option of
    ``@pairwise``: ``seed``, ``mode``) is always written one axis a line with trailing
    commas, as ruff's and black's formatters keep it (their "magic trailing comma")."""
    reserved = _decorator_options()
    as_mapping = any(len(p.names) > 1 or not p.names[0].isidentifier() or p.names[0] in reserved for p in params)
    nothing = cst.SimpleWhitespace("")
    args: list[Any] = []
    notes: list[Any] = []  # the trailing comment of each arg's decorator (or None)

    def ws(level: int, comment: Any = None) -> Any:
        first = (
            cst.TrailingWhitespace(whitespace=cst.SimpleWhitespace("  "), comment=comment)
            if comment is not None
            else cst.TrailingWhitespace()
        )
        return cst.ParenthesizedWhitespace(first_line=first, indent=False, last_line=cst.SimpleWhitespace(" " * (4 * level)))

    def keyword(key: str, value: Any) -> Any:
        return cst.Arg(keyword=cst.Name(key), value=value,
                       equal=cst.AssignEqual(whitespace_before=nothing, whitespace_after=nothing))

    if as_mapping:
        elements = [
            cst.DictElement(
                key=cst.SimpleString(json.dumps(",".join(p.names))),
                value=_rows_as_tuples(cst, p.values) if len(p.names) > 1 else p.values,
            )
            for p in params
        ]
        last = len(elements) - 1
        elements = [
            el.with_changes(comma=cst.Comma(whitespace_after=ws(depth + 1 if i == last else depth + 2, p.note)))
            for i, (el, p) in enumerate(zip(elements, params))
        ]
        args.append(cst.Arg(value=cst.Dict(elements=elements, lbrace=cst.LeftCurlyBrace(whitespace_after=ws(depth + 2)))))
        notes.append(None)
    else:
        for p in params:
            args.append(keyword(p.names[0], p.values))
            # one decorator for every axis (an in-house helper's): its comment goes above
            notes.append(p.decorator.trailing_whitespace.comment if moved is None else p.note)
    args.append(keyword("ids", cst.SimpleString(f'"{ids}"')))
    notes.append(None)
    for key, value in extra:
        args.append(keyword(key, value))
        notes.append(None)
    # comments above the decorators that go away move above @pairwise, in order, then the
    # comments inside each call that are not in its values, then (mapping form) the
    # trailing comment of each decorator
    leading = list(template.leading_lines)
    for p in params:
        if p.decorator is not template:
            leading.extend(p.decorator.leading_lines)
    inner = moved if moved is not None else [c for p in params for c in comments(cst, p.decorator.decorator, [p.written])]
    leading.extend(cst.EmptyLine(comment=cst.Comment(c)) for c in inner)
    for p in params:
        if as_mapping and moved is None and p.decorator.trailing_whitespace.comment is not None:
            leading.append(cst.EmptyLine(comment=p.decorator.trailing_whitespace.comment))
    if moved is not None and template.trailing_whitespace.comment is not None:
        leading.append(cst.EmptyLine(comment=template.trailing_whitespace.comment))
    one_line = f"@{name}(" + ", ".join(code(cst, a) for a in args) + ")"
    if as_mapping or "\n" in one_line or 4 * depth + len(one_line) > line_length or any(notes):
        # one axis a line, as a formatter would write it; the values keep their own lines
        # and each axis keeps the comment its decorator had
        last = len(args) - 1
        args = [
            a.with_changes(comma=cst.Comma(whitespace_after=ws(depth if i == last else depth + 1, notes[i])))
            for i, a in enumerate(args)
        ]
        call = cst.Call(func=cst.Name(name), args=args, whitespace_before_args=ws(depth + 1))
    else:
        space = cst.SimpleWhitespace(" ")
        args = [a.with_changes(comma=cst.Comma(whitespace_after=space)) for a in args[:-1]] + args[-1:]
        call = cst.Call(func=cst.Name(name), args=args)
    return template.with_changes(decorator=call, leading_lines=leading, trailing_whitespace=cst.TrailingWhitespace())


def pairwise_name(cst: Any, module: Any) -> tuple[str, bool]:
    """(the name ``@pairwise`` is written with, whether the module imports it already):
    ``pairwise`` (or the module's own alias of ``pairwise_param.pairwise``); where
    ``pairwise`` is bound to something else anywhere in the module, :data:`ALIAS`."""
    bound: set[str] = set()
    mine: str | None = None

    class Finder(cst.CSTVisitor):  # type: ignore[misc]  # libcst is imported lazily, as Any
        def visit_ImportFrom(self, node: Any) -> None:
            nonlocal mine
            if isinstance(node.names, cst.ImportStar):
                return
            mod = code(cst, node.module) if node.module is not None else ""
            for a in node.names:
                local = a.evaluated_alias or a.evaluated_name
                bound.add(local)
                if mod == "pairwise_param" and a.evaluated_name == "pairwise" and not node.relative:
                    mine = local

        def visit_Import(self, node: Any) -> None:
            for a in node.names:
                bound.add((a.evaluated_alias or a.evaluated_name).split(".")[0])

        def visit_FunctionDef(self, node: Any) -> None:
            bound.add(node.name.value)

        def visit_ClassDef(self, node: Any) -> None:
            bound.add(node.name.value)

        def visit_AssignTarget(self, node: Any) -> None:
            if isinstance(node.target, cst.Name):
                bound.add(node.target.value)

        def visit_AnnAssign(self, node: Any) -> None:
            if isinstance(node.target, cst.Name):
                bound.add(node.target.value)

    module.visit(Finder())
    if mine is not None:
        return mine, True
    name = "pairwise" if "pairwise" not in bound else ALIAS
    while name != "pairwise" and name in bound:
        name += "_"
    return name, False


#: modules whose import block is the third-party one (where isort / ruff put ``pairwise_param``)
THIRD_PARTY = ("pytest", "torch", "numpy", "triton", "hypothesis")


def _imported(cst: Any, stmt: Any) -> tuple[str, bool] | None:
    """(the module a top-level import line imports, whether it is a ``from`` import)."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if isinstance(small, cst.Import):
        return code(cst, small.names[0].name), False
    if isinstance(small, cst.ImportFrom) and small.module is not None and not small.relative:
        return code(cst, small.module), True
    return None


def add_import(cst: Any, module: Any, name: str) -> Any:
    """``from pairwise_param import pairwise`` where isort's and ruff's default order puts
    it: in the import block (lines without a blank between them) of ``pytest`` / ``torch``
    & co., among its ``from`` imports by module name (case-insensitive); else after the
    module's last import."""
    alias = "" if name == "pairwise" else f" as {name}"
    line = cst.parse_statement(f"from pairwise_param import pairwise{alias}{module.default_newline}",
                               config=module.config_for_parsing)
    body = list(module.body)
    blocks: list[list[int]] = []  # runs of import lines with no blank line or other line between
    for i, stmt in enumerate(body):
        if _imported(cst, stmt) is None:
            continue
        if blocks and blocks[-1][-1] == i - 1 and not stmt.leading_lines:
            blocks[-1].append(i)
        else:
            blocks.append([i])
    third = next((b for b in blocks if any(
        (_imported(cst, body[i]) or ("", False))[0].split(".")[0] in THIRD_PARTY for i in b)), None)
    if third is not None:
        at = third[-1] + 1
        for i in third:
            mod, is_from = _imported(cst, body[i]) or ("", False)
            if is_from and mod.lower() > "pairwise_param":
                at = i
                break
        if at == third[0] and body[at].leading_lines:  # first in its block: take its blank line
            line = line.with_changes(leading_lines=body[at].leading_lines)
            body[at] = body[at].with_changes(leading_lines=())
        body.insert(at, line)
        return module.with_changes(body=body)
    last = -1
    for i, stmt in enumerate(body):
        if isinstance(stmt, cst.SimpleStatementLine) and any(
            isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body
        ):
            last = i
        elif i == 0 and isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Expr):
            continue  # the module docstring
        elif last >= 0:
            break
    body.insert(last + 1, line)
    return module.with_changes(body=body)
