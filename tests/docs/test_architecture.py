"""docs/architecture.md is drawn from the code: its modules, its arrows, its "never" rules.

The import graph is read with ``ast`` by ``scripts/import_graph.py`` (nothing is imported):
every ``import`` statement of the package, at the top of a module, inside a function
(lazy) or under ``if TYPE_CHECKING:`` (type-only).
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from scripts_loader import load_script

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
PKG = "pairwise_param"


G = load_script("import_graph")
EDGES = G.edges()
ARROWS = G.room_edges(EDGES)
INTERNAL = [e for e in EDGES if e.internal]


def _section(title: str) -> str:
    return PAGE.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def _block(text: str) -> str:
    return text.split("```", 2)[1].split("\n", 1)[1]


# -- the module list ---------------------------------------------------------------------
_ENTRY = re.compile(r"^( *)([\w.]+\.(?:py|json|typed)|\w+/)(?:\s{2,}|$)")


def _listed() -> set[str]:
    """The files of the tree drawn in the page's first block (paths under pairwise_param/)."""
    tree = PAGE.split("```", 2)[1].splitlines()
    assert tree[1] == "pairwise_param/", tree[:2]
    stack: list[str] = []
    out: set[str] = set()
    for line in tree[2:]:
        m = _ENTRY.match(line)
        if m is None or len(m.group(1)) % 2 or len(m.group(1)) // 2 - 1 > len(stack):
            continue  # a description's continuation line
        depth = len(m.group(1)) // 2 - 1
        stack = stack[:depth]
        name = m.group(2)
        if name.endswith("/"):
            stack.append(name.rstrip("/"))
        else:
            out.add("/".join([*stack, name]))
    return out


def test_the_modules_it_lists_are_the_modules_that_exist() -> None:
    shipped = {
        p.relative_to(ROOT / PKG).as_posix()
        for p in (ROOT / PKG).rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix in (".py", ".json", ".typed")
    }
    listed = _listed()
    assert listed - shipped == set(), "listed but not in the package"
    assert shipped - listed == set(), "in the package but not on the page"


def test_the_top_level_holds_the_core_model_only() -> None:
    top = sorted(p.name for p in (ROOT / PKG).glob("*.py"))
    assert top == ["__init__.py", "__main__.py", "_version.py", "axis.py", "compat.py", "compile_key.py", "constraints.py",
                   "contract.py", "decorator.py", "decorator_options.py", "errors.py", "feasibility.py", "files.py",
                   "language.py", "model.py", "pytest_plugin.py", "strategies.py", "values.py"]


# -- the arrows --------------------------------------------------------------------------
def _drawn() -> dict[tuple[str, str], str]:
    out: dict[tuple[str, str], str] = {}
    for line in _block(_section("Arrows")).splitlines():
        src, _, targets = line.partition("--->")
        for t in targets.split(","):
            m = re.fullmatch(r"\s*(\S+)(?: \((lazy|type)\))?\s*", t)
            assert m is not None, line
            out[(src.strip(), m.group(1))] = m.group(2) or ""
    return out


def _kind(edges: list[object]) -> str:
    if all(e.type_only for e in edges):  # type: ignore[attr-defined]
        return "type"
    if all(e.lazy or e.type_only for e in edges):  # type: ignore[attr-defined]
        return "lazy"
    return ""


def test_the_arrows_it_draws_are_the_arrows_of_the_code() -> None:
    code = {pair: _kind(es) for pair, es in ARROWS.items()}
    assert _drawn() == code, "redraw the Arrows block: python scripts/import_graph.py lists them"


def test_every_room_has_a_layer() -> None:
    rooms = {G.room(m) for m in G.module_names()}
    assert set(G.layers()) == rooms


# -- the never rules ---------------------------------------------------------------------
def _stdlib(name: str) -> bool:
    return name in sys.stdlib_module_names or name == "__future__"


def no_circle() -> None:
    assert G.cycles(ARROWS) == []
    assert G.cycles(G.module_arrows(EDGES)) == []


def no_upward() -> None:
    assert G.upward(ARROWS, G.layers()) == []


def engine_one_client() -> None:
    run_time = {e.src for e in INTERNAL if e.dst.startswith(f"{PKG}.engine") and not e.type_only
                and not e.src.startswith(f"{PKG}.engine")}
    assert run_time == {f"{PKG}.tables.build"}


def checker_independent() -> None:
    bad = [e for e in INTERNAL if e.src.startswith(f"{PKG}.coverage")
           and (e.dst.startswith(f"{PKG}.engine") or e.dst.startswith(f"{PKG}.tables"))]
    assert bad == []


