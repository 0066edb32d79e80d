"""``pairwise-param convert``: rewrite stacked ``parametrize`` over options into one ``@pairwise``.

A codemod on libcst's concrete syntax tree (the ``convert`` extra), so comments,
formatting and every expression are kept as written: the values of an axis are
moved, never re-printed from their values.  Per test function:

* the *option* decorators are ``@pytest.mark.parametrize`` marks without
  ``ids=``/``indirect=``/other keywords whose names are all in ``options`` (when
  given), else single-name marks over a literal list of at least two values
  that are not all int literals (bools, strings, ``None``, ``torch.float16``:
  shapes and sizes stay ``parametrize``);
* with at least :data:`MIN_AXES` of them (two when ``options`` is given), they
  are replaced by one ``@pairwise(...)`` where the topmost of them stood:
  identifiers become keyword axes, several names one grouped axis in the leading
  mapping (``{"n,k": [(1, 64), ...]}``, literal list rows turned into tuples);
  ``pytest.param(value, marks=..., id=...)`` values are carried as they are
  (``@pairwise`` reads them);
* ``from pairwise_param import pairwise`` is added after the module's imports
  when the name is not imported yet.

``--pairwise-mode=full`` then runs exactly the original product (the
decorators' product equals the axes' product), which is how a conversion is
checked.  libcst is imported only here, only when converting.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pairwise_param.errors import InvalidArgument

__all__ = ["Conversion", "convert_source"]

#: Stacked option axes needed before a test is converted without ``--options``:
#: pairwise over two axes is their product, so two gain nothing.
MIN_AXES = 3

#: A one-line ``@pairwise(...)`` longer than this is written one axis a line.
LINE_LENGTH = 100


@dataclass
class Conversion:
    """The result for one file: the new text, and per converted test its axes."""

    path: str
    old: str
    new: str
    converted: dict[str, list[str]] = field(default_factory=dict)  # test name -> axes
    skipped: dict[str, str] = field(default_factory=dict)  # test name -> why not

    def diff(self) -> str:
        return "".join(
            difflib.unified_diff(
                self.old.splitlines(keepends=True), self.new.splitlines(keepends=True),
                fromfile=f"a/{self.path}", tofile=f"b/{self.path}",
            )
        )


def _libcst() -> Any:
    try:
        import libcst
    except ImportError:
        raise InvalidArgument(
            "pairwise-param convert needs libcst: pip install 'pairwise-param[convert]'"
        ) from None
    return libcst


def convert_source(
    source: str, path: str = "<source>", *, test: str | None = None, options: Sequence[str] | None = None
) -> Conversion:
    """Convert the tests of ``source`` (only ``test``: ``name`` or ``Class::name``, when
    given).  ``options``: the argument names that are option axes (default: the rule of
    the module docstring).  Raises :class:`InvalidArgument` when ``test`` is not found."""
    cst = _libcst()
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        raise InvalidArgument(f"{path}: not valid Python: {exc}") from None
    result = Conversion(path, source, source)
    transformer = _make_transformer(cst, result, test, set(options) if options else None)
    new_module = module.visit(transformer)
    if test is not None and not transformer.seen_test:
        raise InvalidArgument(f"{path}: no test function {test!r}")
    if result.converted and not _imports_pairwise(cst, new_module):
        new_module = _add_import(cst, new_module)
    result.new = new_module.code
    return result


# -- reading decorators --------------------------------------------------------------------------
def _is_parametrize(cst: Any, dec: Any) -> bool:
    call = dec.decorator
    if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
        return False
    func = call.func
    return (
        func.attr.value == "parametrize"
        and isinstance(func.value, cst.Attribute)
        and func.value.attr.value == "mark"
    )


def _names(cst: Any, node: Any) -> list[str] | None:
    """Argument names of a ``parametrize`` (a string literal or a list/tuple of them)."""
    if isinstance(node, cst.SimpleString):
        text = node.evaluated_value
        return [n.strip() for n in str(text).split(",") if n.strip()]
    if isinstance(node, (cst.List, cst.Tuple)):
        out = []
        for el in node.elements:
            if not isinstance(el.value, cst.SimpleString):
                return None
            out.append(str(el.value.evaluated_value).strip())
        return out
    return None


def _is_int_literal(cst: Any, node: Any) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    return isinstance(node, cst.Integer)


def _scalar(cst: Any, node: Any) -> bool:
    """A value that names an option: a constant, a string, a dotted name (``torch.float16``,
    ``Mode.FAST``), or ``pytest.param`` of one.  Lists, tuples and dicts are shapes or cases."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "param":
        return bool(node.args) and node.args[0].keyword is None and _scalar(cst, node.args[0].value)
    if _is_int_literal(cst, node):
        return True
    return isinstance(node, (cst.Name, cst.Attribute, cst.SimpleString, cst.ConcatenatedString, cst.Float))


