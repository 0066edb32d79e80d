"""``--pairwise-rotate`` and ``--pairwise-replay``: which rows a cover table runs this time.

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

No pytest import at module level: the hooks hand in what they read.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from pairwise_param.errors import InvalidArgument
from pairwise_param.model import Model
from pairwise_param.tables.build import Table

__all__ = ["Replay", "Rotation", "default_history_path", "read_replay"]


def default_history_path(cache: Any) -> Path | None:
    """The history file in pytest's cache directory; None without a cache."""
    from pairwise_param.runs.history import CACHE_DIR, FILE_NAME

    if cache is None:
        return None
    try:
        return Path(cache.mkdir(CACHE_DIR)) / FILE_NAME
    except OSError:
        return None


class Rotation:
    """The session's rotation: the history read at configure, and its file."""

    def __init__(self, path: Path | None, history: Any, problem: str, rerun: bool) -> None:
        self.path = path
        self.history = history  # pairwise_param.runs.history.History, or None
        self.problem = problem  # why the history cannot be used ("" when it can)
        self.rerun = rerun  # --lf / --ff / --sw: the last run's rotation, not a new one
        self.rotated = 0  # tables rotated in this process
        #: "test", table index -> feasible tuples at t, t+1, t+2 (the 100% of the
        #: history report); the workers send theirs to the controller
        self.coverable: dict[str, list[int]] = {}

    @classmethod
    def open(cls, path: Path | None, rerun: bool) -> Rotation:
        from pairwise_param.runs.history import History, read

        if path is None:
            return cls(None, None, "no history file: pytest's cache is off; give --pairwise-history=PATH", rerun)
        history, problem = read(path)
        if history is None and problem.startswith("no history file"):
            return cls(path, History(), problem, rerun)
        return cls(path, history, problem, rerun)

    def table_for(self, test: str, index: int, model: Model, fixed: Table) -> Table:
        """The rows this run of the table runs: rotated against its history, or the
        fixed table (no history yet, or an unusable one)."""
        if self.history is None:
            return fixed
        from pairwise_param.tables.rotate import feasible_tuples

        t = model.strength
        self.coverable[f"{index}:{test}"] = [feasible_tuples(model, s) for s in (t, t + 1, t + 2)]
        runs = self.history.runs_for(test, index, model.fingerprint())
        if self.rerun:
            runs = runs[:-1]
        if not runs:
            return fixed
        self.rotated += 1
        if model.compile_axes:  # no more kernel variants than the fixed table compiles
            from pairwise_param.tables.rotate_variants import rotate_compile_aware

            return rotate_compile_aware(model, fixed, runs)
        from pairwise_param.tables.rotate import rotate

        return rotate(model, fixed, runs).table

    def record(self, run_tables: list[dict[str, Any]]) -> str:
        """Add this run's tables to the history file; "" or why it was not written."""
        if self.path is None or self.history is None or self.rerun:
            return ""
        from pairwise_param.runs.history import write

        try:
            write(self.path, self.history.recorded(run_tables, coverable=self.coverable))
        except OSError as exc:
            return f"cannot write the history file {self.path}: {exc}"
        return ""


class Replay:
    """The rows each table of a past run ran (``--pairwise-replay``)."""

    def __init__(self, source: str, tables: dict[tuple[str, int], tuple[str, list[tuple[int, ...]]]]) -> None:
        self.source = source
        self.tables = tables

    def table_for(self, test: str, index: int, model: Model, fixed: Table) -> Table:
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
