"""The import graph of ``pairwise_param``, drawn from the code, and the rules of its map.

    python scripts/import_graph.py            # rooms, arrows, circles, upward arrows; exit 1 on a broken rule
    python scripts/import_graph.py --modules  # every module-level arrow too

Every ``import`` statement of the package is read with :mod:`ast` (nothing is
imported), wherever it stands: at the top of a module, inside a function (a lazy
import) or under ``if TYPE_CHECKING:`` (a type-only import).  A *room* is a
top-level module (``model``) or a subpackage (``tables/``); the layers of the rooms
are declared once, in ``docs/architecture.md`` (the block after "## Layers"), and
``tests/docs/test_architecture.py`` holds the same rules in CI:

* no circle: neither between rooms nor between modules (a package's own
  ``__init__`` re-exporting its submodules is the one arrow inside a room that
  may point back, and it is listed);
* no arrow that runs back up: a room imports only rooms of a lower layer (the
  facade ``__init__`` is the top; its imports are type-only).
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "pairwise_param"
ARCHITECTURE = ROOT / "docs" / "architecture.md"

__all__ = [
    "Edge",
    "cycles",
    "edges",
    "layers",
    "module_names",
    "room",
    "room_edges",
    "upward",
]


@dataclass(frozen=True)
class Edge:
    """One import statement: ``src`` imports ``dst`` (a module of the package, or the
    top-level name of a third-party package); ``names`` the names a ``from`` import
    takes; ``lazy``: inside a function; ``type_only``: under ``if TYPE_CHECKING:``."""

    src: str
    dst: str
    line: int
    names: tuple[str, ...]
    lazy: bool
    type_only: bool

    @property
    def internal(self) -> bool:
        return self.dst == PACKAGE or self.dst.startswith(PACKAGE + ".")


def _module_of(path: Path, base: Path) -> str:
    parts = list(path.relative_to(base).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def module_names(base: Path = ROOT) -> dict[str, Path]:
    """Every module of the package: dotted name -> file."""
    return {_module_of(p, base): p for p in sorted((base / PACKAGE).rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _walk(node: ast.AST, lazy: bool = False, type_only: bool = False) -> Iterator[tuple[ast.AST, bool, bool]]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child, lazy, type_only
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            yield from _walk(child, True, type_only)
        elif isinstance(child, ast.If) and _is_type_checking(child.test):
            for stmt in child.body:
                yield from _walk(ast.Module(body=[stmt], type_ignores=[]), lazy, True)
            for stmt in child.orelse:
                yield from _walk(ast.Module(body=[stmt], type_ignores=[]), lazy, type_only)
        else:
            yield from _walk(child, lazy, type_only)


def edges(base: Path = ROOT) -> list[Edge]:
    """Every import statement of every module of the package."""
    modules = module_names(base)
    out: list[Edge] = []
    for name, path in modules.items():
        is_pkg = path.name == "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node, lazy, type_only in _walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    dst = alias.name if alias.name.startswith(PACKAGE) else alias.name.split(".")[0]
                    out.append(Edge(name, dst, node.lineno, (), lazy, type_only))
                continue
            assert isinstance(node, ast.ImportFrom)
            if node.level:
                anchor = name.split(".") if is_pkg else name.split(".")[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                target = ".".join([*anchor, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            if target == "__future__":
                continue
            if not target.startswith(PACKAGE):
                out.append(Edge(name, target.split(".")[0], node.lineno, tuple(a.name for a in node.names),
                                lazy, type_only))
                continue
            # `from pairwise_param.tables import build` imports the submodule
            plain = [a.name for a in node.names if f"{target}.{a.name}" not in modules]
            for alias in node.names:
                if f"{target}.{alias.name}" in modules:
                    out.append(Edge(name, f"{target}.{alias.name}", node.lineno, (), lazy, type_only))
            if plain or not node.names:
                out.append(Edge(name, target, node.lineno, tuple(plain), lazy, type_only))
    return out


def room(module: str) -> str:
    """``pairwise_param.tables.build`` -> ``tables/``; ``pairwise_param.model`` -> ``model``;
    the package itself -> ``__init__`` (the facade)."""
    parts = module.split(".")
    if len(parts) == 1:
        return "__init__"
    pkg = ROOT / PACKAGE / parts[1]
    return parts[1] + "/" if pkg.is_dir() else parts[1]


def room_edges(all_edges: Iterable[Edge]) -> dict[tuple[str, str], list[Edge]]:
    """Arrows between rooms (an arrow inside a room is not one), with their statements."""
    out: dict[tuple[str, str], list[Edge]] = {}
    for e in all_edges:
        if not e.internal:
            continue
        a, b = room(e.src), room(e.dst)
        if a != b:
            out.setdefault((a, b), []).append(e)
    return dict(sorted(out.items()))


def cycles(arrows: Iterable[tuple[str, str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan), each sorted."""
    graph: dict[str, set[str]] = {}
    for a, b in arrows:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def module_arrows(all_edges: Iterable[Edge]) -> set[tuple[str, str]]:
    """Module-level arrows, less the one kind that may point back: a submodule
    importing its own package's ``__init__`` (``engine.pipeline`` reads
    ``EngineOptions`` from ``engine``, whose ``generate`` imports the pipeline lazily)."""
    out = set()
    for e in all_edges:
        if not e.internal or e.src == e.dst:
            continue
        if e.src.startswith(e.dst + ".") and e.dst != PACKAGE:
            continue
        out.add((e.src, e.dst))
    return out


