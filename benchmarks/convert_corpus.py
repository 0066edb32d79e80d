"""Score ``pairwise-param convert``'s option/shape split on the labelled real-suite axes
(issue 25), and optionally run the conversion on copies of the corpus files.

``benchmarks/corpus/axes.jsonl`` labels each argname of the stacked single-name
``parametrize`` decorators of 64 test files from the suites of
``benchmarks/corpus/suites.py``: ``"option"`` (an independent option axis: dtypes, flags,
enums, small int-coded modes such as ``bias_mode=[0, 1, 2]``, scalar parameters) or
``"shape"`` (sizes, tuples of sizes, seeds, lists of cases), with a reason and
``confident: false`` where it could be read either way.

Default: for every labelled axis, ask today's rule (``benchmarks/corpus/rules.convert_split``:
the decorator, as written, is put beside three dummy option axes on a probe test and
``convert_source`` decides) and print precision / recall of "option" per suite, plus the
misses.  ``--convert`` then, per suite, copies the corpus files (with the ``.py`` files
beside them and the ``__init__.py`` files above them) into a temporary tree and, in the
stub environment of ``benchmarks/real_suites.py``:

1. collects the copies as they are (items before, node ids);
2. runs ``pairwise-param convert --write`` on each file (CLI, as a user would);
3. collects again (items after, in the default pairwise mode) and with
   ``--pairwise-mode=full``, and checks that full mode gives exactly the original node
   ids (same set, same order), and that every converted file still collects.

Usage::

    python benchmarks/convert_corpus.py --root /work/suites                 # the split's scores
    python benchmarks/convert_corpus.py --root /work/suites --list          # + every disagreement
    python benchmarks/convert_corpus.py --convert                           # + the conversion run
    python benchmarks/convert_corpus.py --convert --suite liger --json out.json

The interface (flags, the Markdown columns, the JSON keys) is kept stable: issue 25's
engineer reruns it after changing ``convert``.  Exit 0 when it ran; 2 when a labelled
axis is no longer found in its checkout.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks import real_suites
from benchmarks.corpus import rules, store
from benchmarks.corpus.suites import SUITES


@dataclass
class AxisResult:
    suite: str
    path: str
    test: str
    line: int
    argname: str
    label: str
    confident: bool
    reason: str
    rule: str  # "option" | "shape" | "uncertain"
    n_values: int  # -1: not statically known
    literal: bool  # the value list is a literal list/tuple (not a name or an expression)
    keywords: list[str]  # ids=, indirect= ... on the decorator


def score_split(root: Path, suites: list[str] | None) -> tuple[list[AxisResult], list[str]]:
    entries = [e for e in store.load(store.AXES) if suites is None or e["suite"] in suites]
    by_file: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for e in entries:
        by_file[(e["suite"], e["path"])].append(e)
    checkouts = store.Checkouts(root)
    results: list[AxisResult] = []
    missing: list[str] = []
    for (suite, path), es in by_file.items():
        found = checkouts.tables(suite, path)
        if isinstance(found, str):
            missing.extend(f"{suite}:{path}: {found}" for _ in es)
            continue
        source = (root / suite / path).read_text(encoding="utf-8", errors="replace")
        probes, keep = [], []
        for e in es:
            t = next((t for t in found if t.test == e["test"] and t.argnames == [e["argname"]] and t.line == e["line"]),
                     None) or next((t for t in found if t.test == e["test"] and t.argnames == [e["argname"]]), None)
            if t is None or t.decorator is None:
                missing.append(f"{suite}:{path}:{e['line']} {e['test']} {e['argname']}: not found")
                continue
            probes.append((e["argname"], rules.decorator_text(source, t.decorator)))
            keep.append(e)
        for e, verdict in zip(keep, rules.convert_split(source, probes)):
            results.append(AxisResult(suite, path, e["test"], e["line"], e["argname"], e["label"],
                                      bool(e.get("confident", True)), e["reason"], verdict,
                                      int(e.get("n_values", -1)), bool(e.get("literal", True)),
                                      list(e.get("keywords", []))))
    return results, missing



def split_summary(results: list[AxisResult], multi_only: bool = False) -> str:
    """Per suite; ``multi_only``: only axes with two or more values (or a computed list),
    since ``convert`` leaves one-value axes alone by design."""
    by: dict[str, list[AxisResult]] = defaultdict(list)
    for r in results:
        if not multi_only or r.n_values != 1:
            by[r.suite].append(r)
    results = [r for rs in by.values() for r in rs]
    lines = [("| suite | files | axes | option / shape (unsure) | rule option / shape / uncertain | precision (option) "
              "| recall (option) | options kept as shape (one value / named list / ids= or other keyword) "
              "| shapes taken as option |"), "|" + "---|" * 9]
    for name in [*[s for s in SUITES if s in by], "all"]:
        rs = results if name == "all" else by[name]
        tp = sum(r.label == "option" and r.rule == "option" for r in rs)
        fp = sum(r.label == "shape" and r.rule == "option" for r in rs)
        fn = sum(r.label == "option" and r.rule != "option" for r in rs)
        n_opt = sum(r.label == "option" for r in rs)
        lines.append(
            f"| {'**all**' if name == 'all' else name} | {len({(r.suite, r.path) for r in rs})} | {len(rs)} "
            f"| {n_opt} / {len(rs) - n_opt} ({sum(not r.confident for r in rs)}) "
            f"| {tp + fp} / {sum(r.rule == 'shape' for r in rs)} / {sum(r.rule == 'uncertain' for r in rs)} "
            f"| {store.ratio(tp, tp + fp)} | {store.ratio(tp, tp + fn)} | {fn} ({_why_missed(rs)}) | {fp} |")
    return "\n".join(lines)


def _why_missed(rs: list[AxisResult]) -> str:
    miss = [r for r in rs if r.label == "option" and r.rule != "option"]
    one = sum(r.n_values == 1 for r in miss)
    named = sum(r.n_values != 1 and not r.literal for r in miss)
    kw = sum(r.n_values != 1 and r.literal and bool(r.keywords) for r in miss)
    return f"{one} / {named} / {kw}"


def split_listing(results: list[AxisResult]) -> str:
    out = []
    picks: list[tuple[str, Callable[[AxisResult], bool]]] = [
        ("options kept as shape (missed)", lambda r: r.label == "option" and r.rule != "option"),
        ("shapes taken as option", lambda r: r.label == "shape" and r.rule == "option"),
    ]
    for title, pick in picks:
        rs = [r for r in results if pick(r)]
        out.append(f"\n## {title} ({len(rs)})")
        out.extend(f"- {r.suite} {r.path}:{r.line} {r.test} {r.argname} ({r.n_values} values"
                   f"{'' if r.literal else ', named list'}{', ' + '/'.join(r.keywords) + '=' if r.keywords else ''}): "
                   f"label {r.label}{'' if r.confident else ' (unsure)'} ({r.reason}); rule {r.rule}" for r in rs)
    return "\n".join(out)


# -- the conversion run ---------------------------------------------------------------------------
@dataclass
class FileRun:
    suite: str
    path: str
    converted_tests: int = 0
    convert_rc: int | None = None
    convert_error: str = ""
    items_before: int = 0
    items_after: int = 0
    items_full: int = 0
    collects_before: bool = True
    collects_after: bool = True
    ids_identical_full: bool = False  # same node ids, same order
    ids_same_set_full: bool = False
    notes: list[str] = field(default_factory=list)


def _copy_tree(suite: str, root: Path, paths: list[str], dest: Path) -> None:
    """Each file, the .py files beside it, and every __init__.py above it."""
    co = root / suite
    for p in paths:
        src = co / p
        for sib in src.parent.glob("*.py"):
            target = dest / sib.relative_to(co)
            target.parent.mkdir(parents=True, exist_ok=True)
            if not target.exists():
                shutil.copy2(sib, target)
        d = src.parent
        while d != co and co in d.parents:
            init = d / "__init__.py"
            if init.exists():
                t = dest / init.relative_to(co)
                t.parent.mkdir(parents=True, exist_ok=True)
                if not t.exists():
                    shutil.copy2(init, t)
            d = d.parent


def _collect(env: dict[str, str], cwd: Path, paths: list[str], extra: list[str],
             timeout: float) -> tuple[int | None, dict[str, list[str]], dict[str, Any]]:
    """Node ids per file (collection order) of one pytest --collect-only run."""
    with tempfile.TemporaryDirectory(prefix="pwconv-run-") as tmp:
        m = real_suites.measure([sys.executable, "-m", "pytest", "--collect-only", "-q", *extra, *paths],
                                env, cwd, timeout, Path(tmp))
        stdout = (Path(tmp) / "stdout.txt").read_text(errors="replace")
    ids: dict[str, list[str]] = defaultdict(list)
    for line in stdout.splitlines():
        if "::" in line and not line.startswith(("ERROR", "FAILED", " ")):
            ids[line.split("::", 1)[0]].append(line.strip())
    return m.rc, ids, m.progress


def convert_run(root: Path, suites: list[str] | None, timeout: float, reorder: bool = False) -> list[FileRun]:
    entries = store.load(store.AXES)
    files: dict[str, list[str]] = defaultdict(list)
    for e in entries:
        if (suites is None or e["suite"] in suites) and e["path"] not in files[e["suite"]]:
            files[e["suite"]].append(e["path"])
    exe = shutil.which("pairwise-param", path=str(Path(sys.executable).parent)) or "pairwise-param"
    runs: list[FileRun] = []
    for suite_name, paths in files.items():
        suite = SUITES[suite_name]
        with tempfile.TemporaryDirectory(prefix=f"pwconv-{suite_name}-") as tmp:
            work = Path(tmp)
            tree = work / "tree"
            _copy_tree(suite_name, root, paths, tree)
            env = real_suites.environment(suite, root, work, fake_cuda=True, extra_roots=(tree,))
            env["PYTEST_ADDOPTS"] = env["PYTEST_ADDOPTS"].replace(f"--rootdir {root / suite_name}", f"--rootdir {tree}")
            _, before, prog0 = _collect(env, tree, paths, [], timeout)
            failed0 = set(prog0.get("error_files", []))
            for p in paths:
                fr = FileRun(suite_name, p, items_before=len(before.get(p, [])), collects_before=p not in failed0)
                c = subprocess.run([exe, "convert", "--write", *(["--reorder"] if reorder else []), str(tree / p)],
                                   capture_output=True, text=True,
                                   check=False, env=env, cwd=tree, timeout=timeout)
                fr.convert_rc = c.returncode
                if c.returncode != 0:
                    fr.convert_error = (c.stderr or c.stdout).strip().splitlines()[-1:][0] if (c.stderr or c.stdout) \
                        else f"exit {c.returncode}"
                fr.converted_tests = (tree / p).read_text(errors="replace").count("@pairwise(")
                runs.append(fr)
            _, after, prog1 = _collect(env, tree, paths, [], timeout)
            _, full, prog2 = _collect(env, tree, paths, ["--pairwise-mode=full"], timeout)
            failed1 = set(prog1.get("error_files", [])) | set(prog2.get("error_files", []))
            for fr in runs[-len(paths):]:
                fr.items_after = len(after.get(fr.path, []))
                fr.items_full = len(full.get(fr.path, []))
                fr.collects_after = fr.path not in failed1
                fr.ids_identical_full = full.get(fr.path, []) == before.get(fr.path, [])
                fr.ids_same_set_full = set(full.get(fr.path, [])) == set(before.get(fr.path, []))
                if not fr.collects_before:
                    fr.notes.append("the original copy does not collect in the stub environment")
            print(f"{suite_name}: {len(paths)} files converted and collected", file=sys.stderr, flush=True)
    return runs


def convert_summary(runs: list[FileRun]) -> str:
    lines = [("| suite | file | tests converted | items before | items after (pairwise) | full mode items "
              "| full mode ids identical | collects after |"), "|" + "---|" * 8]
    for r in runs:
        ident = "yes" if r.ids_identical_full else ("same set, other order" if r.ids_same_set_full else "no")
        if not r.items_before:
            ident = "n/a (no items)"
        lines.append(f"| {r.suite} | {r.path} | {r.converted_tests}{' (convert failed)' if r.convert_rc else ''} "
                     f"| {r.items_before} | {r.items_after} | {r.items_full} | {ident} "
                     f"| {'yes' if r.collects_after else 'NO'}{'' if r.collects_before else ' (not before either)'} |")
    conv = [r for r in runs if r.converted_tests and r.items_before]  # converted, and collecting items
    tot = (f"\n{len(runs)} files, {len(conv)} with a converted test; items {sum(r.items_before for r in runs)} -> "
           f"{sum(r.items_after for r in runs)} (pairwise), {sum(r.items_full for r in runs)} in full mode; "
           f"full mode ids identical in {sum(r.ids_identical_full for r in conv)} of {len(conv)} converted files "
           f"(same set in {sum(r.ids_same_set_full for r in conv)}); "
           f"{sum(bool(r.converted_tests) and not r.items_before for r in runs)} converted files collect no item "
           f"in the stub environment (not counted); "
           f"{sum(r.collects_before and not r.collects_after for r in runs)} files stopped collecting; "
           f"{sum(bool(r.convert_rc) for r in runs)} convert failures.")
    return "\n".join(lines) + "\n" + tot


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--root", type=Path, default=store.DEFAULT_ROOT, help="folder holding one checkout per suite")
    p.add_argument("--suite", action="append", choices=sorted(SUITES), help="only these suites (repeatable)")
    p.add_argument("--list", action="store_true", help="print every disagreement of the split")
    p.add_argument("--convert", action="store_true", help="also convert copies of the files and collect them")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds per collection run (default 600)")
    p.add_argument("--reorder", action="store_true",
                   help="convert with --reorder (options above a shape too: node ids change order)")
    p.add_argument("--json", type=Path, help="write per-axis (and per-file) results here")
    args = p.parse_args(argv)
    results, missing = score_split(args.root, args.suite)
    print("convert's option/shape split on the labelled axes (positive = option axis).\n")
    print(split_summary(results))
    print("\nThe same, axes with two or more values only (convert leaves one-value axes by design):\n")
    print(split_summary(results, multi_only=True))
    if args.list:
        print(split_listing(results))
    runs: list[FileRun] = []
    if args.convert:
        runs = convert_run(args.root, args.suite, args.timeout, args.reorder)
        print("\n" + convert_summary(runs))
    if args.json:
        args.json.write_text(json.dumps({"axes": [asdict(r) for r in results], "files": [asdict(r) for r in runs]},
                                        indent=1))
    return store.report_missing(missing, args.root, "labelled axes")


if __name__ == "__main__":
    sys.exit(main())
