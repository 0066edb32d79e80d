"""Collection cost at scale (issue 24): a 2000-table ``@pairwise`` suite against the same
rows as plain ``parametrize``, as RATIOS of CPU time in one run, and one axis of 10,000
values.

The suites are :mod:`bench_collection`'s (seeded specs, 10 tests per file, the plain suite
holds the same rows and ids). Each variant is collected in a fresh process
(``pytest --collect-only -q``) and its CPU time (user + system, ``getrusage`` of the
child) is read, which wall time on a shared machine cannot give:

* plain: the hand-written suite (the plugin loaded, no pairwise mark);
* cold: the decorated suite after deleting pytest's cache dir (every table built);
* warm: the decorated suite again, its tables in the cache.

Targets: warm <= 1.2x plain, cold <= 1.5x plain; the 10,000-value axis < 5 s CPU.
Prints Markdown on stdout; run::

    python benchmarks/bench_collection_scale.py [--tests 2000] [--repeat 1] [--values 10000]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_collection import items_of, make_specs, write_suites


def cpu_collect(path: Path, *extra: str) -> tuple[float, str]:
    """CPU seconds (user + system) of one ``pytest --collect-only -q`` in ``path``, and its stdout."""
    env = dict(os.environ)
    env.pop("PAIRWISE_MODE", None)
    env.pop("PAIRWISE_STRENGTH", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist", "-p", "no:hypothesispytest",
         "-p", "no:randomly", *extra],
        cwd=path, env=env, capture_output=True, text=True, check=False,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise SystemExit(f"collection failed in {path}:\n{out.stdout[-2000:]}\n{out.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, out.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tests", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--values", type=int, default=10_000, help="values of the one-axis test (0: skip it)")
    args = parser.parse_args(argv)
    specs = make_specs(args.tests)
    times: dict[str, list[float]] = {"plain": [], "cold": [], "warm": []}
    with tempfile.TemporaryDirectory() as tmp:
        pw, plain = write_suites(Path(tmp), specs)
        n_items = 0
        for _ in range(args.repeat):  # interleaved, so drifts hit every variant alike
            cpu, out_plain = cpu_collect(plain)
            times["plain"].append(cpu)
            shutil.rmtree(pw / ".pytest_cache", ignore_errors=True)
            cpu, out_pw = cpu_collect(pw)
            times["cold"].append(cpu)
            times["warm"].append(cpu_collect(pw)[0])
            assert items_of(out_plain) == items_of(out_pw), "the two suites must collect the same items"
            n_items = len(items_of(out_pw))
        one_axis = None
        if args.values:
            root = Path(tmp) / "one_axis"
            root.mkdir()
            (root / "pytest.ini").write_text("[pytest]\n")
            (root / "test_axis.py").write_text(
                "from pairwise_param import pairwise\n\n"
                f"@pairwise(x=list(range({args.values})))\ndef test_axis(x):\n    pass\n"
            )
            one_axis = cpu_collect(root, "-p", "no:cacheprovider")[0]
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"Collection of {args.tests} tests, {n_items} items, CPU seconds (user + sys) of one "
          f"`pytest --collect-only -q` process, median of {args.repeat}\n")
    print("| suite | CPU (s) | ratio to plain | target |")
    print("|---|---|---|---|")
    for label, key, target in (("plain parametrize (same rows and ids)", "plain", None),
                               ("@pairwise, warm cache", "warm", 1.2), ("@pairwise, cold cache", "cold", 1.5)):
        ratio = med[key] / med["plain"]
        verdict = "" if target is None else f"<= {target}x ({'ok' if ratio <= target else 'MISSED'})"
        print(f"| {label} | {med[key]:.2f} | {ratio:.2f}x | {verdict} |")
    if one_axis is not None:
        verdict = "ok" if one_axis < 5 else "MISSED"
        print(f"\nOne `@pairwise` axis of {args.values} values, collected (no cache): {one_axis:.2f} s CPU "
              f"(target < 5 s: {verdict})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
