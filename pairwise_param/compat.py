"""``@pairwise`` for suites that must run without our pytest plugin.

``from pairwise_param.compat import pairwise`` is :func:`pairwise_param.pairwise`
while the plugin is active.  Where it is not (``-p no:pairwise_param``, plugin
autoload off and no opt-in), a ``@pairwise`` test would fail ("fixture
'_pairwise_param_plugin' not found": nothing expands its table); this one degrades
instead to a plain ``pytest.mark.parametrize`` of the full product (minus the rows a
constraint forbids: what ``--pairwise-mode=full`` runs, with the same readable ids,
``derived=`` values and ``indirect=``) and says so with a
:class:`~pairwise_param.errors.PairwiseWarning`, so the suite still collects and runs
every row.  Options only a covering table uses (strength, effort, seed) do not change a
full product; a custom ``ids=`` gives way to the readable ids.

For a suite where the package itself may be absent, the documented shim
(``docs/how-to/without-the-package.md``) tries this import and falls back to a few
lines of plain ``parametrize``.

Whether the plugin is active is decided when the decorator is applied (the test
module is imported during collection, after pytest configured its plugins): the
hooks module counts the sessions that configured it (``plugin/hooks.sessions``), read
here through ``sys.modules``: importing the hooks module would not make it active, so
it is never imported from here.  One pytest session per process is the usual case; an
in-process nested session (``pytester.runpytest()`` inline) sees the outer one's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar, cast

from pairwise_param.decorator import RESERVED
from pairwise_param.decorator import pairwise as _pairwise

__all__ = ["pairwise", "plugin_active"]

F = TypeVar("F", bound=Callable[..., Any])

_HOOKS = "pairwise_param.plugin.hooks"


def plugin_active() -> bool:
    """Is the pytest plugin configured in a session of this process (so a ``pairwise``
    mark will be expanded)?"""
    import sys

    hooks = sys.modules.get(_HOOKS)
    sessions = getattr(hooks, "sessions", None)
    return callable(sessions) and int(sessions()) > 0


def pairwise(axes_mapping: Mapping[str, Iterable[Any]] | None = None, /, **kwargs: Any) -> Callable[[F], F]:
    """:func:`pairwise_param.pairwise` (same arguments), or, when the plugin is not
    active, a plain ``parametrize`` of the full product with a warning."""
    real = _pairwise(axes_mapping, **kwargs)  # a bare @pairwise is refused here, as there

    def apply(obj: F) -> F:
        __tracebackhide__ = True
        if plugin_active():
            return real(obj)
        return _full_product(obj, axes_mapping, kwargs)

    return apply


def _full_product(obj: F, axes_mapping: Mapping[str, Iterable[Any]] | None, kwargs: Mapping[str, Any]) -> F:
    import inspect
    import warnings

    import pytest

    from pairwise_param.errors import PairwiseWarning
    from pairwise_param.tables.covering import cover

    where = f"{getattr(obj, '__module__', '?')}::{getattr(obj, '__qualname__', repr(obj))}"
    options = {k: v for k, v in kwargs.items() if k in RESERVED}
    axes = {**(dict(axes_mapping) if axes_mapping is not None else {}),
            **{k: v for k, v in kwargs.items() if k not in RESERVED}}
    table = cover(
        axes,
        constraints=options.get("constraints", ()),
        include=options.get("include", ()),
        sub_models=options.get("sub_models", ()),
        mode="full",
        where=where,
    )
    warnings.warn(
        PairwiseWarning(
            f"{where}: the pairwise-param pytest plugin is not active (-p no:pairwise_param?), so "
            f"@pairwise runs the full product: {len(table)} rows as plain parametrize; enable the "
            "plugin to run the covering table"
        ),
        stacklevel=3,
    )
    indirect = options.get("indirect", False)
    derived: Mapping[str, Callable[..., Any]] = options.get("derived") or {}
    if not derived:
        return cast(F, table.parametrize(indirect=indirect)(obj))
    names = list(table.argnames)
    wanted = {name: [p for p in inspect.signature(fn).parameters if p in names] for name, fn in derived.items()}
    rows = []
    for values, row_id in zip(table.argvalues(), table.ids()):
        row = dict(zip(names, values))
        extra = [fn(**{p: row[p] for p in wanted[name]}) for name, fn in derived.items()]
        rows.append(pytest.param(*values, *extra, id=row_id))
    return cast(F, pytest.mark.parametrize([*names, *derived], rows, indirect=indirect)(obj))
