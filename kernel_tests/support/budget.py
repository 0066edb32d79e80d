"""The cost budget of a kernel family under the Triton interpreter (CPU runs).

Interpreted kernels are slow (about 0.1-0.2 us per element a program touches, on one
core), so each family skips the cases that would take too long on the CPU, with a
reason that says so. Each family defines its own cost function (what dominates its
interpreted run time) and its own environment variable, because cost units differ
between families::

    BUDGET = InterpreterBudget(env="KERNEL_TESTS_RMSNORM_CPU_BUDGET", default=4e6,
                               cost=lambda batch, hidden: batch * hidden,
                               unit="batch*hidden elements")
    BUDGET.skip_if_over(batch, hidden)     # in the test, before building inputs

On a GPU (not the interpreter) every case runs. The variables are validated before any
test runs (:func:`check_budget_environment`, called from the root conftest): a value
that is not a number is a usage error; ``inf`` runs everything.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import pytest

from kernel_tests.support.platform import is_interpreter

#: Names of the budget variables: ``KERNEL_TESTS_CPU_BUDGET`` (skinny GEMMs) and
#: ``KERNEL_TESTS_<FAMILY>_CPU_BUDGET`` for the other families.
BUDGET_ENV_PATTERN = re.compile(r"KERNEL_TESTS_(?:[A-Z0-9_]+_)?CPU_BUDGET")


def parse_budget(env: str, raw: str | None, default: float) -> float:
    """The budget in ``raw`` (unset or blank: ``default``); a non-number is a usage error."""
    if raw is None or not raw.strip():
        return default
    try:
        return float(raw)
    except ValueError:
        raise pytest.UsageError(
            f"{env}={raw!r} must be a number (cost units, e.g. 2e7; 'inf' runs all)"
        ) from None


def check_budget_environment(environ: Mapping[str, str] = os.environ) -> None:
    """Raise ``pytest.UsageError`` for any malformed ``KERNEL_TESTS_*CPU_BUDGET``."""
    for name in sorted(environ):
        if BUDGET_ENV_PATTERN.fullmatch(name):
            parse_budget(name, environ[name], 0.0)


@dataclass(frozen=True)
class InterpreterBudget:
    """One family's budget: ``cost(*case)`` against ``$env`` (default ``default``).

    ``unit`` says what one cost unit is; it appears in the skip reason."""

    env: str
    default: float
    cost: Callable[..., float]
    unit: str

    def __post_init__(self) -> None:
        if not BUDGET_ENV_PATTERN.fullmatch(self.env):
            raise ValueError(f"InterpreterBudget(env={self.env!r}): the name must match "
                             f"{BUDGET_ENV_PATTERN.pattern} so the root conftest validates it")

    def limit(self) -> float:
        """The budget now in force (read from the environment on every call)."""
        return parse_budget(self.env, os.environ.get(self.env), self.default)

    def over(self, *args: object, **kwargs: object) -> str | None:
        """The skip reason when this case exceeds the budget under the interpreter, else None."""
        if not is_interpreter():
            return None
        cost, budget = self.cost(*args, **kwargs), self.limit()
        if cost > budget:
            return (f"too large for the Triton interpreter: cost {cost:.2g} > budget {budget:.2g} "
                    f"({self.env}; cost = {self.unit})")
        return None

    def skip_if_over(self, *args: object, **kwargs: object) -> None:
        """Skip the running test when :meth:`over` gives a reason."""
        reason = self.over(*args, **kwargs)
        if reason is not None:
            pytest.skip(reason)
