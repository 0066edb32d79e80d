"""Side by side on the constrained set: ours quick / effort 1, PICT and TCA (FastCA's predecessor).

Run from the repository root::

    python benchmarks/side_by_side.py                      # ours only
    PICT_BIN=/tmp/i23tools/pict/build/cli/pict TCA_BIN=/tmp/i23tools/tca/TCA \\
        python benchmarks/side_by_side.py --tca-seconds 5
    python benchmarks/side_by_side.py --only "marlin" --quick-only

Prints one Markdown table (rows and CPU seconds per tool, every array checked by
:mod:`constrained_check`, which shares no code with the engine) and the geometric
means of rows relative to the smallest valid array any tool produced, plus how
often ours quick is at most TCA's rows.  Our CPU seconds are ``time.process_time``
around one ``engine.generate`` call (model building excluded, as in
``bench_engine.py``); the peers' are the child process' user+sys time
(``resource.getrusage(RUSAGE_CHILDREN)``), start-up included.

``TCA_BIN``: TCA, Lin et al., ASE 2015 (https://github.com/huangrubing/ASE15-TCA,
the authors' code with its later light-weight score computation, which FastCA
builds on), patched locally only to print its best array; its cutoff is CPU
seconds.  FastCA itself could not be found as public source.
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from constrained_check import check, index_rules
from constrained_models import CONSTRAINED, ConstrainedModel

import pairwise_param
from pairwise_param.engine import EngineOptions, generate

Rows = list[list[int]]


def _declarative(m: ConstrainedModel) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for conds, (axis, allowed) in m.rules:
        out.append({"if": {a: v for a, v in conds}, "then": {axis: list(allowed)}})
    return out


def _model(m: ConstrainedModel) -> pairwise_param.Model:
    return pairwise_param.Model(
        {name: list(vals) for name, vals in m.axes}, strength=m.strength, constraints=_declarative(m)
    )


def lower_bound(m: ConstrainedModel) -> int:
    """The engine's lower bound of the model (``pipeline.lower_bound``: per scope,
    its coverable tuples; no array has fewer rows)."""
    from pairwise_param.engine.pipeline import lower_bound as bound
    from pairwise_param.engine.requirements import requirements

    model = _model(m)
    return bound(requirements(model.index_model, model.feasibility))


def ours(m: ConstrainedModel, effort: int) -> tuple[Rows, float, str]:
    model = _model(m)
    c0 = time.process_time()
    g = generate(model.index_model, EngineOptions(effort=effort), model.feasibility)
    return [list(r) for r in g.rows], time.process_time() - c0, g.method


def _child_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def pict(m: ConstrainedModel, binary: str) -> tuple[Rows, float] | None:
    """PICT on the model with value tokens ``v<index>`` (no numeric parsing surprises)."""
    lines = [f"{name}: " + ", ".join(f"v{i}" for i in range(len(vals))) for name, vals in m.axes]
    lines.append("")
    values = {name: list(vals) for name, vals in m.axes}
    for conds, (axis, allowed) in m.rules:
        cond = " AND ".join(f'[{a}] = "v{values[a].index(v)}"' for a, v in conds)
        alts = ", ".join(f'"v{values[axis].index(w)}"' for w in allowed)
        lines.append(f"IF {cond} THEN [{axis}] IN {{{alts}}};")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.pict")
        with open(path, "w") as fh:
            fh.write("\n".join(lines) + "\n")
        c0 = _child_cpu()
        out = subprocess.run([binary, path, f"/o:{m.strength}"], capture_output=True, text=True, check=False)
        cpu = _child_cpu() - c0
    if out.returncode != 0:
        return None
    text = out.stdout.strip().splitlines()
    names = text[0].split("\t")
    order = [names.index(n) for n, _ in m.axes]
    rows = []
    for line in text[1:]:
        cells = line.split("\t")
        rows.append([int(cells[j][1:]) for j in order])
    return rows, cpu


def tca(m: ConstrainedModel, binary: str, seconds: int, seed: int = 1) -> tuple[Rows, float] | None:
    """TCA on the CASA-format model: one CNF clause per rule over (axis, value) symbols."""
    ir = index_rules(m)
    offsets = [sum(m.sizes[:a]) for a in range(len(m.sizes))]
    clauses = []
    for conds, (q, allowed) in ir.rules:
        terms = [f"- {offsets[a] + v}" for a, v in conds] + [f"+ {offsets[q] + w}" for w in sorted(allowed)]
        clauses.append(f"{len(terms)}\n" + " ".join(terms))
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "m.model")
        cons = os.path.join(tmp, "m.constraints")
        with open(model, "w") as fh:
            fh.write(f"{m.strength}\n{len(m.sizes)}\n" + " ".join(map(str, m.sizes)) + "\n")
        with open(cons, "w") as fh:
            fh.write(f"{len(clauses)}\n" + "\n".join(clauses) + "\n")
        c0 = _child_cpu()
        out = subprocess.run([binary, model, cons, str(seconds), str(seed)], capture_output=True, text=True,
                             check=False, cwd=tmp)
        cpu = _child_cpu() - c0
    lines = out.stdout.splitlines()
    if "ROWS" not in lines:
        return None
    body = lines[lines.index("ROWS") + 1: lines.index("END")]
    rows = [[int(x) - offsets[a] for a, x in enumerate(line.split())] for line in body]
    return rows, cpu


def geomean(xs: list[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--quick-only", action="store_true", help="skip the effort column")
    ap.add_argument("--effort", type=int, default=1)
    ap.add_argument("--tca-seconds", type=int, default=5, help="TCA's cutoff in CPU seconds (default 5)")
    ap.add_argument("--only", default="", help="comma-separated labels (substring match)")
    args = ap.parse_args(argv)
    keys = [k.strip() for k in args.only.split(",") if k.strip()]
    pict_bin, tca_bin = os.environ.get("PICT_BIN"), os.environ.get("TCA_BIN")
    head = ["model", "t", "axes", "rules", "LB", "ours quick (rows / cpu s)"]
    if not args.quick_only:
        head.append(f"ours effort {args.effort}")
    if pict_bin:
        head.append("PICT")
    if tca_bin:
        head.append(f"TCA {args.tca_seconds} s")
    head.append("method")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    ratios: dict[str, list[float]] = {}
    cpus: dict[str, list[float]] = {}
    le_tca = n_tca = over = 0
    smaller = n_effort = 0
    above = smaller_above = 0
    worst = 0.0
    for m in CONSTRAINED:
        if keys and not any(k in m.label for k in keys):
            continue
        got: dict[str, tuple[Rows, float]] = {}
        rows, cpu, method = ours(m, 0)
        got["quick"] = (rows, cpu)
        if not args.quick_only:
            rows1, cpu1, _ = ours(m, args.effort)
            got["effort"] = (rows1, cpu1)
        if pict_bin:
            p = pict(m, pict_bin)
            if p is not None:
                got["PICT"] = p
        if tca_bin:
            t = tca(m, tca_bin, args.tca_seconds)
            if t is not None:
                got["TCA"] = t
        verdicts = {k: check(m, v[0]) for k, v in got.items()}
        valid = [len(v[0]) for k, v in got.items() if verdicts[k].ok]
        best = min(valid) if valid else None
        lb = lower_bound(m)
        line = [m.label, str(m.strength), str(len(m.sizes)), str(len(m.rules)), str(lb)]
        for key in ["quick", "effort", "PICT", "TCA"]:
            if key == "effort" and args.quick_only or key == "PICT" and not pict_bin or key == "TCA" and not tca_bin:
                continue
            if key not in got:
                line.append("failed")
                continue
            r, c = got[key]
            line.append(f"{len(r)} / {c:.2f}{verdicts[key].verdict()}")
            if verdicts[key].ok and best is not None:
                ratios.setdefault(key, []).append(len(r) / best)
                cpus.setdefault(key, []).append(max(c, 1e-3))
        line.append(method)
        if "TCA" in got and verdicts["TCA"].ok and verdicts["quick"].ok:
            n_tca += 1
            q, f = len(got["quick"][0]), len(got["TCA"][0])
            le_tca += q <= f
            worst = max(worst, q / f)
            over += q > 1.03 * f
        if "effort" in got and verdicts["effort"].ok and verdicts["quick"].ok:
            n_effort += 1
            win = len(got["effort"][0]) < len(got["quick"][0])
            smaller += win
            if len(got["quick"][0]) > lb:
                above += 1
                smaller_above += win
        print("| " + " | ".join(line) + " |", flush=True)
    print()
    for key, xs in ratios.items():
        print(f"geometric mean rows / smallest of all tools, {key} ({len(xs)} models): {geomean(xs):.3f}; "
              f"geometric mean CPU s: {geomean(cpus[key]):.3f}")
    if n_tca:
        print(f"ours quick <= TCA rows on {le_tca} of {n_tca} models; worst quick / TCA {worst:.3f}; "
              f"over 1.03x on {over}")
    if n_effort:
        print(f"ours effort {args.effort} strictly smaller than quick on {smaller} of {n_effort} models; "
              f"on {smaller_above} of the {above} models where quick is above the lower bound")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
