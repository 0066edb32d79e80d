"""Model files: a :class:`~pairwise_param.model.Model` written as JSON or TOML.

Used by ``pairwise-param generate`` and ``pairwise-param check`` so people
outside pytest can describe a model without writing Python.  The format (see
``docs/cli.md`` for the full reference)::

    strength = 2                      # optional, default 2

    [axes]                            # ordered: the file's order is the axis order
    dtype = ["fp16", "bf16", "fp32"]
    padded_a = [false, true]
    bias_mode = [0, 1, 2]
    "n,k,m" = [[1, 8, 16], [4, 64, 64]]   # grouped axis: inner lists become tuples

    [[sub_models]]                    # optional: a subset at another strength
    axes = ["dtype", "bias_mode", "padded_a"]
    strength = 3

    [[constraints]]                   # declarative: if/then, never, or expressions
    if = { dtype = "fp32" }
    then = { bias_mode = { not = [2] } }

    [[include]]                       # optional must-include (partial) rows
    dtype = "fp16"
    bias_mode = 2

Constraints are never ``eval``-ed: a declarative condition is a mapping of axis
name -> matcher, and an expression string is parsed with :mod:`ast` and
interpreted over a whitelist (names, constants, lists, comparisons, ``and`` /
``or`` / ``not``).  Each constraint becomes an ordinary predicate over the axis
names it mentions, so the model validates it exactly as it validates a Python
lambda (unknown axis, unsatisfiable constraints ...).
"""

from __future__ import annotations

import ast
import inspect
import json
import operator
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pairwise_param.errors import InvalidArgument, InvalidConstraint, InvalidModel
from pairwise_param.model import Model

__all__ = ["ModelSpec", "compile_constraint", "load_model", "parse_model", "read_model_file"]

_TOP_KEYS = {"axes", "strength", "constraints", "include", "sub_models", "effort", "seed", "name", "description"}


@dataclass
class ModelSpec:
    """What a model file holds, validated into a :class:`Model`, plus the
    engine options it may carry (``effort``, ``seed``)."""

    model: Model
    effort: int | None = None
    seed: int | None = None
    name: str | None = None
    source: str | None = None
    constraint_labels: list[str] = field(default_factory=list)


# -- reading ------------------------------------------------------------------------------
def _load_toml(text: str, where: str) -> Any:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        try:
            import tomli as tomllib  # type: ignore[import-not-found]
        except ImportError:
            raise InvalidArgument(
                "reading TOML model files on Python 3.10 needs the 'tomli' package "
                "(pip install tomli), or write the model as JSON",
                where=where,
            ) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidModel(f"not valid TOML: {exc}", where=where) from None


def read_text_file(path: Path, what: str) -> str:
    """The UTF-8 text of a user's file; a missing or unreadable file is an
    :class:`InvalidArgument` naming it (``what`` says which kind of file)."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InvalidArgument(f"{what} not found", where=str(path)) from None
    except OSError as exc:
        raise InvalidArgument(f"cannot read {what}: {exc.strerror or exc}", where=str(path)) from None


def read_model_file(path: str | Path) -> Any:
    """Parse a ``.json`` or ``.toml`` file into plain data (format by suffix;
    an unknown suffix is tried as JSON, then TOML)."""
    p = Path(path)
    where = str(p)
    text = read_text_file(p, "model file")
    suffix = p.suffix.lower()
    if suffix == ".toml":
        return _load_toml(text, where)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        if suffix == ".json":
            raise InvalidModel(
                f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}", where=where
            ) from None
    return _load_toml(text, where)


def load_model(path: str | Path, *, strength: int | None = None) -> ModelSpec:
    """Read and validate a model file; ``strength`` overrides the file's."""
    data = read_model_file(path)
    spec = parse_model(data, where=str(path), strength=strength)
    spec.source = str(path)
    return spec


# -- validating -----------------------------------------------------------------------------
def _tuplify(value: Any) -> Any:
    """JSON/TOML lists -> tuples (values must be hashable; grouped axes take tuples)."""
    if isinstance(value, list):
        return tuple(_tuplify(v) for v in value)
    if isinstance(value, dict):
        raise InvalidModel(f"axis values must be scalars or lists, got a table/object {value!r}")
    return value


