"""Constraints: plain predicates over named axes -> exclusions over value indices.

A constraint is any callable whose parameter names are axis names (or names
bound by a grouped axis)::

    lambda dtype, bias_mode: not (dtype == "fp32" and bias_mode == 2)

We read the signature once to learn the constraint's *scope* (the axes it
involves).  The predicate is then tabulated over the product of its scope's
values into a set of forbidden index tuples, so everything downstream (the
engine, the feasibility solver, the cache fingerprint) works on value indices
and exclusions only, as PICT's engine does.  A partial row is checked against a
constraint as soon as every axis of its scope is assigned.

Exact feasibility over those exclusions (:class:`Exclusion`,
:class:`Feasibility`) lives in :mod:`pairwise_param.feasibility`; its names are
importable from here too.
"""

from __future__ import annotations

import ast
import difflib
import functools
import inspect
import itertools
import linecache
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pairwise_param.errors import InvalidArgument, InvalidConstraint, UnknownAxis
from pairwise_param.feasibility import Exclusion, Feasibility, merge_exclusions, too_hard

__all__ = [
    "AXIS_NAMES_ATTR",
    "Binding",
    "Constraint",
    "Exclusion",
    "Feasibility",
    "bind_constraint",
    "constraint_list",
    "describe_predicate",
    "merge_exclusions",
    "never_equal_constants",
    "tabulate",
    "too_hard",
]

#: Largest product of a constraint's scope sizes we tabulate.  Beyond this the
#: predicate is almost certainly over-broad (it names axes it does not need).
MAX_TABULATION = 2_000_000


AXIS_NAMES_ATTR = "__pairwise_axes__"

#: Where a parameter name points: (axis index, element index in a grouped axis
#: or ``None`` for the whole value).
Binding = tuple[int, "int | None"]


def describe_predicate(pred: Callable[..., Any]) -> str:
    """A short human label for a predicate: ``name(a, b)``, the lambda text, or a
    declarative rule's own text (``never dtype="bf16", fused=true``: it names its axes)."""
    name = getattr(pred, "__name__", type(pred).__name__)
    if isinstance(name, str) and name and name != "<lambda>" and not name.isidentifier():
        return name  # a rule of the constraint language: its text, without "(axes)" run into it
    explicit = getattr(pred, AXIS_NAMES_ATTR, None)
    try:
        params = ", ".join(explicit if isinstance(explicit, tuple) else inspect.signature(pred).parameters)
    except (TypeError, ValueError):
        params = "..."
    if name == "<lambda>":
        exact = _lambda_text(pred)
        if exact is not None:
            text = " ".join(exact.split())
            return text if len(text) <= 120 else text[:117] + "..."
        try:
            src = inspect.getsource(pred).strip()
        except (OSError, TypeError):
            src = ""
        start = src.find("lambda")
        if start >= 0:
            text = src[start:]
            # Cut at the end of the lambda expression as best we can: balance brackets.
            depth = 0
            for i, ch in enumerate(text):
                if ch in "([{":
                    depth += 1
                elif ch in ")]}":
                    if depth == 0:
                        text = text[:i]
                        break
                    depth -= 1
                elif ch == "," and depth == 0 and i > text.find(":"):
                    text = text[:i]
                    break
            text = " ".join(text.split())
            if len(text) > 120:
                text = text[:117] + "..."
            return text
        return f"lambda({params})"
    return f"{name}({params})"


@functools.lru_cache(maxsize=16)
def _lambdas(filename: str, text: str) -> tuple[ast.Lambda, ...]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ()
    return tuple(n for n in ast.walk(tree) if isinstance(n, ast.Lambda))


def _lambda_text(pred: Callable[..., Any]) -> str | None:
    """The exact source of a lambda, told apart from other lambdas on its line
    by the source positions of its code (several lambdas on one line each get
    their own text); None when the source is unavailable."""
    found = _lambda_node(pred)
    return ast.get_source_segment(found[0], found[1]) if found is not None else None


def _lambda_node(pred: Callable[..., Any]) -> tuple[str, ast.Lambda] | None:
    """(file text, the lambda's AST node), or None (see :func:`_lambda_text`)."""
    code = getattr(pred, "__code__", None)
    if code is None:
        return None
    text = "".join(linecache.getlines(code.co_filename))
    if not text:
        return None
    params = list(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
    # Python >= 3.11 records each instruction's source span (RESUME and RETURN carry no
    # real span: col 0 to 0); on 3.10 lambdas of one line are told apart by parameters only.
    positions = getattr(code, "co_positions", None)
    spots = [
        (ln, col)
        for ln, _, col, end in (positions() if positions is not None else ())
        if ln is not None and col is not None and (col, end) != (0, 0)
    ]
    best: ast.Lambda | None = None
    for node in _lambdas(code.co_filename, text):
        if node.lineno != code.co_firstlineno or node.end_lineno is None or node.end_col_offset is None:
            continue
        args = node.args
        if [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)] != params:
            continue
        start, end = (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)
        if spots and not all(start <= p <= end for p in spots):
            continue
        if best is None or (node.end_lineno, node.end_col_offset) < (best.end_lineno or 0, best.end_col_offset or 0):
            best = node
    return (text, best) if best is not None else None


