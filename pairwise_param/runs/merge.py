"""Runs merged into one: the shards of a build (or mirror jobs on other platforms) as one union.

A function of run documents (:class:`pairwise_param.runs.document.RunDocument`), not of
the command line: ``report --run A B C`` calls :func:`merge` and shows the union as it
shows one run.  Per table (test, table index) the union holds the items of every run
(an item reported by several runs: the one that executed), analysed again by
:func:`pairwise_param.runs.analysis.analyze_table`, so its executed coverage is the
coverage of what the shards ran together.

What a merge names (:attr:`Merged.problems`; each fails the gate):

* a shard missing (``shard 3 of 3 missing: 41 items never ran``, the count from the
  items each shard collected before its splitter chose);
* a shard given twice, and two shards that ran the same items (a splitter that did not
  split: ``CI_NODE_INDEX`` unset, one seed per shard);
* an empty shard (it ran no ``@pairwise`` item);
* items collected but never reported (a killed or timed-out shard);
* shards that disagree on how many items the suite has;
* a mirror job missing (``mirror job 2 of 2 missing``) or given twice (:func:`mirror_problems`).

Mirror jobs (``--pairwise-mirror=K/N``, each run file says which) run different complete
tables of one model by design: their tables are united row by row (the union's rows are
every job's rows, each once), so the union's coverage is what the jobs ran together; the
shards of one mirror job are checked as shards among themselves.

A table whose model differs between runs (another fingerprint, other axes, values,
strength or rows) cannot be merged: :class:`~pairwise_param.errors.RunsDisagree`, naming
the test and what differs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from pairwise_param.errors import RunsDisagree
from pairwise_param.runs.document import Axis, Item, RunDocument, RunTable, table_changes, table_to_json

__all__ = ["Merged", "by_platform", "merge", "mirror_problems", "only_on"]


@dataclass(frozen=True)
class Merged:
    """The union of several runs and what is wrong with the set."""

    doc: RunDocument
    #: what the gate fails on (missing, twice, overlapping, empty shards; items never reported)
    problems: tuple[str, ...]
    #: one line per run: its file, shard, build, platform and items
    runs: tuple[str, ...]


def _label(source: str, doc: RunDocument) -> str:
    parts = [str(doc.mirror)] if doc.mirror is not None else []
    parts += [str(doc.shard)] if doc.shard is not None else []
    if doc.platform is not None:
        parts.append(doc.platform.name + (f" {doc.platform.device}" if doc.platform.device else ""))
    return source + (f" ({', '.join(parts)})" if parts else "")


def _differs(old: RunTable, new: RunTable) -> str:
    """What differs between two runs' tables of one test ("" when they are the same table)."""
    parts = table_changes(old, new)
    if old.fingerprint != new.fingerprint and not parts:
        parts.append("the constraints or sub-models (the model fingerprints differ)")
    if not parts and old.rows != new.rows:
        parts.append(f"the rows ({len(old.rows)} vs {len(new.rows)}: another seed, effort or rotation history)")
    return "; ".join(parts)


def _union(key: tuple[str, int], tables: Sequence[tuple[str, RunTable, int | None]]) -> RunTable:
    """One table of the union: the runs of one mirror job (or of no mirror) must have run
    the same table; different mirror jobs' tables of one model are united row by row."""
    from pairwise_param.runs.analysis import analyze_table

    first_source, first, first_job = tables[0]
    rows = list(first.rows)  # the first table's rows as they are (a repeated row keeps its index)
    index: dict[tuple[int, ...], int] = {}
    for i, r in enumerate(first.rows):
        index.setdefault(r, i)
    row_ids = list(first.row_ids)
    items: dict[tuple[str, int], Item] = {}
    for source, t, job in tables:
        mirrored = job != first_job and first_job is not None and job is not None
        what = _differs(first, replace(t, rows=first.rows) if mirrored else t)  # mirror jobs: other rows, one model
        if what:
            raise RunsDisagree(
                f"{first_source} and {source} ran another table (table {key[1]}): {what}; merge runs of one "
                "commit and one configuration (the same --pairwise-* options, seed and history)", where=key[0])
        remap: list[int] | None = None
        if t.rows != first.rows:  # a mirror job's own table: its rows join the union's
            remap = []
            for r, row_id in zip(t.rows, t.row_ids):
                if r not in index:
                    index[r] = len(rows)
                    rows.append(r)
                    row_ids.append(row_id)
                remap.append(index[r])
        for item in t.items:
            moved = item if remap is None else replace(item, row=remap[item.row])
            k = (item.nodeid, moved.row)
            held = items.get(k)
            if held is None or (moved.executed and not held.executed):
                items[k] = moved
    if len(tables) == 1:
        return first
    payload = table_to_json(first)
    payload["rows"] = [list(r) for r in rows]
    payload["row_ids"] = row_ids
    payload["items"] = [[i.nodeid, i.row, i.shape] for i in items.values()]
    outcomes = {i.nodeid: {"outcome": i.outcome, "when": i.when, "signature": i.signature, "reason": i.reason}
                for i in items.values() if i.outcome != "not_run"}
    # the held items are what the analysis would build from payload and outcomes (a
    # not_run item: no when, signature or reason), so they are kept, not built again;
    # not where mirror jobs ran one node id as two rows (the outcomes are per node id)
    if len({i.nodeid for i in items.values()}) < len(items):
        return analyze_table(payload, outcomes)
    kept = tuple(i if i.outcome != "not_run" or (i.when, i.signature, i.reason) == ("", None, None)
                 else Item(i.nodeid, i.row, i.shape, "not_run", "", None, None) for i in items.values())
    return analyze_table(payload, outcomes, kept)


