"""The skinny-GEMM family's fixtures: its ``backend`` parameter and ``cu_count``."""

from __future__ import annotations

import pytest

from kernel_tests.skinny_gemm.backend import load_triton
from kernel_tests.skinny_gemm.native import load_native
from kernel_tests.support import platform
from kernel_tests.support.backends import BackendSelector

_BACKENDS = BackendSelector("skinny_gemm", {"triton": load_triton, "native": load_native})


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    _BACKENDS.parametrize(metafunc)


@pytest.fixture(scope="session")
def cu_count() -> int:
    """Compute units passed to the ops (a CPU stand-in under the interpreter)."""
    return platform.num_compute_units()
