"""``--pairwise-rotate``, ``--pairwise-replay``, ``--pairwise-mirror``: which rows a cover table runs this time.

* Rotation: each cover table is :func:`pairwise_param.tables.rotate.rotate`-d against
  the runs of the same table in the history (:mod:`pairwise_param.runs.history`):
  still every t-tuple, at most 1.1x the fixed table's rows, the (t+1)- then
  (t+2)-tuples the history missed.  The history is read once, at configure, by the
  controller and by every xdist worker alike (the same file: the same rows in every
  process), and written at session end by the controller only, from the run file's
  tables (the rows of which an item executed).  A table with no run in the history
  runs its fixed table (that run starts its history).  A missing or corrupt history
  file is a ``PairwiseWarning`` (once, by the controller) and every table runs its
  fixed table.  Tables with invalid values, and full mode, are not rotated.
* ``--lf`` / ``--ff`` / ``--sw`` rerun what the last run ran: the table is rotated
  against the history without its last run (the history the last run saw), so the
  failed items exist again; such a run, a ``--pairwise-replay`` run, a
  ``--pairwise-extra-rows`` run and ``--collect-only`` do not add to the history.
* Replay: ``--pairwise-replay=RUNFILE`` (a run file, ``--pairwise-report``'s, or
  ``last``: the last run's, kept in pytest's cache) runs exactly the rows each table
  ran then.  A table whose model changed since is a collection error naming the test;
  a table the run file does not hold runs its fixed table.
* Mirror jobs: ``--pairwise-mirror=K/N`` runs job K's own complete table of each cover
  table (:func:`pairwise_param.tables.mirror.mirror_table`), computed from the model
  alone, so the N jobs' union covers more (t+1)-tuples; full mode is the full product.

No pytest import at module level: the hooks hand in what they read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pairwise_param.errors import InvalidArgument
from pairwise_param.model import Model
from pairwise_param.tables.build import Table

__all__ = ["Mirror", "Replay", "Rotation", "Seen", "build_id", "default_history_path", "read_replay"]


def default_history_path(cache: Any) -> Path | None:
    """The history file in pytest's cache directory; None without a cache."""
    from pairwise_param.runs.history import CACHE_DIR, FILE_NAME

    if cache is None:
        return None
    try:
        return Path(cache.mkdir(CACHE_DIR)) / FILE_NAME
    except OSError:
        return None


@dataclass
class Seen:
    """What this run made of one table (sent from xdist workers to the controller):
    the fingerprint its history is keyed on (the model with every value, so a value
    skipped at collection on one runner does not start the history over), the
    feasible tuples at t, t+1, t+2 (the 100% of the history report; 0: too many to
    count), and whether it ran the last run's rows again (--lf/--ff/--sw: not recorded)."""

    fingerprint: str
    coverable: list[int]
    reran: bool = False

    def export(self) -> dict[str, Any]:
        return {"fingerprint": self.fingerprint, "coverable": list(self.coverable), "reran": self.reran}


