"""The ``backend`` parameter of a kernel family: which implementations its tests run.

Each family lists its loaders (name -> zero-argument function returning the family's
backend object, or raising :class:`BackendUnavailable` with the requirement) and
hands them to a :class:`BackendSelector` in its own ``conftest.py``::

    _BACKENDS = BackendSelector("rmsnorm", {"triton": load_triton, "native": load_native})

    def pytest_generate_tests(metafunc):
        _BACKENDS.parametrize(metafunc)

The root conftest's ``--kernel-backend={triton,native,all}`` picks the names. Default
(or ``all``): every backend that loads here. A backend named explicitly but missing is
not dropped silently: its cases are reported as skipped, with the requirement as the
reason. Each loader runs at most once per process.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pytest

#: Backend names every family understands (``--kernel-backend`` choices, plus ``all``).
BACKEND_NAMES = ("triton", "native")
OPTION = "kernel_backend"


class BackendUnavailable(RuntimeError):
    """Raised by a family's loader when that backend cannot run here; the message names
    the requirement (it becomes the skip reason)."""


class BackendSelector:
    """Loads a family's backends lazily and parametrizes the ``backend`` argument."""

    def __init__(self, family: str, loaders: Mapping[str, Callable[[], object]]) -> None:
        unknown = [name for name in loaders if name not in BACKEND_NAMES]
        if unknown:
            raise ValueError(f"BackendSelector({family!r}): unknown backend names {unknown}; "
                             f"expected some of {', '.join(BACKEND_NAMES)}")
        self.family = family
        self._loaders = dict(loaders)
        self._loaded: dict[str, object] = {}
        self._reasons: dict[str, str] = {}

    def load(self, name: str) -> tuple[object | None, str]:
        """(backend, "") when ``name`` runs here, else (None, the requirement)."""
        if name not in self._loaders:
            return None, f"the {self.family} family has no {name!r} backend"
        if name not in self._loaded and name not in self._reasons:
            try:
                self._loaded[name] = self._loaders[name]()
            except BackendUnavailable as exc:
                self._reasons[name] = str(exc)
        if name in self._loaded:
            return self._loaded[name], ""
        return None, self._reasons[name]

    def params(self, choice: str | None) -> list[object]:
        """``pytest.param`` values for ``--kernel-backend=choice`` (None: the default)."""
        names = tuple(self._loaders) if choice in (None, "all") else (choice,)
        params: list[object] = []
        for name in names:
            backend, reason = self.load(name)
            if backend is not None:
                params.append(pytest.param(backend, id=name))
            elif choice is not None:  # asked for explicitly: show it as skipped, with the reason
                params.append(pytest.param(None, id=name, marks=pytest.mark.skip(reason=reason)))
        return params

    def parametrize(self, metafunc: pytest.Metafunc, argname: str = "backend") -> None:
        """Parametrize ``argname`` of every test that asks for it."""
        if argname in metafunc.fixturenames:
            metafunc.parametrize(argname, self.params(metafunc.config.getoption(OPTION)))
