"""Read ``pytest.mark.parametrize`` tables out of test files without importing them.

The real-suite corpora (``tables.jsonl``, ``axes.jsonl``) name tables by file, test and
argnames only; this module finds them again in a checkout by static AST reading, so the
scorers run on a CPU box where the suites' CUDA imports would fail.  A row list is
*resolvable* when it is a literal list/tuple, a module-level name bound to one,
``list()``/``tuple()``/``itertools.product()`` of resolvable lists, a ``+`` of them, or a
literal with ``*name`` splats.  Values become stand-ins the rules can read: constants as
themselves, tuples and lists element-wise, builtin exception names as the classes,
``re.compile("...")`` as a pattern, anything else (``torch.float16``, ``Mode.FAST``,
``1 << 10`` with names) as a :class:`Sym` named by its source text (equal text = equal
value, which is what pytest would see for dotted names).
"""

from __future__ import annotations

import ast
import builtins
import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Sym:
    """A value known only by its source text (``torch.bfloat16``)."""

    text: str

    def __repr__(self) -> str:
        return self.text


@dataclass
class Table:
    """One ``parametrize`` call: where it is, its names and (when resolvable) its rows."""

    path: str  # relative to the suite root, "/"-separated
    test: str  # "Class::test_x" or "test_x" (or the class name for a class decorator)
    line: int
    argnames: list[str]
    rows: list[tuple[Any, ...]] | None  # None: not statically resolvable
    source: str  # the argvalues expression as written (for review only; never stored)
    keywords: list[str] = field(default_factory=list)  # ids=, indirect=, ...
    decorator: ast.Call | None = None
    rows_node: ast.expr | None = None
    #: some row is ``pytest.param(..., id=...)``: the list names its rows (as ids= does)
    param_ids: bool = False

    @property
    def multi(self) -> bool:
        return len(self.argnames) > 1

    def fingerprint(self) -> str:
        """Equal tables (the same names over the same rows) share one fingerprint."""
        return ",".join(self.argnames) + "|" + (repr(self.rows) if self.rows is not None else self.source)


class Unresolved(Exception):
    """The expression is not a statically known list."""


_BUILTIN_EXC = {n: getattr(builtins, n) for n in dir(builtins)
                if isinstance(getattr(builtins, n), type) and issubclass(getattr(builtins, n), BaseException)}


def _module_env(tree: ast.Module) -> dict[str, ast.expr]:
    """Top-level ``NAME = expr`` bindings (the last one wins, as at import time; a name
    bound in an ``if``/``try`` at top level is taken from its first branch)."""
    env: dict[str, ast.expr] = {}

    def visit(body: list[ast.stmt]) -> None:
        for stmt in body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                env[stmt.targets[0].id] = stmt.value
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
                env[stmt.target.id] = stmt.value
            elif isinstance(stmt, (ast.If, ast.Try)):
                visit(stmt.body)

    visit(tree.body)
    return env


