"""Collection overhead of ``@pairwise`` vs the same items written by hand.

Generates, in a temporary directory, a suite of 100 tests decorated with
``@pairwise`` (4-6 axes of 2-4 values each, seeded, so every run builds the
same suite) and the same 100 tests written with ONE plain
``@pytest.mark.parametrize`` over the explicit rows (same items, same ids).
It then times ``pytest --collect-only -q`` on each, as the median of
``--repeat`` runs in fresh processes:

* plain: the hand-written suite (the plugin loaded, no pairwise mark);
* pairwise, cold: the decorated suite after deleting pytest's cache dir
  (every table is built by the engine);
* pairwise, warm: the decorated suite with the tables in the cache.

Overhead = pairwise - plain.  Targets: <= 0.2 s warm, <= 1 s cold, for the
whole suite.

Fixed cost: what the plugin costs EVERY pytest process of an environment
where the package is installed, most of which use no ``@pairwise`` test.
A one-test suite without any pairwise mark is run with the plugin on and
with ``-p no:pairwise_param``, interleaved, ``--fixed-repeat`` times each; the
CPU time (user + system) of each child process is read from
``getrusage(RUSAGE_CHILDREN)``, which wall time on a shared 2-core machine
cannot give.  ``--fixed-only`` measures only that, and imports nothing of
pairwise_param in this process, so the same script measures any installed
version (``/path/to/other/venv/bin/python benchmarks/bench_collection.py
--fixed-only``).

Prints Markdown on stdout; run::

    python benchmarks/bench_collection.py [--tests 100] [--repeat 7] [--fixed-repeat 41]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

VALUE_POOLS = [
    ["'fp16'", "'bf16'", "'fp32'", "'fp8'"],
    ["False", "True"],
    ["0", "1", "2", "3"],
    ["None", "'relu'", "'gelu'", "'silu'"],
    ["1", "2", "4", "8"],
    ["'a'", "'b'", "'c'", "'d'"],
]


def make_specs(n_tests: int, seed: int = 0) -> list[dict[str, list[str]]]:
    rng = random.Random(seed)
    specs = []
    for _ in range(n_tests):
        n_axes = rng.randint(4, 6)
        axes = {}
        for a in range(n_axes):
            pool = VALUE_POOLS[rng.randrange(len(VALUE_POOLS))]
            axes[f"o{a}"] = pool[: rng.randint(2, 4)]
        specs.append(axes)
    return specs


def write_suites(root: Path, specs: list[dict[str, list[str]]]) -> tuple[Path, Path]:
    from pairwise_param import cover
    from pairwise_param.tables.ids import row_ids

    pw, plain = root / "pairwise_suite", root / "plain_suite"
    for d in (pw, plain):
        d.mkdir()
        (d / "pytest.ini").write_text("[pytest]\n")
    per_file = 10
    for f in range(0, len(specs), per_file):
        pw_src = ["import pytest", "from pairwise_param import pairwise", ""]
        plain_src = ["import pytest", ""]
        for i, axes in enumerate(specs[f : f + per_file], start=f):
            args = ", ".join(axes)
            kw = ", ".join(f"{k}=[{', '.join(v)}]" for k, v in axes.items())
            pw_src += [f"@pairwise({kw})", f"def test_{i}({args}):", "    pass", ""]
            values = {k: [eval(x) for x in v] for k, v in axes.items()}
            table = cover(values)
            ids = row_ids([([k], vs) for k, vs in values.items()], table.index_rows)
            rows = [tuple(r[k] for k in axes) for r in table]
            plain_src += [
                f"@pytest.mark.parametrize({args!r}, {rows!r}, ids={ids!r})",
                f"def test_{i}({args}):",
                "    pass",
                "",
            ]
        (pw / f"test_m{f // per_file}.py").write_text("\n".join(pw_src))
        (plain / f"test_m{f // per_file}.py").write_text("\n".join(plain_src))
    return pw, plain


def collect(path: Path, *extra: str) -> tuple[float, str]:
    env = dict(os.environ)
    env.pop("PAIRWISE_MODE", None)
    env.pop("PAIRWISE_STRENGTH", None)
    t0 = time.perf_counter()
    out = subprocess.run(
        # xdist and Hypothesis's plugin are disabled in every variant: the latter
        # imports all of Hypothesis in its terminal summary (~1 s of noise).
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:xdist",
            "-p",
            "no:hypothesispytest",
            *extra,
        ],
        cwd=path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    dt = time.perf_counter() - t0
    if out.returncode != 0:
        raise SystemExit(f"collection failed in {path}:\n{out.stdout}\n{out.stderr}")
    return dt, out.stdout


def cpu_ms(path: Path, *extra: str, pycache: Path | None = None) -> float:
    """CPU milliseconds (user + system) of one ``pytest -q`` process in ``path``.
    ``pycache``: an empty directory to look for bytecode in, and never write it
    (every module is compiled, as on a first run); else bytecode is cached."""
    env = dict(os.environ)
    for name in ("PAIRWISE_MODE", "PAIRWISE_STRENGTH", "PYTEST_ADDOPTS", "PYTEST_PLUGINS",
                 "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX"):
        env.pop(name, None)
    if pycache is not None:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra],
        cwd=path, env=env, capture_output=True, text=True, check=False,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise SystemExit(f"pytest failed in {path}:\n{out.stdout}\n{out.stderr}")
    return 1000 * ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))


def fixed_cost(repeat: int) -> dict[str, float]:
    """Median CPU ms per process of a suite with no ``@pairwise`` test: plugin on / off,
    bytecode cached / not cached (4 variants, interleaved)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "suite"
        root.mkdir()
        empty = Path(tmp) / "no-pycache"
        empty.mkdir()
        (root / "pytest.ini").write_text("[pytest]\n")
        (root / "test_plain.py").write_text("def test_plain():\n    pass\n")
        cpu_ms(root)  # write the bytecode caches of both variants
        cpu_ms(root, "-p", "no:pairwise_param")
        times: dict[str, list[float]] = {"on": [], "off": [], "on-nopyc": [], "off-nopyc": []}
        for _ in range(repeat):  # interleaved, so drifts hit every variant alike
            times["on"].append(cpu_ms(root))
            times["off"].append(cpu_ms(root, "-p", "no:pairwise_param"))
            times["on-nopyc"].append(cpu_ms(root, pycache=empty))
            times["off-nopyc"].append(cpu_ms(root, "-p", "no:pairwise_param", pycache=empty))
    return {k: statistics.median(v) for k, v in times.items()}