def mirror_problems(parts: Sequence[tuple[str, RunDocument]]) -> list[str]:
    """What is wrong with a set of mirror jobs as a set: a job missing or given twice
    (twice: two runs of one job that are no shards of it), jobs of different counts, runs
    that are mirror jobs beside runs that are not."""
    jobs = [(s, d) for s, d in parts if d.mirror is not None]
    if not jobs:
        return []
    out: list[str] = []
    if len(jobs) < len(parts):
        plain = [s for s, d in parts if d.mirror is None]
        out.append(f"{', '.join(plain)}: no mirror job, merged with mirror jobs (give every job --pairwise-mirror)")
    counts = sorted({d.mirror.count for _, d in jobs if d.mirror is not None})
    if len(counts) > 1:
        return [*out, f"the runs are mirror jobs of different sets ({' vs '.join(map(str, counts))} jobs)"]
    seen: dict[int, list[tuple[str, RunDocument]]] = {}
    for source, d in jobs:
        if d.mirror is not None:
            seen.setdefault(d.mirror.index, []).append((source, d))
    for index, runs in sorted(seen.items()):
        unsharded = [s for s, d in runs if d.shard is None]
        if len(runs) > 1 and unsharded:
            out.append(f"mirror job {index + 1} of {counts[0]} given twice: {', '.join(s for s, _ in runs)}")
    out.extend(f"mirror job {i + 1} of {counts[0]} missing" for i in range(counts[0]) if i not in seen)
    return out


def _shard_problems(parts: Sequence[tuple[str, RunDocument]], reported: int) -> list[str]:
    out: list[str] = []
    sharded = [(s, d) for s, d in parts if d.shard is not None]
    if not sharded:
        return out
    counts = sorted({d.shard.count for _, d in sharded if d.shard is not None})
    if len(counts) > 1:
        out.append(f"the runs are shards of different splits ({' vs '.join(map(str, counts))} shards): "
                   "merge the shards of one build")
        return out
    count = counts[0]
    seen: dict[int, list[str]] = {}
    for source, d in sharded:
        if d.shard is not None:
            seen.setdefault(d.shard.index, []).append(source)
    for index, sources in sorted(seen.items()):
        if len(sources) > 1:
            out.append(f"shard {index + 1} of {count} given twice: {', '.join(sources)}")
    totals = {d.collected for _, d in parts if d.collected is not None}
    missing = [i for i in range(count) if i not in seen]
    never = (next(iter(totals)) - reported) if len(totals) == 1 else None
    for i in missing:
        tail = f": {never} items never ran" if never is not None and never > 0 and len(missing) == 1 else ""
        out.append(f"shard {i + 1} of {count} missing{tail}")
    if len(missing) > 1 and never is not None and never > 0:
        out.append(f"{never} items of the {len(missing)} missing shards never ran")
    if len(totals) > 1:
        out.append(f"the shards collected different suites ({' vs '.join(map(str, sorted(totals)))} items): "
                   "merge the shards of one commit")
    return out


