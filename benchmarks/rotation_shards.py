"""Sharded rotation over builds: the tables are byte-identical to unsharded rotation
(issue 36's target: 5 builds x 3 shards).

    python benchmarks/rotation_shards.py [--builds 5] [--shards 3] [--markdown FILE]

A small suite of ``@pairwise`` tests (three tables: 5 mixed axes x 2 shapes, a 6-axis
binary table x 3 shapes, a constrained one) is run with ``pytest --pairwise-rotate`` in
subprocesses, three ways, build after build:

* **unsharded**: one pytest run per build, one history file (the reference);
* **shared history**: each build split by pytest-shard into N shards that share one
  history file, told apart by ``PAIRWISE_BUILD`` (one run of the history per build);
* **per-shard histories**: each shard restores the last merged history into its own file,
  and ``pairwise-param merge-history`` joins the shards' files after the build.

Per build and table, the rows each shard ran (its run file's ``rows``) are compared with
the unsharded run's, as JSON text; after the last build, each shape's history is compared
with the unsharded one (the runs, as JSON text). Exit 1 when anything differs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SUITE = '''
import pytest
from pairwise_param import pairwise


@pairwise(dtype=["f16", "bf16", "f32"], padded_a=[False, True], padded_b=[False, True], bias_mode=[0, 1, 2],
          xnorm=[False, True])
@pytest.mark.parametrize("n", [1, 64])
def test_gemm(n, dtype, padded_a, padded_b, bias_mode, xnorm):
    pass


@pairwise(a=[0, 1], b=[0, 1], c=[0, 1], d=[0, 1], e=[0, 1], f=[0, 1])
@pytest.mark.parametrize("shape", ["s", "m", "l"])
def test_flags(shape, a, b, c, d, e, f):
    pass


@pairwise(norm=["rms", "layer"], dtype=["f16", "bf16", "f32"], gate=[None, "pre", "post"], weight=[False, True],
          bias=[False, True], constraints=[{"never": "bias and not weight"}])
def test_norm(norm, dtype, gate, weight, bias):
    pass
'''


def _pytest(cwd: Path, env: dict[str, str], *args: str) -> int:
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", "--pairwise-rotate",
            *args]
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 5):  # 5: a shard that holds none of the items
        raise SystemExit(f"pytest {' '.join(args)} exited {done.returncode}:\n{done.stdout}{done.stderr}")
    return done.returncode


def _tables(run_file: Path) -> dict[str, str]:
    """Per test, its table's rows as JSON text."""
    doc = json.loads(run_file.read_text())
    return {f"{t['test']}[{t['table']}]": json.dumps(t["rows"]) for t in doc["tables"]}


def _runs(history_file: Path) -> dict[str, str]:
    doc = json.loads(history_file.read_text())
    return {f"{t['test']}[{t['table']}]": json.dumps(t["runs"]) for t in doc["tables"]}