def print_fixed_cost(repeat: int) -> None:
    got = fixed_cost(repeat)
    print(f"Fixed cost per pytest process, a suite without @pairwise (CPU ms, median of {repeat} interleaved runs)\n")
    print("| bytecode | plugin on | `-p no:pairwise_param` | **cost of the plugin** |")
    print("|---|---|---|---|")
    for label, sfx in (("cached", ""), ("not cached", "-nopyc")):
        on, off = got["on" + sfx], got["off" + sfx]
        print(f"| {label} | {on:.1f} | {off:.1f} | **{on - off:+.1f}** |")


def items_of(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if "::" in line]


def engine_time(specs: list[dict[str, list[str]]]) -> float:
    """Seconds the engine alone takes for all tables, in this process (no cache)."""
    from pairwise_param.model import Model
    from pairwise_param.tables.build import build_table

    models = [Model({k: [eval(x) for x in v] for k, v in axes.items()}) for axes in specs]
    t0 = time.perf_counter()
    for m in models:
        build_table(m, "cover")
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tests", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--fixed-repeat", type=int, default=41)
    parser.add_argument("--fixed-only", action="store_true", help="measure only the fixed cost per process")
    args = parser.parse_args(argv)
    if args.fixed_only:
        print_fixed_cost(args.fixed_repeat)
        return 0
    specs = make_specs(args.tests)
    engine_s = engine_time(specs)
    with tempfile.TemporaryDirectory() as tmp:
        pw, plain = write_suites(Path(tmp), specs)
        _, out_plain = collect(plain)
        _, out_pw = collect(pw)
        assert items_of(out_plain) == items_of(out_pw), "the two suites must collect the same items"
        n_items = len(items_of(out_pw))
        summary = next((line for line in out_pw.splitlines() if line.startswith("pairwise-param:")), "")

        def cold() -> float:
            shutil.rmtree(pw / ".pytest_cache", ignore_errors=True)
            return collect(pw)[0]

        times: dict[str, list[float]] = {"plain": [], "cold": [], "warm": [], "off": []}
        for _ in range(args.repeat):  # interleaved, so drifts hit every variant alike
            times["plain"].append(collect(plain)[0])
            times["off"].append(collect(plain, "-p", "no:pairwise_param")[0])
            times["cold"].append(cold())
            collect(pw)  # fill the cache
            times["warm"].append(collect(pw)[0])
        med = {k: statistics.median(v) for k, v in times.items()}
        best = {k: min(v) for k, v in times.items()}

    print(
        f"Collection of {args.tests} tests, {n_items} items (median of {args.repeat} runs, fresh processes)\n"
    )
    print(f"{summary}\n")
    print("| suite | median (s) | min (s) | overhead vs plain, median / min (s) | target |")
    print("|---|---|---|---|---|")

    def row(label: str, key: str, target: float | None) -> None:
        over_m, over_b = med[key] - med["plain"], best[key] - best["plain"]
        verdict = "" if target is None else f"<= {target} ({'ok' if over_m <= target else 'MISSED'})"
        print(f"| {label} | {med[key]:.3f} | {best[key]:.3f} | {over_m:+.3f} / {over_b:+.3f} | {verdict} |")

    row("plain parametrize, plugin disabled", "off", None)
    row("plain parametrize (same items)", "plain", None)
    row("@pairwise, warm cache", "warm", 0.2)
    row("@pairwise, cold cache", "cold", 1.0)
    print(f"\nEngine alone, all {args.tests} tables in one process (no cache): {engine_s:.3f} s\n")
    print_fixed_cost(args.fixed_repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
