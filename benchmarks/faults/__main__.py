"""``python -m benchmarks.faults [--families ...] [--faults ...] [--json out.json] [--markdown out.md]``

Prints the study's Markdown table; exit 1 when an unmutated kernel fails (the baseline
must be clean) or a fault the full product detects is missed by the t=2 table while its
order is <= 2 (that would break the covering guarantee), by the plain table or by the
compile-aware one (the suite's ``compile_axes=`` / ``compile_key=``: it covers every pair too).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from kernel_tests.support.families import FAMILIES

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

#: --families choices: the one family list (targets.py is not imported here, so --help
#: needs neither torch nor Triton).
FAMILY_NAMES = list(FAMILIES)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.faults", description=__doc__.splitlines()[0])
    parser.add_argument("--families", nargs="*", default=None, choices=FAMILY_NAMES,
                        help="families to run (default: all)")
    parser.add_argument("--faults", nargs="*", default=None, help="fault ids to run (default: all)")
    parser.add_argument("--json", default=None, help="write the full result (with t=2 row outcomes) here")
    parser.add_argument("--markdown", default=None, help="also write the Markdown here")
    args = parser.parse_args(argv)

    import torch

    if "TRITON_INTERPRET" not in os.environ and not torch.cuda.is_available():
        os.environ["TRITON_INTERPRET"] = "1"
    if not torch.cuda.is_available() and "OMP_NUM_THREADS" not in os.environ:
        torch.set_num_threads(1)

    from benchmarks.faults.catalogue import FAULTS
    from benchmarks.faults.report import markdown
    from benchmarks.faults.study import RANDOM_SEEDS, sanity, study_fault, tables
    from benchmarks.faults.targets import all_targets

    t0 = time.perf_counter()
    unknown = sorted(set(args.faults or ()) - {f.id for f in FAULTS})
    if unknown:
        parser.error(f"unknown fault ids {unknown}; see benchmarks/faults/catalogue.py")
    faults = [f for f in FAULTS if (args.families is None or f.target.split("/")[0] in args.families)
              and (args.faults is None or f.id in args.faults)]
    if not faults:
        parser.error("no fault selected")
    targets = all_targets(list(dict.fromkeys(f.target.split("/")[0] for f in faults)))
    used = list(dict.fromkeys(f.target for f in faults))
    tabs = {key: tables(targets[key]) for key in used}
    result: dict[str, Any] = {"random_seeds": len(RANDOM_SEEDS), "targets": [], "sanity": [], "faults": []}
    for key in used:
        t, tab = targets[key], tabs[key]
        result["targets"].append({
            "key": key, "shapes": len(t.shapes), "shape_list": [list(s) for s in t.shapes],
            "axes": {n: [str(v).replace("torch.", "") for v in vals] for n, vals in t.axes.items()},
            "full_rows": len(tab.full), "t2_rows": len(tab.t2), "t3_rows": len(tab.t3), "t2c_rows": len(tab.t2c),
            "variants": tab.variants, "rotated_variants": tab.rotated_variants,
            "upstream_rows": None if tab.upstream is None else len(tab.upstream),
            "upstream_dropped": tab.upstream_dropped, "upstream_note": t.upstream_note, "model": t.model_note})
        s = sanity(t, tab)
        result["sanity"].append(s)
        print(f"[sanity] {key}: {s['failing_rows']} failing of {s['rows']} rows ({s['seconds']} s)", file=sys.stderr)
    for fault in faults:
        r = study_fault(fault, targets[fault.target], tabs[fault.target])
        result["faults"].append(r)
        print(f"[fault] {fault.id}: order {r['order']}, {r['failing_rows']}/{r['full_rows']} rows fail, "
              f"t2 {'kill' if r['kills']['t2'] else 'MISS'}, t2 compile-aware "
              f"{'kill' if r['kills']['t2c'] else 'MISS'}, rotated runs to kill {r['rotated']['t2']} / "
              f"{r['rotated']['t2c']} ({r['seconds']} s)", file=sys.stderr)
    result["seconds"] = time.perf_counter() - t0
    given = sys.argv[1:] if argv is None else argv
    result["command"] = " ".join(["python -m benchmarks.faults", *given])
    text = markdown(result)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as fh:
            fh.write(text)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(result, fh, indent=1, default=str)
    bad_baseline = any(s["failing_rows"] for s in result["sanity"])
    broken = [f["id"] for f in result["faults"] if f["order"] is not None and f["order"] <= 2
              and not (f["kills"]["t2"] and f["kills"]["t2c"])]
    if bad_baseline:
        print("error: an unmutated kernel fails (see Sanity)", file=sys.stderr)
    if broken:
        print(f"error: t=2 missed faults of order <= 2: {broken}", file=sys.stderr)
    return 1 if bad_baseline or broken else 0


if __name__ == "__main__":
    sys.exit(main())
