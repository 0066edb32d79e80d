"""The kernel suites on one GPU: what pairwise saves, measured, side by side.

One command runs a list of configurations, each one pytest process, and writes a Markdown
table and a JSON file with, per configuration: passed / failed / skipped / errors, pytest's
own time, wall time, the summed case time (JUnit ``testcase`` times: when xdist workers
compete for one GPU this sum rises while the wall time does not fall), and the derived
numbers a reviewer asks for:

* **compile time**: a ``cold`` run starts with an empty Triton cache (``TRITON_CACHE_DIR``
  of its own); the same configuration run again ``warm`` reuses it; the difference of
  pytest times is the compile cost;
* **full / pairwise**: for each family and configuration, the ratio of full-mode to
  pairwise-mode pytest time and items;
* **workers**: the same configuration at several ``-n`` values (``n=0`` is serial, no
  xdist), so the default worker count is chosen from a measurement, not assumed;
* **per-test clean-up**: upstream's "before" state (every test empties the device cache)
  on the full product takes hours, so a fixed, deterministic sample of the items
  (``sample=N``: every N-th item, ``benchmarks/sample_items.py``) is run with both
  clean-ups and the per-item cost is extrapolated to the whole suite. The table says
  that it is an extrapolation.

Usage (from the repository root; ``benchmarks/README_gpu.md`` has the runs we publish)::

    python benchmarks/gpu_bench.py --out DIR [--cap 150] [--budget 560] RUN [RUN ...]

A RUN is ``PATH:MODE[:OPTION,...]`` where PATH is a family folder or file under
``kernel_tests/`` (``skinny_gemm``, ``skinny_gemm/test_skinny_gemms.py``), MODE is
``pairwise`` or ``full``, and the options are ``n=K`` (pytest-xdist workers; default 0 =
serial), ``cold`` / ``warm`` (Triton cache: fresh for this PATH, or the one a previous
run of the same PATH filled; default warm), ``cleanup=test`` (``--per-test-cleanup``),
``sample=N``, ``k=EXPR`` (pytest ``-k``; ``+`` stands for a space) and ``nolog``
(``-p no:logging``: pytest's log capture, which attaches its handlers to each of torch's
~40 non-propagating loggers around every test phase). PATH ``.`` is the whole of
kernel_tests (reported per family folder as well). ``--one-cache`` gives every run one
Triton cache (``cold`` empties it), so a later run is warm for all that earlier runs
compiled; each run reports how many cache entries it added (compiled variants). Hypothesis runs
with the derandomized ``ci`` profile unless ``HYPOTHESIS_PROFILE`` says otherwise: the
fuzz tests draw shapes, the kernels specialise on some of them (``tl.constexpr`` tile
sizes), so a random profile compiles new kernel variants in every run and a "warm"
cache would never be warm (measured: RoPE's fuzz items with the random profile spent the
whole 200 s cap compiling, on a cache filled by the run before). Each run is capped
at ``--cap`` seconds and all of them together at ``--budget``; a capped run is reported
as a lower bound. ``--install`` runs ``pip install --no-deps --no-build-isolation -e .``
first (the GPU machine has no network).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Run:
    """One configuration, parsed from its RUN text."""

    text: str
    path: str
    mode: str
    workers: int = 0
    cold: bool = False
    per_test: bool = False
    sample: int = 1
    k: str = ""
    nolog: bool = False

    @property
    def family(self) -> str:
        """The family folder (``all`` for the whole of kernel_tests, PATH ``.``)."""
        head = self.path.strip("/").split("/")[0]
        return "all" if head in ("", ".") else head

    @property
    def name(self) -> str:
        return re.sub(r"[^A-Za-z0-9]+", "_", self.text).strip("_")[:60]

    @property
    def config(self) -> tuple[str, int, bool, int, str]:
        """What two runs must share to be compared (all but mode and cache state)."""
        return (self.path, self.workers, self.per_test, self.sample, self.k, self.nolog)


@dataclass
class Result:
    run: Run
    rc: int
    wall_s: float
    timeout: bool
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    errors: int = 0
    pytest_s: float | None = None
    case_s: float | None = None
    collected: int | None = None
    kept: int | None = None
    cache_added: int = 0
    notes: list[str] = field(default_factory=list)
    slowest: list[tuple[str, float]] = field(default_factory=list)
    #: per family folder (from the JUnit class names): [items, summed case seconds]
    families: dict[str, list[float]] = field(default_factory=dict)

    @property
    def executed(self) -> int:
        return self.passed + self.failed + self.errors


def parse_run(text: str) -> Run:
    parts = text.split(":")
    if len(parts) < 2 or parts[1] not in ("pairwise", "full"):
        raise SystemExit(f"gpu_bench: RUN {text!r} is not PATH:pairwise|full[:options]")
    run = Run(text=text, path=parts[0], mode=parts[1])
    for opt in ",".join(parts[2:]).split(",") if len(parts) > 2 else []:
        key, _, value = opt.partition("=")
        if key == "n":
            run.workers = int(value)
        elif key in ("cold", "warm"):
            run.cold = key == "cold"
        elif key == "cleanup" and value in ("test", "module"):
            run.per_test = value == "test"
        elif key == "sample":
            run.sample = max(1, int(value))
        elif key == "k":
            run.k = value.replace("+", " ")
        elif key == "nolog":
            run.nolog = True
        elif key:
            raise SystemExit(f"gpu_bench: unknown option {opt!r} in RUN {text!r}")
    if not (ROOT / "kernel_tests" / run.path).exists():
        raise SystemExit(f"gpu_bench: kernel_tests/{run.path} does not exist (RUN {text!r})")
    return run


def junit(path: Path, result: Result) -> None:
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    result.pytest_s = sum(float(s.get("time", 0.0)) for s in suites)
    case_s = 0.0
    times: list[tuple[str, float]] = []
    for suite in suites:
        for case in suite.iter("testcase"):
            case_s += float(case.get("time", 0.0))
            times.append((f"{case.get('classname', '')}::{case.get('name', '')}", float(case.get("time", 0.0))))
            fam = family_of(case.get("classname", ""))
            cell = result.families.setdefault(fam, [0, 0.0])
            cell[0] += 1
            cell[1] += float(case.get("time", 0.0))
            kinds = {child.tag for child in case}
            if "failure" in kinds:
                result.failed += 1
            elif "error" in kinds:
                result.errors += 1
            elif "skipped" in kinds:
                result.skipped += 1
            else:
                result.passed += 1
    result.case_s = case_s
    result.slowest = sorted(times, key=lambda kv: -kv[1])[:5]


def family_of(classname: str) -> str:
    """``kernel_tests.rmsnorm.test_rmsnorm`` -> ``rmsnorm``; a top-level test module of
    kernel_tests (the audit and fault-study tests) -> ``(kernel_tests)``."""
    parts = classname.split(".")
    if len(parts) >= 3 and parts[0] == "kernel_tests":
        return parts[1]
    return "(kernel_tests)"


def progress(path: Path, result: Result) -> None:
    """Lower-bound counts from ``-q`` progress lines (a run killed by its cap writes no XML)."""
    text = path.read_text(errors="replace") if path.exists() else ""
    marks = "".join(m.group(1) for m in re.finditer(r"^([.sFExX]+)\s*(\[\s*\d+%\])?$", text, re.MULTILINE))
    result.passed, result.failed = marks.count("."), marks.count("F")
    result.skipped, result.errors = marks.count("s"), marks.count("E")


def execute(run: Run, out: Path, cap: float, caches: Path, plugins: tuple[str, ...] = (),
            env_extra: dict[str, str] | None = None, one_cache: bool = False) -> Result:
    """Run one configuration in its own pytest process (``plugins``: extra ``-p`` modules,
    ``env_extra``: extra environment, as the profile command adds its own). The Triton
    cache is ``caches/<family>``, or ``caches`` itself for every run with ``one_cache``
    (then ``cold`` empties the one cache and a later run is warm for what any earlier
    run compiled)."""
    cache = caches if one_cache else caches / run.family
    if run.cold:
        shutil.rmtree(cache, ignore_errors=True)
    cache.mkdir(parents=True, exist_ok=True)
    xml, log, counts = out / f"{run.name}.xml", out / f"{run.name}.log", out / f"{run.name}.count.json"
    for stale in (xml, counts):
        stale.unlink(missing_ok=True)
    cmd = [sys.executable, "-m", "pytest", f"kernel_tests/{run.path}", "-q", "-p", "no:cacheprovider",
           "-p", "no:benchmark", "-p", "benchmarks.sample_items", "-rfE", f"--junitxml={xml}"]
    for plugin in plugins:
        cmd += ["-p", plugin]
    if run.mode == "full":
        cmd.append("--pairwise-mode=full")
    if run.workers:
        cmd += ["-n", str(run.workers)]
    if run.per_test:
        cmd.append("--per-test-cleanup")
    if run.k:
        cmd += ["-k", run.k]
    if run.nolog:
        cmd += ["-p", "no:logging"]
    env = dict(os.environ, TRITON_CACHE_DIR=str(cache), HYPOTHESIS_PROFILE=os.environ.get("HYPOTHESIS_PROFILE", "ci"), SAMPLE_EVERY=str(run.sample),
               SAMPLE_COUNT_FILE=str(counts), PYTHONUNBUFFERED="1",
               PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}", **(env_extra or {}))
    entries_before = cache_entries(cache)
    t0 = time.perf_counter()
    with log.open("w") as fh:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            rc = proc.wait(timeout=cap)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
            rc = 124
    result = Result(run=run, rc=rc, wall_s=round(time.perf_counter() - t0, 1), timeout=rc == 124,
                    cache_added=cache_entries(cache) - entries_before)
    if xml.exists() and not result.timeout:
        junit(xml, result)
    else:
        progress(log, result)
    if counts.exists():
        data = json.loads(counts.read_text())
        result.collected, result.kept = data["collected"], data["kept"]
    result.notes += [line for line in log.read_text(errors="replace").splitlines()
                     if line.startswith(("FAILED ", "ERROR "))][:3]
    return result


def cache_entries(path: Path) -> int:
    """Entries of a Triton cache directory (one per compiled kernel variant and its launcher)."""
    return sum(1 for p in path.iterdir() if p.is_dir()) if path.is_dir() else 0


def fmt(x: float | None, digits: int = 1) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def derive(results: list[Result]) -> list[str]:
    """The comparisons: compile time, full / pairwise, workers, per-test clean-up."""
    lines: list[str] = []
    done = [r for r in results if not r.timeout and r.pytest_s is not None]
    for r in done:  # compile time: a cold run and a warm run of one configuration
        if not r.run.cold:
            continue
        for w in done:
            if w.run.config == r.run.config and w.run.mode == r.run.mode and not w.run.cold:
                lines.append(f"- compile (Triton, cold - warm cache) `{r.run.path}` {r.run.mode}: "
                             f"{r.pytest_s - w.pytest_s:.1f} s ({r.pytest_s:.1f} s cold, {w.pytest_s:.1f} s warm)")
                break
    for f in done:  # full / pairwise, both warm
        if f.run.mode != "full" or f.run.cold or f.run.sample > 1:
            continue
        for p in done:
            if p.run.mode == "pairwise" and not p.run.cold and p.run.config == f.run.config:
                lines.append(f"- full / pairwise `{f.run.path}` (n={f.run.workers}, "
                             f"{'per-test' if f.run.per_test else 'module'} clean-up): "
                             f"{f.executed + f.skipped} / {p.executed + p.skipped} items = "
                             f"{(f.executed + f.skipped) / max(1, p.executed + p.skipped):.2f}x, "
                             f"pytest time {f.pytest_s:.1f} / {p.pytest_s:.1f} s = {f.pytest_s / max(p.pytest_s, 1e-9):.2f}x")
                break
    groups: dict[tuple[object, ...], list[Result]] = {}
    for r in done:  # worker counts of one configuration
        if not r.run.cold:
            groups.setdefault((r.run.path, r.run.mode, r.run.per_test, r.run.sample, r.run.k), []).append(r)
    for key, rs in groups.items():
        if len({r.run.workers for r in rs}) > 1:
            best = min(rs, key=lambda r: r.wall_s)
            cells = ", ".join(f"n={r.run.workers}: {r.wall_s:.1f} s wall / {fmt(r.case_s)} s summed"
                              for r in sorted(rs, key=lambda r: r.run.workers))
            lines.append(f"- workers `{key[0]}` {key[1]}: {cells}; fastest: n={best.run.workers}")
    for t in done:  # per-test vs module clean-up on the same sample -> extrapolation
        if not t.run.per_test:
            continue
        for m in done:
            if (not m.run.per_test and m.run.path == t.run.path and m.run.mode == t.run.mode
                    and m.run.sample == t.run.sample and m.run.workers == t.run.workers and m.run.k == t.run.k):
                n_t = max(1, t.executed + t.skipped)
                # summed case time: pytest's own time also holds start-up and collection,
                # which do not grow with the items and would inflate the extrapolation
                per_t, per_m = (t.case_s or 0.0) / n_t, (m.case_s or 0.0) / max(1, m.executed + m.skipped)
                whole = t.collected or n_t
                lines.append(
                    f"- clean-up `{t.run.path}` {t.run.mode}, sample of {n_t} items (every {t.run.sample}-th of "
                    f"{whole}): summed case time per item: per-test {per_t * 1000:.1f} ms, module {per_m * 1000:.1f} ms "
                    f"({per_t / max(per_m, 1e-9):.1f}x); EXTRAPOLATED to all {whole} items: per-test "
                    f"{per_t * whole:.0f} s, module {per_m * whole:.0f} s")
                break
    return lines


def render(results: list[Result], env: str, out: Path) -> str:
    md = ["```", env, "```", "",
          ("| run | mode | n | cache | clean-up | sample | passed | failed | skipped | errors | pytest s | "
           "summed case s | wall s | cache entries added | rc |"),
          "|---|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in results:
        rc = f"{r.rc} (cap: lower bound)" if r.timeout else str(r.rc)
        sample = f"1/{r.run.sample} of {r.collected}" if r.run.sample > 1 else "-"
        md.append(f"| `{r.run.path}`{' -k ' + repr(r.run.k) if r.run.k else ''}{' -p no:logging' if r.run.nolog else ''} "
                  f"| {r.run.mode} | {r.run.workers} | "
                  f"{'cold' if r.run.cold else 'warm'} | {'per-test' if r.run.per_test else 'module'} | {sample} | "
                  f"{r.passed} | {r.failed} | {r.skipped} | {r.errors} | {fmt(r.pytest_s)} | {fmt(r.case_s)} | "
                  f"{r.wall_s:.1f} | {r.cache_added} | {rc} |")
    per_family = [f"| `{r.run.text}` | {fam} | {int(cell[0])} | {cell[1]:.1f} |"
                  for r in results if len(r.families) > 1 for fam, cell in sorted(r.families.items())]
    if per_family:
        md += ["", "Runs of several families, per family (JUnit):", "",
               "| run | family | items | summed case s |", "|---|---|---:|---:|", *per_family]
    derived = derive(results)
    text = "\n".join([*md, "", *(["Derived:", "", *derived] if derived else [])]) + "\n"
    failures = [f"- `{r.run.text}`: {n}" for r in results for n in r.notes]
    if failures:
        text += "\nFirst failures:\n\n" + "\n".join(failures) + "\n"
    (out / "gpu_bench.md").write_text(text)
    (out / "gpu_bench.json").write_text(json.dumps(
        {"env": env, "runs": [{**asdict(r), "run": asdict(r.run)} for r in results], "derived": derived},
        indent=2) + "\n")
    return text


def environment() -> str:
    code = ("import torch, triton\n"
            "print('torch', torch.__version__, 'cuda', torch.version.cuda, 'triton', triton.__version__)\n"
            "import os\n"
            "if torch.cuda.is_available():\n"
            "    p = torch.cuda.get_device_properties(0)\n"
            "    print('device', p.name, 'SMs', p.multi_processor_count, 'memory GiB', round(p.total_memory / 2**30),\n"
            "          'visible GPUs', torch.cuda.device_count(), 'CPU cores', os.cpu_count())\n"
            "else:\n"
            "    print('no GPU: Triton interpreter', 'CPU cores', os.cpu_count())\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    return (proc.stdout + proc.stderr).strip()


def add_arguments(ap: argparse.ArgumentParser, out: Path, cap: float) -> None:
    """The arguments gpu_bench.py and gpu_profile.py share."""
    ap.add_argument("runs", nargs="+", metavar="RUN")
    ap.add_argument("--out", type=Path, default=out)
    ap.add_argument("--cap", type=float, default=cap, help=f"seconds per run (default {cap:g})")
    ap.add_argument("--budget", type=float, default=560.0, help="seconds for all runs (default 560)")
    ap.add_argument("--caches", type=Path, default=None, help="Triton cache root (default OUT/../triton-caches)")
    ap.add_argument("--one-cache", action="store_true",
                    help="one Triton cache for every run (cold empties it) instead of one per family")
    ap.add_argument("--install", action="store_true")


def prepare(args: argparse.Namespace) -> tuple[list[Run], Path, str]:
    """Parse the RUNs, make OUT, install if asked; returns (runs, cache root, environment)."""
    runs = [parse_run(t) for t in args.runs]
    args.out.mkdir(parents=True, exist_ok=True)
    caches: Path = args.caches or args.out.parent / "triton-caches"
    if args.install:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "-e", "."],
                       cwd=ROOT, check=False)
    env = environment()
    print(env, flush=True)
    return runs, caches, env


def within_budget(runs: list[Run], budget: float) -> Iterator[tuple[Run, float]]:
    """Each run with the seconds left of ``budget``; runs it cannot start are named and skipped."""
    start = time.perf_counter()
    for run in runs:
        left = budget - (time.perf_counter() - start)
        if left < 10:
            print(f"budget spent: {run.text} not run", flush=True)
            continue
        yield run, left


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(ap, ROOT / "benchmarks" / "out", 150.0)
    args = ap.parse_args(argv)
    runs, caches, env = prepare(args)
    results: list[Result] = []
    for run, left in within_budget(runs, args.budget):
        res = execute(run, args.out, min(args.cap, left), caches, one_cache=args.one_cache)
        results.append(res)
        print(f"{run.text}: rc={res.rc} {res.passed} passed {res.failed} failed {res.skipped} skipped "
              f"pytest {fmt(res.pytest_s)} s wall {res.wall_s} s summed {fmt(res.case_s)} s", flush=True)
        render(results, env, args.out)
    print(render(results, env, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
