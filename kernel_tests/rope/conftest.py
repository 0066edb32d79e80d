"""The RoPE family's fixtures: its ``backend`` parameter (Triton; sglang's JIT RoPE when
importable), and the CI selection of ``upstream_ci.py``."""

from __future__ import annotations

import pytest

from kernel_tests.rope.backend import load_triton
from kernel_tests.rope.native import load_native
from kernel_tests.support.backends import BackendSelector

_BACKENDS = BackendSelector("rope", {"triton": load_triton, "native": load_native})

#: Mark of the values upstream's CI lists leave out (upstream_ci.py's ``get_ci_test_range``).
NIGHTLY_ONLY = "upstream_nightly_only"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{NIGHTLY_ONLY}: a value only upstream's nightly lists hold "
                                       f"(kernel_tests/rope/upstream_ci.py); deselected")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    _BACKENDS.parametrize(metafunc)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect the items of upstream_ci.py that upstream's CI does not run, so what is
    collected is its CI selection while the lists stay declared in full."""
    dropped = [item for item in items if item.get_closest_marker(NIGHTLY_ONLY) is not None]
    if dropped:
        keep = set(map(id, dropped))
        items[:] = [item for item in items if id(item) not in keep]
        config.hook.pytest_deselected(items=dropped)