def _is_option_list(cst: Any, values: Any) -> bool:
    """A literal list/tuple of >= 2 option values, not all int literals (sizes and shapes
    stay ``parametrize``)."""
    if not isinstance(values, (cst.List, cst.Tuple)) or len(values.elements) < 2:
        return False
    if not all(_scalar(cst, el.value) for el in values.elements):
        return False
    return not all(_is_int_literal(cst, el.value) for el in values.elements)


@dataclass
class _Param:
    index: int  # position among the function's decorators
    names: list[str]
    values: Any  # the argvalues expression node
    decorator: Any = None  # the decorator node (its comments move with the axis)


def _parametrize_args(cst: Any, dec: Any) -> tuple[Any, Any] | None:
    """(argnames node, argvalues node) of a parametrize call without other keywords."""
    args = dec.decorator.args
    positional = [a for a in args if a.keyword is None]
    keywords = {a.keyword.value: a.value for a in args if a.keyword is not None}
    if len(positional) > 2 or set(keywords) - {"argnames", "argvalues"}:
        return None  # ids=, indirect=, scope=: kept as parametrize
    nodes = [a.value for a in positional]
    if len(nodes) < 1:
        nodes.append(keywords.get("argnames"))
    if len(nodes) < 2:
        nodes.append(keywords.get("argvalues"))
    if any(n is None for n in nodes):
        return None
    return nodes[0], nodes[1]


# -- writing -------------------------------------------------------------------------------------
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


def _pairwise_decorator(cst: Any, params: list[_Param], template: Any, depth: int) -> Any:
    """``@pairwise(...)`` over ``params`` (their value expressions moved as written),
    in the place of ``template`` (so the comments above it stay)."""
    args = []
    grouped = [p for p in params if len(p.names) > 1 or not p.names[0].isidentifier()]
    if grouped:
        mapping = cst.Dict(
            elements=[
                cst.DictElement(
                    key=cst.SimpleString(repr(",".join(p.names))), value=_rows_as_tuples(cst, p.values)
                )
                for p in grouped
            ]
        )
        args.append(cst.Arg(value=mapping))
    nothing = cst.SimpleWhitespace("")
    comments: list[Any] = []  # the trailing comment of each arg's decorator (or None)
    if grouped:
        comments.append(None)
    for p in params:
        if p not in grouped:
            args.append(cst.Arg(keyword=cst.Name(p.names[0]), value=p.values,
                                equal=cst.AssignEqual(whitespace_before=nothing, whitespace_after=nothing)))
            comments.append(p.decorator.trailing_whitespace.comment)
    # comments above the decorators that go away move above @pairwise, in order
    leading = list(template.leading_lines)
    for p in params:
        if p.decorator is not template:
            leading.extend(p.decorator.leading_lines)
    leading.extend(
        cst.EmptyLine(comment=p.decorator.trailing_whitespace.comment)
        for p in grouped
        if p.decorator.trailing_whitespace.comment is not None
    )
    code = cst.Module(body=[]).code_for_node
    one_line = "@pairwise(" + ", ".join(code(a) for a in args) + ")"
    if "\n" in one_line or 4 * depth + len(one_line) > LINE_LENGTH or any(comments):
        # one axis a line, as a formatter would write it; the values keep their own lines
        # and each axis keeps the comment its decorator had
        def ws(level: int, comment: Any = None) -> Any:
            first = (
                cst.TrailingWhitespace(whitespace=cst.SimpleWhitespace("  "), comment=comment)
                if comment is not None
                else cst.TrailingWhitespace()
            )
            return cst.ParenthesizedWhitespace(
                first_line=first, indent=False, last_line=cst.SimpleWhitespace(" " * (4 * level))
            )

        last = len(args) - 1
        args = [
            a.with_changes(comma=cst.Comma(whitespace_after=ws(depth if i == last else depth + 1, comments[i])))
            for i, a in enumerate(args)
        ]
        call = cst.Call(func=cst.Name("pairwise"), args=args, whitespace_before_args=ws(depth + 1))
    else:
        space = cst.SimpleWhitespace(" ")
        args = [a.with_changes(comma=cst.Comma(whitespace_after=space)) for a in args[:-1]] + args[-1:]
        call = cst.Call(func=cst.Name("pairwise"), args=args)
    return template.with_changes(decorator=call, leading_lines=leading, trailing_whitespace=cst.TrailingWhitespace())


