"""Compile-aware tables against plain ones, over random models and kernel_tests' own.

    python benchmarks/compile_aware.py [--models 200] [--seed 0] [--no-kernel-tests]

Random models as in ``tests/engine/test_variants.py`` (4-7 axes of 2-4 values, 2-4 of
them compile axes, t = 2 or 3, an optional constraint among compile axes and one among
the others). For each: rows and variants of the plain table and of the compile-aware
one, and the share of the (t+1)-tuples each covers (all axes, and the compile axes
alone), measured by :mod:`pairwise_param.coverage` (never by the engine). Prints the
distribution of rows(aware) / rows(plain), of the variants saved and of the (t+1)-way
coverage, then the same for every ``@pairwise`` table of kernel_tests (the suite's
declared ``compile_axes`` / ``compile_key``). Deterministic for a seed.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import itertools
import json
import random
import statistics
from collections.abc import Iterable, Sequence
from typing import Any

from pairwise_param import cover
from pairwise_param.coverage import measure
from pairwise_param.model import Model

KERNEL_MODULES = [
    "kernel_tests.skinny_gemm.test_skinny_gemms", "kernel_tests.skinny_gemm.test_fuzz",
    "kernel_tests.rmsnorm.test_rmsnorm", "kernel_tests.rmsnorm.test_fuzz",
    "kernel_tests.rope.test_rope", "kernel_tests.rope.test_fuzz",
    "kernel_tests.fused_norm.test_fused_norm", "kernel_tests.fused_norm.test_fuzz",
]


def random_model(rng: random.Random) -> tuple[dict[str, list[int]], list[str], int, list[str]]:
    n = rng.randint(4, 7)
    axes = {f"a{i}": list(range(rng.randint(2, 4))) for i in range(n)}
    names = list(axes)
    k = rng.randint(2, min(4, n - 1))
    compile_axes = sorted(rng.sample(names, k), key=names.index)
    others = [a for a in names if a not in compile_axes]
    t = rng.choice([2, 2, 3])
    rules = []
    if rng.random() < 0.5:
        rules.append(f"not ({compile_axes[0]} == 0 and {compile_axes[1]} == 1)")
    if len(others) >= 2 and rng.random() < 0.5:
        rules.append(f"not ({others[0]} == 1 and {others[1]} == 0)")
    return axes, compile_axes, t, rules


def variants(rows: Sequence[Sequence[int]], axes: Sequence[int]) -> int:
    return len({tuple(r[a] for a in axes) for r in rows})


def higher(model: Model, rows: Sequence[Sequence[int]], t: int) -> tuple[float, float | None]:
    """Covered share of the coverable (t+1)-tuples: over all axes, and over the compile
    axes alone (None when they are t or fewer: their array is their full product)."""
    level = measure(model, [model.decode(r) for r in rows], strengths=t + 1).levels[0]
    whole = 1.0 if not level.coverable else level.covered / level.coverable
    inside = set(model.compile_axes)
    if len(inside) <= t:
        return whole, None
    sizes = [len(ax.values) for ax in model.axes]
    total = sum(_product(sizes[a] for a in s) for s in itertools.combinations(sorted(inside), t + 1))
    infeasible = sum(set(c.index[0]) <= inside for c in level.infeasible)
    missing = sum(set(c.index[0]) <= inside for c in level.missing)
    coverable = total - infeasible
    return whole, 1.0 if not coverable else (coverable - missing) / coverable


def _product(xs: Iterable[int]) -> int:
    out = 1
    for x in xs:
        out *= x
    return out


def quantiles(xs: Sequence[float]) -> str:
    xs = sorted(xs)
    q = statistics.quantiles(xs, n=20) if len(xs) > 1 else list(xs) * 19
    return (f"min {xs[0]:.3f}, p5 {q[0]:.3f}, median {statistics.median(xs):.3f}, mean {statistics.mean(xs):.3f}, "
            f"p95 {q[-1]:.3f}, max {xs[-1]:.3f}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-kernel-tests", action="store_true")
    ap.add_argument("--study-fused", action="store_true",
                    help="only the fault study's fused-norm model: both t=2 tables, their variants, and every "
                         "variant list of the compile-aware table's size (needs torch)")
    ap.add_argument("--json", default=None, help="write each random model's numbers here")
    ap.add_argument("--against", default=None,
                    help="a --json file of another engine (same --models, --seed): print per-model before/after")
    a = ap.parse_args(argv)
    if a.study_fused:
        study_fused()
        return
    rng = random.Random(a.seed)
    ratios, saved, more = [], [], 0
    up: list[float] = []
    diffs: dict[str, list[float]] = {"all": [], "compile": []}
    records: list[dict[str, Any]] = []
    for _ in range(a.models):
        axes, compile_axes, t, rules = random_model(rng)
        plain = cover(axes, strength=t, constraints=rules)
        aware = cover(axes, strength=t, constraints=rules, compile_axes=compile_axes)
        ca = aware.model.compile_axes
        ratios.append(len(aware) / len(plain))
        v_plain, v_aware = variants(plain.index_rows, ca), variants(aware.index_rows, ca)
        saved.append(1 - v_aware / v_plain)
        more += v_aware > v_plain
        hp, ha = higher(aware.model, plain.index_rows, t), higher(aware.model, aware.index_rows, t)
        up.append(ha[0])
        records.append({"rows": len(aware), "variants": v_aware, "up_all": ha[0], "up_compile": ha[1]})
        diffs["all"].append(ha[0] - hp[0])
        if ha[1] is not None and hp[1] is not None:
            diffs["compile"].append(ha[1] - hp[1])
    print(f"random models: {a.models} (seed {a.seed})")
    print(f"  rows aware/plain: {quantiles(ratios)}; > 1.25x: {sum(r > 1.25 for r in ratios)}")
    print(f"  variants saved (1 - aware/plain): {quantiles(saved)}; more variants than plain: {more}")
    print(f"  (t+1)-way coverage, all axes, aware: {quantiles(up)}")
    for key, xs in diffs.items():
        print(f"  (t+1)-way coverage, {key} axes, aware - plain: {quantiles(xs)}; "
              f"aware higher {sum(x > 1e-12 for x in xs)}, equal {sum(abs(x) <= 1e-12 for x in xs)}, "
              f"lower {sum(x < -1e-12 for x in xs)} of {len(xs)}")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(records, fh)
    if a.against:
        with open(a.against) as fh:
            before = json.load(fh)
        compare(before, records)
    if a.no_kernel_tests:
        return
    print("kernel_tests tables: test | rows plain -> aware | variants plain -> aware "
          "| 3-way all axes plain -> aware | 3-way compile axes plain -> aware")
    for name, attr, spec in kernel_specs():
        aware_model, plain_model = spec.model(attr), dataclasses.replace(spec, compile_axes=(), compile_key=None).model(attr)
        from pairwise_param.tables.build import build_table

        ta, tp = build_table(aware_model), build_table(plain_model)
        # variants by the table's compile_key where it declares one (IndexModel.variant)
        im = aware_model.index_model
        vp, va = len({im.variant(r) for r in tp.rows}), len({im.variant(r) for r in ta.rows})
        t = aware_model.strength
        hp, ha = higher(aware_model, tp.rows, t), higher(aware_model, ta.rows, t)
        own = "-" if ha[1] is None or hp[1] is None else f"{hp[1]:.3f} -> {ha[1]:.3f}"
        print(f"  {name.split('.')[1]}::{attr} | {len(tp.rows)} -> {len(ta.rows)} "
              f"({len(ta.rows) / len(tp.rows):.2f}x) | {vp} -> {va} | {hp[0]:.3f} -> {ha[0]:.3f} | {own}")


def compare(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> None:
    """The compile-aware tables of the same random models, another engine (``before``)
    against this one: rows, variants, (t+1)-way coverage; gains and losses counted."""
    assert len(before) == len(after), "--against needs the same --models and --seed"
    print(f"this engine against --against, the same {len(after)} random models (compile-aware tables):")
    for key in ("rows", "variants", "up_all", "up_compile"):
        pairs = [(b[key], x[key]) for b, x in zip(before, after) if b[key] is not None and x[key] is not None]
        d = [x - b for b, x in pairs]
        print(f"  {key}: after - before: {quantiles(d)}; up {sum(v > 1e-12 for v in d)}, "
              f"same {sum(abs(v) <= 1e-12 for v in d)}, down {sum(v < -1e-12 for v in d)} of {len(d)}")


def study_fused() -> None:
    """Why the compile-aware table misses ``fn-gate-dropped-layer-noweight`` (a row with
    norm_type=layer, has_gate=True, has_weight=False fails): the rows and variants of the
    study's plain and compile-aware t=2 tables of fused norm (benchmarks/faults/targets.py),
    then every covering array of the compile axes with as many rows as the variant list:
    the compile triples each holds, and how many hold the fault's triple."""
    from benchmarks.faults.targets import all_targets
    from pairwise_param.engine import EngineOptions
    from pairwise_param.engine.pipeline import run
    from pairwise_param.engine.variants import compile_model
    from pairwise_param.feasibility import Feasibility

    target = all_targets(["fused_norm"])["fused_norm/test_fused_residual_norm_scale_shift"]
    args, compile_args = target.cover_args(), target.compile_args()
    axes = dict(target.axes)
    model = Model(axes, constraints=args["constraints"], **compile_args)
    names = list(compile_args["compile_axes"])

    def fails(row: dict[str, Any]) -> bool:
        return row["norm_type"] == "layer" and row["has_gate"] and not row["has_weight"]

    for title, more in (("plain t=2", {}), ("compile-aware t=2", compile_args)):
        table = cover(axes, strength=2, **args, **more)
        held = sorted({tuple(str(r[n]).replace("torch.", "") for n in names) for r in table})
        print(f"{title}: {len(table)} rows ({table.method}), {len(held)} variants "
              f"({', '.join(names)}); rows the fault fails: {[i for i, r in enumerate(table) if fails(r)]}")
        for r in table:
            print("   ", ", ".join(f"{k}={str(v).replace('torch.', '')}" for k, v in r.items()))
        for v in held:
            print("    variant", v)
    im = model.index_model
    cmodel = compile_model(im, model.feasibility)
    cfeas = Feasibility(cmodel.sizes, cmodel.exclusions)
    size = len(run(cmodel, EngineOptions(), cfeas).rows)
    combos = [c for c in itertools.product(*(range(x) for x in cmodel.sizes)) if cfeas.violates(c) is None]
    pairs = {(sc, tuple(c[a] for a in sc)) for c in combos for sc in cmodel.interactions}
    scopes = list(itertools.combinations(range(len(names)), 3))
    coverable = {(sc, tuple(c[a] for a in sc)) for c in combos for sc in scopes}
    pos = {n: i for i, n in enumerate(names)}
    layer = model.axes[model.axis_index("norm_type")].values.index("layer")

    def holds_fault(c: tuple[int, ...]) -> bool:
        return c[pos["norm_type"]] == layer and c[pos["has_gate"]] == 1 and c[pos["has_weight"]] == 0

    by: dict[int, list[int]] = {}
    for array in itertools.combinations(combos, size):
        if len({(sc, tuple(c[a] for a in sc)) for c in array for sc in cmodel.interactions}) < len(pairs):
            continue
        held3 = len({(sc, tuple(c[a] for a in sc)) for c in array for sc in scopes})
        by.setdefault(held3, [0, 0])
        by[held3][0] += 1
        by[held3][1] += any(holds_fault(c) for c in array)
    print(f"every {size}-row covering array of the compile model ({len(combos)} valid combinations, "
          f"{len(coverable)} coverable triples): compile triples held | arrays | holding the fault's triple")
    for held3 in sorted(by):
        print(f"  {held3} | {by[held3][0]} | {by[held3][1]}")
    print(f"  all | {sum(v[0] for v in by.values())} | {sum(v[1] for v in by.values())}")


def kernel_specs() -> list[tuple[str, str, Any]]:
    """(module, test, PairwiseSpec) of every kernel_tests table that declares compile axes."""
    out = []
    for name in KERNEL_MODULES:
        module = importlib.import_module(name)
        for attr in sorted(dir(module)):
            for mark in getattr(getattr(module, attr), "pytestmark", []):
                if mark.name == "pairwise" and mark.args[0].compile_axes:
                    out.append((name, attr, mark.args[0]))
    return out


if __name__ == "__main__":
    main()
