"""``pairwise-param convert``: rewrite stacked ``parametrize`` over options into one ``@pairwise``.

A codemod on libcst's concrete syntax tree (the ``convert`` extra), so comments,
formatting, line endings and the encoding (PEP 263) are kept as written: the values
of an axis are moved, never re-printed from their values.  Per test function:

* the *option* decorators are ``@pytest.mark.parametrize`` marks without
  ``ids=``/``indirect=``/other keywords whose names are all in ``options`` (when
  given), else single-name marks whose values (a literal list, or a module-level
  name assigned one) the shared split calls options
  (:func:`pairwise_param.report.whatif.axis_kind`: the rule the report's
  ``@PAIRWISE`` column uses; shapes and sizes stay ``parametrize``, and an axis the
  rule is unsure of is named in the test's reason, with ``--options``);
* node ids are kept: ``@pairwise`` is expanded before any ``parametrize``, so only
  the option decorators BELOW every other ``parametrize`` of the test (the bottom
  run) are converted (``--reorder``: every option decorator, the node ids then list
  the ``@pairwise`` part first), and ``ids="stacked"`` is written
  (:data:`pairwise_param.contract.ID_STYLES`): ``--pairwise-mode=full`` then yields
  exactly the original node ids, in their order;
* with at least :data:`~pairwise_param.report.whatif.MIN_AXES` of them (two when
  ``options`` is given), they are replaced by one ``@pairwise(...)`` where the
  topmost of them stood: identifiers become keyword axes in decorator order; when
  one axis cannot be a keyword (several names, a name such as ``mode`` or ``seed``
  that is an option of ``@pairwise``), every axis goes, in order, in the leading
  mapping (``{"n,k": [(1, 64), ...], "mode": [...]}``, literal list rows turned
  into tuples); ``pytest.param(value, marks=..., id=...)`` values are carried as
  they are (``@pairwise`` reads them); comments inside the call that are not in
  the values move above ``@pairwise``;
* a test whose option values repeat a value (valid for pytest, refused by
  ``@pairwise``) is left as it is, with the reason;
* ``from pairwise_param import pairwise`` is added after the module's imports
  when the module does not import it yet; where the name ``pairwise`` is bound to
  something else (``from itertools import pairwise``, a ``def pairwise``) it is
  imported under an alias (``pairwise_param_pairwise``).

libcst is imported only here, only when converting.  Writing the file (atomic,
checked by collecting it first) is :mod:`pairwise_param.cli.convert_file`'s.
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pairwise_param.cli.convert_helpers import (
    CI_RANGE,
    FULL_FLAG,
    HELPER,
    CiRanges,
    ci_ranges,
    drop_unused_imports,
    full_value,
    is_helper,
    mark_used,
    product_of_ranges,
    read_product,
    split_ranges,
    used_names,
)
from pairwise_param.cli.convert_write import (
    ALIAS,
    LINE_LENGTH,
    Axis,
    add_import,
    code,
    pairwise_decorator,
    pairwise_name,
)
from pairwise_param.errors import InvalidArgument

__all__ = ["ALIAS", "Conversion", "convert_source"]



@dataclass
class Conversion:
    """The result for one file: the new text (and bytes, in the file's encoding), and
    per converted test its axes, per test left as it was the reason."""

    path: str
    old: str
    new: str
    converted: dict[str, list[str]] = field(default_factory=dict)  # test name -> axes
    skipped: dict[str, str] = field(default_factory=dict)  # test name -> why not
    notes: dict[str, str] = field(default_factory=dict)  # converted test -> what stayed, what changed
    #: converted test -> its one-value axes that went into the table (no option: they keep the ids)
    riding: dict[str, list[str]] = field(default_factory=dict)
    #: what makes the ORIGINAL file run its full product (flashinfer's ``--full``): the
    #: collection check compares those node ids with ``--pairwise-mode=full``'s
    full_args: list[str] = field(default_factory=list)
    new_bytes: bytes = b""
    encoding: str = "utf-8"

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
    source: str | bytes, path: str = "<source>", *, test: str | None = None, options: Sequence[str] | None = None,
    reorder: bool = False, keep_rows: bool = False, line_length: int = LINE_LENGTH,
) -> Conversion:
    """Convert the tests of ``source`` (only ``test``: ``name`` or ``Class::name``, when
    given).  ``source`` as bytes keeps the file's encoding (PEP 263) and line endings
    in ``new_bytes``.  ``options``: the argument names that are option axes (default:
    the split of the module docstring).  ``reorder``: convert option decorators above a
    shape ``parametrize`` too (their node ids then change order).  ``keep_rows``: an in-house
    helper's hand-written rows become ``include=`` rows (:mod:`pairwise_param.cli.convert_helpers`).
    ``line_length``: the formatter's (a longer ``@pairwise(...)`` is written one axis a line).  Raises :class:`InvalidArgument` when
    ``test`` is not found or the source does not parse."""
    cst = _libcst()
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        raise InvalidArgument(f"{path}: not valid Python: {exc}") from None
    except (LookupError, UnicodeDecodeError, SyntaxError) as exc:  # a coding line naming no codec, bytes not in it
        raise InvalidArgument(f"{path}: cannot decode the file: {exc}") from None
    old = module.code
    result = Conversion(path, old, old, encoding=module.encoding)
    name, imported = pairwise_name(cst, module)
    ranges = ci_ranges(cst, module)
    transformer = _make_transformer(cst, result, test, set(options) if options else None,
                                    _module_lists(cst, module), name, reorder, keep_rows, line_length, ranges)
    new_module = module.visit(transformer)
    if test is not None and not transformer.seen_test:
        raise InvalidArgument(f"{path}: no test function {test!r}")
    if ranges.used:
        new_module = split_ranges(cst, new_module, ranges)
    if result.converted and not imported:  # first: it goes in the block of pytest & co.
        new_module = add_import(cst, new_module, name)
    if result.converted:  # a helper or itertools.product replaced: drop the imports it left unused
        new_module = drop_unused_imports(cst, new_module, used_names(cst, module))
    result.new = new_module.code
    result.new_bytes = new_module.bytes
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


def _names(cst: Any, node: Any) -> tuple[list[str], bool] | None:
    """(argument names of a ``parametrize``, whether they were given as a list/tuple)."""
    if isinstance(node, cst.SimpleString):
        text = node.evaluated_value
        return [n.strip() for n in str(text).split(",") if n.strip()], False
    if isinstance(node, (cst.List, cst.Tuple)):
        out = []
        for el in node.elements:
            if not isinstance(el.value, cst.SimpleString):
                return None
            out.append(str(el.value.evaluated_value).strip())
        return out, True
    return None


class _Named:
    """A value written as a name (``torch.float16``, ``Mode.FAST``): an option value to
    the split, equal to another by its text."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Named) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def __repr__(self) -> str:
        return self.text


class _Case:
    """A value the split reads as a case or shape (a call, a list, a tuple)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _value_of(cst: Any, node: Any) -> Any:
    """The split's view of one written value: a literal's value, a :class:`_Named`, or a
    tuple / :class:`_Case` for what is a shape or a case."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "param":
        if node.args and node.args[0].keyword is None and len([a for a in node.args if a.keyword is None]) == 1:
            return _value_of(cst, node.args[0].value)
        return _Case(code(cst, node))
    if isinstance(node, (cst.Tuple, cst.List, cst.Dict, cst.Set)):
        return (_Case(code(cst, node)),)
    text = code(cst, node).strip()
    if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString,
                         cst.UnaryOperation)) or (isinstance(node, cst.Name) and node.value in ("True", "False", "None")):
        try:
            return ast.literal_eval(text)
        except (ValueError, SyntaxError):
            return _Case(text)
    if isinstance(node, (cst.Name, cst.Attribute)):
        return _Named(text)
    number = _arithmetic(text)
    if number is not None:
        return number
    return (_Case(text),)  # a call or an expression: not a plain option value


