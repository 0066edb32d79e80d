"""The declarative constraint language: if/then rules and expressions -> predicates.

Usable everywhere a constraint is accepted (``@pairwise(constraints=[...])``,
``cover(constraints=[...])``, model files): an entry that is not a callable is
compiled here by :func:`compile_constraint` into an ordinary predicate over the
axis names it mentions, so the model validates it exactly as it validates a
Python lambda (unknown axis, unsatisfiable constraints ...).  Forms::

    {"if": {"dtype": "fp32"}, "then": {"bias_mode": {"not": [2]}}}
    {"never": {"dtype": "fp32", "padded_a": True}}
    {"always": "bias_mode in [0, 1] or dtype == 'fp16'"}
    "not (dtype == 'fp32' and bias_mode == 2)"

A condition is a mapping of axis name -> matcher (a value, a list of values,
or ``{"eq"|"ne"|"in"|"not"|"not_in"|"lt"|"le"|"gt"|"ge": ...}``), a list of
conditions (any of), or an expression string.  Expressions are never
``eval``-ed: they are parsed with :mod:`ast` and interpreted over a whitelist
(names, constants, lists, comparisons, ``and`` / ``or`` / ``not``).  Values
compare with :func:`pairwise_param.values.loose_eq` (``True`` is not ``1``).
The reference is ``docs/model.md``.
"""

from __future__ import annotations

import ast
import inspect
import json
import keyword
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pairwise_param.constraints import AXIS_NAMES_ATTR
from pairwise_param.errors import InvalidConstraint
from pairwise_param.values import loose_eq

__all__ = ["compile_constraint", "known_values"]


def _tuplify(value: Any) -> Any:
    """JSON/TOML lists -> tuples (axis values are hashable; grouped axes take tuples)."""
    if isinstance(value, list):
        return tuple(_tuplify(v) for v in value)
    return value


def known_values(axes: Sequence[tuple[Sequence[str], Sequence[Any]]]) -> dict[str, list[Any]]:
    """Argument name -> its distinct values, from ``(names, values)`` per axis
    (a grouped axis contributes each part's distinct values): what a
    constraint's matchers are checked against."""
    out: dict[str, list[Any]] = {}
    for names, vals in axes:
        if len(names) == 1:
            out[names[0]] = list(vals)
            continue
        for j, n in enumerate(names):
            seen: list[Any] = []
            for v in vals:
                if isinstance(v, tuple) and len(v) == len(names) and not any(loose_eq(v[j], s) for s in seen):
                    seen.append(v[j])
            out[n] = seen
    return out


_ORDER_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
}
_MATCHER_KEYS = {"eq", "ne", "in", "not", "not_in", *_ORDER_OPS}

Matcher = Callable[[Any], bool]


def _check_known(axis: str, values: Sequence[Any], known: Mapping[str, list[Any]], where: str | None) -> None:
    pool = known.get(axis)
    if pool is None:
        return  # unknown axis: the model reports it with a suggestion
    for v in values:
        if not any(loose_eq(v, p) for p in pool):
            shown = ", ".join(repr(p) for p in pool)
            raise InvalidConstraint(f"axis {axis!r} has no value {v!r} (values: {shown})", where=where)


def _check_comparable(axis: str, key: str, target: Any, known: Mapping[str, list[Any]], where: str | None) -> None:
    """An order matcher whose bound compares with none of the axis's values
    (``{"lt": "x"}`` on numbers) could never match: a typo, not a condition."""
    pool = known.get(axis)
    if not pool:
        return
    for p in pool:
        try:
            _ORDER_OPS[key](p, target)
        except TypeError:
            continue
        return
    shown = ", ".join(repr(p) for p in pool)
    raise InvalidConstraint(
        f"axis {axis!r}: {key} {target!r} compares with none of its values ({shown}), so it could never match",
        where=where,
    )


