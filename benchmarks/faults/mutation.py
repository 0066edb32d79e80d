"""Source-text mutations of a kernel module, loaded as a separate module (never a switch
in shipped code): the original module stays imported and untouched.

The mutated source is written to a file (Triton's ``@jit`` reads a kernel's source
through :mod:`inspect`, which needs one) and imported under a unique module name, so
the suite's backend record can be built from the copy's functions.
"""

from __future__ import annotations

import importlib.util
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType


class MutationError(ValueError):
    """A mutation's original snippet is not found exactly once in the kernel source."""


@dataclass(frozen=True)
class Mutation:
    """Replace ``original`` (which must occur exactly once) by ``mutated``."""

    original: str
    mutated: str


def apply(source: str, mutations: tuple[Mutation, ...], where: str) -> str:
    """``source`` with every mutation applied in order; each original snippet must occur
    exactly once (else :class:`MutationError` naming the fault and the count)."""
    for i, mut in enumerate(mutations):
        count = source.count(mut.original)
        if count != 1:
            raise MutationError(f"{where}: mutation {i}: the original snippet occurs {count} times "
                                f"(expected exactly once): {mut.original!r}")
        if mut.original == mut.mutated:
            raise MutationError(f"{where}: mutation {i} changes nothing: {mut.original!r}")
        source = source.replace(mut.original, mut.mutated)
    return source


_TMP: list[tempfile.TemporaryDirectory[str]] = []


def _tmpdir() -> Path:
    if not _TMP:
        _TMP.append(tempfile.TemporaryDirectory(prefix="pairwise-faults-"))
    return Path(_TMP[0].name)


def load_module(module_name: str, mutations: tuple[Mutation, ...], tag: str) -> ModuleType:
    """Import a copy of ``module_name`` (e.g. ``kernel_tests.rope.kernels``) with
    ``mutations`` applied, as a new module named after ``tag``; with no mutations the
    copy is the original source (the sanity baseline goes through the same path)."""
    spec = importlib.util.find_spec(module_name)
    if spec is None or spec.origin is None:
        raise MutationError(f"{tag}: cannot find module {module_name}")
    source = Path(spec.origin).read_text()
    mutated = apply(source, mutations, tag) if mutations else source
    safe = "".join(c if c.isalnum() else "_" for c in tag)
    name = f"_pairwise_fault_{safe}"
    path = _tmpdir() / f"{name}.py"
    path.write_text(mutated)
    mspec = importlib.util.spec_from_file_location(name, path)
    assert mspec is not None and mspec.loader is not None
    module = importlib.util.module_from_spec(mspec)
    sys.modules[name] = module
    mspec.loader.exec_module(module)
    return module
