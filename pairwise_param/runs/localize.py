"""Follow-up rows that pin a failure down to one combination (``pairwise-param localize``).

A covering run that failed leaves, per (table, shape, error signature), a few
*candidate* combinations: the minimal combinations of 1..t cells held by failing
rows and by no passing row, ranked by :func:`pairwise_param.runs.locate.suspicious`
(the one home of that rule).  This module adds what the run could not decide,
as pure functions over the run document (schema ``pairwise-param/run``, see
:mod:`pairwise_param.runs.schema`) and value indices; no pytest, no subprocess (the CLI
runs pytest):

* :func:`groups` -- the failure groups of a run document, each with its failing
  and passing rows (extra rows of earlier rounds merged in by :meth:`Group.add`);
* :func:`requests` -- for each undecided group, one follow-up request per
  candidate that holds in every failing row (best ranked first, within the
  budget): keep the candidate's cells, and on every other axis prefer values
  known to be harmless (seen in a passing row of the group's shape), different
  from the failing row's value and from every other candidate's cells there.  A
  passing follow-up row clears the candidate (and all it contains); a failing
  one with the same signature narrows the rest to what it shares with the
  earlier failing rows;
* :func:`build_row` -- a request -> an index row of the model, constraints
  respected: the kept cells, then per axis the first preferred value that
  leaves the row completable (the plugin calls it with the test's model, so
  constraints are the model's, never re-implemented here);
* :func:`search` -- the rounds (ask, run, merge) until every group is decided,
  nothing can be asked, or the budget is spent; *how* a round runs is the
  caller's (the CLI runs pytest; ``benchmarks/faults/localize.py`` calls the
  mutated kernels directly), so both share one stopping rule;
* :func:`decided` -- whether every group is answered (:meth:`Group.answer`): down to
  one minimal combination, or, for several independent faults behind one
  signature, to a union of them that explains every failing row, each cause
  without a rival holding the same failing rows;
* a single candidate is an answer only when the failing rows holding it share no
  other cell (:meth:`Group.pinned`; a follow-up row keeping it and changing the rest
  settles that): a fault of t+1 values (what a rotated table exposes) leaves one
  t-value candidate in a complete run, and the follow-up row clears it; when no
  combination of <= t values explains the failures, candidates of up to t+2 values
  are searched (:data:`PAST_T`);
* partial runs (``-x``, ``--maxfail``, an interrupted run: items that never ran):
  a group of such a table is ``partial``, and a single candidate is only an
  answer once a follow-up row that holds it (every other value changed) failed
  the same way: unseen rows may hold the passing evidence that would clear it.

Deterministic: the same run documents give the same requests (everything is
sorted by table order, never by hash).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pairwise_param.runs.analysis import FAILURES, describe
from pairwise_param.runs.document import Axis, RunDocument, axis_from_json, document_from_json

if TYPE_CHECKING:
    from pairwise_param.model import Model
    from pairwise_param.runs.locate import Combination, Verdict

__all__ = ["REQUEST_FORMAT", "Group", "Search", "build_row", "decided", "groups", "requests", "search"]

#: version of the request file the CLI hands to the plugin (``--pairwise-extra-rows``)
REQUEST_FORMAT = 1
#: steps of the search for a row not run before (then the request is dropped)
_SEARCH_LIMIT = 100_000
#: how many values past the table's strength t a candidate may have (a rotated table
#: exposes faults of t+1 and t+2 values)
PAST_T = 2


@dataclass
class Group:
    """One failure to explain: a table of a test, a shape, an error signature."""

    test: str
    table: int
    shape: str
    signature: str
    strength: int
    #: the table's axes (mappings of the run file's layout are taken too)
    axes: Sequence[Axis | Mapping[str, Any]]
    failing: list[tuple[int, ...]] = field(default_factory=list)
    passing: list[tuple[int, ...]] = field(default_factory=list)
    failing_nodeids: list[str] = field(default_factory=list)
    #: how many of ``failing`` come from the table itself (their node ids run with plain pytest)
    original: int = 0
    #: follow-up rows already run for this group (rows, in order), and how they ended
    extra: list[tuple[tuple[int, ...], str]] = field(default_factory=list)
    #: some items of the table never ran (-x, --maxfail, interrupted): see the module docstring
    partial: bool = False
    #: follow-up rows that failed with this group's signature
    extra_failing: list[tuple[int, ...]] = field(default_factory=list)
    #: single candidates :func:`requests` asked to pin down, and how many follow-up rows
    #: had run by then (a failing row after that, built to change every shared cell
    #: it could, pins the candidate: the cells it still shares are forced by constraints)
    confirming: dict[Combination, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.axes = [a if isinstance(a, Axis) else axis_from_json(a) for a in self.axes]

    @property
    def axis_list(self) -> list[Axis]:
        return [a for a in self.axes if isinstance(a, Axis)]

    @property
    def key(self) -> tuple[str, int, str, str]:
        return (self.test, self.table, self.shape, self.signature)

    def verdict(self) -> Verdict:
        """The ranking at the table's strength t, or past it (up to t+2 values) when no
        combination of <= t values holds in every failing row: a fault a rotated table
        exposes needs t+1 or t+2 values by design."""
        from pairwise_param.runs.locate import suspicious

        first = suspicious(self.failing, self.passing, self.strength)
        if first.explaining:
            return first
        for size in range(self.strength + 1, min(len(self.axes), self.strength + PAST_T) + 1):
            wider = suspicious(self.failing, self.passing, size)
            if wider.explaining:
                return wider
        return first

    def shared(self, c: Combination) -> dict[int, int]:
        """The cells outside ``c`` that every failing row holding ``c`` shares (axes of
        more than one value): axis -> value."""
        held = [r for r in self.failing if all(r[a] == v for a, v in c)]
        if not held:
            return {}
        axes = {a for a, _ in c}
        return {a: held[0][a] for a in range(len(held[0]))
                if a not in axes and len(self.axis_list[a].values) > 1 and all(r[a] == held[0][a] for r in held)}

    def pinned(self, c: Combination) -> bool:
        """Is ``c`` the whole cause?  Yes when the failing rows holding it share no other
        cell, or when a follow-up row asked to pin it down (every shared cell changed
        that the constraints let change) failed; else a fault of ``c`` and the shared
        cells together is not ruled out."""
        if not any(all(r[a] == v for a, v in c) for r in self.failing):
            return False
        if not self.shared(c):
            return True
        since = self.confirming.get(c)
        return since is not None and any(
            outcome in FAILURES and all(r[a] == v for a, v in c) and r in self.extra_failing
            for r, outcome in self.extra[since:])

    def explaining(self) -> list[Combination]:
        """The candidates held by every failing row, best ranked first; when none
        is (two faults behind one signature, flaky outcomes), every candidate."""
        v = self.verdict()
        every = [c.combination for c in v.candidates if c.failing == v.failed]
        return every or [c.combination for c in v.candidates]

    def reproducing(self, combination: Sequence[tuple[int, int]]) -> tuple[list[str], list[str]]:
        """(node ids of the table's own failing items that hold ``combination``:
        runnable with plain pytest; those of follow-up rows that hold it)."""
        held = [
            nid for nid, row in zip(self.failing_nodeids, self.failing) if all(row[a] == v for a, v in combination)
        ]
        plain = set(self.failing_nodeids[: self.original])
        return [n for n in held if n in plain], [n for n in held if n not in plain]

    def describe(self, combination: Sequence[tuple[int, int]]) -> str:
        """``{dtype=bf16, xnorm=True}`` with the run document's value labels."""
        return describe(self.axis_list, combination)

    def add(self, row: Sequence[int], outcome: str, signature: str | None, nodeid: str) -> None:
        """Take the outcome of a follow-up row of this group's shape (a skipped or
        xfailed one tells nothing, but is remembered so it is not asked again)."""
        r = tuple(row)
        self.extra.append((r, outcome))
        if outcome == "passed":
            self.passing.append(r)
        elif outcome in FAILURES and signature == self.signature:
            self.failing.append(r)
            self.failing_nodeids.append(nodeid)
            self.extra_failing.append(r)

    def _held(self, c: Combination) -> frozenset[int]:
        return frozenset(i for i, row in enumerate(self.failing) if all(row[a] == v for a, v in c))

    def union(self) -> list[Combination] | None:
        """Several independent causes: when no candidate holds in every failing row, the
        fewest candidates (greedy, best ranked first on ties) such that every failing
        row holds one of them; None when the candidates cannot explain every row."""
        v = self.verdict()
        if v.explaining or not v.candidates:
            return None
        held = {c.combination: self._held(c.combination) for c in v.candidates}
        left = set(range(len(self.failing)))
        chosen: list[Combination] = []
        while left:
            best = max(held, key=lambda c: len(held[c] & left), default=None)
            if best is None or not held[best] & left:
                return None
            chosen.append(best)
            left -= held[best]
        return chosen

    def _confirmed(self, c: Combination, rivals: Sequence[Combination] = ()) -> bool:
        """A follow-up row that holds ``c`` and none of ``rivals`` failed with this signature."""
        def holds(r: tuple[int, ...], x: Combination) -> bool:
            return all(r[a] == v for a, v in x)

        return any(holds(r, c) and not any(holds(r, o) for o in rivals) for r in self.extra_failing)

    def answer(self) -> tuple[str, list[Combination]]:
        """``("found", [c])``; ``("union", [c1, c2, ...])``: several independent causes,
        every failing row holds one, no rival candidate holds the same rows, no axis has
        every value among them (that would say "whatever the axis is") and each cause is
        confirmed by a follow-up row holding it alone; ``("unconfirmed", [c])``: a partial
        run's single candidate no follow-up row has failed with yet, or one whose failing
        rows share other cells too (not :meth:`pinned`: a fault of more values is not ruled
        out); ``("ambiguous",
        candidates)`` or ``("unexplained", candidates)`` (a union still to confirm first)."""
        v = self.verdict()
        cands = self.explaining()
        if v.explaining == 1 and len(cands) == 1:
            c = cands[0]
            if (self.partial and not self._confirmed(c)) or not self.pinned(c):
                return "unconfirmed", [c]
            return "found", [c]
        if v.explaining > 1:
            return "ambiguous", cands
        union = self.union()
        if union is not None and len(union) > 1:
            held = {c.combination: self._held(c.combination) for c in v.candidates}
            rivals = any(held[o] == held[c] for c in union for o in held if o != c)
            singles = [c[0] for c in union if len(c) == 1]
            whole_axis = any(
                {x for a, x in singles if a == axis} == set(range(len(self.axis_list[axis].values)))
                for axis in {a for a, _ in singles}
            )
            if not rivals and not whole_axis:
                if all(self._confirmed(c, [o for o in union if o != c]) for c in union):
                    return "union", union
                return "unexplained", union + [c for c in cands if c not in union]
        return "unexplained", cands