def _matcher(axis: str, spec: Any, known: Mapping[str, list[Any]], where: str | None) -> Matcher:
    if isinstance(spec, Mapping):
        bad = sorted(set(spec) - _MATCHER_KEYS)
        if bad or not spec:
            raise InvalidConstraint(
                f"axis {axis!r}: unknown matcher key(s) {bad}; use a value, a list of values, or an "
                f"object with {sorted(_MATCHER_KEYS)}",
                where=where,
            )
        parts: list[Matcher] = []
        for key, arg in spec.items():
            arg = _tuplify(arg)
            if key in ("eq", "ne"):
                _check_known(axis, [arg], known, where)
                parts.append(_is(arg) if key == "eq" else _negate(_is(arg)))
            elif key in ("in", "not", "not_in"):
                if not isinstance(arg, tuple):
                    arg = (arg,)
                _check_known(axis, arg, known, where)
                parts.append(_one_of(arg) if key == "in" else _negate(_one_of(arg)))
            else:
                _check_comparable(axis, key, arg, known, where)
                parts.append(_order(_ORDER_OPS[key], arg))
        return _all_of(parts)
    if isinstance(spec, list):
        vals = _tuplify(spec)
        _check_known(axis, vals, known, where)
        return _one_of(vals)
    _check_known(axis, [spec], known, where)
    return _is(spec)


def _is(target: Any) -> Matcher:
    return lambda v: loose_eq(v, target)


def _one_of(targets: Sequence[Any]) -> Matcher:
    return lambda v: any(loose_eq(v, x) for x in targets)


def _negate(m: Matcher) -> Matcher:
    return lambda v: not m(v)


def _order(op: Callable[[Any, Any], bool], target: Any) -> Matcher:
    def match(v: Any) -> bool:
        try:
            return bool(op(v, target))
        except TypeError:  # "fp16" < 2: not comparable, so not matching
            return False

    return match


def _all_of(parts: Sequence[Matcher]) -> Matcher:
    return lambda v: all(p(v) for p in parts)


@dataclass
class _Cond:
    names: tuple[str, ...]
    test: Callable[[Mapping[str, Any]], bool]
    text: str


def _condition(spec: Any, known: Mapping[str, list[Any]], where: str | None) -> _Cond:
    if isinstance(spec, str):
        return _expression(spec, where, known)
    if isinstance(spec, list):  # any of several conditions
        if not spec:
            raise InvalidConstraint("an empty list of conditions", where=where)
        subs = [_condition(s, known, where) for s in spec]
        names = tuple(dict.fromkeys(n for s in subs for n in s.names))
        return _Cond(names, lambda row: any(s.test(row) for s in subs), " or ".join(f"({s.text})" for s in subs))
    if isinstance(spec, Mapping):
        if not spec:
            raise InvalidConstraint("an empty condition", where=where)
        items = [(str(k), _matcher(str(k), v, known, where)) for k, v in spec.items()]
        text = ", ".join(f"{k}={json.dumps(v, default=str)}" for k, v in spec.items())
        return _Cond(tuple(k for k, _ in items), lambda row: all(m(row[k]) for k, m in items), text)
    raise InvalidConstraint(
        f"a condition is an object (axis -> matcher), a list of them (any of), or an "
        f"expression string; got {spec!r}",
        where=where,
    )


def _implies(cond: _Cond, then: _Cond) -> Callable[[Mapping[str, Any]], bool]:
    return lambda row: (not cond.test(row)) or then.test(row)


