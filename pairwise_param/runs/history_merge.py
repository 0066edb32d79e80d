"""Per-shard rotation histories merged into one (``pairwise-param merge-history``).

The second CI shape of rotation across shards: every shard of a build restores the same
history (the last merged one), rotates against it (so all shards run one table), and
writes its own copy with its run added, tagged with the build id (``PAIRWISE_BUILD`` or
the CI's).  Before the next build, :func:`merge` makes one history of those copies: the
history a shared file would hold, byte for byte (the shards' rows of one build joined
into one run, in the table's order, as :meth:`pairwise_param.runs.history.History.recorded`
joins them).

Per table (test, table index), the runs of every input are matched by their build id;
a run without one (an unsharded run) is matched by its place among the input's runs
without one.  It fails closed (:class:`~pairwise_param.errors.RunsDisagree`, naming the
test and the files) where a merge would guess:

* the inputs keep the table for different models (fingerprint, axes, sizes, strength) and
  the same latest build (where one model's latest build is later, that model is kept: the
  table changed, and a shard that ran none of its items kept the old one);
* one input records a build twice (a build id reused by two builds);
* the inputs order two builds differently;
* a run that is not an input's last differs between inputs (they did not restore the same
  history: not shards of one build), or runs without a build id differ (a shard that ran
  without a build id: the union cannot tell its run from its siblings');
* an input holds the same build's run as another with other rows where neither is its
  last run.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from pairwise_param.errors import RunsDisagree
from pairwise_param.runs.history import MAX_RUNS, History, HistoryTable

__all__ = ["merge"]

Row = tuple[int, ...]

_NO_BUILD = "\0"  # the key prefix of a run without a build id (never a build id's text)


def _model_differs(a: HistoryTable, b: HistoryTable) -> str:
    parts = []
    if a.axes != b.axes:
        parts.append(f"axes {list(a.axes)} -> {list(b.axes)}")
    if a.sizes != b.sizes:
        parts.append(f"values per axis {list(a.sizes)} -> {list(b.sizes)}")
    if a.strength != b.strength:
        parts.append(f"strength {a.strength} -> {b.strength}")
    if a.fingerprint != b.fingerprint and not parts:
        parts.append("the values, constraints or sub-models (the model fingerprints differ)")
    return "; ".join(parts)


def _keyed(source: str, entry: HistoryTable) -> list[tuple[str, tuple[Row, ...]]]:
    """The runs of ``entry`` as (key, rows): the build id, or the place among the runs
    without one."""
    out: list[tuple[str, tuple[Row, ...]]] = []
    plain = 0
    for run, build in zip(entry.runs, entry.run_builds()):
        if build:
            if any(k == build for k, _ in out):
                raise RunsDisagree(f"{source} records build {build!r} twice: a build id that two builds shared "
                                   "(give each build its own PAIRWISE_BUILD); merge the shards of one build",
                                   where=entry.test)
            out.append((build, run))
        else:
            out.append((f"{_NO_BUILD}{plain}", run))
            plain += 1
    return out


def _order(test: str, sequences: Sequence[tuple[str, list[str]]]) -> list[str]:
    """The keys of every input in one order that keeps each input's order (keys no input
    orders: in the order first seen); two inputs that order two keys differently fail."""
    after: dict[str, set[str]] = {}
    for _, keys in sequences:
        for a, b in pairwise(keys):
            after.setdefault(a, set()).add(b)
    seen = list(dict.fromkeys(k for _, keys in sequences for k in keys))
    before = {k: 0 for k in seen}
    for followers in after.values():
        for b in followers:
            before[b] += 1
    merged: list[str] = []
    ready = [k for k in seen if before[k] == 0]
    while ready:
        key = ready.pop(0)
        merged.append(key)
        for b in sorted(after.get(key, ()), key=seen.index):
            before[b] -= 1
            if before[b] == 0:
                ready.append(b)
        ready.sort(key=seen.index)
    if len(merged) < len(seen):
        names = ", ".join(s for s, _ in sequences)
        raise RunsDisagree(f"{names} order their builds differently; merge the histories of the shards of one "
                           "build (each restored from the same history)", where=test or None)
    return merged


def _later(order: Sequence[str], sequences: Sequence[list[str]]) -> dict[str, set[str]]:
    """Per build, the builds some input records after it (directly or through others)."""
    after: dict[str, set[str]] = {k: set() for k in order}
    for keys in sequences:
        for i, a in enumerate(keys):
            after[a].update(keys[i + 1:])
    for key in reversed(order):  # close over the order: what follows a follower follows too
        for b in list(after[key]):
            after[key] |= after[b]
    return after


def _shown(key: str) -> str:
    return f"run {int(key[1:]) + 1} without a build id" if key.startswith(_NO_BUILD) else f"build {key!r}"


def _table(parts: Sequence[tuple[str, HistoryTable]], max_runs: int) -> HistoryTable:
    first_source, first = parts[0]
    for source, entry in parts[1:]:
        what = _model_differs(first, entry)
        if what:
            raise RunsDisagree(f"{first_source} and {source} keep this table for different models ({what}); "
                               "merge the histories of one commit", where=first.test)
    keyed = [(source, _keyed(source, entry)) for source, entry in parts]
    order = _order(first.test, [(s, [k for k, _ in runs]) for s, runs in keyed])
    # per key: the runs that are an input's last (a shard's own run: joined) and the others (the past: equal)
    last_of = {source: runs[-1][0] for source, runs in keyed if runs}
    tables = {source: entry.last for source, entry in parts}
    runs_out: list[tuple[Row, ...]] = []
    for key in order:
        held = [(s, rows) for s, runs in keyed for k, rows in runs if k == key]
        past = [(s, rows) for s, rows in held if last_of[s] != key]
        for s, rows in past[1:]:
            if rows != past[0][1]:
                raise RunsDisagree(f"{past[0][0]} and {s} hold different rows for {_shown(key)}, which is not the "
                                   "last run of either: they did not restore the same history (not shards of one "
                                   "build)", where=first.test)
        if key.startswith(_NO_BUILD) and len({rows for _, rows in held}) > 1:
            names = ", ".join(s for s, _ in held)
            raise RunsDisagree(f"{names} hold different rows for {_shown(key)}: a shard's run without a build id "
                               "cannot be told from its siblings' (run the shards with PAIRWISE_BUILD or a CI build "
                               "id, and share or merge their histories)", where=first.test)
        if past:
            joined = past[0][1]
            for s, rows in held:
                if not set(rows) <= set(joined):
                    raise RunsDisagree(f"{s} adds rows to {_shown(key)}, which {past[0][0]} holds as an earlier run "
                                       "(a shard of a build merged after a later build)", where=first.test)
            runs_out.append(joined)
            continue
        # the shards of one build: the union, in the order of the table they ran (History.recorded's join)
        union = list(dict.fromkeys(r for _, rows in held for r in rows))
        table = next((tables[s] for s, _ in held if tables[s]), ())
        here = set(table)
        runs_out.append(tuple([r for r in union if r not in here] + [r for r in table if r in set(union)]))
    last_key = order[-1] if order else ""
    last = next((entry.last for source, entry in parts if last_of.get(source) == last_key and entry.last), first.last)
    builds = tuple("" if k.startswith(_NO_BUILD) else k for k in order)
    coverable = next((entry.coverable for _, entry in parts if entry.coverable), ())
    return HistoryTable(
        test=first.test, table=first.table, fingerprint=first.fingerprint, strength=first.strength, sizes=first.sizes,
        axes=first.axes, runs=tuple(runs_out)[-max_runs:], coverable=coverable, last=last,
        builds=builds[-max_runs:] if any(builds) else (),
    )


def _current(parts: Sequence[tuple[str, HistoryTable]], later: dict[str, set[str]]) -> list[tuple[str, HistoryTable]]:
    """The inputs that keep the table for its current model: where the inputs disagree
    on the model, the model whose latest build some input records after every other
    model's latest build (a table whose model changed starts over, as on a shared file;
    a shard that ran none of its items kept the old one).  Otherwise the inputs as they
    are (the merge then fails: the shards of one build ran different models)."""
    groups: dict[tuple[str, tuple[str, ...], tuple[int, ...], int], list[tuple[str, HistoryTable]]] = {}
    for source, entry in parts:
        groups.setdefault((entry.fingerprint, entry.axes, entry.sizes, entry.strength), []).append((source, entry))
    if len(groups) == 1:
        return list(parts)
    latest = {}
    for g, members in groups.items():
        builds = {b for _, e in members for b in e.run_builds() if b}
        tops = [b for b in builds if not later[b] & builds]
        if len(tops) != 1:
            return list(parts)
        latest[g] = tops[0]
    for g, top in latest.items():
        if all(other == g or top in later[latest[other]] for other in latest):
            return groups[g]
    return list(parts)


def merge(parts: Sequence[tuple[str, History]], max_runs: int = MAX_RUNS) -> History:
    """One history of ``parts`` ((source, history), e.g. each shard's file): per table,
    the runs of every input matched by build id, the runs of one build joined; raises
    :class:`~pairwise_param.errors.RunsDisagree` where the inputs cannot be one history
    (see the module docstring)."""
    keys = sorted({k for _, h in parts for k in h.tables})
    for key in keys:  # a build recorded twice, or two orders, named with their test first
        held = [(s, h.tables[key]) for s, h in parts if key in h.tables]
        _order(key[0], [(s, [k for k, _ in _keyed(s, e) if not k.startswith(_NO_BUILD)]) for s, e in held])
    sequences = [(s, [b for b in e.run_builds() if b]) for s, h in parts for e in h.tables.values()]
    later = _later(_order("", sequences), [keys for _, keys in sequences])
    tables = {}
    for key in keys:
        held = _current([(s, h.tables[key]) for s, h in parts if key in h.tables], later)
        tables[key] = _table(held, max_runs)
    return History(tables)
