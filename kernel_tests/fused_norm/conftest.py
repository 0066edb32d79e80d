"""The fused-norm family's ``backend`` parameter: Triton always, sglang's FlyDSL kernels
(native) when importable; ``--kernel-backend`` (root conftest) picks."""

from __future__ import annotations

import pytest

from kernel_tests.fused_norm.backend import load_triton
from kernel_tests.fused_norm.native import load_native
from kernel_tests.support.backends import BackendSelector

_BACKENDS = BackendSelector("fused_norm", {"triton": load_triton, "native": load_native})


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    _BACKENDS.parametrize(metafunc)