class Resolver:
    """Statically evaluates row lists and values of one module."""

    def __init__(self, tree: ast.Module, text: str) -> None:
        self.env = _module_env(tree)
        self.text = text
        self._lines = [line.encode("utf-8") for line in text.splitlines(keepends=True)]
        self._depth = 0
        self.param_ids = False  # set by rows(): the last list read had a pytest.param(id=...)

    def src(self, node: ast.AST) -> str:
        """The source text of ``node`` (``ast.get_source_segment`` re-splits the whole file
        on every call: too slow for files with thousands of values)."""
        lo: int | None = getattr(node, "lineno", None)
        hi: int | None = getattr(node, "end_lineno", None)
        c0: int | None = getattr(node, "col_offset", None)
        c1: int | None = getattr(node, "end_col_offset", None)
        if lo is None or hi is None or c0 is None or c1 is None or hi > len(self._lines):
            return ast.dump(node)
        if lo == hi:
            raw = self._lines[lo - 1][c0:c1]
        else:
            raw = self._lines[lo - 1][c0:] + b"".join(self._lines[lo:hi - 1]) + self._lines[hi - 1][:c1]
        return raw.decode("utf-8", errors="replace")

    def _lookup(self, name: str) -> ast.expr:
        if name not in self.env or self._depth > 20:
            raise Unresolved(name)
        return self.env[name]

    def sequence(self, node: ast.expr) -> list[Any]:
        """The elements of a list-valued expression (each still an AST node or a value)."""
        self._depth += 1
        try:
            return self._sequence(node)
        finally:
            self._depth -= 1

    def _sequence(self, node: ast.expr) -> list[Any]:
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            out: list[Any] = []
            for el in node.elts:
                if isinstance(el, ast.Starred):
                    out.extend(self.sequence(el.value))
                else:
                    out.append(el)
            return out
        if isinstance(node, ast.Name):
            return self.sequence(self._lookup(node.id))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self.sequence(node.left) + self.sequence(node.right)
        if isinstance(node, ast.Call):
            fname = self.src(node.func)
            if fname in ("list", "tuple", "sorted") and len(node.args) == 1 and not node.keywords:
                return self.sequence(node.args[0])
            if fname in ("itertools.product", "product") and not node.keywords:
                lists = []
                for a in node.args:
                    if isinstance(a, ast.Starred):
                        raise Unresolved("product(*...)")
                    lists.append([self.value(e) for e in self.sequence(a)])
                return [tuple(r) for r in itertools.product(*lists)]
            if fname == "range" and all(isinstance(a, ast.Constant) and isinstance(a.value, int) for a in node.args):
                return list(range(*[a.value for a in node.args]))  # type: ignore[attr-defined]
        raise Unresolved(self.src(node))

    def value(self, node: Any) -> Any:
        """A stand-in for the value an expression has at run time."""
        if not isinstance(node, ast.AST):
            return node  # already a value (product rows)
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Tuple):
            return tuple(self.value(e) for e in self._splat(node.elts))
        if isinstance(node, ast.List):
            return [self.value(e) for e in self._splat(node.elts)]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            v = self.value(node.operand)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                return -v
        if isinstance(node, ast.BinOp):
            a, b = self.value(node.left), self.value(node.right)
            if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (a, b)):
                ops: dict[type, Any] = {ast.Mult: lambda x, y: x * y, ast.Add: lambda x, y: x + y,
                                        ast.Sub: lambda x, y: x - y, ast.Pow: lambda x, y: x ** y,
                                        ast.LShift: lambda x, y: x << y, ast.FloorDiv: lambda x, y: x // y,
                                        ast.Div: lambda x, y: x / y}
                op = ops.get(type(node.op))
                if op is not None and not (isinstance(node.op, (ast.Pow, ast.LShift)) and abs(b) > 64):
                    try:
                        return op(a, b)
                    except (TypeError, ValueError, ZeroDivisionError, OverflowError):
                        pass
            if isinstance(node.op, ast.Mult) and isinstance(a, (list, tuple)) and isinstance(b, int) \
                    and not isinstance(b, bool) and 0 <= b * len(a) <= 4096:
                return a * b  # [128] * 4
        if isinstance(node, ast.Name):
            if node.id in _BUILTIN_EXC:
                return _BUILTIN_EXC[node.id]
            bound = self.env.get(node.id)
            if bound is not None and isinstance(bound, (ast.Constant, ast.Tuple, ast.UnaryOp)) and self._depth < 20:
                self._depth += 1
                try:
                    return self.value(bound)
                finally:
                    self._depth -= 1
            return Sym(node.id)
        if isinstance(node, ast.Call):
            fname = self.src(node.func)
            if fname == "re.compile" and node.args and isinstance(node.args[0], ast.Constant):
                try:
                    return re.compile(node.args[0].value)
                except (re.error, TypeError):
                    pass
        return Sym(self.src(node))

    def _splat(self, elts: list[ast.expr]) -> list[Any]:
        out: list[Any] = []
        for el in elts:
            if isinstance(el, ast.Starred):
                try:
                    out.extend(self.sequence(el.value))
                except Unresolved:
                    out.append(el)
            else:
                out.append(el)
        return out

    def _comprehension(self, node: ast.ListComp | ast.GeneratorExp, n: int) -> list[tuple[Any, ...]]:
        """``[pytest.param(*case, id=...) for case in CASES]`` (fla's habit) and
        ``[(a, b) for a, b in PAIRS]``: one ``for`` over a resolvable list, no ``if``; the
        element is the loop variable, a tuple of loop variables, or ``pytest.param`` of them."""
        if len(node.generators) != 1 or node.generators[0].ifs or node.generators[0].is_async:
            raise Unresolved("comprehension")
        gen = node.generators[0]
        out = []
        for item in self.sequence(gen.iter):
            value = self.value(item)
            bound: dict[str, Any] = {}
            if isinstance(gen.target, ast.Name):
                bound[gen.target.id] = value
            elif isinstance(gen.target, ast.Tuple) and all(isinstance(e, ast.Name) for e in gen.target.elts) \
                    and isinstance(value, tuple) and len(value) == len(gen.target.elts):
                bound.update({e.id: v for e, v in zip(gen.target.elts, value)})  # type: ignore[attr-defined]
            else:
                raise Unresolved("comprehension target")

            def one(e: ast.expr, bound: dict[str, Any] = bound) -> list[Any]:
                if isinstance(e, ast.Starred) and isinstance(e.value, ast.Name) and e.value.id in bound \
                        and isinstance(bound[e.value.id], tuple):
                    return list(bound[e.value.id])
                if isinstance(e, ast.Name) and e.id in bound:
                    return [bound[e.id]]
                if isinstance(e, ast.Constant):
                    return [e.value]
                raise Unresolved(self.src(e))

            elt = node.elt
            if isinstance(elt, ast.Call) and self.src(elt.func).split(".")[-1] == "param":
                vals = tuple(v for a in elt.args for v in one(a))
                self.param_ids = self.param_ids or any(k.arg == "id" for k in elt.keywords)
            elif isinstance(elt, ast.Tuple):
                vals = tuple(v for a in elt.elts for v in one(a))
            elif isinstance(elt, ast.Name) and elt.id in bound:
                vals = bound[elt.id] if isinstance(bound[elt.id], tuple) and n > 1 else (bound[elt.id],)
            else:
                raise Unresolved(self.src(elt))
            out.append(vals)
        return out

    def rows(self, node: ast.expr, n: int) -> list[tuple[Any, ...]]:
        """The rows of a ``parametrize`` over ``n`` names (``pytest.param`` unwrapped)."""
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)):
            return self._comprehension(node, n)
        out = []
        for el in self.sequence(node):
            if isinstance(el, ast.Call) and self.src(el.func).split(".")[-1] == "param":
                self.param_ids = self.param_ids or any(k.arg == "id" for k in el.keywords)
                vals = tuple(self.value(a) for a in el.args if not isinstance(a, ast.Starred))
                if any(isinstance(a, ast.Starred) for a in el.args):
                    raise Unresolved("pytest.param(*...)")
            elif n == 1:
                vals = (self.value(el),)
            elif isinstance(el, (ast.Tuple, ast.List)):
                vals = tuple(self.value(e) for e in self._splat(el.elts))
            elif isinstance(el, tuple):
                vals = el
            elif isinstance(el, ast.Name):
                inner = self.value(el)
                if not isinstance(inner, tuple):
                    bound = self.env.get(el.id)
                    if bound is None:
                        raise Unresolved(el.id)
                    inner = tuple(self.value(e) for e in self.sequence(bound))
                vals = inner
            else:
                raise Unresolved(self.src(el))
            out.append(vals)
        return out


