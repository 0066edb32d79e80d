"""Compile-aware tables against plain ones, over random models and kernel_tests' own.

    python benchmarks/compile_aware.py [--models 200] [--seed 0]

Random models as in ``tests/engine/test_variants.py`` (4-7 axes of 2-4 values, 2-4 of
them compile axes, t = 2 or 3, an optional constraint among compile axes and one among
the others). For each: rows and variants of the plain table and of the compile-aware
one. Prints the distribution of rows(aware) / rows(plain) and of the variants saved,
then the same for every ``@pairwise`` table of kernel_tests (the suite's declared
``compile_axes``). Deterministic for a seed.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import random
import statistics

from pairwise_param import cover

KERNEL_MODULES = [
    "kernel_tests.skinny_gemm.test_skinny_gemms", "kernel_tests.skinny_gemm.test_fuzz",
    "kernel_tests.rmsnorm.test_rmsnorm", "kernel_tests.rmsnorm.test_fuzz",
    "kernel_tests.rope.test_rope", "kernel_tests.rope.test_fuzz",
    "kernel_tests.fused_norm.test_fused_norm", "kernel_tests.fused_norm.test_fuzz",
]


def random_model(rng: random.Random) -> tuple[dict, list[str], int, list[str]]:
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


def variants(rows: list[tuple[int, ...]], axes: tuple[int, ...]) -> int:
    return len({tuple(r[a] for a in axes) for r in rows})


def quantiles(xs: list[float]) -> str:
    xs = sorted(xs)
    q = statistics.quantiles(xs, n=20) if len(xs) > 1 else xs * 19
    return (f"min {xs[0]:.3f}, p5 {q[0]:.3f}, median {statistics.median(xs):.3f}, mean {statistics.mean(xs):.3f}, "
            f"p95 {q[-1]:.3f}, max {xs[-1]:.3f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    ratios, saved, more = [], [], 0
    for _ in range(a.models):
        axes, compile_axes, t, rules = random_model(rng)
        plain = cover(axes, strength=t, constraints=rules)
        aware = cover(axes, strength=t, constraints=rules, compile_axes=compile_axes)
        ca = aware.model.compile_axes
        ratios.append(len(aware) / len(plain))
        v_plain, v_aware = variants(list(plain.index_rows), ca), variants(list(aware.index_rows), ca)
        saved.append(1 - v_aware / v_plain)
        more += v_aware > v_plain
    print(f"random models: {a.models} (seed {a.seed})")
    print(f"  rows aware/plain: {quantiles(ratios)}; > 1.25x: {sum(r > 1.25 for r in ratios)}")
    print(f"  variants saved (1 - aware/plain): {quantiles(saved)}; more variants than plain: {more}")
    print("kernel_tests tables: test | rows plain -> aware | variants plain -> aware")
    for name in KERNEL_MODULES:
        module = importlib.import_module(name)
        for attr in sorted(dir(module)):
            for mark in getattr(getattr(module, attr), "pytestmark", []):
                if mark.name != "pairwise" or not mark.args[0].compile_axes:
                    continue
                spec = mark.args[0]
                aware_model, plain_model = spec.model(attr), dataclasses.replace(spec, compile_axes=(), compile_key=None).model(attr)
                from pairwise_param.tables.build import build_table

                ta, tp = build_table(aware_model), build_table(plain_model)
                # variants by the table's compile_key where it declares one (IndexModel.variant)
                im = aware_model.index_model
                vp, va = len({im.variant(r) for r in tp.rows}), len({im.variant(r) for r in ta.rows})
                print(f"  {name.split('.')[1]}::{attr} | {len(tp.rows)} -> {len(ta.rows)} "
                      f"({len(ta.rows) / len(tp.rows):.2f}x) | {vp} -> {va}")


if __name__ == "__main__":
    main()
