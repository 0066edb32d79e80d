"""The engine's candidate table (engine/pipeline.py, issue 34) and the few-large-axes cliff
(issue 38 item 16).

One table, ``STAGES``, lists the candidate constructions; one function verifies and
compares.  These tests hold the table to its contract with stages of their own: a smaller
verified candidate wins, an unverified one never does, a lost ``required`` stage is an
engine bug, the run ends at the lower bound after an ``ends_at_bound`` stage; and the
table drawn in docs/engine.md is the table of the code.
"""

from __future__ import annotations

import itertools
import random
import re
from pathlib import Path

import pytest

from pairwise_param import cover
from pairwise_param.engine import EngineOptions
from pairwise_param.engine.ipog import _Fits
from pairwise_param.engine.pipeline import STAGES, Candidate, Run, Stage, run
from pairwise_param.feasibility import Feasibility
from pairwise_param.model import Model

ROOT = Path(__file__).resolve().parents[2]


def _model(sizes: tuple[int, ...]) -> Model:
    return Model({f"a{i}": list(range(s)) for i, s in enumerate(sizes)})


def _run(model: Model, stages: tuple[Stage, ...]):
    im = model.index_model
    return run(im, EngineOptions(), Feasibility(im.sizes, im.exclusions), stages)


def _always(model, options) -> bool:
    return True


def _product(r: Run) -> Candidate:
    return Candidate([tuple(row) for row in itertools.product(*(range(s) for s in r.req.sizes))], "product-here")


GREEDY = next(s for s in STAGES if s.name == "greedy")


def test_the_stage_names_are_unique_and_the_greedy_stage_applies_to_every_model() -> None:
    names = [s.name for s in STAGES]
    assert len(set(names)) == len(names)
    constrained = Model({"a": [0, 1], "b": [0, 1]}, constraints=["a != b"], include=[{"a": 0}], strength=2)
    assert GREEDY.required and GREEDY.applies(constrained.index_model, EngineOptions())
    assert [s.name for s in STAGES if s.applies(constrained.index_model, EngineOptions())] == ["greedy", "improver"]


def test_docs_draw_the_table_of_the_code() -> None:
    """docs/engine.md's "The candidate table" lists the stages of STAGES, in order."""
    page = (ROOT / "docs" / "engine.md").read_text(encoding="utf-8")
    section = page.split("\n## The candidate table\n", 1)[1].split("\n## ", 1)[0]
    drawn = re.findall(r"^\| `([a-z0-9-]+)` \|", section, flags=re.MULTILINE)
    assert drawn == [s.name for s in STAGES]


def test_a_smaller_verified_candidate_wins_and_names_the_method() -> None:
    """A stage after greedy whose rows are smaller and valid replaces them."""
    model = _model((3, 3, 3, 3))
    base = _run(model, (GREEDY,))
    smaller = base.rows[:]  # the greedy rows are already at the bound (9): build a larger start instead

    def larger(r: Run) -> Candidate:
        return Candidate(_product(r).rows, "start")

    def back_to_nine(r: Run) -> Candidate:
        return Candidate(list(smaller), "nine")

    got = _run(model, (Stage("start", _always, larger), Stage("nine", _always, back_to_nine)))
    assert (len(got.rows), got.method) == (9, "nine")


def test_an_unverified_candidate_never_wins_however_small() -> None:
    model = _model((3, 3, 3))

    def bogus(r: Run) -> Candidate:
        return Candidate([(0, 0, 0)], "bogus")  # one row: far below the bound, covers almost nothing

    got = _run(model, (GREEDY, Stage("bogus", _always, bogus)))
    assert got.method != "bogus" and len(got.rows) >= 9


def test_a_required_stage_whose_rows_fail_the_check_is_an_engine_bug() -> None:
    def bogus(r: Run) -> Candidate:
        return Candidate([(0, 0)], "bogus")

    with pytest.raises(AssertionError, match="'bogus' left a coverable tuple uncovered"):
        _run(_model((2, 2)), (Stage("bogus", _always, bogus, required=True),))


def test_the_run_ends_at_the_lower_bound_after_an_ends_at_bound_stage() -> None:
    seen: list[str] = []

    def later(r: Run) -> None:
        seen.append("later")

    _run(_model((4, 4)), (Stage("product", _always, _product, ends_at_bound=True), Stage("later", _always, later)))
    assert seen == []  # 16 rows = the bound: nothing after it ran
    _run(_model((4, 4)), (Stage("product", _always, _product), Stage("later", _always, later)))
    assert seen == ["later"]


def test_a_stage_that_does_not_apply_is_not_built() -> None:
    def never(model, options) -> bool:
        return False

    def boom(r: Run) -> Candidate:
        raise AssertionError("built a stage that does not apply")

    got = _run(_model((3, 3, 3)), (Stage("boom", never, boom), GREEDY))
    assert len(got.rows) == 9


# -- the few-large-axes cliff (issue 38 item 16) -----------------------------------------
def test_two_axes_of_300_values_are_the_full_product_from_the_greedy_stage() -> None:
    """2 axes x 300 values at t=2 is the full product: 90,000 rows, each once, from IPOG
    at the lower bound (the run ends there).  Its vertical growth scanned every row for
    each of the 90,000 tuples (379 s CPU); the row index (ipog._Fits) makes it seconds.
    Not timed here: benchmarks/scaling.py has the case ("300^2 t=2")."""
    table = cover({"a": list(range(300)), "b": list(range(300))})
    rows = [(r["a"], r["b"]) for r in table]
    assert table.method == "ipog"
    assert sorted(rows) == list(itertools.product(range(300), range(300)))


@pytest.mark.parametrize("seed", range(20))
def test_the_row_index_finds_the_rows_a_scan_finds(seed: int) -> None:
    """``_Fits.rows_for`` answers what the scan it replaced answered: the rows whose
    every given cell is free or holds the value."""
    rng = random.Random(seed)
    sizes = tuple(rng.randint(1, 5) for _ in range(rng.randint(1, 6)))
    rows = [[rng.choice([None, *range(s)]) for s in sizes] for _ in range(rng.randint(0, 40))]
    fits = _Fits(sizes, rows[: len(rows) // 2])
    for r in range(len(rows) // 2, len(rows)):  # later writes, as ipog commits them
        for c, x in enumerate(rows[r]):
            if x is not None:
                fits.write(r, c, x)
    for _ in range(30):
        cells = [(c, rng.randrange(sizes[c])) for c in sorted(rng.sample(range(len(sizes)), rng.randint(1, len(sizes))))]
        want = [r for r, row in enumerate(rows) if all(row[c] is None or row[c] == x for c, x in cells)]
        m = fits.rows_for(len(rows), cells)
        assert [r for r in range(len(rows)) if m >> r & 1] == want
