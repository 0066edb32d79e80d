"""Localization evidence (issue 12 section 4), pure part: one fault's t=2 outcomes ->
what the run's suspicious list says, what ``pairwise-param localize`` then runs, and
whether it lands on a true minimal failing combination.

No torch, no Triton: the kernel is behind ``oracle`` (row -> outcome), so the logic is
tested with a planted oracle and the benchmark (:mod:`.localize`) passes the mutated
kernel. Every decision is :mod:`pairwise_param.runs.localize`'s (``groups``, ``search``,
``build_row``) and :mod:`pairwise_param.runs.locate`'s (the ranking); this module only
builds the run document a pytest run of the t=2 table would leave and answers the
follow-up requests.

Granularity (the study's, see :mod:`.study`): one *case* here is one option row run
over the target's shapes, failing when any shape fails; every failure of a fault is
one error signature (the study injects one bug at a time) and there is one shape
group. The suite's pytest run splits items by shape and by message, so these numbers
are the localizer's on its best-behaved input: one bug, one group.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pairwise_param.model import Model
from pairwise_param.runs import analysis
from pairwise_param.runs.localize import build_row, decided, groups, search

if TYPE_CHECKING:
    from pairwise_param.runs.document import RunDocument
    from pairwise_param.runs.locate import Verdict

#: the CLI's default ``--budget``
BUDGET = 20
SIGNATURE = "AssertionError: mutated kernel differs from the reference"

Cells = tuple[tuple[int, int], ...]


def index_row(model: Model, labels: Mapping[str, Any], label: Callable[[Any], Any]) -> tuple[int, ...]:
    """A row given as {axis: JSON label} -> value indices of ``model`` (labels compared
    with ``label(value)``, type included, so ``True`` never matches ``1``)."""
    out = []
    for axis in model.axes:
        hits = [i for i, v in enumerate(axis.values)
                if label(v) == labels[axis.name] and type(label(v)) is type(labels[axis.name])]
        if len(hits) != 1:
            raise ValueError(f"axis {axis.name!r}: label {labels[axis.name]!r} matches {len(hits)} values")
        out.append(hits[0])
    return tuple(out)


def cells_of(model: Model, combo: Mapping[str, Any], label: Callable[[Any], Any]) -> Cells:
    """{axis: label} (a study witness) -> sorted (axis index, value index) cells."""
    cells = []
    for name, want in combo.items():
        a = model.names.index(name)
        hits = [i for i, v in enumerate(model.axes[a].values) if label(v) == want and type(label(v)) is type(want)]
        if len(hits) != 1:
            raise ValueError(f"witness axis {name!r}: label {want!r} matches {len(hits)} values")
        cells.append((a, hits[0]))
    return tuple(sorted(cells))


def run_document(test: str, model: Model, rows: Sequence[tuple[int, ...]], failed: Sequence[bool],
                 label: Callable[[Any], Any]) -> RunDocument:
    """The ``pairwise-param/run`` document of one t=2 table whose rows ended ``failed``
    (analysed as the plugin analyses a run)."""
    from itertools import combinations

    axes = [{"name": a.name, "names": list(a.names), "values": [str(label(v)) for v in a.values],
             "reprs": [repr(v) for v in a.values]} for a in model.axes]
    payload = {"test": test, "table": 0, "mode": "cover", "strength": 2, "fingerprint": "", "axes": axes,
               "scopes": [list(s) for s in combinations(range(len(axes)), 2)], "rows": [list(r) for r in rows],
               "row_ids": [f"row{i}" for i in range(len(rows))], "infeasible": [], "absent": [],
               "infeasible_absent": [], "location": [test.split("::")[0], 1],
               "items": [[f"{test}[row{i}]", i, ""] for i in range(len(rows))]}
    outcomes = {f"{test}[row{i}]": {"outcome": "failed" if bad else "passed", "when": "call",
                                    "signature": SIGNATURE if bad else None, "reason": None}
                for i, bad in enumerate(failed)}
    return analysis.run_document([analysis.analyze_table(payload, outcomes)], 1 if any(failed) else 0)


def _truth(c: Cells, witnesses: Sequence[Cells]) -> str:
    """"exact" (a minimal failing combination of the fault), "superset" (holds one:
    implies failure, not minimal), "no", or "n/a" (order 0: every row fails, the only
    minimal combination is the empty one, which no candidate list holds)."""
    if list(witnesses) == [()]:
        return "n/a"
    if c in witnesses:
        return "exact"
    if any(set(w) <= set(c) for w in witnesses):
        return "superset"
    return "no"


def _listed(v: Verdict, witnesses: Sequence[Cells]) -> int:
    """How many of the fault's minimal failing combinations the candidate list names
    (a fault with several, ``{a=1}`` or ``{b=2}``, leaves no single explanation, but
    its list can still name each cause)."""
    names = {c.combination for c in v.candidates}
    return sum(1 for w in witnesses if w in names)


def evaluate(test: str, model: Model, rows: Sequence[tuple[int, ...]], failed: Sequence[bool],
             witnesses: Sequence[Cells], oracle: Callable[[tuple[int, ...]], str], label: Callable[[Any], Any],
             budget: int = BUDGET) -> dict[str, Any]:
    """One fault: the run's verdict and ranking, then localize's rounds with
    ``oracle(row) -> "passed" | "failed" | "skipped"`` answering each follow-up row."""
    doc = run_document(test, model, rows, failed, label)
    found = groups(doc)
    out: dict[str, Any] = {"t2_failing": sum(bool(f) for f in failed), "t2_rows": len(rows)}
    if not found:
        out.update(detected=False)
        return out
    (g,) = found
    v = g.verdict()
    first = v.candidates[0].combination if v.candidates else ()
    out.update(detected=True, run_verdict=v.kind, candidates=len(v.candidates), explaining=v.explaining,
               first=g.describe(first) if v.candidates else None,
               first_true=_truth(first, witnesses) if v.candidates else "no",
               top=[g.describe(c.combination) for c in v.candidates[:3]],
               true_listed=_listed(v, witnesses))
    asked_rows: list[list[int]] = []

    def run_round(asked: list[dict[str, Any]], n: int) -> int:
        ran = 0
        seen: set[tuple[int, ...]] = set()
        for req in asked:  # as the plugin: a request whose row cannot be built is dropped; a row asked twice runs once
            row = build_row(model, req)
            if row is None or row in seen:
                continue
            seen.add(row)
            outcome = oracle(row)
            ran += 1
            asked_rows.append(list(row))
            g.add(row, outcome, SIGNATURE if outcome == "failed" else None, f"{test}[followup{n}-{ran}]")
        return ran

    done = search(found, budget, run_round)
    after = g.verdict()
    cands = g.explaining()
    kind, answer = g.answer()  # "found": one combination; "union": several independent causes
    located = answer if decided(found) else None
    truths = [_truth(tuple(c), witnesses) for c in located or ()]
    truth = ("exact" if truths and all(t == "exact" for t in truths) else
             "superset" if truths and all(t in ("exact", "superset") for t in truths) else "no")
    out.update(extra_rows=done.used, rounds=done.rounds, stalled=done.stalled, budget=budget,
               final_verdict="union" if kind == "union" and located else after.kind, remaining=len(cands),
               final_candidates=len(after.candidates),
               final_true_listed=_listed(after, witnesses),
               located=" or ".join(g.describe(c) for c in located) if located else None,
               located_cells=[[list(cell) for cell in c] for c in located] if located else None,
               located_true=truth,
               followup_rows=asked_rows)
    return out