def _axes(raw: Any, where: str) -> list[tuple[str, list[Any]]]:
    pairs: list[tuple[str, Any]]
    if isinstance(raw, Mapping):
        pairs = list(raw.items())
    elif isinstance(raw, list):
        pairs = []
        for i, entry in enumerate(raw):
            if not (isinstance(entry, Mapping) and set(entry) == {"name", "values"}):
                raise InvalidModel(
                    f"axes[{i}] must be an object with exactly 'name' and 'values', got {entry!r}",
                    where=where,
                )
            pairs.append((entry["name"], entry["values"]))
    else:
        raise InvalidModel(
            "'axes' must map axis names to lists of values, e.g. "
            '{"dtype": ["fp16", "bf16"], "bias_mode": [0, 1, 2]}',
            where=where,
        )
    out = []
    for name, values in pairs:
        if not isinstance(values, list):
            raise InvalidModel(f"axis {name!r}: values must be a list, got {values!r}", where=where)
        try:
            vals = [_tuplify(v) for v in values]
        except InvalidModel as exc:
            raise InvalidModel(f"axis {name!r}: {exc.detail}", where=where) from None
        out.append((name, vals))
    return out


def _int_option(data: Mapping[str, Any], key: str, where: str, minimum: int | None = None) -> int | None:
    if key not in data:
        return None
    v = data[key]
    if isinstance(v, bool) or not isinstance(v, int) or (minimum is not None and v < minimum):
        bound = f" >= {minimum}" if minimum is not None else ""
        raise InvalidModel(f"{key!r} must be an integer{bound}, got {key}={v!r}", where=where)
    return v


def parse_model(data: Any, *, where: str = "model", strength: int | None = None) -> ModelSpec:
    """Validate plain data (as parsed from JSON/TOML) into a :class:`ModelSpec`."""
    if not isinstance(data, Mapping):
        raise InvalidModel("a model file must hold an object/table at the top level", where=where)
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        import difflib

        hints = []
        for k in unknown:
            close = difflib.get_close_matches(k, sorted(_TOP_KEYS), n=1)
            hints.append(f"{k!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        raise InvalidModel(
            f"unknown top-level key(s) {', '.join(hints)}; allowed: {', '.join(sorted(_TOP_KEYS))}",
            where=where,
        )
    if "axes" not in data:
        raise InvalidModel("the model has no 'axes'", where=where)
    axes = _axes(data["axes"], where)
    file_strength = _int_option(data, "strength", where, minimum=1)
    effort = _int_option(data, "effort", where, minimum=0)
    seed = _int_option(data, "seed", where)

    axis_values: dict[str, list[Any]] = {}
    for name, vals in axes:
        names = [n.strip() for n in name.split(",")]
        if len(names) == 1:
            axis_values[names[0]] = vals
        else:
            for j, n in enumerate(names):
                seen: list[Any] = []
                for v in vals:
                    if isinstance(v, tuple) and len(v) == len(names) and not any(_same(v[j], s) for s in seen):
                        seen.append(v[j])
                axis_values[n] = seen

    raw_constraints = data.get("constraints", [])
    if not isinstance(raw_constraints, list):
        raise InvalidModel("'constraints' must be a list", where=where)
    predicates = []
    labels = []
    for i, c in enumerate(raw_constraints):
        pred = compile_constraint(c, axis_values, where=f"{where}: constraints[{i}]")
        predicates.append(pred)
        labels.append(pred.__name__)

    raw_include = data.get("include", [])
    if not isinstance(raw_include, list) or not all(isinstance(r, Mapping) for r in raw_include):
        raise InvalidModel("'include' must be a list of objects (axis name -> value)", where=where)
    include = [{k: _tuplify(v) for k, v in r.items()} for r in raw_include]

    raw_subs = data.get("sub_models", [])
    if not isinstance(raw_subs, list):
        raise InvalidModel("'sub_models' must be a list of {axes = [...], strength = N}", where=where)
    subs = []
    for i, s in enumerate(raw_subs):
        if not (isinstance(s, Mapping) and set(s) == {"axes", "strength"} and isinstance(s["axes"], list)):
            raise InvalidModel(
                f"sub_models[{i}] must be {{\"axes\": [names...], \"strength\": N}}, got {s!r}", where=where
            )
        subs.append((tuple(s["axes"]), s["strength"]))

    t = strength if strength is not None else (file_strength if file_strength is not None else 2)
    model = Model(axes, strength=t, constraints=predicates, include=include, sub_models=subs, where=where)
    raw_name = data.get("name")
    return ModelSpec(model=model, effort=effort, seed=seed, name=raw_name if isinstance(raw_name, str) else None,
                     constraint_labels=labels)