def _arithmetic(text: str) -> int | float | None:
    """``2048 + 16``, ``1 << 10``, ``2**20``: ints and floats under + - * // / ** << (else None)."""
    import operator

    ops: dict[type, Any] = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
                            ast.FloorDiv: operator.floordiv, ast.Div: operator.truediv, ast.Pow: operator.pow,
                            ast.LShift: operator.lshift}

    def ev(n: ast.AST) -> Any:
        if isinstance(n, ast.Constant) and type(n.value) in (int, float):
            return n.value
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return -ev(n.operand)
        if isinstance(n, ast.BinOp) and type(n.op) in ops:
            left, right = ev(n.left), ev(n.right)
            if isinstance(n.op, (ast.Pow, ast.LShift)) and abs(right) > 64:
                raise ValueError("too large")
            return ops[type(n.op)](left, right)
        raise ValueError("not arithmetic")

    try:
        value = ev(ast.parse(text, mode="eval").body)
    except (ValueError, SyntaxError, ZeroDivisionError, TypeError, RecursionError):
        return None
    return value if isinstance(value, (int, float)) else None


def _identity(v: Any) -> Any:
    """Equal values of one axis, as ``@pairwise`` sees repeats (``1`` and ``True`` differ)."""
    return (type(v).__name__, repr(v))


