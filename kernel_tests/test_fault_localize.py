"""The localization benchmark's logic (benchmarks/faults/localize*.py), CI-sized: planted
faults answered by a rule (every decision is pairwise_param.runs.localize's), and one real
RMSNorm fault end to end through the study and the mutated kernel (the whole catalogue:
``python -m benchmarks.faults.localize``)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from benchmarks.faults.localize_eval import cells_of, evaluate, index_row
from pairwise_param import cover
from pairwise_param.model import Model

AXES: dict[str, list[Any]] = {"dtype": ["fp16", "bf16", "fp32"], "padded": [False, True], "bias": [0, 1, 2],
                              "xnorm": [False, True]}


def _label(v: Any) -> Any:
    return v


def _planted(fault: dict[str, Any], budget: int = 20) -> tuple[dict[str, Any], Model, list[tuple[int, ...]]]:
    model = Model(dict(AXES))
    rows = [index_row(model, r, _label) for r in cover(dict(AXES), strength=2)]

    def bad(row: tuple[int, ...]) -> bool:
        values = model.decode(row)
        return all(values[k] == v for k, v in fault.items())

    asked: list[tuple[int, ...]] = []

    def oracle(row: tuple[int, ...]) -> str:
        asked.append(row)
        return "failed" if bad(row) else "passed"

    r = evaluate("t", model, rows, [bad(x) for x in rows], [cells_of(model, fault, _label)], oracle, _label, budget)
    return r, model, rows + asked


@pytest.mark.parametrize("fault", [{"bias": 2}, {"dtype": "bf16", "bias": 2}, {"padded": True, "xnorm": False},
                                   {"dtype": "fp32", "padded": True}])
def test_planted_fault_is_located_within_budget(fault):
    r, model, ran = _planted(fault)
    assert r["detected"] and r["t2_failing"] >= 1
    assert r["located_true"] == "exact" and r["final_verdict"] == "decided"
    assert r["extra_rows"] == len(r["followup_rows"]) <= r["budget"]
    full = {tuple(x) for x in itertools.product(*(range(n) for n in model.sizes))}
    assert len(set(ran)) == len(ran) and set(ran) <= full  # no row run twice, every row a model row
    again, _, _ = _planted(fault)
    assert again == r  # deterministic


def test_spent_budget_and_zero_budget_are_reported():
    r, _, _ = _planted({"dtype": "bf16", "bias": 2}, budget=0)
    assert r["extra_rows"] == 0 and r["rounds"] == 0
    if r["run_verdict"] != "decided":
        assert r["located"] is None and r["located_true"] == "no"


def test_undetected_fault_asks_nothing():
    model = Model(dict(AXES))
    rows = [index_row(model, r, _label) for r in cover(dict(AXES), strength=2)]

    def oracle(row: tuple[int, ...]) -> str:
        raise AssertionError("nothing failed: no follow-up row may be asked")

    r = evaluate("t", model, rows, [False] * len(rows), [], oracle, _label)
    assert r == {"t2_failing": 0, "t2_rows": len(rows), "detected": False}


def test_rmsnorm_fault_end_to_end(device):
    """The study's run of one fault, then localize answered by the mutated kernel: the
    combination it settles on implies the failure on the study's full product."""
    from benchmarks.faults.catalogue import by_id
    from benchmarks.faults.localize import run_fault
    from benchmarks.faults.study import study_fault, tables
    from benchmarks.faults.targets import all_targets

    target = all_targets(["rmsnorm"])["rmsnorm/test_rmsnorm"]
    tab = tables(target)
    fault = study_fault(by_id()["rms-x-stride-from-out"], target, tab)
    r = run_fault(fault, target, 20)
    assert r["detected"] and r["t2_table_current"] and r["full_rerun_rows"] == len(tab.full) - len(tab.t2)
    assert r["extra_cases"] == r["extra_rows"] * len(target.shapes)
    assert r["located_cells"] is not None
    model = Model(dict(target.axes), constraints=target.cover_args()["constraints"])
    # located_cells: the causes localize answered (several when it answers a union), each
    # a list of (axis, value index) cells; a row holding any one of them must fail
    causes = r["located_cells"]
    holders = [row for row in tab.full
               if any(all(model.axes[a].values[v] == row[a] for a, v in cause) for cause in causes)]
    from benchmarks.faults.mutation import load_module
    from benchmarks.faults.study import run_rows

    module = load_module(target.kernel_module, by_id()["rms-x-stride-from-out"].mutations, "loc_test")
    bad, _ = run_rows(target, target.make_backend(module), tab.names, holders)
    assert holders and set(bad) == set(holders)

