"""Temporary: shared helpers until kernel_tests/support/ lands (tag kt-layout-ready).

Same names and behaviour as the planned ``kernel_tests.support`` modules, so the switch
is an import change.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import pytest
import torch

from kernel_tests.ops.platform import device, is_cuda, is_hip, is_interpreter
from kernel_tests.ops.reference import assert_close_verbose, mismatch_report

__all__ = ["BackendSelector", "BackendUnavailable", "InterpreterBudget", "assert_close_verbose", "device",
           "generator", "is_cuda", "is_hip", "is_interpreter", "mismatch_report", "uniform"]

BACKEND_NAMES = ("triton", "native")


def generator(seed: int, device: torch.device | str) -> torch.Generator:
    return torch.Generator(device=device).manual_seed(seed)


def uniform(shape: tuple[int, ...], gen: torch.Generator, device: torch.device | str, lo: float = -1.0,
            hi: float = 1.0) -> torch.Tensor:
    return torch.rand(shape, generator=gen, device=device).mul_(hi - lo).add_(lo)


@dataclass(frozen=True)
class InterpreterBudget:
    env: str
    default: float
    cost: Callable[..., float]
    unit: str

    def limit(self) -> float:
        raw = os.environ.get(self.env)
        if raw is None or not raw.strip():
            return self.default
        try:
            return float(raw)
        except ValueError:
            raise pytest.UsageError(f"{self.env}={raw!r} must be a number") from None

    def over(self, *args: object, **kwargs: object) -> str | None:
        if not is_interpreter():
            return None
        cost, budget = self.cost(*args, **kwargs), self.limit()
        if cost > budget:
            return (f"too large for the Triton interpreter: cost {cost:.2g} > budget {budget:.2g} "
                    f"({self.env}; cost = {self.unit})")
        return None

    def skip_if_over(self, *args: object, **kwargs: object) -> None:
        reason = self.over(*args, **kwargs)
        if reason is not None:
            pytest.skip(reason)


class BackendUnavailable(RuntimeError):
    pass


class BackendSelector:
    def __init__(self, family: str, loaders: Mapping[str, Callable[[], object]]) -> None:
        self.family = family
        self._loaders = dict(loaders)
        self._loaded: dict[str, object] = {}
        self._reasons: dict[str, str] = {}

    def load(self, name: str) -> tuple[object | None, str]:
        if name not in self._loaded and name not in self._reasons:
            try:
                self._loaded[name] = self._loaders[name]()
            except BackendUnavailable as exc:
                self._reasons[name] = str(exc)
        if name in self._loaded:
            return self._loaded[name], ""
        return None, self._reasons[name]

    def params(self, choice: str | None) -> list[object]:
        names = tuple(self._loaders) if choice in (None, "all") else (choice,)
        params: list[object] = []
        for name in names:
            backend, reason = self.load(name)
            if backend is not None:
                params.append(pytest.param(backend, id=name))
            elif choice is not None:
                params.append(pytest.param(None, id=name, marks=pytest.mark.skip(reason=reason)))
        return params

    def parametrize(self, metafunc: pytest.Metafunc, argname: str = "backend") -> None:
        if argname in metafunc.fixturenames:
            try:
                choice = metafunc.config.getoption("kernel_backend")
            except ValueError:
                choice = None
            metafunc.parametrize(argname, self.params(choice))