def engine_pure() -> None:
    allowed = {f"{PKG}.model", f"{PKG}.feasibility", f"{PKG}.errors"}
    for e in EDGES:
        if not e.src.startswith(f"{PKG}.engine"):
            continue
        if e.internal:
            assert e.dst.startswith(f"{PKG}.engine") or e.dst in allowed, e
        else:
            assert _stdlib(e.dst), e


def pytest_in_the_faces() -> None:
    for e in EDGES:
        if e.dst != "pytest" or G.room(e.src) == "plugin/" or e.src == f"{PKG}.report.collect":
            continue
        assert e.src in (f"{PKG}.decorator", f"{PKG}.compat", f"{PKG}.tables.covering") and e.lazy, e


def no_gpu_stack() -> None:
    assert [e for e in EDGES if e.dst in ("torch", "triton", "numpy")] == []


def hooks_cheap() -> None:
    at_import = [e for e in EDGES if e.src == f"{PKG}.plugin.hooks" and not e.lazy and not e.type_only]
    assert {e.dst for e in at_import if not _stdlib(e.dst)} == {"pytest", f"{PKG}.contract", f"{PKG}.plugin.modes"}


def facade_lazy() -> None:
    at_run_time = [e for e in EDGES if e.src == PKG and not e.type_only]
    assert {e.dst for e in at_run_time if not _stdlib(e.dst)} == {f"{PKG}._version"}
    tree = ast.parse((ROOT / PKG / "__init__.py").read_text())
    homes = next(ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
                 and any(isinstance(t, ast.Name) and t.id == "_HOMES" for t in n.targets))
    for name, home in homes.items():
        assert name in _all_of(home), (name, home)


def _all_of(module: str) -> list[str]:
    path = G.module_names()[module]
    for n in ast.parse(path.read_text()).body:
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets):
            return list(ast.literal_eval(n.value))
    return []


def _identifiers(path: Path) -> set[str]:
    out: set[str] = set()
    for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Attribute):
            out.add(n.attr)
        elif isinstance(n, ast.alias):
            out.add(n.name.split(".")[-1])
    return out


def _interface(path: Path, exported: list[str]) -> set[str]:
    """Names in the annotations of what a module exports (its functions' parameters and
    returns, its classes' fields and methods): a result type is exported with them."""
    out: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if not (isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in exported):
            continue
        for n in ast.walk(node):
            notes: list[ast.expr | None] = []
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                notes = [a.annotation for a in (*n.args.args, *n.args.kwonlyargs)] + [n.returns]
            elif isinstance(n, ast.AnnAssign):
                notes = [n.annotation]
            for note in notes:
                if note is None:
                    continue
                text = ast.unparse(note)
                out.update(re.findall(r"[A-Za-z_]\w*", text))
    return out


def all_declared() -> None:
    for e in INTERNAL:
        if e.src != e.dst:
            missing = [n for n in e.names if n not in _all_of(e.dst)]
            assert missing == [], f"{e.src} imports {missing} from {e.dst}, not in its __all__"
    users = {p: _identifiers(p) for d in (PKG, "tests", "benchmarks", "kernel_tests", "scripts", "docs")
             for p in (ROOT / d).rglob("*.py")}
    pages = " ".join(p.read_text(encoding="utf-8") for p in (ROOT / "docs").rglob("*.md"))
    for module, path in G.module_names().items():
        exported = _all_of(module)
        interface = _interface(path, exported)
        for name in exported:
            if name.startswith("pytest_"):  # a hook: pytest calls it
                continue
            used = any(name in ids for p, ids in users.items() if p != path) or name in pages or name in interface
            assert used, f"{module}.__all__ lists {name!r}, which nothing outside it uses (nor its interface)"


CHECKS: dict[str, Callable[[], None]] = {
    "no-circle": no_circle,
    "no-upward": no_upward,
    "engine-one-client": engine_one_client,
    "checker-independent": checker_independent,
    "engine-pure": engine_pure,
    "pytest-in-the-faces": pytest_in_the_faces,
    "no-gpu-stack": no_gpu_stack,
    "hooks-cheap": hooks_cheap,
    "facade-lazy": facade_lazy,
    "all-declared": all_declared,
}


def test_every_rule_on_the_page_has_a_check_and_every_check_a_rule() -> None:
    rules = re.findall(r"^- `([a-z-]+)`:", _section("Never"), flags=re.MULTILINE)
    assert sorted(rules) == sorted(CHECKS)


@pytest.mark.parametrize("rule", sorted(CHECKS))
def test_the_rule_holds(rule: str) -> None:
    CHECKS[rule]()


def test_the_checks_can_fail() -> None:
    """The graph the checks read sees a circle and an upward arrow where there is one."""
    assert G.cycles([("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]) == [["a", "b", "c"]]
    assert G.upward([("model", "tables/"), ("tables/", "model")], G.layers()) == [("model", "tables/")]
    assert set(G.layers()) >= {"tables/", "runs/", "__init__"}
