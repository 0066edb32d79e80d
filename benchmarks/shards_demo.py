"""A sharded CI build of kernel_tests on the CPU Triton interpreter, merged and gated
(issue 36's closing demo).

    python benchmarks/shards_demo.py [--markdown benchmarks/results/shards_demo.md]
                                     [--out DIR] [-- PYTEST ARGS (the slice; default below)]

Four steps, each a subprocess exactly as a CI would run it (``TRITON_INTERPRET=1``,
``PAIRWISE_BUILD=shards-demo-1``):

1. the slice of kernel_tests split 3 ways by pytest-shard (``--shard-id=I
   --num-shards=3``), each shard writing ``--pairwise-report=DIR/runs/sI.json``;
2. ``pairwise-param report --run DIR/runs --fail-under 100``: the union, which must pass;
3. the same with shard 3's file gone, which must fail naming ``shard 3 of 3 missing``
   and how many items never ran;
4. the same with shard 3 run again under ``PAIRWISE_STRENGTH=3`` (another model: every
   table's strength 2 -> 3), which must be a hard error naming each test and what differs.

Each step's expectation is checked (the script exits 1 when one is not met), and every
command with its output, exit status and time is printed (and written as Markdown with
``--markdown``). The default slice is two families' tests, 366 items:
``kernel_tests/rmsnorm/test_rmsnorm.py::test_rmsnorm_other_sizes`` and
``kernel_tests/rope/test_rope.py::test_partial_rope``.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# node ids, not -k: pytest-shard splits before -k selects, so a -k run's shards cannot
# count the whole suite (their run files say "unknown" and a lost shard's items are not counted)
SLICE = ["kernel_tests/rmsnorm/test_rmsnorm.py::test_rmsnorm_other_sizes", "kernel_tests/rope/test_rope.py::test_partial_rope"]
SHARDS = 3
BUILD = "shards-demo-1"


@dataclass
class Step:
    title: str
    command: str
    code: int
    seconds: float
    output: str
    expected: str
    ok: bool


def _run(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[int, float, str]:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    return done.returncode, time.perf_counter() - start, (done.stdout + done.stderr).rstrip() + "\n"


def _shown(argv: list[str], extra_env: dict[str, str], cwd: Path) -> str:
    words = [f"{k}={v}" for k, v in extra_env.items()] + [shlex.quote(a) for a in argv]
    return " ".join(words).replace(str(cwd) + "/", "").replace(sys.executable + " -m pytest", "pytest")


def _summary(text: str) -> str:
    """A pytest run's own lines: the plugin's summary line and pytest's last line."""
    kept = text.rstrip().splitlines()
    return "\n".join([line for line in kept if line.startswith("pairwise-param")] + kept[-1:])


def demo(out: Path, pytest_args: list[str], cwd: Path) -> list[Step]:
    """Run the four steps in ``cwd`` (the suite's root), run files under ``out``; the steps
    with their outputs and whether each met its expectation."""
    python = sys.executable
    base = {**os.environ, "TRITON_INTERPRET": "1", "PAIRWISE_BUILD": BUILD,
            "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)}
    base.pop("PAIRWISE_STRENGTH", None)
    base.pop("COLUMNS", None)
    runs, other = out / "runs", out / "other-model"
    for folder in (runs, other):
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("*.json"):
            old.unlink()
    steps: list[Step] = []

    def shard(k: int, folder: Path, extra: dict[str, str]) -> None:
        argv = [python, "-m", "pytest", *pytest_args, "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                f"--shard-id={k}", f"--num-shards={SHARDS}", f"--pairwise-report={folder / f's{k}.json'}"]
        code, seconds, output = _run(argv, {**base, **extra}, cwd)
        shown = _shown(argv, {"TRITON_INTERPRET": "1", "PAIRWISE_BUILD": BUILD, **extra}, cwd)
        steps.append(Step(f"shard {k + 1} of {SHARDS}" + (" (another model)" if extra else ""), shown, code, seconds,
                          _summary(output), "exit 0", code == 0))

    def report(title: str, paths: list[Path], expected: str, check: re.Pattern[str], want_zero: bool) -> None:
        argv = [python, "-m", "pairwise_param", "report", "--run", *map(str, paths), "--fail-under", "100"]
        code, seconds, output = _run(argv, base, cwd)
        ok = (code == 0) == want_zero and bool(check.search(output))
        shown = _shown(argv, {}, cwd).replace(f"{python} -m pairwise_param", "pairwise-param")
        steps.append(Step(title, shown, code, seconds, output, expected, ok))

    for k in range(SHARDS):
        shard(k, runs, {})
    report("the union of the 3 shards, gated", [runs], "exit 0, every table 100%",
           re.compile(rf"^pairwise-param runs: {SHARDS} merged(?!.*< --fail-under)", re.DOTALL), True)
    (runs / f"s{SHARDS - 1}.json").rename(out / f"s{SHARDS - 1}.json.lost")
    report("shard 3's run file lost", [runs], "exit 1 naming 'shard 3 of 3 missing: N items never ran'",
           re.compile(rf"shard {SHARDS} of {SHARDS} missing: \d+ items never ran"), False)
    (out / f"s{SHARDS - 1}.json.lost").rename(runs / f"s{SHARDS - 1}.json")
    shard(SHARDS - 1, other, {"PAIRWISE_STRENGTH": "3"})
    report("shard 3 run under another model (PAIRWISE_STRENGTH=3)",
           [runs / "s0.json", runs / "s1.json", other / f"s{SHARDS - 1}.json"],
           "exit 2: the runs cannot be merged, naming the test and 'strength 2 -> 3'",
           re.compile(r"cannot be merged: .*::test_\w+: .*strength 2 -> 3"), False)
    return steps


def markdown(steps: list[Step], pytest_args: list[str], total: float) -> str:
    lines = ["# A 3-shard run of kernel_tests on the CPU Triton interpreter, merged and gated", "",
             ("Made by `python benchmarks/shards_demo.py --markdown benchmarks/results/shards_demo.md` "
              f"(slice: `{shlex.join(pytest_args)}`; {total:.0f} s wall on the shared 2-core sandbox). "
              "Paths are relative to the run's output folder."), ""]
    for s in steps:
        lines += [f"## {s.title}: {'as expected' if s.ok else 'NOT AS EXPECTED'} (exit {s.code}, {s.seconds:.1f} s)",
                  "", f"expected: {s.expected}", "", "```", f"$ {s.command}", s.output.rstrip(), "```", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, help="where the run files go (default: a temporary folder)")
    ap.add_argument("--markdown", type=Path, help="also write the steps as Markdown to this file")
    ap.add_argument("--cwd", type=Path, default=ROOT, help="the suite's root (default: the repository)")
    ap.add_argument("pytest_args", nargs="*", help="the slice to run (default: two kernel families' tests)")
    args = ap.parse_args(argv)
    pytest_args = args.pytest_args or SLICE
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="shards-demo-") as tmp:
        out = (args.out or Path(tmp)).resolve()
        steps = demo(out, pytest_args, args.cwd.resolve())
        text = markdown(steps, pytest_args, time.perf_counter() - start).replace(str(out) + "/", "")
    print(text)
    if args.markdown:
        args.markdown.write_text(text, encoding="utf-8")
    bad = [s.title for s in steps if not s.ok]
    if bad:
        print(f"shards_demo: not as expected: {', '.join(bad)}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
