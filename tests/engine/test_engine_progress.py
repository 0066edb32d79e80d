"""``EngineOptions.on_progress`` and ``interruptible`` (issue 17: long engine
runs show progress, and Ctrl-C in the CLI keeps the best table so far).

The callback only observes (same rows with and without it); a
KeyboardInterrupt raised from it after the first improvement ends the
improver with a smaller, still complete, array.
"""

from __future__ import annotations

import itertools

import pytest

from pairwise_param.engine import EngineOptions, Progress, generate
from pairwise_param.errors import InvalidArgument
from pairwise_param.model import Model

# 4^12 at t=2 runs the pair state, 6^1 3^4 at t=3 the generic one; both improve in quick mode
# (3^6 at t=3 no longer does: engine/strength3.py builds its 33 rows directly)
MODELS = [({f"a{i}": range(4) for i in range(12)}, 2), ({f"a{i}": range(6 if i == 0 else 3) for i in range(5)}, 3)]


def complete(model: Model, rows: tuple[tuple[int, ...], ...]) -> bool:
    """Every t-tuple of value indices is in some row (brute force, independent of the engine)."""
    sizes, t = model.sizes, model.strength
    for scope in itertools.combinations(range(len(sizes)), t):
        seen = {tuple(r[a] for a in scope) for r in rows}
        if len(seen) != len(list(itertools.product(*(range(sizes[a]) for a in scope)))):
            return False
    return True


@pytest.mark.parametrize(("axes", "t"), MODELS)
def test_progress_observes_without_changing_rows(axes: dict[str, range], t: int) -> None:
    m = Model(axes, strength=t)
    seen: list[Progress] = []
    plain = generate(m.index_model, EngineOptions(), m.feasibility)
    watched = generate(m.index_model, EngineOptions(on_progress=seen.append), m.feasibility)
    assert watched == plain and not watched.interrupted
    assert seen, "the improver reported nothing"
    assert all(p.lower_bound <= p.rows and 0 <= p.work for p in seen)
    assert [p.rows for p in seen] == sorted((p.rows for p in seen), reverse=True)  # the best only shrinks
    assert seen[-1].rows == len(plain.rows)


@pytest.mark.parametrize(("axes", "t"), MODELS)
def test_an_interrupt_after_the_first_improvement_keeps_a_complete_table(axes: dict[str, range], t: int) -> None:
    m = Model(axes, strength=t)
    start = len(generate(m.index_model, EngineOptions(work=0), m.feasibility).rows)  # the construction
    final = len(generate(m.index_model, EngineOptions(), m.feasibility).rows)
    assert final < start

    def stop(p: Progress) -> None:
        if p.rows < start:
            raise KeyboardInterrupt

    got = generate(m.index_model, EngineOptions(on_progress=stop, interruptible=True), m.feasibility)
    assert got.interrupted
    assert final <= len(got.rows) < start
    assert complete(m, got.rows)
    # without interruptible the interrupt is the caller's, as any library's
    with pytest.raises(KeyboardInterrupt):
        generate(m.index_model, EngineOptions(on_progress=stop), m.feasibility)


def test_on_progress_must_be_callable() -> None:
    with pytest.raises(InvalidArgument, match="on_progress must be None or a callable"):
        EngineOptions(on_progress=3)  # type: ignore[arg-type]
