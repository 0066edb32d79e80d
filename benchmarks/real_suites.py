"""Collect public GPU-kernel suites on a CPU-only machine, and time the report on them.

The suites (``benchmarks/corpus/suites.py``; checkouts under ``--root``, default
``/work/suites``) import CUDA extensions at module level (``vllm._C``,
``flash_attn_2_cuda``, flashinfer's JIT, ``aiter`` ...).  Every process started here runs
with ``benchmarks/stubenv`` first on ``PYTHONPATH``: its ``sitecustomize.py`` supplies stub
modules for the suite's own packages and for anything a suite file imports that is not
installed (see that file), and its ``pwstub_progress`` plugin records how far collection
got.  pytest runs conftest-free and config-free (``--noconftest``, an empty ini,
``--rootdir`` = the checkout, ``--import-mode=importlib`` with the test folders on
``PYTHONPATH``, through ``PYTEST_ADDOPTS`` so that ``pairwise-param report``
gets the same), with the checkout on ``PYTHONPATH`` for ``from tests.x import ...``.
What collects is therefore the decorators' own tables: items counts are those of this
stubbed environment, not of a GPU machine (a ``parametrize`` over a stub collects empty).

Usage (from the repository root, in the project's venv)::

    python benchmarks/real_suites.py env flashinfer          # the environment, as shell exports
    python benchmarks/real_suites.py collect liger            # pytest --collect-only: items, errors, s, RSS
    python benchmarks/real_suites.py collect vllm tests/kernels/core --fake-cuda
    python benchmarks/real_suites.py report flashinfer --timeout 900 -- --strength 2
    python benchmarks/real_suites.py baseline --out benchmarks/results/real_suites_baseline.md

``baseline`` runs, one at a time: ``pytest --collect-only`` and ``pairwise-param report``
on flashinfer ``tests/`` and on flash-attention ``tests/`` + ``hopper/`` (issue 26's two
large suites), each capped at ``--timeout`` seconds, and writes wall time, peak RSS (of
the measured process, ``wait4``), items and how far a capped run got.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.corpus.suites import SUITES, Suite

STUBENV = ROOT / "benchmarks" / "stubenv"
DEFAULT_ROOT = Path("/work/suites")

#: Suites whose test files import their siblings by bare name: these folders go on PYTHONPATH.
SIBLING_IMPORTS: dict[str, tuple[str, ...]] = {"flash-attention": ("tests", "hopper")}


def checkout(suite: Suite, root: Path) -> Path:
    path = root / suite.name
    if not path.is_dir():
        raise SystemExit(f"no checkout of {suite.name} at {path} (benchmarks/README.md: bringing the suites)")
    return path


def environment(suite: Suite, root: Path, workdir: Path, *, fake_cuda: bool = False,
                extra_roots: tuple[Path, ...] = ()) -> dict[str, str]:
    """The environment a suite collects in: stubs, no conftest, no suite config.
    ``extra_roots``: more folders whose imports may be stubbed (copies of suite files)."""
    co = checkout(suite, root)
    ini = workdir / "pwstub.ini"
    ini.write_text("[pytest]\n", encoding="utf-8")
    env = dict(os.environ)
    # importlib mode: tests/ and hopper/ of flash-attention hold files of the same basename
    # (prepend mode reports those as "import file mismatch"); the test folders of the suites
    # in SIBLING_IMPORTS go on the path instead, for ``from test_util import ...`` (not for
    # every suite: Liger's test/transformers/ would shadow the transformers package)
    tests = [str(co / t) for t in SIBLING_IMPORTS.get(suite.name, ()) if (co / t).is_dir()]
    env["PYTHONPATH"] = os.pathsep.join([str(STUBENV), str(co), *tests,
                                         *filter(None, [os.environ.get("PYTHONPATH")])])
    env["PWSTUB_FORCE"] = ",".join(suite.packages)
    env["PWSTUB_ROOTS"] = os.pathsep.join([str(co), *map(str, extra_roots)])
    if fake_cuda:
        env["PWSTUB_FAKE_CUDA"] = "1"
    env["PYTEST_ADDOPTS"] = (f"--noconftest -c {ini} --rootdir {co} -p no:cacheprovider -p pwstub_progress "
                             "--import-mode=importlib -W ignore::pytest.PytestUnknownMarkWarning")
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


@dataclass
class Measured:
    command: list[str]
    cwd: str
    rc: int | None  # None: killed at the time limit
    wall_s: float
    max_rss_mib: float
    progress: dict[str, Any] = field(default_factory=dict)  # pwstub_progress's last record
    stdout_tail: str = ""
    stderr_tail: str = ""

    @property
    def finished(self) -> bool:
        return self.rc is not None


def measure(cmd: list[str], env: dict[str, str], cwd: Path, timeout: float, workdir: Path) -> Measured:
    """Run ``cmd``; wall time, peak RSS of that process (``wait4``), its progress file."""
    progress = workdir / f"progress-{time.monotonic_ns()}.json"
    env = {**env, "PWSTUB_PROGRESS": str(progress)}
    out, err = workdir / "stdout.txt", workdir / "stderr.txt"
    with out.open("wb") as fo, err.open("wb") as fe:
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=fo, stderr=fe, start_new_session=True)
        rc: int | None = None
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                rc = os.waitstatus_to_exitcode(status)
                break
            if time.monotonic() - t0 > timeout:
                os.killpg(p.pid, signal.SIGKILL)
                _, status, usage = os.wait4(p.pid, 0)
                break
            time.sleep(0.2)
        wall = time.monotonic() - t0
    p.returncode = -9 if rc is None else rc  # reaped by wait4 above
    prog: dict[str, Any] = {}
    if progress.exists():
        try:
            prog = json.loads(progress.read_text())
        except json.JSONDecodeError:
            prog = {}
    return Measured(cmd, str(cwd), rc, wall, usage.ru_maxrss / 1024, prog, _tail(out), _tail(err))


def _tail(path: Path) -> str:
    return path.read_text(errors="replace")[-3000:]


def collect_cmd(paths: list[str]) -> list[str]:
    return [sys.executable, "-m", "pytest", "--collect-only", "-q", *paths]


def report_cmd(paths: list[str], extra: list[str]) -> list[str]:
    exe = shutil.which("pairwise-param", path=str(Path(sys.executable).parent)) or "pairwise-param"
    return [exe, "report", "--progress", *extra, *paths]


def items_from_collect(stdout: str) -> int | None:
    """pytest -q --collect-only ends with "N tests collected" (or "N/M tests collected")."""
    for line in reversed(stdout.splitlines()):
        words = line.split()
        for i, w in enumerate(words):
            if w.startswith("test") and "collected" in words[i + 1:i + 2] and i > 0:
                return int(words[i - 1].split("/")[0])
    return None


#: Files named like tests that are not tests: they exit at import (flash-attention's
#: ``hopper/test_kvcache.py`` is a benchmark script calling ``parse_args()`` at module
#: level, which ends any pytest session with INTERNALERROR, on a GPU machine too).
IGNORE: dict[str, tuple[str, ...]] = {"flash-attention": ("hopper/test_kvcache.py",)}


def run_one(kind: str, suite: Suite, root: Path, paths: list[str], timeout: float, fake_cuda: bool,
            extra: list[str]) -> Measured:
    with tempfile.TemporaryDirectory(prefix=f"pwstub-{suite.name}-") as tmp:
        work = Path(tmp)
        env = environment(suite, root, work, fake_cuda=fake_cuda)
        env["PYTEST_ADDOPTS"] += "".join(f" --ignore={p}" for p in IGNORE.get(suite.name, ()))
        paths = paths or list(suite.tests)
        cmd = collect_cmd(paths) if kind == "collect" else report_cmd(paths, extra)
        return measure(cmd, env, checkout(suite, root), timeout, work)


def describe(m: Measured) -> str:
    p = m.progress
    state = "finished" if m.finished else "KILLED at the time limit"
    return (f"{state}: rc={m.rc} wall={m.wall_s:.1f}s peak RSS={m.max_rss_mib:.0f} MiB; "
            f"collected {p.get('items', '?')} items from {p.get('files', '?')} files, "
            f"{p.get('errors', '?')} collection errors{'' if p.get('done') else ' (collection not finished)'}")


def baseline(root: Path, timeout: float, fake_cuda: bool, out: Path | None, only: list[str] | None = None) -> str:
    plan = [(n, p) for n, p in [("flashinfer", ["tests"]), ("flash-attention", ["tests", "hopper"])]
            if only is None or n in only]
    lines = [
        "# Real-suite baseline: collection and `pairwise-param report` (issue 26)",
        "",
        (f"Produced by `python benchmarks/real_suites.py baseline --timeout {timeout:.0f}"
         f"{' --fake-cuda' if fake_cuda else ''}` on the 2-core / 24 GiB sandbox (shared with other"
         " sessions), one run at a time, CPU only, suites collected in the stub environment of"
         " `benchmarks/stubenv` (conftest-free). Peak RSS is the measured process's own (`wait4`)."),
        "",
        "| suite | paths | commit | command | result | wall s | peak RSS MiB | items | files | collection errors |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, paths in plan:
        suite = SUITES[name]
        for kind in ("collect", "report"):
            m = run_one(kind, suite, root, paths, timeout, fake_cuda, ["--strength", "2", "--format", "json"]
                        if kind == "report" else [])
            items = m.progress.get("items", "?")
            if kind == "collect" and m.finished:
                items = items_from_collect(m.stdout_tail) or items
            res = "finished" if m.finished else f"killed at {timeout:.0f} s" + (
                "" if m.progress.get("done") else " during collection")
            if m.finished and m.rc not in (0, 1):
                res += f" (rc {m.rc})"
            cmd = "pytest --collect-only -q" if kind == "collect" else "pairwise-param report --strength 2 --format json"
            lines.append(f"| {name} | {' + '.join(paths)} | {suite.commit[:10]} | `{cmd}` | {res} | {m.wall_s:.1f} "
                         f"| {m.max_rss_mib:.0f} | {items} | {m.progress.get('files', '?')} "
                         f"| {m.progress.get('errors', '?')} |")
            print(f"{name} {kind}: {describe(m)}", file=sys.stderr, flush=True)
            if not m.finished or m.rc not in (0, 1):
                print(m.stderr_tail[-1500:], file=sys.stderr)
    text = "\n".join(lines) + "\n"
    if out is not None:
        out.write_text(text, encoding="utf-8")
    return text


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("action", choices=["env", "collect", "report", "baseline"])
    p.add_argument("suite", nargs="?", choices=sorted(SUITES))
    p.add_argument("paths", nargs="*", help="test paths relative to the checkout (default: the suite's test folders)")
    p.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    p.add_argument("--timeout", type=float, default=900.0, help="seconds before a run is killed (default 900)")
    p.add_argument("--fake-cuda", action="store_true", help="torch.cuda.is_available() -> True in the suites")
    p.add_argument("--out", type=Path, help="baseline: write the Markdown here")
    p.add_argument("--only", action="append", choices=["flashinfer", "flash-attention"],
                   help="baseline: only this suite (repeatable)")
    args = p.parse_args(argv)
    if args.action == "baseline":
        print(baseline(args.root, args.timeout, args.fake_cuda, args.out, args.only))
        return 0
    if args.suite is None:
        p.error(f"{args.action} needs a suite")
    suite = SUITES[args.suite]
    if args.action == "env":
        work = Path(tempfile.mkdtemp(prefix=f"pwstub-{suite.name}-"))
        env = environment(suite, args.root, work, fake_cuda=args.fake_cuda)
        for k in ("PYTHONPATH", "PWSTUB_FORCE", "PWSTUB_ROOTS", "PWSTUB_FAKE_CUDA", "PYTEST_ADDOPTS"):
            if k in env:
                print(f"export {k}={json.dumps(env[k])}")
        print(f"cd {checkout(suite, args.root)}")
        return 0
    m = run_one(args.action, suite, args.root, args.paths, args.timeout, args.fake_cuda, extra)
    sys.stdout.write(m.stdout_tail if args.action == "report" else m.stdout_tail[-1500:])
    print(describe(m), file=sys.stderr)
    if m.progress.get("error_files"):
        print("collection errors in: " + ", ".join(m.progress["error_files"][:15]), file=sys.stderr)
    return 0 if m.finished else 124


if __name__ == "__main__":
    sys.exit(main())
