"""Capability skip marks that are evaluated lazily, when a test is set up.

``pytest.mark.skipif(has_fp8(), ...)`` would probe the device when the test module is
imported (at collection, in every xdist worker, even for ``--collect-only`` and
``pairwise-param report``). :func:`requires` instead attaches the predicate to a
``kernel_requires`` mark; the root ``kernel_tests/conftest.py`` calls
:func:`skip_unmet_requirements` from ``pytest_runtest_setup``, so the predicate runs only
for tests that are about to run, and the skip reason states the requirement.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

MARK_NAME = "kernel_requires"
MARK_HELP = f"{MARK_NAME}(predicate, reason=...): skip at set-up unless predicate() is true (lazy capability check)"


def requires(predicate: Callable[[], bool], reason: str) -> pytest.MarkDecorator:
    """A mark that skips the test at set-up unless ``predicate()`` is true.

    ``reason`` must state the requirement (what the device or build needs)."""
    if not callable(predicate):
        raise TypeError(f"requires(predicate={predicate!r}): expected a zero-argument callable")
    if not reason:
        raise ValueError("requires(...): reason must state the requirement")
    return getattr(pytest.mark, MARK_NAME)(predicate, reason=reason)


def skip_unmet_requirements(item: pytest.Item) -> None:
    """Skip ``item`` if any of its ``kernel_requires`` predicates is false."""
    for mark in item.iter_markers(MARK_NAME):
        predicate = mark.args[0]
        if not predicate():
            pytest.skip(mark.kwargs["reason"])