def _make_transformer(cst: Any, result: Conversion, test: str | None, options: set[str] | None) -> Any:
    class Transformer(cst.CSTTransformer):  # type: ignore[misc]  # libcst is imported lazily, as Any
        def __init__(self) -> None:
            super().__init__()
            self.classes: list[str] = []
            self.seen_test = False

        def visit_ClassDef(self, node: Any) -> None:
            self.classes.append(node.name.value)

        def leave_ClassDef(self, original: Any, updated: Any) -> Any:
            self.classes.pop()
            return updated

        def leave_FunctionDef(self, original: Any, updated: Any) -> Any:
            name = "::".join([*self.classes, updated.name.value])
            if not updated.name.value.startswith("test"):
                return updated
            if test is not None and test not in (name, updated.name.value):
                return updated
            self.seen_test = True
            params = []
            for i, dec in enumerate(updated.decorators):
                if not _is_parametrize(cst, dec):
                    continue
                parsed = _parametrize_args(cst, dec)
                if parsed is None:
                    continue
                names = _names(cst, parsed[0])
                if not names:
                    continue
                if options is not None:
                    if all(n in options for n in names):
                        params.append(_Param(i, names, parsed[1], dec))
                elif len(names) == 1 and _is_option_list(cst, parsed[1]):
                    params.append(_Param(i, names, parsed[1], dec))
            need = 2 if options is not None else MIN_AXES
            if len(params) < need:
                result.skipped[name] = f"{len(params)} option axes (needs {need})"
                return updated
            first = params[0].index
            drop = {p.index for p in params}
            new_decs = []
            for i, dec in enumerate(updated.decorators):
                if i == first:
                    new_decs.append(_pairwise_decorator(cst, params, dec, len(self.classes)))
                elif i not in drop:
                    new_decs.append(dec)
            result.converted[name] = [",".join(p.names) for p in params]
            return updated.with_changes(decorators=new_decs)

    return Transformer()


def _imports_pairwise(cst: Any, module: Any) -> bool:
    """The module binds the name ``pairwise`` by a top-level ``from ... import``."""
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if (
                    isinstance(small, cst.ImportFrom)
                    and not isinstance(small.names, cst.ImportStar)
                    and any((a.evaluated_alias or a.evaluated_name) == "pairwise" for a in small.names)
                ):
                    return True
    return False


def _add_import(cst: Any, module: Any) -> Any:
    line = cst.parse_statement("from pairwise_param import pairwise\n")
    body = list(module.body)
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