def compile_constraint(spec: Any, known: Mapping[str, list[Any]], *, where: str | None) -> Callable[..., bool]:
    """Turn one declarative constraint into a predicate over the axis names it
    mentions (a real signature, so the model can bind it).

    Forms: ``{"if": C, "then": C}`` (rows matching the first must match the
    second), ``{"never": C}`` (no row matches), ``{"always": C}`` or a bare
    expression string (every row matches).
    """
    if isinstance(spec, str):
        body = _expression(spec, where, known)
        label = spec
        names = body.names
        test = body.test
    elif isinstance(spec, Mapping):
        keys = set(spec)
        if keys == {"if", "then"}:
            cond = _condition(spec["if"], known, where)
            then = _condition(spec["then"], known, where)
            names = tuple(dict.fromkeys(cond.names + then.names))
            label = f"if {cond.text} then {then.text}"
            test = _implies(cond, then)
        elif keys == {"never"}:
            cond = _condition(spec["never"], known, where)
            names, label = cond.names, f"never {cond.text}"
            test = _negate(cond.test)
        elif keys == {"always"}:
            cond = _condition(spec["always"], known, where)
            names, label, test = cond.names, f"always {cond.text}", cond.test
        else:
            raise InvalidConstraint(
                f"a constraint is {{\"if\": ..., \"then\": ...}}, {{\"never\": ...}}, "
                f"{{\"always\": ...}} or an expression string; got keys {sorted(keys)}",
                where=where,
            )
    else:
        raise InvalidConstraint(f"a constraint must be an object or a string, got {spec!r}", where=where)

    def predicate(**row: Any) -> bool:
        return bool(test(row))

    predicate.__name__ = label
    predicate.__qualname__ = label
    setattr(predicate, AXIS_NAMES_ATTR, tuple(names))  # names need not be identifiers
    if all(n.isidentifier() and not keyword.iskeyword(n) for n in names):
        predicate.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY) for n in names]
        )
    return predicate


# -- expression strings: a whitelist interpreter over ast ------------------------------------
_CMP: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: lambda a, b: loose_eq(a, b),
    ast.NotEq: lambda a, b: not loose_eq(a, b),
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: any(loose_eq(a, x) for x in b),
    ast.NotIn: lambda a, b: not any(loose_eq(a, x) for x in b),
}


#: Bounds of an expression string: its length in characters and how deeply
#: its operators nest.  Real constraints are a line or two; these bounds keep
#: a pathological one (``not not not ...`` 3000 deep, a 14 MB literal list)
#: from exhausting the recursion limit or memory, and its error message short.
MAX_EXPRESSION_CHARS = 10_000
MAX_EXPRESSION_DEPTH = 100


def _short(text: str, limit: int = 80) -> str:
    """``repr`` of an expression, cut to ``limit`` characters for messages."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"... ({len(text)} characters)"


_NO_LITERAL = object()


def _literal(node: ast.AST) -> Any:
    """The constant a node spells (``2``, ``-2``, ``'fp16'``, ``true``, a list
    of constants as a tuple), or ``_NO_LITERAL``."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name) and node.id in ("true", "false"):
        return node.id == "true"
    if (
        isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant)
        and isinstance(node.operand.value, (int, float)) and not isinstance(node.operand.value, bool)
    ):
        return -node.operand.value
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [_literal(e) for e in node.elts]
        return _NO_LITERAL if any(i is _NO_LITERAL for i in items) else tuple(items)
    return _NO_LITERAL


def _check_comparison(
    left: ast.AST, op: ast.cmpop, right: ast.AST, known: Mapping[str, list[Any]], where: str | None
) -> None:
    """One rule for expressions and declarative rules: comparing an axis with
    a value it does not hold is an error (``dtype == 'fp61'`` is a typo that
    would constrain nothing), as is an order bound none of its values compares with."""
    if isinstance(right, ast.Name) and not isinstance(left, ast.Name):  # 2 == a: the same as a == 2
        left, right = right, left
        op = {ast.Lt: ast.Gt(), ast.LtE: ast.GtE(), ast.Gt: ast.Lt(), ast.GtE: ast.LtE()}.get(type(op), op)
    if not isinstance(left, ast.Name) or left.id in ("true", "false"):
        return
    value = _literal(right)
    if value is _NO_LITERAL:
        return
    if isinstance(op, (ast.Eq, ast.NotEq)):
        _check_known(left.id, [value], known, where)
    elif isinstance(op, (ast.In, ast.NotIn)) and isinstance(value, tuple):
        _check_known(left.id, value, known, where)
    elif isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
        key = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge"}[type(op)]
        _check_comparable(left.id, key, value, known, where)


