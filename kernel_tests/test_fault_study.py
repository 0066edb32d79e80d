"""The fault-detection study's logic (benchmarks/faults), CI-sized: the order and kill
rules on hand-made outcomes, the exactly-once mutation rule, and two real RMSNorm faults
run end to end through the study (the full study: ``python -m benchmarks.faults``)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from benchmarks.faults.analysis import killed, minimal_failure_tuples, random_samples
from benchmarks.faults.catalogue import FAULTS, by_id
from benchmarks.faults.mutation import Mutation, MutationError, apply
from kernel_tests.support.families import FAMILIES

ROOT = Path(__file__).resolve().parents[1]
FULL = list(itertools.product([0, 1], [0, 1], [0, 1, 2]))


@pytest.mark.parametrize("rule, order, witness", [
    (lambda a, b, c: a == 1, 1, {0: 1}),
    (lambda a, b, c: a == 1 and c == 2, 2, {0: 1, 2: 2}),
    (lambda a, b, c: a == 1 and b == 0 and c == 1, 3, {0: 1, 1: 0, 2: 1}),
    (lambda a, b, c: a == 1 or c == 2, 1, {0: 1}),          # two 1-way causes: both are minimal
])
def test_interaction_order(rule, order, witness):
    failing = {r for r in FULL if rule(*r)}
    got, witnesses = minimal_failure_tuples(FULL, failing)
    assert got == order
    assert witness in witnesses
    for w in witnesses:  # each witness implies failure and occurs somewhere
        rows = [r for r in FULL if all(r[a] == v for a, v in w.items())]
        assert rows and all(r in failing for r in rows)


def test_order_edges():
    assert minimal_failure_tuples(FULL, set()) == (None, [])
    assert minimal_failure_tuples(FULL, set(FULL)) == (0, [{}])


def test_kill_and_random_samples():
    failing = {(1, 1, 2)}
    assert killed([(0, 0, 0), (1, 1, 2)], failing) and not killed([(1, 1, 1)], failing)
    a, b = random_samples(FULL, 6, [3, 3]), random_samples(FULL, 6, [4])
    assert a[0] == a[1] and len(set(a[0])) == 6 and a[0] != b[0]


def test_mutation_must_match_exactly_once():
    assert apply("x = 1\ny = 2\n", (Mutation("y = 2", "y = 3"),), "f") == "x = 1\ny = 3\n"
    with pytest.raises(MutationError, match="occurs 0 times"):
        apply("x = 1\n", (Mutation("y = 2", "y = 3"),), "f")
    with pytest.raises(MutationError, match="occurs 2 times"):
        apply("y = 2\ny = 2\n", (Mutation("y = 2", "y = 3"),), "f")


def test_catalogue_applies_to_the_shipped_kernels():
    """Every fault's snippets occur exactly once in its family's kernels.py (the study
    would refuse it otherwise), in all four families."""
    assert len(FAULTS) >= 24 and len(by_id()) == len(FAULTS)
    families = {fault.target.split("/")[0] for fault in FAULTS}
    assert families == set(FAMILIES)
    for fault in FAULTS:
        source = (ROOT / "kernel_tests" / fault.target.split("/")[0] / "kernels.py").read_text()
        apply(source, fault.mutations, fault.id)  # raises unless exactly once


def test_two_rmsnorm_faults_end_to_end(device):
    """The unmutated copy passes every row; two faults fail exactly where their bug lives,
    with the measured order, and the suite's t=2 table catches both."""
    from benchmarks.faults.study import sanity, study_fault, tables
    from benchmarks.faults.targets import all_targets

    target = all_targets(["rmsnorm"])["rmsnorm/test_rmsnorm"]
    tab = tables(target)
    assert len(tab.full) == 8 and len(tab.t2) == 4
    assert sanity(target, tab)["failing_rows"] == 0
    stride = study_fault(by_id()["rms-x-stride-from-out"], target, tab)
    assert stride["order"] == 2 and stride["witnesses"] == [{"specify_out": True, "padded": True}]
    assert stride["failing_rows"] == 2 and stride["kills"]["t2"] and stride["kills"]["full"]
    assert stride["kills"]["upstream"] is False  # upstream's CI has no padded rows
    assert sum(o["failed"] for o in stride["t2_outcomes"]) >= 1
    mask = study_fault(by_id()["rms-mask-row-stride"], target, tab)
    assert mask["order"] == 1 and mask["witnesses"] == [{"padded": True}] and mask["failing_rows"] == 4
    assert all(mask["kills"]["random"])  # half the rows fail: every 4-row sample holds one
    # the suite's compile-aware table (compile_axes=["dtype"]) covers every pair as well
    assert stride["kills"]["t2c"] and mask["kills"]["t2c"]
    assert tab.variants is not None and tab.variants[1] <= tab.variants[0]


def test_cli_names_match_and_bad_names_are_usage_errors(capsys):
    from benchmarks.faults.__main__ import FAMILY_NAMES, main
    from benchmarks.faults.targets import BUILDERS

    assert FAMILY_NAMES == list(FAMILIES) == list(BUILDERS)
    for argv in (["--faults", "no-such-fault"], ["--families", "no_such_family"]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
    assert "no_such_family" in capsys.readouterr().err