def _predicate_tree(pred: Callable[..., Any]) -> ast.AST | None:
    """The AST of a Python predicate (a lambda or a def), or None."""
    if getattr(pred, AXIS_NAMES_ATTR, None) is not None:
        return None  # a compiled rule: checked by the language itself
    if getattr(pred, "__name__", "") == "<lambda>":
        found = _lambda_node(pred)
        return found[1] if found is not None else None
    try:
        return ast.parse(textwrap.dedent(inspect.getsource(pred)))
    except (OSError, TypeError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def never_equal_constants(c: Constraint, values: Sequence[Sequence[Any]]) -> list[str]:
    """Comparisons in a Python predicate that can never hold: ``param ==``
    (``!=``, ``in``, ``not in``) a literal that no value of the parameter's
    axis equals (Python ``==``, what the predicate itself does).  Each is a
    likely typo (``dtype == "fp61"``) that constrains nothing; the model warns
    (:class:`~pairwise_param.errors.PairwiseWarning`).  Best effort: needs the
    source, sees only literals."""
    tree = _predicate_tree(c.predicate)
    if tree is None:
        return []
    pools: dict[str, list[Any]] = {}
    for param, (axis, element) in zip(c.params, c.bindings):
        vals = values[axis]
        pools[param] = list(vals) if element is None else [v[element] for v in vals]
    found: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        for lhs, op, rhs in zip([node.left, *node.comparators], node.ops, node.comparators):
            if isinstance(rhs, ast.Name) and not isinstance(lhs, ast.Name) and isinstance(op, (ast.Eq, ast.NotEq)):
                lhs, rhs = rhs, lhs
            if not (isinstance(lhs, ast.Name) and lhs.id in pools):
                continue
            try:
                literal = ast.literal_eval(rhs)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue
            if isinstance(op, (ast.Eq, ast.NotEq)):
                targets = [literal]
            elif isinstance(op, (ast.In, ast.NotIn)) and isinstance(literal, (list, tuple, set, frozenset)):
                targets = list(literal)
            else:
                continue
            for t in targets:
                if not any(_equal(v, t) for v in pools[lhs.id]):
                    found.append(f"{lhs.id} vs {t!r}")
    return found


def _equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - an odd __eq__ (a tensor) means we cannot tell: say equal
        return True


@dataclass(frozen=True)
class Constraint:
    """A predicate bound to the axes of one model.

    ``params`` are the predicate's parameter names, ``bindings`` where each one
    points, ``scope`` the sorted distinct axis indices involved.
    """

    predicate: Callable[..., Any]
    params: tuple[str, ...]
    bindings: tuple[Binding, ...]
    scope: tuple[int, ...]
    label: str

    def holds(self, values: Sequence[Any], where: str | None = None) -> bool:
        """Evaluate on the *values* of the scope's axes (in ``scope`` order)."""
        by_axis = dict(zip(self.scope, values))
        kwargs: dict[str, Any] = {}
        for param, (axis, element) in zip(self.params, self.bindings):
            value = by_axis[axis]
            kwargs[param] = value if element is None else value[element]
        try:
            result = self.predicate(**kwargs)
        except Exception as exc:  # a user predicate failing is a model error: say which
            shown = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
            raise InvalidConstraint(
                f"constraint {self.label} raised {type(exc).__name__}: {exc} "
                f"when called with {shown}; a constraint must return a truth value "
                "for every combination of its axes' values",
                where=where,
            ) from exc
        return truth(result, self.label, kwargs, where)


def truth(result: Any, label: str, row: Mapping[str, Any], where: str | None = None) -> bool:
    """THE rule for what a constraint predicate may return: ``True`` or ``False`` (a
    ``numpy.bool_`` counts as one).  Anything else, ``None`` above all (a forgotten
    ``return True`` at the end of a ``def``), is an :class:`InvalidConstraint` naming the
    predicate, the row and the value: Python would read ``None`` as False and silently
    drop every row that reaches it."""
    if isinstance(result, bool):
        return result
    kind = type(result)
    if kind.__module__ == "numpy" and kind.__name__ in ("bool_", "bool"):
        return bool(result)
    shown = ", ".join(f"{k}={v!r}" for k, v in row.items())
    why = ("None (a path through the predicate that returns nothing: a missing `return True`?)"
           if result is None else f"{result!r} ({kind.__name__}, not a bool)")
    raise InvalidConstraint(
        f"constraint {label} returned {why} when called with {shown}; a constraint must return "
        "True or False (wrap the expression in bool(...) if it computes something else)",
        where=where,
    )


def constraint_list(constraints: Any, where: str | None = None) -> tuple[Any, ...]:
    """THE check of a ``constraints=`` argument (``cover()``, ``@pairwise``,
    ``Model``, ``rows()``): a list whose entries are predicates or declarative
    rules (a mapping or an expression string, see :mod:`pairwise_param.language`).
    A lone predicate, rule or string is an error (a list of one is meant);
    ``None`` means none."""
    if constraints is None:
        return ()
    if callable(constraints) or isinstance(constraints, (str, bytes, Mapping)):
        raise InvalidArgument(
            f"constraints={constraints!r} must be a list of predicates or rules, "
            "e.g. constraints=[lambda a, b: ...]",
            where=where,
        )
    try:
        items = tuple(constraints)
    except TypeError:
        raise InvalidArgument(
            f"constraints={constraints!r} must be a list of predicates or rules, "
            "e.g. constraints=[lambda a, b: ...]",
            where=where,
        ) from None
    for i, c in enumerate(items):
        if not (callable(c) or isinstance(c, (str, Mapping))):
            raise InvalidArgument(
                f"constraints[{i}]={c!r} is neither a predicate over axis names nor a rule; "
                "write e.g. `lambda dtype, bias_mode: not (dtype == 'fp32' and bias_mode == 2)` "
                "or {'if': {...}, 'then': {...}}",
                where=where,
            )
    return items


def bind_constraint(
    pred: Callable[..., Any],
    resolve: Mapping[str, Binding],
    axis_names: Sequence[str],
    where: str | None = None,
) -> Constraint:
    """Read ``pred``'s signature and bind its parameters to axes.

    ``resolve`` maps every usable name (axis names and names bound by grouped
    axes) to its binding.  Parameters with defaults that name no axis are left
    to their defaults; any other unknown name is an error naming the constraint
    and suggesting the closest axis.
    """
    if not callable(pred):
        raise InvalidArgument(
            f"constraints must be callables over axis names, got {pred!r}; "
            "write e.g. `lambda dtype, bias_mode: not (dtype == 'fp32' and bias_mode == 2)`",
            where=where,
        )
    label = describe_predicate(pred)
    explicit = getattr(pred, AXIS_NAMES_ATTR, None)
    if isinstance(explicit, tuple):  # a compiled rule: may name axes that are not identifiers
        for name in explicit:
            if name not in resolve:
                close = difflib.get_close_matches(name, list(resolve), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise UnknownAxis(
                    f"constraint {label} names unknown axis {name!r}{hint} (axes: {', '.join(axis_names)})",
                    where=where,
                )
        if not explicit:
            raise InvalidConstraint(f"constraint {label} names no axis", where=where)
        bindings_ = [resolve[name] for name in explicit]
        scope_ = tuple(sorted({axis for axis, _ in bindings_}))
        return Constraint(pred, explicit, tuple(bindings_), scope_, label)
    try:
        sig = inspect.signature(pred)
    except (TypeError, ValueError) as exc:
        raise InvalidConstraint(
            f"cannot read the signature of constraint {label}: {exc}", where=where
        ) from exc
    params: list[str] = []
    bindings: list[Binding] = []
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise InvalidConstraint(
                f"constraint {label} takes *{p.name}: name the axes it reads as "
                "parameters, so we know which axes it constrains",
                where=where,
            )
        if p.kind is p.POSITIONAL_ONLY:
            raise InvalidConstraint(
                f"constraint {label}: parameter {p.name!r} is positional-only; axes are "
                "passed by name",
                where=where,
            )
        if p.name in resolve:
            params.append(p.name)
            bindings.append(resolve[p.name])
        elif p.default is p.empty:
            close = difflib.get_close_matches(p.name, list(resolve), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise UnknownAxis(
                f"constraint {label} names unknown axis {p.name!r}{hint} "
                f"(axes: {', '.join(axis_names)})",
                where=where,
            )
    if not params:
        raise InvalidConstraint(
            f"constraint {label} names no axis: its parameters must be axis names",
            where=where,
        )
    scope = tuple(sorted({axis for axis, _ in bindings}))
    return Constraint(pred, tuple(params), tuple(bindings), scope, label)


def tabulate(
    constraint: Constraint,
    axis_values: Sequence[Sequence[Any]],
    axis_labels: Sequence[str],
    where: str | None = None,
) -> frozenset[tuple[int, ...]]:
    """Evaluate ``constraint`` on every combination of its scope's values and
    return the index tuples it forbids."""
    sizes = [len(axis_values[a]) for a in constraint.scope]
    total = 1
    for s in sizes:
        total *= s
    if total > MAX_TABULATION:
        names = ", ".join(axis_labels[a] for a in constraint.scope)
        raise InvalidConstraint(
            f"constraint {constraint.label} spans axes {names} with {total} value "
            f"combinations (limit {MAX_TABULATION}); split it into constraints that each "
            "name only the axes they need",
            where=where,
        )
    forbidden = []
    for combo in itertools.product(*(range(s) for s in sizes)):
        values = [axis_values[a][i] for a, i in zip(constraint.scope, combo)]
        if not constraint.holds(values, where):
            forbidden.append(combo)
    return frozenset(forbidden)
