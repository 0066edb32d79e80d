"""A small version of ``benchmarks/sweep.py`` (the seeded random sweep of
``cover()`` with its independent checker), and the sweep's own self-checks."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.sizing import examples

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "sweep.py"


@pytest.fixture(scope="module")
def sweep() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pairwise_sweep", _PATH)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses need the module registered
    spec.loader.exec_module(mod)
    return mod


def test_small_sweep_has_no_losses_violations_crashes_or_count_errors(sweep: ModuleType) -> None:
    totals = sweep.sweep(examples(60), seed=17)
    assert totals.failures == []
    assert (totals.losses, totals.violations, totals.crashes, totals.count_errors) == (0, 0, 0, 0)
    assert totals.models - totals.refused >= totals.models // 2  # most random models are buildable


def test_the_checker_catches_a_lost_tuple_and_a_violating_row(sweep: ModuleType) -> None:
    """The sweep is only worth its zeros if its checker can fail."""
    from pairwise_param import cover

    for i in range(50):
        case = sweep.replay(5, i)
        if case.checks and len(case.axes) >= 3:
            break
    table = list(cover(case.axes, strength=case.strength, constraints=case.constraints,
                       include=case.include, sub_models=case.sub_models))
    assert sweep.check(case, table) == (0, 0)
    losses, _ = sweep.check(case, table[:-1] if len(case.include) < len(table) else table[1:])
    assert losses > 0 or case.strength == 1 and len(table) == 1
    scope, fn = case.checks[0]
    import itertools

    bad = next(c for c in itertools.product(*(case.axes[a] for a in scope)) if not fn(*c))
    broken = {**table[-1], **dict(zip(scope, bad))}
    assert sweep.check(case, [*table, broken])[1] >= 1