def _too_deep(text: str, where: str | None) -> InvalidConstraint:
    return InvalidConstraint(
        f"expression {_short(text)} nests more than {MAX_EXPRESSION_DEPTH} levels deep; simplify it", where=where
    )


def _tree_depth(tree: ast.AST) -> int:
    """Depth of a parsed expression, without recursion (the tree may be thousands deep)."""
    deepest = 0
    stack = [(tree, 1)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in ast.iter_child_nodes(node))
    return deepest


def _expression(text: str, where: str | None, known: Mapping[str, list[Any]] | None = None) -> _Cond:
    if len(text) > MAX_EXPRESSION_CHARS:
        raise InvalidConstraint(
            f"expression {_short(text)} is longer than {MAX_EXPRESSION_CHARS} characters; "
            "split it into several constraints, or use a declarative rule with a list of values",
            where=where,
        )
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise InvalidConstraint(f"cannot parse expression {_short(text)}: {exc.msg}", where=where) from None
    except (RecursionError, MemoryError):  # Python <= 3.12's parser recurses on deep nesting
        raise _too_deep(text, where) from None
    if _tree_depth(tree) > 2 * MAX_EXPRESSION_DEPTH:  # newer parsers accept it: one rule on every Python
        raise _too_deep(text, where)
    names: list[str] = []
    depth = [0]

    def compile_node(node: ast.AST) -> Callable[[Mapping[str, Any]], Any]:
        depth[0] += 1
        try:
            if depth[0] > MAX_EXPRESSION_DEPTH:
                raise _too_deep(text, where)
            return compile_inner(node)
        finally:
            depth[0] -= 1

    def compile_inner(node: ast.AST) -> Callable[[Mapping[str, Any]], Any]:
        if isinstance(node, ast.BoolOp):
            parts = [compile_node(v) for v in node.values]
            if isinstance(node.op, ast.And):
                return lambda row: all(p(row) for p in parts)
            return lambda row: any(p(row) for p in parts)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            inner = compile_node(node.operand)
            return lambda row: not inner(row)
        if (
            isinstance(node, ast.UnaryOp)
            and isinstance(node.op, ast.USub)
            and isinstance(node.operand, ast.Constant)
            and isinstance(node.operand.value, (int, float))
            and not isinstance(node.operand.value, bool)
        ):
            value = -node.operand.value
            return lambda row: value
        if isinstance(node, ast.Compare):
            left = compile_node(node.left)
            ops = []
            for op, comp in zip(node.ops, node.comparators):
                fn = _CMP.get(type(op))
                if fn is None:
                    raise InvalidConstraint(
                        f"operator {type(op).__name__} is not allowed in {_short(text)}", where=where
                    )
                ops.append((fn, compile_node(comp)))
            if known is not None:
                lefts = [node.left, *node.comparators]
                for lhs, op, rhs in zip(lefts, node.ops, node.comparators):
                    _check_comparison(lhs, op, rhs, known, where)

            def compare(row: Mapping[str, Any]) -> bool:
                a = left(row)
                for fn, right in ops:
                    b = right(row)
                    if not fn(a, b):
                        return False
                    a = b
                return True

            return compare
        if isinstance(node, ast.Name):
            if node.id in ("true", "false"):  # JSON/TOML spelling
                flag = node.id == "true"
                return lambda row: flag
            if node.id not in names:
                names.append(node.id)
            key = node.id
            return lambda row: row[key]
        if isinstance(node, ast.Constant):
            const: Any = node.value
            return lambda row: const
        if isinstance(node, (ast.List, ast.Tuple)):
            elts = [compile_node(e) for e in node.elts]
            return lambda row: tuple(e(row) for e in elts)
        raise InvalidConstraint(
            f"{type(node).__name__} is not allowed in constraint expression {_short(text)}; use axis "
            "names, constants, lists, comparisons (== != < <= > >= in, not in) and and/or/not",
            where=where,
        )

    fn = compile_node(tree.body)
    if not names:
        raise InvalidConstraint(f"expression {_short(text)} names no axis", where=where)
    return _Cond(tuple(names), lambda row: bool(fn(row)), text)