# -- constraints ----------------------------------------------------------------------------
def _same(a: Any, b: Any) -> bool:
    """Equality that keeps ``True`` and ``1`` apart (as the model does)."""
    if isinstance(a, bool) != isinstance(b, bool):
        return False
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # values that refuse to compare are different
        return False


_ORDER_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
}
_MATCHER_KEYS = {"eq", "ne", "in", "not", "not_in", *_ORDER_OPS}

Matcher = Callable[[Any], bool]


def _check_known(axis: str, values: Sequence[Any], known: Mapping[str, list[Any]], where: str) -> None:
    pool = known.get(axis)
    if pool is None:
        return  # unknown axis: the model reports it with a suggestion
    for v in values:
        if not any(_same(v, p) for p in pool):
            shown = ", ".join(repr(p) for p in pool)
            raise InvalidConstraint(f"axis {axis!r} has no value {v!r} (values: {shown})", where=where)


def _check_comparable(axis: str, key: str, target: Any, known: Mapping[str, list[Any]], where: str) -> None:
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


def _matcher(axis: str, spec: Any, known: Mapping[str, list[Any]], where: str) -> Matcher:
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
    return lambda v: _same(v, target)


def _one_of(targets: Sequence[Any]) -> Matcher:
    return lambda v: any(_same(v, x) for x in targets)


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


def _condition(spec: Any, known: Mapping[str, list[Any]], where: str) -> _Cond:
    if isinstance(spec, str):
        return _expression(spec, where)
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


def compile_constraint(spec: Any, known: Mapping[str, list[Any]], *, where: str) -> Callable[..., bool]:
    """Turn one declarative constraint into a predicate over the axis names it
    mentions (a real signature, so the model can bind it).

    Forms: ``{"if": C, "then": C}`` (rows matching the first must match the
    second), ``{"never": C}`` (no row matches), ``{"always": C}`` or a bare
    expression string (every row matches).
    """
    if isinstance(spec, str):
        body = _expression(spec, where)
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
    predicate.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY) for n in names]
    )
    return predicate


# -- expression strings: a whitelist interpreter over ast ------------------------------------
_CMP = {
    ast.Eq: lambda a, b: _same(a, b),
    ast.NotEq: lambda a, b: not _same(a, b),
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: any(_same(a, x) for x in b),
    ast.NotIn: lambda a, b: not any(_same(a, x) for x in b),
}


def _expression(text: str, where: str) -> _Cond:
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise InvalidConstraint(f"cannot parse expression {text!r}: {exc.msg}", where=where) from None
    names: list[str] = []

    def compile_node(node: ast.AST) -> Callable[[Mapping[str, Any]], Any]:
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
                        f"operator {type(op).__name__} is not allowed in {text!r}", where=where
                    )
                ops.append((fn, compile_node(comp)))

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
            f"{type(node).__name__} is not allowed in constraint expression {text!r}; use axis "
            "names, constants, lists, comparisons (== != < <= > >= in, not in) and and/or/not",
            where=where,
        )

    fn = compile_node(tree.body)
    if not names:
        raise InvalidConstraint(f"expression {text!r} names no axis", where=where)
    return _Cond(tuple(names), lambda row: bool(fn(row)), text)