def groups(doc: RunDocument | Mapping[str, Any]) -> list[Group]:
    """The failure groups of a run document (or of its JSON, read by
    :func:`pairwise_param.runs.document.document_from_json`), in document order (tables,
    then shapes and signatures in the order their first failing item appears)."""
    if not isinstance(doc, RunDocument):
        doc = document_from_json(doc)
    out: list[Group] = []
    interrupted = doc.exitstatus == 2  # pytest's INTERRUPTED
    for table in doc.tables:
        rows = table.rows
        partial = interrupted or any(item.outcome == "not_run" for item in table.items)
        by_shape_pass: dict[str, list[tuple[int, ...]]] = {}
        found: dict[tuple[str, str], Group] = {}
        for item in table.items:
            shape, outcome = item.shape, item.outcome
            row = rows[item.row]
            if outcome == "passed":
                by_shape_pass.setdefault(shape, []).append(row)
            elif outcome in FAILURES:
                sig = item.signature or ""
                g = found.get((shape, sig))
                if g is None:
                    g = Group(table.test, table.table, shape, sig, table.strength, list(table.axes), partial=partial)
                    found[(shape, sig)] = g
                    out.append(g)
                g.failing.append(row)
                g.failing_nodeids.append(item.nodeid)
        for g in found.values():
            g.passing = list(by_shape_pass.get(g.shape, []))
            g.original = len(g.failing)
    return out


