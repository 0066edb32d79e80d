"""pairwise-param: covering test tables for the option axes of kernel tests.

This module only re-exports the public names (errors stay in
:mod:`pairwise_param.errors`, except their base :class:`PairwiseError`); see
the documentation for the user guide and ``docs/architecture.md`` for where
each name lives.  The re-exports are lazy (PEP 562): ``import pairwise_param``
loads nothing but this file, so the pytest plugin, which pytest imports in
every run, stays cheap; a name's module is imported when the name is first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pairwise_param._version import __version__

if TYPE_CHECKING:
    from pairwise_param.axis import Axis
    from pairwise_param.coverage import CoverageReport, audit_rows, measure
    from pairwise_param.decorator import PairwiseSpec, pairwise
    from pairwise_param.errors import PairwiseError
    from pairwise_param.model import Model
    from pairwise_param.tables.covering import CoveringArray, cover
    from pairwise_param.tables.invalid import InvalidCase, invalid

#: public name -> the module that defines it
_HOMES = {
    "Axis": "pairwise_param.axis",
    "CoverageReport": "pairwise_param.coverage",
    "CoveringArray": "pairwise_param.tables.covering",
    "InvalidCase": "pairwise_param.tables.invalid",
    "Model": "pairwise_param.model",
    "PairwiseError": "pairwise_param.errors",
    "PairwiseSpec": "pairwise_param.decorator",
    "audit_rows": "pairwise_param.coverage",
    "cover": "pairwise_param.tables.covering",
    "invalid": "pairwise_param.tables.invalid",
    "measure": "pairwise_param.coverage",
    "pairwise": "pairwise_param.decorator",
}

__all__ = [
    "Axis",
    "CoverageReport",
    "CoveringArray",
    "InvalidCase",
    "Model",
    "PairwiseError",
    "PairwiseSpec",
    "__version__",
    "audit_rows",
    "cover",
    "invalid",
    "measure",
    "pairwise",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'pairwise_param' has no attribute {name!r}")
    import importlib

    # not cached here: the defining module in sys.modules stays the one source (a test
    # harness that unloads and re-imports modules, as pytester does, gets fresh objects)
    return getattr(importlib.import_module(home), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
