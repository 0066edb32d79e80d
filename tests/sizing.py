"""How many examples a property test runs, sized by the loaded Hypothesis profile.

A test states its weight as the example count it runs under the ``ci`` profile
(``@settings(max_examples=examples(120))``); a profile scales every test alike
through its own ``max_examples`` (100 = full size, the Hypothesis default): ``ci``
and ``dev`` keep today's counts, ``quick`` (``HYPOTHESIS_PROFILE=quick``) runs a
tenth of them.  Profiles are registered and loaded in ``tests/conftest.py``,
before any test module (and so any ``examples()`` call) is imported.
"""

from __future__ import annotations

from hypothesis import settings

__all__ = ["examples"]

#: the max_examples of a full-size profile
FULL = 100


def examples(ci_count: int) -> int:
    """``ci_count`` scaled by the current profile (at least 1)."""
    return max(1, ci_count * settings.default.max_examples // FULL)