_LAYER_LINE = re.compile(r"^\s*(\d+)\s+(.+?)\s*$")


def layers(text: str | None = None) -> dict[str, int]:
    """room -> layer, from the fenced block after ``## Layers`` in docs/architecture.md
    (lines ``N  room room ...``; words after `` -- `` are a comment)."""
    text = ARCHITECTURE.read_text(encoding="utf-8") if text is None else text
    section = text.split("\n## Layers", 1)[1]
    block = section.split("```", 2)[1]
    out: dict[str, int] = {}
    for line in block.splitlines():
        m = _LAYER_LINE.match(line.split(" -- ")[0])
        if m is None:
            continue
        for name in m.group(2).split():
            out[name] = int(m.group(1))
    return out


def upward(arrows: Iterable[tuple[str, str]], rank: dict[str, int]) -> list[tuple[str, str]]:
    """Room arrows that do not run strictly down (a room missing from the layers is reported too)."""
    return [(a, b) for a, b in arrows if a not in rank or b not in rank or rank[b] >= rank[a]]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--modules", action="store_true", help="also list every module-level arrow")
    args = ap.parse_args(argv)
    all_edges = edges()
    arrows = room_edges(all_edges)
    rank = layers()
    print(f"{len(module_names())} modules, {len({room(m) for m in module_names()})} rooms, "
          f"{len(arrows)} arrows between rooms")
    for (a, b), es in arrows.items():
        kinds = sorted({"type-only" if e.type_only else "lazy" if e.lazy else "import" for e in es})
        print(f"  {a:<14} [{rank.get(a, '?')}] -> {b:<14} [{rank.get(b, '?')}]  {len(es)} ({', '.join(kinds)})")
    if args.modules:
        for a, b in sorted(module_arrows(all_edges)):
            print(f"    {a} -> {b}")
    room_cycles = cycles(arrows)
    mod_cycles = cycles(module_arrows(all_edges))
    up = upward(arrows, rank)
    print(f"circles between rooms: {room_cycles or 'none'}")
    print(f"circles between modules: {mod_cycles or 'none'}")
    print(f"arrows that run back up: {[f'{a} -> {b}' for a, b in up] or 'none'}")
    return 1 if room_cycles or mod_cycles or up else 0


if __name__ == "__main__":
    sys.exit(main())
