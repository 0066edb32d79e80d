"""Rows of many seeded random models, digested: the same rows in two trees, and the golden digest.

    python scripts/rows_digest.py --compare /tmp/old       # this tree against another one
    python scripts/rows_digest.py --compare /tmp/old --models 400 --pytest
    python scripts/rows_digest.py --write-golden           # after an ENGINE_VERSION bump

Invariant 2 of the design page: the same model and options give byte-identical rows.
A refactoring must not change a single row, so ``--compare OLD`` builds the rows of
``--models`` random models (constraints, include rows, sub-models, invalid values,
strengths 1-3, cover and full mode, the ids) once with this tree's ``pairwise_param``
and once with OLD's (a checkout of another commit, e.g. ``git worktree add /tmp/old
main``), each in its own interpreter (``PYTHONPATH=<tree>``), and compares them model
by model; an error (an unsatisfiable model) must be the same error, word for word.
``--pytest`` also collects the same models as ``@pairwise`` tests with each tree's
plugin (``pytest --collect-only``, cover and full mode) and compares the node ids,
which spell every row of every table in order.

The models come from :func:`models` (``random.Random(seed)``, JSON only), so every
tree sees the same ones.  :func:`golden` digests the rows of :data:`GOLDEN_MODELS`
models under this tree; ``tests/tables/test_golden_rows.py`` holds it against
``tests/tables/golden_rows.json``, keyed by ``ENGINE_VERSION``: an engine change
that changes rows must bump ``ENGINE_VERSION`` (it keys the table cache) and then
regenerate the file with ``--write-golden``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "tables" / "golden_rows.json"
#: the models of the golden digest (seed 0): a unit test's worth (about 3 s)
GOLDEN_MODELS = 200
GOLDEN_SEED = 0

__all__ = ["GOLDEN", "GOLDEN_MODELS", "GOLDEN_SEED", "golden", "model_rows", "models"]

_VALUES = [0, 1, 2, 3, 7, 64, "a", "b", "fp16", "bf16", True, False, None, 1.5]


def _model(rng: random.Random, k: int) -> dict[str, Any]:
    """One random model as JSON: axes, strength, rules, include rows, sub-models, invalid positions."""
    n_axes = rng.randint(1, 6)
    axes: dict[str, list[Any]] = {}
    for a in range(n_axes):
        size = rng.choice([1, 2, 2, 3, 3, 4, 5])
        pool = rng.sample(_VALUES, len(_VALUES))
        values: list[Any] = []
        for v in pool:  # distinct values as the model sees them (1 is not True, 1.0 would be 1)
            if not any(type(v) is type(w) and v == w for w in values):
                values.append(v)
            if len(values) == size:
                break
        axes[f"x{a}"] = values
    names = list(axes)
    spec: dict[str, Any] = {"id": k, "axes": axes}
    spec["strength"] = rng.choice([None, 1, 2, 2, 3]) if n_axes > 1 else None
    if spec["strength"] is not None:
        spec["strength"] = min(spec["strength"], n_axes)
    rules: list[Any] = []
    for _ in range(rng.choice([0, 0, 1, 2])):
        if n_axes < 2:
            break
        a, b = rng.sample(names, 2)
        va, vb = rng.choice(axes[a]), rng.choice(axes[b])
        if rng.random() < 0.5:
            rules.append({"never": {a: va, b: vb}})
        else:
            rules.append({"if": {a: va}, "then": {b: {"not": [vb]}}})
    spec["constraints"] = rules
    spec["include"] = []
    if rng.random() < 0.3:
        a = rng.choice(names)
        spec["include"].append({a: rng.choice(axes[a])})
    spec["sub_models"] = []
    if n_axes >= 4 and rng.random() < 0.2:
        spec["sub_models"].append([rng.sample(names, 3), 3])
    spec["invalid"] = {}
    if rng.random() < 0.25:
        for a in rng.sample(names, rng.randint(1, min(2, n_axes))):
            if len(axes[a]) > 1:
                spec["invalid"][a] = rng.randrange(len(axes[a]))
    return spec


def models(n: int, seed: int = GOLDEN_SEED) -> list[dict[str, Any]]:
    """``n`` random models (JSON-able), the same in every tree and process."""
    rng = random.Random(seed)
    return [_model(rng, k) for k in range(n)]


def _axes(spec: dict[str, Any]) -> dict[str, list[Any]]:
    from pairwise_param import invalid

    out = {}
    for name, values in spec["axes"].items():
        pos = spec["invalid"].get(name)
        out[name] = [invalid(v, reason="bad") if i == pos else v for i, v in enumerate(values)]
    return out


def _full_rows(spec: dict[str, Any], kwargs: dict[str, Any]) -> Any:
    """Full-mode rows through whatever this tree offers: ``cover(mode="full")``, or
    (before it existed) the plugin's table builder, which takes no invalid value."""
    import inspect

    from pairwise_param import cover

    if "mode" in inspect.signature(cover).parameters:
        arr = cover(_axes(spec), mode="full", **kwargs)
        cases = [None if c is None else repr(c) for c in arr.invalid]
        return [list(arr.index_rows), cases] if spec["invalid"] else list(arr.index_rows)
    from pairwise_param.plugin.tables import build_table  # type: ignore[import-not-found]

    from pairwise_param.model import Model

    return list(build_table(Model(spec["axes"], **kwargs), "full").rows)