def _preferences(group: Group, keep: Combination, others: Sequence[Combination],
                 confirm: bool = False) -> list[list[int]]:
    """Per axis, the values to try, best first: harmless (in a passing row of the
    shape) and unlike the failing rows and the other candidates, then harmless,
    then the rest, each in table order.  ``confirm`` (a single candidate to pin
    down, :meth:`Group.pinned`): any value but the one the failing rows holding it
    share there first, then harmless."""
    n = len(group.axes)
    harmless = [sorted({r[a] for r in group.passing}) for a in range(n)]
    failing_vals = [{r[a] for r in group.failing} for a in range(n)]
    in_others = [{v for c in others for b, v in c if b == a} for a in range(n)]
    kept = dict(keep)
    shared = group.shared(keep) if confirm else {}
    prefs: list[list[int]] = []
    for a in range(n):
        if a in kept:
            prefs.append([kept[a]])
            continue
        size = len(group.axis_list[a].values)
        good, avoid = set(harmless[a]), failing_vals[a] | in_others[a]
        if confirm:
            prefs.append(sorted(range(size), key=lambda v: (shared.get(a) == v, v not in good, v)))
        else:
            prefs.append(sorted(range(size), key=lambda v: (v not in good, v in avoid, v)))
    return prefs


def requests(all_groups: Sequence[Group], budget: int) -> list[dict[str, Any]]:
    """Follow-up requests for the undecided groups, at most ``budget`` of them,
    groups in order, candidates best first (round robin over groups, so one
    group cannot spend the whole budget).  Each request: test, table, shape,
    the candidate kept (``keep``), and per axis the values to prefer."""
    queues: list[list[dict[str, Any]]] = []
    for g in all_groups:
        kind, cands = g.answer()
        if kind in ("found", "union") or not cands:
            continue
        tried = {r for r, _ in g.extra}
        q = []
        if kind == "unconfirmed":
            g.confirming.setdefault(cands[0], len(g.extra))
        for c in cands:
            others = [o for o in cands if o != c]
            q.append({
                "test": g.test, "table": g.table, "shape": g.shape, "signature": g.signature,
                "keep": [list(cell) for cell in c], "prefer": _preferences(g, c, others, kind == "unconfirmed"),
                "exclude": [list(r) for r in sorted(tried | set(g.failing) | set(g.passing))],
            })
        queues.append(q)
    out: list[dict[str, Any]] = []
    while len(out) < budget and any(queues):
        for q in queues:
            if q and len(out) < budget:
                out.append(q.pop(0))
    return out


