"""The RMSNorm family's ``backend`` parameter."""

from __future__ import annotations

import pytest

from kernel_tests.rmsnorm.backend import load_triton
from kernel_tests.rmsnorm.native import load_native
from kernel_tests.support.backends import BackendSelector

_BACKENDS = BackendSelector("rmsnorm", {"triton": load_triton, "native": load_native})


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    _BACKENDS.parametrize(metafunc)