class Rotation:
    """The session's rotation: the history read at configure, and its file."""

    def __init__(self, path: Path | None, history: Any, problem: str, rerun: frozenset[str] = frozenset(),
                 build: str = "") -> None:
        self.path = path
        #: the CI build this run is a shard of ("": not a shard): every shard of a build
        #: rotates against the runs before the build, so all run one table, and their
        #: rows join one run of the history (:func:`build_id`)
        self.build = build
        self.history = history  # pairwise_param.runs.history.History, or None
        self.problem = problem  # why the history cannot be used ("" when it can)
        #: --lf / --ff / --sw: the tests with a failure to rerun (their tables run the
        #: last run's rows again, exactly); every other table rotates as usual
        self.rerun = rerun
        self.rotated = 0  # tables rotated in this process
        #: "index:test" -> :class:`Seen`; the workers send theirs to the controller
        self.seen: dict[str, Seen] = {}
        #: what the summary says about tables that were not rotated ("test: why")
        self.notes: list[str] = []

    @classmethod
    def open(cls, path: Path | None, rerun: frozenset[str] = frozenset(), build: str = "") -> Rotation:
        from pairwise_param.runs.history import History, read

        if path is None:
            return cls(None, None, "no history file: pytest's cache is off; give --pairwise-history=PATH", rerun,
                       build)
        history, problem = read(path)
        if history is None:
            return cls(path, History(), problem, rerun, build)  # missing or corrupt: fixed tables, a fresh history
        return cls(path, history, problem, rerun, build)

    @property
    def missing(self) -> bool:
        """The first run of this history (no file yet): a normal state, said in the summary."""
        return self.problem.startswith("no history file at")

    def export(self) -> dict[str, Any]:
        return {"seen": {k: v.export() for k, v in self.seen.items()}, "notes": list(self.notes)}

    def merge(self, part: dict[str, Any]) -> None:
        """A worker's :meth:`export` (every worker collects alike: first one wins)."""
        for key, doc in part.get("seen", {}).items():
            self.seen.setdefault(key, Seen(str(doc["fingerprint"]), [int(x) for x in doc["coverable"]],
                                           bool(doc["reran"])))
        for note in part.get("notes", []):
            if note not in self.notes:
                self.notes.append(note)

    def table_for(self, test: str, index: int, model: Model, fixed: Table, *, mode: str = "cover",
                  key: Model | None = None) -> Table:
        """The rows this run of the table runs: rotated against its history, the last
        run's rows again (a test with a failure to rerun), or the fixed table (full
        mode, no history yet, a history that does not fit, a model too large)."""
        from pairwise_param.tables.build import exhaustive

        if exhaustive(mode) or self.history is None:
            return fixed  # full mode is the full product, always
        from pairwise_param.tables.rotate import Budget, feasible_tuples

        fingerprint = (key or model).fingerprint()
        budget = Budget.of(model)
        t = model.strength
        seen = self.seen[f"{index}:{test}"] = Seen(
            fingerprint, [feasible_tuples(model, s) if budget.countable(s) else 0 for s in (t, t + 1, t + 2)])
        if not budget.rotatable:
            self._note(f"{test}: not rotated ({budget.why}); this run uses the fixed table")
            return fixed
        entry = self.history.tables.get((test, index))
        if entry is None or entry.fingerprint != fingerprint:
            return fixed
        if not entry.fits(model.sizes):
            self._note(f"{test}: its history does not fit the model (sizes {list(entry.sizes)}, the model's "
                       f"{list(model.sizes)}); this run uses the fixed table and starts the history over")
            return fixed
        if test in self.rerun and entry.last:
            seen.reran = True
            return replace(fixed, rows=tuple(entry.last))
        runs = entry.runs_before(self.build)
        if not runs:
            return fixed
        self.rotated += 1
        if model.compile_axes:  # no more kernel variants than the fixed table compiles, others maybe
            from pairwise_param.tables.rotate_variants import rotate_compile_aware

            table = rotate_compile_aware(model, fixed, runs)
            variant = model.index_model.variant
            used = {variant(r) for r in table.rows}
            new = len(used - {variant(r) for r in fixed.rows})
            if new:
                self._note(f"{test}: {new} of this run's {len(used)} kernel variants are not the fixed table's "
                           "(compile_axes: the variant list rotates too; a warm kernel cache compiles them once)")
            return table
        from pairwise_param.tables.rotate import rotate

        return rotate(model, fixed, runs).table

    def _note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def record(self, run_tables: list[dict[str, Any]]) -> str:
        """Add this run's tables to the history file (merged into the file as it is now,
        under a lock); "" or a note (a corrupt file kept aside); ``OSError`` when it
        cannot be written."""
        if self.path is None:
            return ""
        from pairwise_param.runs.history import update

        docs, coverable = [], {}
        for doc in run_tables:
            key = f"{int(doc.get('table', 0))}:{doc['test']}"
            seen = self.seen.get(key)
            if seen is None:
                continue  # not a table of ours (invalid values, replayed, full mode)
            if seen.reran:
                continue  # --lf ran the last run's rows again: no new run
            docs.append({**doc, "fingerprint": seen.fingerprint})
            if any(seen.coverable):
                coverable[key] = seen.coverable
        if not docs:
            return ""
        return update(self.path, lambda history: history.recorded(docs, coverable=coverable, build=self.build))


