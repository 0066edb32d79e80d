"""Adapter for the shared anchors harness (/work/shared/anchors/measure.py).

The harness calls ``cover(parameters, strength=t, constraints=[pred, ...])``
where each ``pred(row: dict) -> bool`` receives a *partial* row and returns
False only when the values present already break its rule.  Our constraints
are predicates whose parameter names are the axes they read, so each harness
predicate is probed to learn which axes it reads (a recording mapping notes
every key it looks at, over a few probe rows until the set stops growing) and
wrapped in a function with exactly those parameters.

Usage (from the repository root)::

    PYTHONPATH=. python /work/shared/anchors/measure.py --no-builtin \\
        --py-tool ours=benchmarks.anchors_shim:cover
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pairwise_param

__all__ = ["cover"]

#: Effort of the improver used by the shim (quick mode by default); set
#: PAIRWISE_PARAM_EFFORT to measure the improver through the harness.
EFFORT = int(os.environ.get("PAIRWISE_PARAM_EFFORT", "0"))


class _Recorder(Mapping[str, Any]):
    """A row that remembers which keys were asked for."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.read: set[str] = set()

    def __getitem__(self, key: str) -> Any:
        self.read.add(key)
        return self.data[key]

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            self.read.add(key)
        return key in self.data

    def get(self, key: str, default: Any = None) -> Any:
        self.read.add(key)
        return self.data.get(key, default)

    def __iter__(self) -> Iterator[str]:
        self.read.update(self.data)  # iterating reads everything
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)


def _axes_read(pred: Callable[[Mapping[str, Any]], bool], parameters: dict[str, list[Any]]) -> list[str]:
    names = list(parameters)
    base = {n: parameters[n][0] for n in names}
    read: set[str] = set()
    probes = [dict(base)]
    seen_probe = 0
    while seen_probe < len(probes) and seen_probe < 200:
        rec = _Recorder(probes[seen_probe])
        seen_probe += 1
        pred(rec)
        new = rec.read - read
        read |= rec.read
        for n in sorted(new & set(names), key=names.index):
            for v in parameters[n][1:]:
                p = dict(base)
                p[n] = v
                probes.append(p)
    return [n for n in names if n in read]


def _named(pred: Callable[[Mapping[str, Any]], bool], axes: list[str]) -> Callable[..., bool]:
    def constraint(**values: Any) -> bool:
        return bool(pred(values))

    constraint.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(a, inspect.Parameter.POSITIONAL_OR_KEYWORD) for a in axes]
    )
    constraint.__name__ = getattr(pred, "__name__", "constraint")
    constraint.__doc__ = getattr(pred, "__doc__", None)
    return constraint


def cover(
    parameters: dict[str, list[Any]],
    strength: int = 2,
    constraints: list[Callable[[Mapping[str, Any]], bool]] | None = None,
) -> list[dict[str, Any]]:
    """Rows of ``pairwise_param.cover`` for the harness's calling convention."""
    named = []
    for pred in constraints or ():
        axes = _axes_read(pred, parameters)
        if axes:
            named.append(_named(pred, axes))
    rows = pairwise_param.cover(parameters, strength=strength, constraints=named, effort=EFFORT)
    return list(rows)
