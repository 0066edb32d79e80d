"""Mirror jobs: complete tables that differ job to job, so their union covers more.

CI mirrors a suite on other platforms (Buildkite's ``mirror: amd``, a job per card): each
job runs the whole suite, and with one fixed table every job runs the same rows, so the
mirrors add no coverage of the options.  With ``--pairwise-mirror=K/N`` job K runs
:func:`mirror_table`: job 1 the fixed table, job K the rotation of the fixed table
(:func:`pairwise_param.tables.rotate.rotate`, the compile-aware rotation where the model
declares compile axes: no more variants than the fixed table, the list itself rotated) against the tables of jobs 1..K-1, as if they had run before it.
Every job's table covers every t-tuple (the rotation's hard constraint, verified), and
each next job covers as many (t+1)-tuples as it can that the jobs before it did not.

Every job computes the chain itself from the model alone (no shared history, no
coordination): the rotation is deterministic, so job K of every process, worker and
platform runs the same rows.
"""

from __future__ import annotations

from pairwise_param.errors import InvalidArgument
from pairwise_param.model import Model
from pairwise_param.tables.build import Table

__all__ = ["mirror_table"]


def mirror_table(model: Model, fixed: Table, job: int) -> Table:
    """The table mirror job ``job`` (0-based) runs: ``fixed`` for job 0, then each job's
    rotation against the tables of the jobs before it."""
    if job < 0:
        raise InvalidArgument(f"mirror job {job + 1} does not exist (jobs are numbered from 1)", where=model.where)
    runs = [fixed.rows]
    table = fixed
    for _ in range(job):
        if model.compile_axes:  # no more kernel variants than the fixed table compiles, others maybe
            from pairwise_param.tables.rotate_variants import rotate_compile_aware

            table = rotate_compile_aware(model, fixed, runs)
        else:
            from pairwise_param.tables.rotate import rotate

            table = rotate(model, fixed, runs).table
        runs.append(table.rows)
    return table
