"""The shared kernel-test support: budgets, backend selection, lazy marks, padding."""

from __future__ import annotations

import math

import pytest
import torch

from kernel_tests.support import budget as budget_mod
from kernel_tests.support.backends import BackendSelector, BackendUnavailable
from kernel_tests.support.budget import InterpreterBudget, check_budget_environment, parse_budget
from kernel_tests.support.families import FAMILIES
from kernel_tests.support.inputs import pad_rows, padding_of
from kernel_tests.support.marks import MARK_NAME, requires


def test_the_family_list_is_the_family_folders():
    """support/families.py is the one list: every folder of kernel_tests/ with a kernels.py."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    assert sorted(FAMILIES) == sorted(p.parent.name for p in root.glob("*/kernels.py"))


def test_parse_budget():
    assert parse_budget("KERNEL_TESTS_CPU_BUDGET", None, 5.0) == 5.0
    assert parse_budget("KERNEL_TESTS_CPU_BUDGET", "  ", 5.0) == 5.0
    assert parse_budget("KERNEL_TESTS_CPU_BUDGET", "inf", 5.0) == math.inf
    with pytest.raises(pytest.UsageError, match=r"KERNEL_TESTS_CPU_BUDGET='2e' must be a number"):
        parse_budget("KERNEL_TESTS_CPU_BUDGET", "2e", 5.0)


def test_check_budget_environment_checks_every_family_variable():
    check_budget_environment({"KERNEL_TESTS_CPU_BUDGET": "1e6", "KERNEL_TESTS_ROPE_CPU_BUDGET": "inf",
                              "OTHER": "x"})
    with pytest.raises(pytest.UsageError, match="KERNEL_TESTS_FUSED_NORM_CPU_BUDGET='lots'"):
        check_budget_environment({"KERNEL_TESTS_FUSED_NORM_CPU_BUDGET": "lots"})


def test_budget_env_name_must_be_validated_by_the_root_conftest():
    with pytest.raises(ValueError, match="must match"):
        InterpreterBudget(env="MY_BUDGET", default=1.0, cost=lambda n: n, unit="n")


def test_budget_skips_only_under_the_interpreter(monkeypatch):
    b = InterpreterBudget(env="KERNEL_TESTS_X_CPU_BUDGET", default=100, cost=lambda a, b: a * b, unit="a*b")
    monkeypatch.setattr(budget_mod, "is_interpreter", lambda: True)
    monkeypatch.delenv("KERNEL_TESTS_X_CPU_BUDGET", raising=False)
    assert b.over(10, 10) is None
    reason = b.over(10, 11)
    assert reason == ("too large for the Triton interpreter: cost 1.1e+02 > budget 1e+02 "
                      "(KERNEL_TESTS_X_CPU_BUDGET; cost = a*b)")
    monkeypatch.setenv("KERNEL_TESTS_X_CPU_BUDGET", "inf")
    assert b.over(10**6, 10**6) is None
    monkeypatch.setattr(budget_mod, "is_interpreter", lambda: False)
    monkeypatch.setenv("KERNEL_TESTS_X_CPU_BUDGET", "0")
    assert b.over(10, 10) is None


def _missing() -> object:
    raise BackendUnavailable("needs the moon")


def test_backend_selector_params():
    calls = []

    def triton() -> object:
        calls.append("triton")
        return "T"

    sel = BackendSelector("fam", {"triton": triton, "native": _missing})
    default = sel.params(None)
    assert [p.id for p in default] == ["triton"] and default[0].values == ("T",)
    explicit = sel.params("native")
    assert [p.id for p in explicit] == ["native"]
    assert explicit[0].marks[0].kwargs["reason"] == "needs the moon"
    every = sel.params("all")  # asked for all: the missing one is shown, as a skip
    assert [p.id for p in every] == ["triton", "native"] and every[1].marks[0].kwargs["reason"] == "needs the moon"
    assert calls == ["triton"]  # loaded once


def test_backend_selector_without_that_backend():
    sel = BackendSelector("fam", {"triton": lambda: "T"})
    (param,) = sel.params("native")
    assert param.marks[0].kwargs["reason"] == "the fam family has no 'native' backend"
    with pytest.raises(ValueError, match="unknown backend names"):
        BackendSelector("fam", {"cuda": lambda: "C"})


def test_requires_is_lazy():
    calls = []
    mark = requires(lambda: calls.append(1) or False, reason="needs X")
    assert calls == [] and mark.name == MARK_NAME
    with pytest.raises(TypeError):
        requires(True, reason="x")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        requires(lambda: True, reason="")


@requires(lambda: False, reason="needs nothing that exists")
def test_requires_skips_at_setup():
    raise AssertionError("must have been skipped at set-up")


def test_pad_rows_and_padding_of():
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    v = pad_rows(t, pad_bytes=8, fill=math.nan)
    assert torch.equal(v, t) and v.stride() == (5, 1)
    pad = padding_of(v)
    assert pad.shape == (2, 2) and bool(pad.isnan().all())
    pad.fill_(7.0)
    assert torch.equal(v, t)
    with pytest.raises(ValueError, match="row-padded"):
        padding_of(t)
    with pytest.raises(ValueError, match="multiple of the element size"):
        pad_rows(t, pad_bytes=6)


def test_phases_record_only_when_switched_on():
    from kernel_tests.support import phases

    profiling = phases.recording()  # the profile command's recorder, when this runs under it
    phases.stop_recording()
    with phases.phase("kernel"):  # off: nothing recorded, no error
        pass
    syncs = []
    rec = phases.start_recording(sync=lambda: syncs.append(1))
    try:
        with phases.phase("inputs"):
            pass
        with phases.phase("compare"):
            pass
        assert len(syncs) == 4  # the device is synchronized at each edge
        nested = pytest.raises(RuntimeError, match=r"phase\('kernel'\) opened inside phase\('inputs'\)")
        with nested, phases.phase("inputs"), phases.phase("kernel"):
            pass
        totals = rec.take()
        assert set(totals) == set(phases.PHASES) and totals["inputs"] > 0 and totals["kernel"] == 0
        assert rec.take()["inputs"] == 0  # take() starts new sums
    finally:
        phases.stop_recording(profiling)
    with pytest.raises(ValueError, match="expected one of inputs, kernel, reference, compare"):
        phases.phase("compile")
