"""The audit's rule on suites it was never looked at for (issue 35's held-out check, redone).

``audit_corpus.py`` scores the rule on fourteen labelled suites, but the rule of issue 35
was refined after its held-out split's misses were read, so that split no longer holds
out.  This script scores the SAME rule on suites added after the rule was frozen
(:data:`FRESH`: NVIDIA TransformerEngine, Dao-AILab quack, DeepSeek DeepGEMM), both ways
the gate can fail, without a labelled corpus:

* **false alarms**: every multi-name ``parametrize`` list that the rule audits as an
  option table and finds short of 100% pair coverage is listed with the label read from
  its source (:data:`LABELS`: ``case`` = a false alarm, ``option`` = a real gap); a list
  found short and not in :data:`LABELS` is printed as UNLABELLED and the script exits 1,
  so a rule change cannot hide a new false alarm;
* **recall on holes**: the stacked single-name option axes of each test (three or more
  that ``report/whatif.axis_kind`` calls options, the split ``convert`` uses) are cut to
  the engine's covering table (what a maintainer pasting a pairwise cut would write), then
  each row is dropped where that loses a pair; a hole is caught when the rule audits the
  list as an option table.

Usage::

    python benchmarks/audit_fresh.py --root /work/suites     # checkouts at the FRESH commits

Bringing the checkouts: ``git archive <commit> tests | tar -x -C ROOT/<name>`` from the
``fetch`` tool's mirror of each origin (benchmarks/README.md).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.audit_corpus import pair_coverage
from benchmarks.corpus import rules, static
from benchmarks.corpus.suites import Suite

FRESH = [
    Suite("transformer-engine", "NVIDIA/TransformerEngine", "d0067d0da6cb01811b8072a7d304f0e00344ce2b",
          ("tests/pytorch", "tests/jax"), ("transformer_engine",)),
    Suite("quack", "Dao-AILab/quack", "c8ec3170057987da0ec99883736f381ea1937cf3", ("tests",), ("quack",)),
    Suite("deepgemm", "deepseek-ai/DeepGEMM", "54e22612409371d6364144b69086735beb54e98b", ("tests",),
          ("deep_gemm",)),
    # added after every change of the rule above was made: the last held-out check
    Suite("lmdeploy", "InternLM/lmdeploy", "1263d5cd889b7ad500e85b8eb20401327a4516ab", ("tests",), ("lmdeploy",)),
    Suite("deepspeed", "microsoft/DeepSpeed", "38327e07f6cd39b63418f60cedd1651b0be3e7c3", ("tests/unit",),
          ("deepspeed",)),
    Suite("lightllm", "ModelTC/lightllm", "fc72ffab9a3455cfb571f22d45ab777cc29de0de", ("unit_tests",),
          ("lightllm",)),
]

#: (suite, path, test, argnames) -> (label, what the source says), for every list the rule
#: audits and finds short; read from the source after the rule was frozen.
LABELS: dict[tuple[str, str, str, str], tuple[str, str]] = {
    ("transformer-engine", "tests/pytorch/test_grouped_linear.py", "test_grouped_parameter_layout_matches_cpu_m_splits",
     "use_bias,single_grouped_weight,single_grouped_bias"):
        ("case", "the valid combinations: single_grouped_bias only with use_bias (a product less the invalid rows)"),
}


def tables(root: Path) -> list[tuple[str, str, static.Table]]:
    out = []
    for suite in FRESH:
        for under in suite.tests:
            for f in static.test_files(root / suite.name, under):
                rel = str(f.relative_to(root / suite.name))
                try:
                    found = static.tables_in_source(static.read(f), rel)
                except (SyntaxError, ValueError, RecursionError):
                    continue
                out.extend((suite.name, rel, t) for t in found if t.rows is not None)
    return out


def audited(found: list[tuple[str, str, static.Table]]) -> tuple[dict[str, int], list[str], int]:
    """Verdicts per kind, the lines of the lists audited and short, and how many of those
    have no label."""
    kinds: dict[str, int] = defaultdict(int)
    lines, unlabelled = [], 0
    for suite, path, t in found:
        if len(t.argnames) < 2 or not t.rows:
            continue
        n = len(t.argnames)
        rows = [r for r in t.rows if len(r) == n]
        v = rules.audit_verdict(t.argnames, rows, False)
        kinds[v.kind] += 1
        cov, tot = pair_coverage(rows, n)
        if v.kind != "option" or cov == tot:
            continue
        label = LABELS.get((suite, path, t.test, ",".join(t.argnames)))
        unlabelled += label is None
        what = "UNLABELLED" if label is None else ("FALSE ALARM" if label[0] == "case" else "real gap")
        lines.append(f"- {what}: {suite} {path}::{t.test} [{','.join(t.argnames)}] {len(rows)} rows, "
                     f"{cov}/{tot} pairs{'' if label is None else ': ' + label[1]}")
    return kinds, lines, unlabelled


def holes(found: list[tuple[str, str, static.Table]]) -> tuple[dict[str, list[int]], list[str]]:
    """Per suite ``[holes, caught]``, and the missed lines, over the rows dropped from
    covering cuts of each test's stacked option axes."""
    from pairwise_param import cover
    from pairwise_param.report.classify import _distinct
    from pairwise_param.report.whatif import axis_kind

    by_test: dict[tuple[str, str, str], dict[str, list[Any]]] = defaultdict(dict)
    for suite, path, t in found:
        if len(t.argnames) != 1 or not t.rows:
            continue
        vals = _distinct([r[0] for r in t.rows if len(r) == 1])
        try:
            hash(tuple(vals))
        except TypeError:
            continue
        if len(vals) > 1 and axis_kind(t.argnames[0], vals)[0] == "option":
            by_test[(suite, path, t.test)].setdefault(t.argnames[0], vals)
    per: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    missed = []
    for (suite, path, test), values in sorted(by_test.items()):
        if len(values) < 3:
            continue
        names = list(values)
        cut = [tuple(r[a] for a in names) for r in cover(values, strength=2)]
        for i in range(len(cut)):
            holed = cut[:i] + cut[i + 1:]
            covered, pairs = pair_coverage(holed, len(names))
            if covered == pairs:
                continue
            per[suite][0] += 1
            v = rules.audit_verdict(names, holed, False)
            if v.kind == "option":
                per[suite][1] += 1
            else:
                missed.append(f"- {suite} {path}::{test} [{','.join(names)}] row {i} dropped: {v.kind}: {v.reason}")
    return per, missed


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--root", type=Path, default=Path("/work/suites"))
    args = p.parse_args(argv)
    missing = [s.name for s in FRESH if not (args.root / s.name).is_dir()]
    if missing:
        print(f"no checkout of {', '.join(missing)} under {args.root} (see the module docstring)", file=sys.stderr)
        return 2
    found = tables(args.root)
    kinds, lines, unlabelled = audited(found)
    per, missed = holes(found)
    multi = sum(len(t.argnames) > 1 for _, _, t in found)
    print(f"suites: {', '.join(f'{s.name} @ {s.commit[:10]}' for s in FRESH)}")
    print(f"multi-name lists: {multi} (rule: {dict(sorted(kinds.items()))})")
    print(f"audited as option tables and short of 100% pairs: {len(lines)} "
          f"(false alarms: {sum('FALSE ALARM' in ln for ln in lines)})")
    print("\n".join(lines))
    print("\n| suite | multi-name lists | holes (row dropped) | caught | recall | false alarms |\n|---|---|---|---|---|---|")
    for s in FRESH:
        h, c = per.get(s.name, [0, 0])
        fa = sum("FALSE ALARM" in ln and f" {s.name} " in ln for ln in lines)
        ratio = f"{c / h:.3f}" if h else "-"
        print(f"| {s.name} | {sum(n == s.name and len(t.argnames) > 1 for n, _, t in found)} | {h} | {c} | {ratio} | {fa} |")
    total, caught = sum(h for h, _ in per.values()), sum(c for _, c in per.values())
    print(f"| **all** | {multi} | {total} | {caught} | {caught / total if total else 0:.3f} "
          f"| {sum('FALSE ALARM' in ln for ln in lines)} |\n")
    print("\n".join(missed))
    return 1 if unlabelled else 0


if __name__ == "__main__":
    sys.exit(main())