def _module_lists(cst: Any, module: Any) -> dict[str, Any]:
    """Top-level ``NAME = [...]`` / ``(...)`` assigned once: name -> the list node."""
    found: dict[str, Any] = {}
    seen: set[str] = set()
    for stmt in module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            targets, value = [], None
            if isinstance(small, cst.Assign):
                targets, value = [t.target for t in small.targets], small.value
            elif isinstance(small, cst.AnnAssign) and small.value is not None:
                targets, value = [small.target], small.value
            for t in targets:
                if isinstance(t, cst.Name):
                    if t.value in seen:  # assigned twice: which list a test sees is not static
                        found.pop(t.value, None)
                    elif isinstance(value, (cst.List, cst.Tuple)):
                        found[t.value] = value
                    seen.add(t.value)
    return found


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


def _unwrap_single(cst: Any, values: Any) -> Any:
    """``parametrize(("m",), [(1,), (2,)])`` passes ``m=1``: the one-element rows of a
    list/tuple of ONE name, unwrapped (``[1, 2]``); None when a row is not such a row."""
    if not isinstance(values, (cst.List, cst.Tuple)):
        return None
    elements = []
    for el in values.elements:
        v = el.value
        if not isinstance(v, (cst.List, cst.Tuple)) or len(v.elements) != 1:
            return None
        elements.append(el.with_changes(value=v.elements[0].value))
    return values.with_changes(elements=elements)


def _reach(marks: list[tuple[Axis | None, str, str]], sizes: list[int | None], chosen: set[str]) -> int | None:
    """The items a test collects with the ``chosen`` axes in one strength-2 ``@pairwise``, the
    other marks kept; None where a list is not written out."""
    from pairwise_param.tables.covering import cover

    total, table = 1, {}
    for (p, _, _), size in zip(marks, sizes):
        key = ",".join(p.names) if p is not None else None
        if key in chosen and p is not None and size is not None:
            table[key] = list(range(size))
        elif key in chosen or size is None:
            return None
        else:
            total *= size
    if len(table) < 2:  # one axis: its values
        return total * len(next(iter(table.values()), [0]))
    return total * len(cover(table, strength=2))