#: where a CI build's id is read from, in order (the first one set wins)
BUILD_VARIABLES = ("PAIRWISE_BUILD", "BUILDKITE_BUILD_ID", "GITHUB_RUN_ID", "CI_PIPELINE_ID", "CIRCLE_WORKFLOW_ID")


def build_id(env: Mapping[str, str], sharded: bool) -> str:
    """The build a run belongs to, for rotation across shards: ``PAIRWISE_BUILD``
    always; the CI's own build variables only when the run is a shard
    (``sharded``: pytest-shard's ``--num-shards`` or pytest-split's ``--splits``
    above 1), so that successive runs of one CI job still rotate.  GitHub's run id
    takes its attempt (a re-run is a new build)."""
    if env.get("PAIRWISE_BUILD", "").strip():
        return env["PAIRWISE_BUILD"].strip()
    if not sharded:
        return ""
    for name in BUILD_VARIABLES[1:]:
        value = env.get(name, "").strip()
        if value:
            if name == "GITHUB_RUN_ID":
                value += "." + env.get("GITHUB_RUN_ATTEMPT", "1")
            return f"{name}={value}"
    return ""


class Replay:
    """The rows each table of a past run ran (``--pairwise-replay``)."""

    def __init__(self, source: str, tables: dict[tuple[str, int], tuple[str, list[tuple[int, ...]]]]) -> None:
        self.source = source
        self.tables = tables

    def table_for(self, test: str, index: int, model: Model, fixed: Table, *, mode: str = "cover",
                  key: Model | None = None) -> Table:
        entry = self.tables.get((test, index))
        if entry is None:
            return fixed
        fingerprint, rows = entry
        if fingerprint != model.fingerprint():
            raise InvalidArgument(
                f"--pairwise-replay={self.source}: table {index} of this test was recorded for another "
                "model (its axes, values, strength or constraints changed since); replay a run file of "
                "the current code, or drop --pairwise-replay",
                where=test,
            )
        sizes = model.sizes
        feas = model.feasibility
        for row in rows:
            if len(row) != len(sizes) or any(not 0 <= x < s for x, s in zip(row, sizes)):
                raise InvalidArgument(f"--pairwise-replay={self.source}: row {list(row)} is outside the model", where=test)
            if feas.violates(row) is not None:
                raise InvalidArgument(
                    f"--pairwise-replay={self.source}: row {model.describe_row(row)} breaks a constraint", where=test
                )
        return replace(fixed, rows=tuple(rows))


class Mirror:
    """Mirror job ``job`` (a :class:`pairwise_param.runs.where.Mirror`): its own complete table
    of every cover table (``--pairwise-mirror``)."""

    def __init__(self, job: Any) -> None:
        self.job = job

    def table_for(self, test: str, index: int, model: Model, fixed: Table, *, mode: str = "cover",
                  key: Model | None = None) -> Table:
        from pairwise_param.tables.build import exhaustive

        if exhaustive(mode):
            return fixed  # full mode is the full product
        from pairwise_param.tables.mirror import mirror_table

        return mirror_table(model, fixed, self.job.index)


def read_replay(source: str, cache: Any) -> Replay:
    """The run file ``source`` (or ``last``: the cache's) as a :class:`Replay`, validated
    as every run file is (:func:`pairwise_param.runs.document.load`); ``ValueError`` with a
    message naming the file and the place when it cannot be used."""
    from pairwise_param.errors import InvalidRunFile
    from pairwise_param.plugin.outcomes import CACHE_KEY
    from pairwise_param.runs.document import document_from_json, load

    try:
        if source == "last":
            got = None if cache is None else cache.get(CACHE_KEY, None)
            if got is None:
                raise ValueError("--pairwise-replay=last: no run in pytest's cache yet (run once first)")
            doc = document_from_json(got, "the last run in pytest's cache")
        else:
            doc = load(Path(source))
    except InvalidRunFile as exc:
        raise ValueError(f"--pairwise-replay={source}: {exc.detail}") from None
    tables = {t.key: (t.fingerprint, list(t.rows)) for t in doc.tables}
    return Replay(source, tables)
