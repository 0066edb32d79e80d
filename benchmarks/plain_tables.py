"""A pytest plugin for benchmarks: every ``@pairwise`` table built without its
``compile_axes=`` / ``compile_key=`` (the plain t=2 tables of the same tree).

    python -m pytest kernel_tests -p benchmarks.plain_tables ...

Loaded before the test modules import ``pairwise``, it replaces the decorator with one
that drops the two options; everything else about the run is unchanged, so the variants
the compile-aware tables save are measured on one tree (benchmarks/gpu_issue39.py,
benchmarks/variant_keys.py).
"""

from __future__ import annotations

from typing import Any

import pytest


def drop_compile_axes() -> None:
    """Replace ``pairwise_param.pairwise`` by the decorator without the compile options."""
    import pairwise_param
    from pairwise_param import decorator

    real = decorator.pairwise
    if getattr(real, "_plain", False):
        return

    def plain(*args: Any, **kwargs: Any) -> Any:
        kwargs.pop("compile_axes", None)
        kwargs.pop("compile_key", None)
        return real(*args, **kwargs)

    plain._plain = True  # type: ignore[attr-defined]
    pairwise_param.pairwise = decorator.pairwise = plain  # type: ignore[assignment]


def pytest_configure(config: pytest.Config) -> None:
    drop_compile_axes()