def run(work: Path, builds: int, shards: int) -> tuple[list[dict[str, object]], dict[str, bool], float]:
    (work / "test_suite.py").write_text(SUITE)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)}
    for name in ("PAIRWISE_BUILD", "PAIRWISE_STRENGTH", "PAIRWISE_HISTORY", "PAIRWISE_ROTATE"):
        env.pop(name, None)
    rows: list[dict[str, object]] = []
    start = time.perf_counter()
    merged = work / "merged.json"
    for b in range(builds):
        _pytest(work, env, "--pairwise-history=unsharded.json", f"--pairwise-report=u{b}.json")
        reference = _tables(work / f"u{b}.json")
        benv = {**env, "PAIRWISE_BUILD": f"build-{b}"}
        same = {"shared history": True, "per-shard histories": True}
        ran = {"shared history": 0, "per-shard histories": 0}
        for s in range(shards):
            shard = (f"--shard-id={s}", f"--num-shards={shards}")
            if _pytest(work, benv, "--pairwise-history=shared.json", f"--pairwise-report=a{b}_{s}.json", *shard) == 0:
                got = _tables(work / f"a{b}_{s}.json")
                same["shared history"] &= all(got[k] == reference[k] for k in got)
                ran["shared history"] += 1
            mine = work / f"h{s}.json"
            mine.unlink(missing_ok=True)
            if merged.exists():
                shutil.copyfile(merged, mine)
            if _pytest(work, benv, f"--pairwise-history={mine}", f"--pairwise-report=p{b}_{s}.json", *shard) == 0:
                got = _tables(work / f"p{b}_{s}.json")
                same["per-shard histories"] &= all(got[k] == reference[k] for k in got)
                ran["per-shard histories"] += 1
        files = sorted(str(p) for p in work.glob("h*.json"))
        done = subprocess.run([sys.executable, "-m", "pairwise_param", "merge-history", *files, "-o", str(merged)],
                              env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise SystemExit(f"merge-history exited {done.returncode}: {done.stderr}")
        rows.append({"build": b + 1, "rows": {k.split("::")[-1]: len(json.loads(v)) for k, v in reference.items()},
                     "shards_ran": ran, "identical": same, "tables": reference})
    final = _runs(work / "unsharded.json")
    histories = {"shared history": _runs(work / "shared.json") == final,
                 "per-shard histories": _runs(merged) == final}
    return rows, histories, time.perf_counter() - start


def markdown(rows: list[dict[str, object]], histories: dict[str, bool], builds: int, shards: int,
             seconds: float) -> str:
    made = (f"Made by `python benchmarks/rotation_shards.py --builds {builds} --shards {shards} --markdown "
            f"benchmarks/results/rotation_shards.md` ({seconds:.0f} s wall on the shared 2-core sandbox; "
            f"{builds * (1 + 2 * shards)} pytest runs). Each shard's tables (its run file's rows, as JSON text) "
            "compared with the unsharded run's of the same build.")
    head = ("| build | rows per table | shards with items (shared / per-shard) "
            "| shared history: identical | per-shard histories + merge-history: identical |")
    lines = [f"# Sharded rotation: {builds} builds x {shards} shards vs unsharded rotation", "", made, "", head,
             "|---|---|---|---|---|"]
    for r in rows:
        counts = r["rows"]
        ran = r["shards_ran"]
        same = r["identical"]
        assert isinstance(counts, dict) and isinstance(ran, dict) and isinstance(same, dict)
        lines.append(f"| {r['build']} | {', '.join(f'{k} {v}' for k, v in sorted(counts.items()))} "
                     f"| {ran['shared history']} / {ran['per-shard histories']} "
                     f"| {'yes' if same['shared history'] else 'NO'} | {'yes' if same['per-shard histories'] else 'NO'} |")
    seen: dict[str, set[str]] = {}
    for r in rows:
        tables = r["tables"]
        assert isinstance(tables, dict)
        for k, v in tables.items():
            seen.setdefault(k.split("::")[-1], set()).add(v)
    lines += ["", f"Distinct tables over the {builds} builds (rotation changed them build after build): "
              + ", ".join(f"{k} {len(v)}" for k, v in sorted(seen.items())) + "."]
    lines += ["", "After the last build, the history (every table's runs, as JSON text) equals the unsharded one: "
              + ", ".join(f"{k}: {'yes' if v else 'NO'}" for k, v in histories.items()) + ".", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--builds", type=int, default=5)
    ap.add_argument("--shards", type=int, default=3)
    ap.add_argument("--markdown", type=Path)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="rotation-shards-") as tmp:
        rows, histories, seconds = run(Path(tmp), args.builds, args.shards)
    text = markdown(rows, histories, args.builds, args.shards, seconds)
    print(text)
    if args.markdown:
        args.markdown.write_text(text, encoding="utf-8")
    ok = all(all(r["identical"].values()) for r in rows if isinstance(r["identical"], dict)) and all(histories.values())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
