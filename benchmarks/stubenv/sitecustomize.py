"""Stub modules for the CUDA-only imports of public kernel suites (collection on a CPU box).

``benchmarks/real_suites.py`` puts this folder first on ``PYTHONPATH``, so every Python
process it starts (pytest, ``pairwise-param report``) runs this file at start-up.  It
installs two import finders, configured by environment variables:

* ``PWSTUB_FORCE`` (comma-separated top-level names: the suite's own compiled packages,
  ``vllm``, ``flash_attn_2_cuda``, ``aiter`` ...): always a stub, even when the checkout
  holds the package's sources (they would pull in its C extensions);
* ``PWSTUB_ROOTS`` (``os.pathsep``-separated folders: the checkouts): any module that is
  NOT installed and is imported by a file under one of these folders becomes a stub.
  Imports made by pytest, plugins or installed libraries are left alone, so their own
  ``try: import x / except ImportError`` probes still see the truth.

A stub is a class whose every attribute, call, item and arithmetic result is another
stub; it is falsy, iterates as empty, converts to 0, works as a base class, a context
manager and a pass-through decorator (``@stub`` / ``@stub(...)`` on a function returns
the function).  That is enough for module-level code of test files to run and for
``parametrize`` decorators to be evaluated; values computed from a stub are stubs
(a parametrize over ``stub_module.DTYPES`` collects as an empty list).

``PWSTUB_FAKE_CUDA=1`` also makes ``torch.cuda.is_available()`` true (device count 1,
capability ``PWSTUB_CAPABILITY``, default ``9.0``), so that module-level
``pytest.skip(allow_module_level=True)`` guards let the file collect; code that really
allocates on the GPU at import still fails, as a collection error of that file.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys
import types
from typing import Any

_FORCE = {n for n in os.environ.get("PWSTUB_FORCE", "").split(",") if n}
_ROOTS = tuple(os.path.realpath(r) + os.sep for r in os.environ.get("PWSTUB_ROOTS", "").split(os.pathsep) if r)
STUBBED: list[str] = []  # names stubbed in this process (for diagnostics)


class _StubMeta(type):
    def __getattr__(cls, name: str) -> Any:
        if name == "__version__":
            return VERSION
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _child(cls, name)

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and not kwargs and callable(args[0]) and not isinstance(args[0], _StubMeta):
            return args[0]  # used as a decorator
        return _child(cls, "()")

    def __iter__(cls) -> Any:
        return iter(())

    def __bool__(cls) -> bool:
        return False

    def __len__(cls) -> int:
        return 0

    def __index__(cls) -> int:
        return 0

    __int__ = __index__

    def __float__(cls) -> float:
        return 0.0

    def __getitem__(cls, key: Any) -> Any:
        return _child(cls, "[]")

    def __setitem__(cls, key: Any, value: Any) -> None:
        pass

    def __contains__(cls, item: Any) -> bool:
        return False

    def __enter__(cls) -> Any:
        return cls

    def __exit__(cls, *exc: object) -> None:
        return None

    def __repr__(cls) -> str:
        return f"<stub {cls.__qualname__}>"

    def __lt__(cls, other: Any) -> bool:
        return False

    __le__ = __gt__ = __ge__ = __lt__

    def __eq__(cls, other: object) -> bool:
        return cls is other

    def __hash__(cls) -> int:
        return id(cls)

    def _same(cls, *other: Any) -> Any:
        return cls

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _same
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __pow__ = __rpow__ = __matmul__ = _same
    __and__ = __rand__ = __or__ = __ror__ = __xor__ = __rxor__ = __lshift__ = __rshift__ = _same
    __neg__ = __pos__ = __invert__ = __abs__ = _same


def _child(parent: Any, name: str) -> Any:
    return _StubMeta(name, (), {"__qualname__": f"{parent.__qualname__}.{name}", "__module__": parent.__module__})


#: ``stub.__version__``: new enough for the suites' version gates (``packaging`` parses it).
VERSION = "99.0.0"


class _StubModule(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        if name == "__version__":
            return VERSION
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        value = _StubMeta(name, (), {"__qualname__": f"{self.__name__}.{name}", "__module__": self.__name__})
        setattr(self, name, value)
        return value


class _Loader(importlib.abc.Loader):
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        m = _StubModule(spec.name)
        m.__path__ = []  # a package: submodules are stubs too
        m.__all__ = []  # type: ignore[attr-defined]
        m.__file__ = f"<pwstub {spec.name}>"
        return m

    def exec_module(self, module: types.ModuleType) -> None:
        STUBBED.append(module.__name__)


def _spec(name: str) -> importlib.machinery.ModuleSpec:
    return importlib.machinery.ModuleSpec(name, _Loader(), is_package=True)


def _from_suite() -> bool:
    """Is the import being made by a file under one of the checkouts?"""
    f = sys._getframe(2)
    while f is not None:
        fn = f.f_code.co_filename
        if not (fn.startswith("<frozen") or "importlib" in fn or fn == __file__):
            return os.path.realpath(fn).startswith(_ROOTS) if _ROOTS else False
        f = f.f_back  # type: ignore[assignment]
    return False


class _Forced(importlib.abc.MetaPathFinder):
    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        return _spec(name) if name.split(".")[0] in _FORCE else None


class _Missing(importlib.abc.MetaPathFinder):
    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        parent = sys.modules.get(name.rpartition(".")[0]) if "." in name else None
        if isinstance(parent, _StubModule) or _from_suite():
            return _spec(name)
        return None


def _fake_cuda() -> None:
    import torch

    major, _, minor = os.environ.get("PWSTUB_CAPABILITY", "9.0").partition(".")
    cap = (int(major), int(minor or 0))
    props = types.SimpleNamespace(name="NVIDIA H100 (pwstub)", major=cap[0], minor=cap[1],
                                  multi_processor_count=132, total_memory=80 << 30, gcnArchName="")
    torch.cuda.is_available = lambda: True
    torch.cuda.device_count = lambda: 1
    torch.cuda.get_device_capability = lambda device=None: cap
    torch.cuda.get_device_name = lambda device=None: props.name
    torch.cuda.get_device_properties = lambda device=None: props  # type: ignore[assignment,return-value]
    torch.cuda.current_device = lambda: 0


if _FORCE:
    sys.meta_path.insert(0, _Forced())
if _ROOTS:
    sys.meta_path.append(_Missing())
if os.environ.get("PWSTUB_FAKE_CUDA") == "1":
    _fake_cuda()