def build_row(model: Model, request: Mapping[str, Any]) -> tuple[int, ...] | None:
    """The row a request asks for, in ``model``'s value indices: the kept cells,
    then axis by axis the first preferred value that keeps the row completable
    under the model's constraints; a row listed in ``exclude`` (already run) is
    avoided by taking the next preference on the last axis that has one.  None
    when the kept cells cannot be completed at all."""
    feas = model.feasibility
    sizes = model.sizes
    cells: list[int | None] = [None] * len(sizes)
    for a, v in request["keep"]:
        if not (0 <= a < len(sizes) and 0 <= v < sizes[a]):
            return None
        cells[a] = v
    if feas.violates(cells) is not None or not feas.completable(cells):
        return None
    exclude = {tuple(r) for r in request.get("exclude", [])}
    prefer = request["prefer"]
    kept = {a for a, _ in request["keep"]}
    budget = [_SEARCH_LIMIT]

    def fill(a: int) -> tuple[int, ...] | None:
        budget[0] -= 1
        if budget[0] < 0:
            return None
        if a == len(sizes):
            row = tuple(c for c in cells if c is not None)
            return None if row in exclude else row
        if a in kept:
            return fill(a + 1)
        for v in prefer[a]:
            cells[a] = v
            if feas.violates(cells) is None and feas.completable(cells):
                got = fill(a + 1)
                if got is not None:
                    return got
        cells[a] = None
        return None

    return fill(0)


@dataclass(frozen=True)
class Search:
    """How the rounds of :func:`search` ended."""

    used: int  # extra cases run, over all rounds
    rounds: int
    stalled: bool  # the last round could run no follow-up row (constraints, or every row tried)


def search(found: Sequence[Group], budget: int, run_round: Callable[[list[dict[str, Any]], int], int]) -> Search:
    """Ask, run, merge until nothing is asked or ``budget`` extra cases are spent.

    ``run_round(requests, n)`` runs round ``n``'s requests, hands each outcome
    to its group (:meth:`Group.add`) and returns how many cases it ran."""
    used = rounds = 0
    while used < budget:
        asked = requests(found, budget - used)
        if not asked:
            break
        rounds += 1
        ran = run_round(asked, rounds)
        used += ran
        if ran == 0:
            return Search(used, rounds, True)
    return Search(used, rounds, False)


def decided(found: Sequence[Group]) -> bool:
    """Every group is answered: one minimal combination held by all its failing rows
    (confirmed by a follow-up row in a partial run), or a union of independent causes."""
    return all(g.answer()[0] in ("found", "union") for g in found)
