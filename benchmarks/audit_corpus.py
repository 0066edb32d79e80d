"""Score the audit's case-table rule on the labelled real-suite corpus (issue 26).

``benchmarks/corpus/tables.jsonl`` labels every distinct multi-name ``parametrize``
table with a statically resolvable row list in the public suites of
``benchmarks/corpus/suites.py``: ``"case"`` (the rows are the point: shapes, valid
combinations, scenarios, expected values, tolerance per dtype) or ``"option"``
(independent options whose combinations should be covered), with a reason and
``confident: false`` where a maintainer could read it either way.  This script re-reads
each table from the checkouts (static AST, nothing imported), runs today's rule on it
through ``benchmarks/corpus/rules.audit_verdict`` and prints, per suite and in total:

* precision / recall of the rule's "case" verdict (positive = case table);
* FALSE ALARMS: case tables the rule calls "option" whose hand-written rows cover fewer
  than 100% of their pairs: the report shows them short of coverage and
  ``--fail-under 100`` fails the suite for nothing (the gate problem of issue 26);
* option tables the rule calls "case" (hidden: a real gap would go unreported);
* the rule's "uncertain" verdicts, and the entries labelled ``confident: false``.

Usage::

    python benchmarks/audit_corpus.py --root /work/suites            # summary table
    python benchmarks/audit_corpus.py --root /work/suites --list      # + every disagreement
    python benchmarks/audit_corpus.py --suite aiter --list --uncertain
    python benchmarks/audit_corpus.py --json out.json                 # per-table results
    python benchmarks/audit_corpus.py --unlabelled                    # tables missing from the corpus

Exit 0 always when the corpus was read (this measures, it does not gate); 2 when an
entry's table is no longer found in its checkout (wrong commit or --root).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.corpus import rules, static, store
from benchmarks.corpus.suites import SUITES


def pair_coverage(rows: list[tuple[Any, ...]], n: int) -> tuple[int, int]:
    """(covered, total) value pairs over every two columns, values = those that appear
    (what the report measures for a hand-written option table without constraints)."""
    full = [r for r in rows if len(r) == n]
    keys = [[repr(v) for v in col] for col in zip(*full)] if full else [[] for _ in range(n)]
    covered = total = 0
    for a, b in itertools.combinations(range(n), 2):
        total += len(set(keys[a])) * len(set(keys[b]))
        covered += len(set(zip(keys[a], keys[b])))
    return covered, total


@dataclass
class Result:
    suite: str
    path: str
    test: str
    line: int
    argnames: list[str]
    label: str
    confident: bool
    reason: str
    rule: str
    rule_reason: str
    covered: int
    pairs: int

    @property
    def short(self) -> bool:
        return self.covered < self.pairs

    @property
    def false_alarm(self) -> bool:
        """Reported short of coverage although the rows are the point."""
        return self.label == "case" and self.rule == "option" and self.short

    @property
    def hidden(self) -> bool:
        return self.label == "option" and self.rule == "case"


#: The held-out split (issue 26): the uncertain verdict's signs were chosen looking at the
#: DEV suites' disagreements only; the TEST suites score the rule on tables it was not
#: fitted to.  Fixed by suite (not by table) so that one suite's habits stay on one side.
SPLITS = {
    "dev": ("vllm", "sglang", "flashinfer", "liger", "vllm-upstream"),
    "test": ("flash-attention", "aiter", "torchao", "tilelang", "xformers", "bitsandbytes", "mamba",
             "causal-conv1d", "flash-linear-attention", "fbgemm"),
}
# issue 35's rule (a covering table's size, values spread) was fitted looking at the seed
# (vllm-upstream) and at the false alarms of all eight first suites; the six suites of
# clients_4 were labelled after it was fixed.


def score(root: Path, suites: list[str] | None) -> tuple[list[Result], list[str]]:
    entries = [e for e in store.load(store.TABLES) if suites is None or e["suite"] in suites]
    checkouts = store.Checkouts(root)
    results, missing = [], []
    for loc in checkouts.locate(entries):
        e = loc.entry
        if loc.table is None or loc.table.rows is None:
            missing.append(f"{e['suite']}:{e['path']}::{e['test']} [{','.join(e['argnames'])}] line {e['line']}: "
                           f"{loc.why or 'rows no longer resolvable'}")
            continue
        v = rules.audit_verdict(loc.table.argnames, loc.table.rows,
                                "ids" in loc.table.keywords or loc.table.param_ids)
        cov, tot = pair_coverage(loc.table.rows, len(loc.table.argnames))
        results.append(Result(e["suite"], e["path"], e["test"], e["line"], e["argnames"], e["label"],
                              bool(e.get("confident", True)), e["reason"], v.kind, v.reason, cov, tot))
    return results, missing



@dataclass
class Hole:
    """One option list with a hole: a real option list (``label: option``) with a row
    dropped (the issue's holes) or one value changed (``changed``) so that some pair is
    missing."""

    suite: str
    path: str
    test: str
    source: str  # "hand cut" (the list as written) or "cut of a full product" (our covering table of its options)
    how: str  # "row i dropped" / "row i: name changed"
    argnames: list[str]
    rule: str
    rule_reason: str

    @property
    def changed(self) -> bool:
        return "changed" in self.how


def _option_lists(root: Path, suites: list[str] | None) -> list[tuple[dict[str, Any], str, list[str],
                                                                      list[tuple[Any, ...]]]]:
    """Every labelled option list of three or more option columns, as a hand-cut list: the
    list itself when it is short of its product (written by hand), else a covering table
    of its option columns (what a maintainer would cut it to; shape columns stay a
    separate ``parametrize``, as in vLLM's)."""
    from pairwise_param import cover
    from pairwise_param.report.classify import _distinct
    from pairwise_param.report.whatif import axis_kind

    entries = [e for e in store.load(store.TABLES)
               if e["label"] == "option" and (suites is None or e["suite"] in suites)]
    out = []
    for loc in store.Checkouts(root).locate(entries):
        t = loc.table
        if t is None or t.rows is None:
            continue
        n = len(t.argnames)
        rows = [r for r in t.rows if len(r) == n]
        values = {a: _distinct([r[j] for r in rows]) for j, a in enumerate(t.argnames)}
        product = 1
        for v in values.values():
            product *= len(v)
        if len(rows) < product and all(axis_kind(a, v)[0] in ("option", "single") for a, v in values.items()):
            if sum(len(v) > 1 for v in values.values()) >= 3:
                out.append((loc.entry, "hand cut", list(t.argnames), rows))
            continue
        opts = {a: v for a, v in values.items() if len(v) > 1 and axis_kind(a, v)[0] == "option"}
        if len(opts) < 3:
            continue
        cut = [tuple(r[a] for a in opts) for r in cover(opts, strength=2)]
        if len(cut) < len(rows):
            out.append((loc.entry, "cut of a full product", list(opts), cut))
    return out + _stacked_option_lists(root, suites)


def _stacked_option_lists(root: Path, suites: list[str] | None) -> list[tuple[dict[str, Any], str, list[str],
                                                                              list[tuple[Any, ...]]]]:
    """The stacked option axes of ``axes.jsonl`` (labelled ``option``, two or more values),
    three or more on one test, cut to a covering table: the hand cut vLLM made of its
    stacked lists (``OPTIONS_WVSPLITKRC``), made of every suite's real stacked options."""
    from pairwise_param import cover
    from pairwise_param.report.classify import _distinct

    by_test: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for e in store.load(store.AXES):
        if e["label"] == "option" and e["n_values"] >= 2 and (suites is None or e["suite"] in suites):
            by_test[(e["suite"], e["path"], e["test"])].append(e)
    checkouts = store.Checkouts(root)
    out = []
    for (suite, path, test), axes in sorted(by_test.items()):
        found = checkouts.tables(suite, path)
        if isinstance(found, str) or len(axes) < 3:
            continue
        values: dict[str, list[Any]] = {}
        for e in axes:
            t = next((t for t in found if t.test == test and t.argnames == [e["argname"]] and t.rows), None)
            if t is None or t.rows is None:
                continue
            vals = _distinct([r[0] for r in t.rows])
            try:
                hash(tuple(vals))
            except TypeError:
                continue
            if len(vals) > 1:
                values[e["argname"]] = vals
        if len(values) < 3:
            continue
        cut = [tuple(r[a] for a in values) for r in cover(values, strength=2)]
        out.append((axes[0], "cut of stacked options", list(values), cut))
    return out


def holes(root: Path, suites: list[str] | None) -> list[Hole]:
    """Each option list of :func:`_option_lists` with each row dropped, and with each value
    changed to the column's next value, where that loses a pair: what a hand cut gets
    wrong.  The rule must call every one an option table (then the gate fails on it)."""
    out = []
    for e, source, names, rows in _option_lists(root, suites):
        n = len(names)
        cols = [sorted({repr(r[j]) for r in rows}) for j in range(n)]
        variants: list[tuple[str, list[tuple[Any, ...]]]] = []
        for i in range(len(rows)):
            variants.append((f"row {i} dropped", rows[:i] + rows[i + 1:]))
            for j in range(n):
                by_text = {repr(r[j]): r[j] for r in rows}
                nxt = cols[j][(cols[j].index(repr(rows[i][j])) + 1) % len(cols[j])]
                row = list(rows[i])
                row[j] = by_text[nxt]
                variants.append((f"row {i}: {names[j]} changed", rows[:i] + [tuple(row)] + rows[i + 1:]))
        for how, variant in variants:
            covered, total = pair_coverage(variant, n)
            if covered == total:
                continue  # no pair lost: not a hole
            v = rules.audit_verdict(names, variant, False)
            out.append(Hole(e["suite"], e["path"], e["test"], source, how, names, v.kind, v.reason))
    return out


def holes_summary(results: list[Result], found: list[Hole]) -> str:
    """Per suite: option and case tables (labels), holes caught (rule: option) and false
    alarms (labelled case, rule option, short of 100%): both ways the gate can fail."""
    names = [s for s in SUITES if any(r.suite == s for r in results) or any(h.suite == s for h in found)]
    split = {s: k for k, v in SPLITS.items() for s in v}
    lines = [("| suite | split | option tables | case tables | uncertain | option lists cut | holes (row dropped) "
              "| holes caught | recall | value changed: caught | false alarms |"), "|" + "---|" * 11]
    for name in [*names, "held-out", "all"]:
        if name == "all":
            rs, hs = results, found
        elif name == "held-out":
            rs = [r for r in results if split.get(r.suite) == "test"]
            hs = [h for h in found if split.get(h.suite) == "test"]
        else:
            rs = [r for r in results if r.suite == name]
            hs = [h for h in found if h.suite == name]
        lists = len({(h.suite, h.path, h.test, tuple(h.argnames)) for h in hs})
        dropped = [h for h in hs if not h.changed]
        changed = [h for h in hs if h.changed]
        caught = sum(h.rule == "option" for h in dropped)
        bold = name in ("all", "held-out")
        lines.append(
            f"| {f'**{name}**' if bold else name} | {'' if bold else split.get(name, '')} "
            f"| {sum(r.label == 'option' for r in rs)} | {sum(r.label == 'case' for r in rs)} "
            f"| {sum(r.rule == 'uncertain' for r in rs)} | {lists} | {len(dropped)} | {caught} "
            f"| {store.ratio(caught, len(dropped))} "
            f"| {sum(h.rule == 'option' for h in changed)} of {len(changed)} | {sum(r.false_alarm for r in rs)} |"
        )
    return "\n".join(lines)


def summary(results: list[Result], confident_only: bool = False) -> str:
    """Per suite and in total; ``confident_only``: leave out the entries labelled unsure."""
    results = [r for r in results if r.confident or not confident_only]
    by: dict[str, list[Result]] = defaultdict(list)
    for r in results:
        by[r.suite].append(r)
    head = ("| suite | tables | case / option (unsure) | rule case / option / uncertain | precision | recall "
            "| false alarms (case -> option, < 100%) | case -> option at 100% | hidden (option -> case) "
            "| uncertain: case / option | gated precision (option among rule option) |")
    lines = [head, "|" + "---|" * 11]
    for name in [*[s for s in SUITES if s in by], "all"]:
        rs = results if name == "all" else by[name]
        tp = sum(r.label == "case" and r.rule == "case" for r in rs)
        fp = sum(r.label == "option" and r.rule == "case" for r in rs)
        fn = sum(r.label == "case" and r.rule != "case" for r in rs)
        n_case = sum(r.label == "case" for r in rs)
        alarms = sum(r.false_alarm for r in rs)
        quiet = sum(r.label == "case" and r.rule == "option" and not r.short for r in rs)
        rule_opt = sum(r.rule == "option" for r in rs)
        unsure = sum(not r.confident for r in rs)
        lines.append(
            f"| {'**all**' if name == 'all' else name} | {len(rs)} | {n_case} / {len(rs) - n_case} ({unsure}) "
            f"| {tp + fp} / {rule_opt} / {sum(r.rule == 'uncertain' for r in rs)} | {store.ratio(tp, tp + fp)} "
            f"| {store.ratio(tp, tp + fn)} | {alarms} of {rule_opt} audited | {quiet} | {fp} "
            f"| {sum(r.rule == 'uncertain' and r.label == 'case' for r in rs)} / "
            f"{sum(r.rule == 'uncertain' and r.label == 'option' for r in rs)} "
            f"| {store.ratio(sum(r.rule == 'option' and r.label == 'option' for r in rs), rule_opt)} |"
        )
    return "\n".join(lines)


def listing(results: list[Result], uncertain: bool) -> str:
    out = []

    def block(title: str, rs: list[Result]) -> None:
        out.append(f"\n## {title} ({len(rs)})")
        for r in rs:
            out.append(f"- {r.suite} {r.path}:{r.line} {r.test} [{','.join(r.argnames)}] "
                       f"pairs {r.covered}/{r.pairs}; label {r.label}{'' if r.confident else ' (unsure)'}: "
                       f"{r.reason}; rule {r.rule}: {r.rule_reason}")

    block("FALSE ALARMS: labelled case, rule says option, reported < 100% covered", [r for r in results if r.false_alarm])
    block("labelled case, rule says option, rows happen to cover 100% (no alarm)",
          [r for r in results if r.label == "case" and r.rule == "option" and not r.short])
    block("HIDDEN: labelled option, rule says case (a gap would go unreported)", [r for r in results if r.hidden])
    block("rule says uncertain", [r for r in results if r.rule == "uncertain"])
    if uncertain:
        block("labelled unsure (confident: false)", [r for r in results if not r.confident])
    return "\n".join(out)


def unlabelled(root: Path, suites: list[str] | None) -> list[str]:
    """Resolvable multi-name tables in the checkouts that no corpus entry names."""
    entries = store.load(store.TABLES)
    known = {(e["suite"], e["path"], e["test"], tuple(e["argnames"])) for e in entries}
    fps: dict[str, set[str]] = defaultdict(set)
    out = []
    checkouts = store.Checkouts(root)
    for e in entries:
        found = checkouts.tables(e["suite"], e["path"])
        if not isinstance(found, str):
            for t in found:
                if (e["suite"], t.path, t.test, tuple(t.argnames)) in known:
                    fps[e["suite"]].add(t.fingerprint())
    for s in SUITES.values():
        if suites is not None and s.name not in suites:
            continue
        for under in s.tests:
            for f in static.test_files(root / s.name, under):
                rel = f.relative_to(root / s.name).as_posix()
                found = checkouts.tables(s.name, rel)
                if isinstance(found, str):
                    continue
                for t in found:
                    if t.multi and t.rows is not None and (s.name, rel, t.test, tuple(t.argnames)) not in known \
                            and t.fingerprint() not in fps[s.name]:
                        out.append(f"{s.name}:{rel}:{t.line} {t.test} [{','.join(t.argnames)}]")
                        fps[s.name].add(t.fingerprint())
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--root", type=Path, default=store.DEFAULT_ROOT, help="folder holding one checkout per suite")
    p.add_argument("--suite", action="append", choices=sorted(SUITES), help="only these suites (repeatable)")
    p.add_argument("--split", choices=sorted(SPLITS), help="only the suites of this held-out split")
    p.add_argument("--list", action="store_true", help="print every disagreement with both reasons")
    p.add_argument("--uncertain", action="store_true", help="with --list: also the entries labelled unsure")
    p.add_argument("--json", type=Path, help="write per-table results here")
    p.add_argument("--unlabelled", action="store_true", help="list checkout tables the corpus does not name")
    p.add_argument("--holes", action="store_true",
                   help="also score option lists with holes (real option lists, a row dropped or a value "
                   "changed): recall on holes and false alarms per suite")
    args = p.parse_args(argv)
    if args.unlabelled:
        rest = unlabelled(args.root, args.suite)
        print("\n".join(rest) if rest else "every resolvable multi-name table is in the corpus")
        return 0
    suites = args.suite
    if args.split:
        suites = [s for s in SPLITS[args.split] if suites is None or s in suites]
    results, missing = score(args.root, suites)
    print("Case-table rule on the labelled corpus (positive = case table). precision = labelled case among "
          "rule-case; recall = rule-case among labelled case. A FALSE ALARM is a labelled case table that the "
          "rule audits as an option table and finds short of 100% pair coverage.\n")
    print(summary(results))
    print("\nThe same, confidently labelled tables only:\n")
    print(summary(results, confident_only=True))
    if args.holes:
        found = holes(args.root, suites)
        print("\nBoth ways the gate can fail (issue 35): holes caught = option lists with a hole that the "
              "rule audits as option tables (recall); false alarms = case tables it audits and finds short.\n")
        print(holes_summary(results, found))
        if args.list:
            missed = [h for h in found if h.rule != "option"]
            print(f"\n## holes missed ({len(missed)})")
            print("\n".join(f"- {h.suite} {h.path} {h.test} [{','.join(h.argnames)}] {h.source}, {h.how}: "
                            f"rule {h.rule}: {h.rule_reason}" for h in missed))
    if args.list:
        print(listing(results, args.uncertain))
    if args.json:
        args.json.write_text(json.dumps([{**asdict(r), "false_alarm": r.false_alarm} for r in results], indent=1))
    return store.report_missing(missing, args.root, "corpus entries")


if __name__ == "__main__":
    sys.exit(main())