def model_rows(spec: dict[str, Any], full: bool | str = "all") -> Any:
    """Everything the rows of one model are: cover() rows (index rows, values, ids,
    invalid cases, infeasible tuples, method) and, with ``full``, the full-mode rows
    (with invalid values only where ``full`` is ``"all"``: before ``cover(mode=)``
    full mode with invalid values existed only under pytest, where ``--pytest``
    compares it); an error as its type and message."""
    from pairwise_param import PairwiseError, cover

    kwargs = {"strength": spec["strength"], "constraints": spec["constraints"], "include": spec["include"],
              "sub_models": [(tuple(n), t) for n, t in spec["sub_models"]]}
    out: dict[str, Any] = {}
    try:
        arr = cover(_axes(spec), **kwargs)
        out["cover"] = [list(arr.index_rows), repr(arr.values()), arr.ids(), arr.method,
                        [None if c is None else repr(c) for c in arr.invalid],
                        repr(arr.infeasible), repr(arr.invalid_infeasible)]
    except PairwiseError as exc:
        out["cover"] = f"{type(exc).__name__}: {exc}"
    if full == "all" or (full and not spec["invalid"]):
        try:
            out["full"] = _full_rows(spec, kwargs)
        except PairwiseError as exc:
            out["full"] = f"{type(exc).__name__}: {exc}"
    return out


def _digest(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=repr).encode()).hexdigest()


def golden(n: int = GOLDEN_MODELS, seed: int = GOLDEN_SEED) -> str:
    """The digest of the rows of ``n`` random models under this interpreter's ``pairwise_param``."""
    return _digest([model_rows(m) for m in models(n, seed)])


# -- the plugin's tables ----------------------------------------------------------------------
def _test_file(s: dict[str, Any]) -> str:
    """One model as a ``@pairwise`` test module (one module per model: a model error is
    that module's collection error, reported and compared, and the others still collect)."""
    axes = {n: [f"invalid({v!r}, reason='bad')" if i == s["invalid"].get(n) else repr(v)
                for i, v in enumerate(vals)] for n, vals in s["axes"].items()}
    args = ", ".join(f"{n}=[{', '.join(vs)}]" for n, vs in axes.items())
    opts = f", strength={s['strength']!r}, constraints={s['constraints']!r}, include={s['include']!r}"
    opts += f", sub_models={[(tuple(n), t) for n, t in s['sub_models']]!r}"
    return (f"from pairwise_param import invalid, pairwise\n\n\n@pairwise({args}{opts})\n"
            f"def test_m({', '.join(s['axes'])}):\n    pass\n")


_TIME = re.compile(r" in \d+\.\d+s( \(\d+:\d\d:\d\d\))?")


def _collect(tree: Path, folder: Path, mode: str) -> list[str]:
    """pytest's collection output (node ids, which spell every row; errors) under ``tree``'s plugin."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "random"}
    env.pop("PAIRWISE_MODE", None)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
         f"--pairwise-mode={mode}", "--continue-on-collection-errors", "."],
        capture_output=True, text=True, cwd=folder, env=env, check=False,
    )
    return _TIME.sub("", proc.stdout).splitlines()


# -- the driver -------------------------------------------------------------------------------
def _child(n: int, seed: int) -> None:
    for m in models(n, seed):
        print(json.dumps({"id": m["id"], "digest": _digest(model_rows(m, full=True))}))


def _rows_in(tree: Path, n: int, seed: int) -> list[dict[str, Any]]:
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "random"}
    proc = subprocess.run([sys.executable, __file__, "--child", str(n), "--seed", str(seed)],
                          capture_output=True, text=True, env=env, cwd=tree, check=True)
    return [json.loads(line) for line in proc.stdout.splitlines()]


def compare(old: Path, n: int, seed: int, with_pytest: bool) -> int:
    new_rows, old_rows = _rows_in(ROOT, n, seed), _rows_in(old, n, seed)
    differ = [a["id"] for a, b in zip(new_rows, old_rows) if a != b]
    print(f"cover()/full rows: {n} models (seed {seed}), {n - len(differ)} identical, {len(differ)} differ"
          + (f": {differ[:20]}" if differ else ""))
    bad = bool(differ) or len(new_rows) != n or len(old_rows) != n
    if with_pytest:
        with tempfile.TemporaryDirectory() as tmp:
            for spec in models(n, seed):
                (Path(tmp) / f"test_m{spec['id']}.py").write_text(_test_file(spec))
            for mode in ("cover", "full"):
                a, b = _collect(ROOT, Path(tmp), mode), _collect(old, Path(tmp), mode)
                items = sum("::" in line for line in a)
                errors = sum(line.startswith("ERROR ") for line in a)
                same = a == b
                print(f"@pairwise tables ({mode} mode): {n} test modules, {items} items and {errors} model "
                      f"errors collected; output {'identical' if same else 'DIFFERENT'} ({len(a)} lines)")
                if not same:
                    import difflib

                    print("\n".join(list(difflib.unified_diff(b, a, "old", "new", lineterm=""))[:40]))
                bad = bad or not same or not items
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--compare", metavar="TREE", type=Path, help="another checkout to compare rows with")
    ap.add_argument("--models", type=int, default=300, help="how many random models (default 300)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the random models (default 1)")
    ap.add_argument("--pytest", action="store_true", help="also compare the plugin's tables (collection)")
    ap.add_argument("--write-golden", action="store_true", help=f"rewrite {GOLDEN.relative_to(ROOT)}")
    ap.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child is not None:
        _child(args.child, args.seed)
        return 0
    if args.write_golden:
        from pairwise_param.tables.build import engine_version

        doc = {"engine_version": engine_version(), "models": GOLDEN_MODELS, "seed": GOLDEN_SEED,
               "digest": golden()}
        GOLDEN.write_text(json.dumps(doc, indent=2) + "\n")
        print(f"wrote {GOLDEN.relative_to(ROOT)}: {doc}")
        return 0
    if args.compare is None:
        ap.error("give --compare TREE or --write-golden")
    return compare(args.compare.resolve(), args.models, args.seed, args.pytest)


if __name__ == "__main__":
    sys.exit(main())