def merge(parts: Sequence[tuple[str, RunDocument]], *, mirrors: bool = True) -> Merged:
    """The union of ``parts`` ((source, document), in the order given) and what is wrong
    with the set (see the module docstring; ``mirrors``: include :func:`mirror_problems`,
    off where the caller merges a part of the jobs, one platform's).  Raises
    :class:`~pairwise_param.errors.RunsDisagree` for a table two runs built differently."""
    problems: list[str] = []
    by_key: dict[tuple[str, int], list[tuple[str, RunTable, int | None]]] = {}
    # (platform, mirror job, nodeid) -> the first run that executed it
    owner: dict[tuple[str, int | None, str], str] = {}
    overlap: dict[tuple[str, str], int] = {}
    for source, doc in parts:
        platform = doc.platform.name if doc.platform is not None else ""
        job = doc.mirror.index if doc.mirror is not None else None
        if not doc.tables and not doc.empty:
            problems.append(f"{_label(source, doc)} ran no @pairwise item (an empty shard)")
        never = 0
        for t in doc.tables:
            by_key.setdefault(t.key, []).append((source, t, job))
            for item in t.items:
                if item.outcome == "not_run":
                    never += 1
                    continue
                first = owner.setdefault((platform, job, item.nodeid), source)
                if first != source:
                    overlap[(first, source)] = overlap.get((first, source), 0) + 1
        if never:
            problems.append(f"{_label(source, doc)}: {never} items collected but never reported (a killed or "
                            "timed-out run, -x, or an interrupted session)")
    labels = dict(parts)
    for (a, b), n in overlap.items():
        da, db = labels[a], labels[b]
        if da.shard is not None and db.shard is not None and da.shard.index == db.shard.index:
            continue  # said once: "given twice"
        problems.append(f"{_label(a, da)} and {_label(b, db)} ran the same {n} items: a splitter that did not split "
                        "(each shard needs its own index: CI_NODE_INDEX, --shard-id, --group)")
    tables = tuple(_union(key, group) for key, group in by_key.items())
    tables = tuple(sorted(tables, key=lambda t: t.key))
    reported = len({i.nodeid for t in tables for i in t.items if i.outcome != "not_run"})
    jobs: dict[int | None, list[tuple[str, RunDocument]]] = {}
    for source, doc in parts:
        jobs.setdefault(doc.mirror.index if doc.mirror is not None else None, []).append((source, doc))
    if len(jobs) == 1:
        problems = _shard_problems(parts, reported) + problems
    else:  # the shards of each mirror job among themselves
        found = []
        for job, group in sorted(jobs.items(), key=lambda kv: -1 if kv[0] is None else kv[0]):
            ran = len({i.nodeid for _, d in group for t in d.tables for i in t.items if i.outcome != "not_run"})
            where = f"mirror job {job + 1}: " if job is not None else ""
            found += [where + p for p in _shard_problems(group, ran)]
        problems = found + problems
    if mirrors:
        problems = mirror_problems(parts) + problems
    empty = {e.test: e for _, d in parts for e in d.empty}
    docs = [d for _, d in parts]
    builds = {d.build for d in docs}
    platforms = {d.platform for d in docs}
    union = RunDocument(
        exitstatus=max((d.exitstatus for d in docs), default=0),
        tables=tables,
        empty=tuple(empty[k] for k in sorted(empty)),
        build=next(iter(builds)) if len(builds) == 1 else None,
        platform=next(iter(platforms)) if len(platforms) == 1 else None,
        collected=docs[0].collected if len({d.collected for d in docs}) == 1 else None,
    )
    return Merged(union, tuple(problems), tuple(_label(s, d) for s, d in parts))


def by_platform(parts: Sequence[tuple[str, RunDocument]]) -> dict[str, list[tuple[str, RunDocument]]]:
    """The runs grouped by platform name (``unknown`` where none was recorded), in name order."""
    out: dict[str, list[tuple[str, RunDocument]]] = {}
    for source, doc in parts:
        out.setdefault(doc.platform.name if doc.platform is not None else "unknown", []).append((source, doc))
    return dict(sorted(out.items()))


def only_on(merged: dict[str, Merged]) -> list[str]:
    """Per platform, the tuples (table x combination) only its runs executed (``--per-platform``)."""
    from itertools import combinations

    from pairwise_param.runs.analysis import describe

    held: dict[str, dict[tuple[str, int], set[tuple[tuple[int, int], ...]]]] = {}
    axes: dict[tuple[str, int], Sequence[Axis]] = {}
    for name, m in merged.items():
        mine = held.setdefault(name, {})
        for t in m.doc.tables:
            axes[t.key] = t.axes
            ran = {i.row for i in t.items if i.executed}
            got = mine.setdefault(t.key, set())
            for r in ran:
                row = t.rows[r]
                got.update(tuple((a, row[a]) for a in scope) for scope in combinations(range(len(row)), t.strength))
    out = []
    for name, tables in held.items():
        for key, tuples in sorted(tables.items()):
            others = set().union(*(held[o].get(key, set()) for o in held if o != name))
            alone = sorted(tuples - others)
            if alone and len(held) > 1:
                shown = ", ".join(describe(axes[key], c) for c in alone[:5])
                more = f" ... {len(alone) - 5} more" if len(alone) > 5 else ""
                out.append(f"{key[0]}: {len(alone)} {len(alone[0])}-tuples ran on {name} only: {shown}{more}")
    return out