def _argnames(node: ast.expr | None) -> list[str] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [n.strip() for n in node.value.split(",") if n.strip()]
    if isinstance(node, (ast.List, ast.Tuple)):
        out = []
        for el in node.elts:
            if not (isinstance(el, ast.Constant) and isinstance(el.value, str)):
                return None
            out.append(el.value.strip())
        return out
    return None


def is_parametrize(node: ast.expr) -> bool:
    """``@pytest.mark.parametrize(...)`` / ``@mark.parametrize(...)`` (any alias of pytest)."""
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    return isinstance(f, ast.Attribute) and f.attr == "parametrize" and (
        (isinstance(f.value, ast.Attribute) and f.value.attr == "mark")
        or (isinstance(f.value, ast.Name) and f.value.id == "mark")
    )


def _decorated(tree: ast.Module) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef]]:
    def walk(body: list[ast.stmt], prefix: str) -> Iterator[tuple[str, Any]]:
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield prefix + stmt.name, stmt
            elif isinstance(stmt, ast.ClassDef):
                yield prefix + stmt.name, stmt
                yield from walk(stmt.body, prefix + stmt.name + "::")
            elif isinstance(stmt, (ast.If, ast.Try)):
                yield from walk(stmt.body, prefix)

    yield from walk(tree.body, "")


def tables_in_source(text: str, path: str) -> list[Table]:
    """Every decorator ``parametrize`` of a module's functions and classes, top to bottom
    in decorator order (the first decorator written first)."""
    tree = ast.parse(text)
    res = Resolver(tree, text)
    out = []
    for qual, node in _decorated(tree):
        for dec in node.decorator_list:
            if not is_parametrize(dec):
                continue
            assert isinstance(dec, ast.Call)
            kws = {k.arg: k.value for k in dec.keywords if k.arg is not None}
            args = list(dec.args)
            names_node = args[0] if args else kws.get("argnames")
            rows_node = args[1] if len(args) > 1 else kws.get("argvalues")
            names = _argnames(names_node)
            if not names or rows_node is None:
                continue
            res.param_ids = False
            try:
                rows: list[tuple[Any, ...]] | None = res.rows(rows_node, len(names))
            except (Unresolved, RecursionError):
                rows = None
            out.append(Table(path, qual, dec.lineno, names, rows, res.src(rows_node),
                             sorted(k for k in kws if k not in ("argnames", "argvalues")), dec, rows_node,
                             res.param_ids))
    return out


def test_files(root: Path, under: str) -> list[Path]:
    """``test_*.py`` / ``*_test.py`` files below ``root/under`` in a stable order."""
    base = root / under
    if base.is_file():
        return [base]
    return sorted(p for p in base.rglob("*.py")
                  if (p.name.startswith("test_") or p.name.endswith("_test.py")) and ".git" not in p.parts)


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")
