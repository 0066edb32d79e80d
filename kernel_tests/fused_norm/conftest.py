"""The fused-norm family's ``backend`` parameter: Triton always, sglang's FlyDSL kernels
(native) when importable; ``--kernel-backend`` (root conftest) picks."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pytest

from kernel_tests.fused_norm.backend import load_triton
from kernel_tests.fused_norm.cases import session_variants, table_variant
from kernel_tests.fused_norm.native import load_native
from kernel_tests.support.backends import BackendSelector

_BACKENDS = BackendSelector("fused_norm", {"triton": load_triton, "native": load_native})


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    _BACKENDS.parametrize(metafunc)


@pytest.fixture(scope="session")
def run_variant(request: pytest.FixtureRequest) -> Callable[..., dict[str, Any]]:
    """``cases.table_variant`` over the variants this session's tables run (computed once
    from the session's items: every xdist worker collects the same, so they agree)."""
    return functools.partial(table_variant, session=session_variants(request.session.items))