def _make_transformer(cst: Any, result: Conversion, test: str | None, options: set[str] | None,
                      lists: dict[str, Any], name: str, reorder: bool, keep_rows: bool = False,
                      line_length: int = LINE_LENGTH, ranges: CiRanges | None = None) -> Any:
    from pairwise_param.report.whatif import MIN_AXES, axis_kind, choose

    found = ranges if ranges is not None else CiRanges()

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

        def _param(self, i: int, dec: Any) -> tuple[Axis | None, str, str]:
            """(the decorator as an axis or None, its kind for whatif.choose, why it is not
            converted: '' for a plain shape)."""
            parsed = _parametrize_args(cst, dec)
            if parsed is None:
                keys = [a.keyword.value for a in dec.decorator.args if a.keyword is not None]
                first = dec.decorator.args[0].value if dec.decorator.args else None
                label = _names(cst, first) if first is not None else None
                if "ids" in keys and label and label[0]:
                    # named: a list with ids= is the reason a table is left (issue 35)
                    return None, "ids", f"{','.join(label[0])} has ids= (kept as parametrize: its ids are its own)"
                return None, "other", ""
            got = _names(cst, parsed[0])
            if not got or not got[0]:
                return None, "other", ""
            names, as_list = got
            values = parsed[1]
            if as_list and len(names) == 1:
                values = _unwrap_single(cst, values)
                if values is None:
                    return None, "other", f"{names[0]}: rows not of one value each"
            if len(names) == 1 and isinstance(values, cst.Name) and values.value in found.full_names:
                # a get_ci_test_range list: the project declared it reducible, its FULL list is the axis
                return Axis(i, names, full_value(cst, values, found), dec, None, parsed[1]), "option", ""
            literal = values
            if isinstance(values, cst.Name) and values.value in lists:
                literal = lists[values.value]
            seen = None
            if isinstance(literal, (cst.List, cst.Tuple)):
                seen = [_value_of(cst, el.value) for el in literal.elements]
            p = Axis(i, names, values, dec, seen, parsed[1])
            single = len(names) == 1 and seen is not None and len(seen) == 1
            if options is not None:
                if all(n in options for n in names):
                    return p, "option", ""
                return (p, "single", "") if single else (None, "other", "")
            if len(names) != 1 or seen is None:
                return None, "other", ""
            kind, why = axis_kind(names[0], seen)
            if kind in ("option", "single"):
                return p, kind, ""
            return None, kind, (f"{names[0]} unsure ({why})" if kind == "uncertain" else "")

        def _size(self, dec: Any) -> int | None:
            """How many values a ``parametrize`` lists (a module-level list read); None: not written out."""
            parsed = _parametrize_args(cst, dec)
            values = parsed[1] if parsed is not None else None
            if isinstance(values, cst.Name) and values.value in lists:
                values = lists[values.value]
            return len(values.elements) if isinstance(values, (cst.List, cst.Tuple)) else None

        def _helper(self, updated: Any, at: int, test_name: str) -> Any:
            """flashinfer's ``@parametrize_product`` -> ``@pairwise(..., ids="product-index")``."""
            dec = updated.decorators[at]
            read = read_product(cst, dec, keep_rows)
            if read.reason:
                result.skipped[test_name] = read.reason
                return updated
            extra = [("include", read.include)] if read.include is not None else []
            decs = list(updated.decorators)
            decs[at] = pairwise_decorator(cst, read.axes, dec, len(self.classes), name, ids="product-index",
                                          extra=extra, moved=read.moved, line_length=line_length)
            result.converted[test_name] = [",".join(a.names) for a in read.axes]
            kept = " kept as include= rows" if read.include is not None else " replaced by the generated table"
            result.notes[test_name] = f"{HELPER}: {read.dropped_rows or 'its rows'}{kept}; ids case-{{index}} kept"
            result.full_args = [FULL_FLAG]
            return updated.with_changes(decorators=decs)

        def _product(self, i: int, dec: Any) -> list[Axis] | None:
            """``parametrize("a,b,c", list(itertools.product(A, B, C)))`` over get_ci_test_range
            lists: one axis per name, a range's FULL list."""
            parsed = _parametrize_args(cst, dec)
            got = _names(cst, parsed[0]) if parsed is not None else None
            if parsed is None or not got or len(got[0]) < 2:
                return None
            args = product_of_ranges(cst, parsed[1], got[0], found)
            if args is None:
                return None
            return [Axis(i, [n], full_value(cst, a, found), dec, None, a) for n, a in zip(got[0], args)]

        def _ranges(self, updated: Any, at: int, test_name: str, axes: list[Axis]) -> Any:
            """A product of get_ci_test_range lists -> ``@pairwise`` of the FULL lists, ids as
            the product's (``ids="pytest"``: each value's id, joined in axis order)."""
            if len(axes) < 3:
                result.skipped[test_name] = (f"{len(axes)} axes of {CI_RANGE} lists: a pairwise table of two "
                                             "axes is their full product (more items than the CI lists); left")
                return updated
            decs = list(updated.decorators)
            decs[at] = pairwise_decorator(cst, axes, decs[at], len(self.classes), name, ids="pytest",
                                          moved=[], line_length=line_length)
            mark_used(cst, axes, found)
            result.converted[test_name] = [a.names[0] for a in axes]
            named = [a.names[0] for a in axes if isinstance(a.written, cst.Name) and a.written.value in lists
                     and any(isinstance(el.value, cst.Attribute) for el in lists[a.written.value].elements)]
            result.notes[test_name] = f"{CI_RANGE}: the FULL lists, pairwise; ids as the product's" + (
                f" except {', '.join(named)}: pytest ids a dotted value (torch.float16) of one mark by its ROW "
                "(dtype10), @pairwise by its position in the axis (dtype0)" if named else "")
            return updated.with_changes(decorators=decs)

        def leave_FunctionDef(self, original: Any, updated: Any) -> Any:
            test_name = "::".join([*self.classes, updated.name.value])
            if not updated.name.value.startswith("test"):
                return updated
            if test is not None and test not in (test_name, updated.name.value):
                return updated
            self.seen_test = True
            helper = next((i for i, dec in enumerate(updated.decorators) if is_helper(cst, dec)), None)
            if helper is not None:
                return self._helper(updated, helper, test_name)
            for i, dec in enumerate(updated.decorators):
                product = self._product(i, dec) if _is_parametrize(cst, dec) else None
                if product is not None:
                    return self._ranges(updated, i, test_name, product)
            marks: list[tuple[Axis | None, str, str]] = []
            sizes: list[int | None] = []  # each mark's values, where written as a list
            for i, dec in enumerate(updated.decorators):
                if _is_parametrize(cst, dec):
                    marks.append(self._param(i, dec))
                    sizes.append(self._size(dec))
            # which options: report/whatif.choose (the bottom run keeps the node ids)
            keyed = [(",".join(p.names) if p else None, kind) for p, kind, _ in marks]
            chosen = set(choose(keyed, reorder))
            params = [p for p, _, _ in marks if p is not None and ",".join(p.names) in chosen]
            n_options = sum(k == "option" for p, k, _ in marks if p is not None and ",".join(p.names) in chosen)
            above = [p for p, k, _ in marks if k == "option" and p is not None and ",".join(p.names) not in chosen]
            need = 2 if options is not None else MIN_AXES
            reach = ""
            if above:  # what --reorder reaches (issue 35): the number, where every list is written out
                now, then = (_reach(marks, sizes, set(choose(keyed, r))) for r in (False, True))
                reach = f": {then} items for {now}" if now is not None and then is not None and then < now else ""
            kept = (f"{', '.join(','.join(p.names) for p in above)} kept as parametrize: a shape parametrize "
                    f"below (--reorder converts them{reach}; the node ids then change)") if above else ""
            with_ids = [why for p, k, why in marks if p is None and k == "ids"]
            unsure = [why for p, k, why in marks if p is None and why and k != "ids"]
            if n_options < need:
                why = f"{n_options} option axes (needs {need})"
                if kept:
                    why += "; " + kept
                if with_ids:
                    why += "; " + "; ".join(with_ids)
                if unsure:
                    why += f"; {'; '.join(unsure)}: pass --options to convert them"
                result.skipped[test_name] = why
                return updated
            if options is not None and len(params) == 2 and all(len(p.names) == 1 for p in params):
                result.skipped[test_name] = (
                    f"--options {','.join(','.join(p.names) for p in params)}: a pairwise table of two axes is "
                    "their full product, so converting changes nothing; left as it is")
                return updated
            for p in params:
                if p.seen is not None and len(p.names) == 1:
                    keys = [_identity(v) for v in p.seen]
                    rep = next((v for v, k in zip(p.seen, keys) if keys.count(k) > 1), None)
                    if len(set(keys)) < len(keys):
                        result.skipped[test_name] = (
                            f"the values of {p.names[0]} repeat {rep!r} (pytest runs it twice; @pairwise "
                            "needs distinct values): left as parametrize")
                        return updated
            first = params[0].index
            drop = {p.index for p in params}
            new_decs = []
            for i, dec in enumerate(updated.decorators):
                if i == first:
                    new_decs.append(pairwise_decorator(cst, params, dec, len(self.classes), name,
                                                          line_length=line_length))
                elif i not in drop:
                    new_decs.append(dec)
            result.converted[test_name] = [",".join(p.names) for p in params]
            mark_used(cst, params, found)
            singles = [",".join(p.names) for p, k, _ in marks if p is not None and k == "single" and any(p is q for q in params)]
            if singles:
                result.riding[test_name] = singles
            if kept:
                result.notes[test_name] = kept
            elif reorder and chosen != set(choose(keyed)):
                result.notes[test_name] = "reordered: the node ids now list the @pairwise part first"
            return updated.with_changes(decorators=new_decs)

    return Transformer()
