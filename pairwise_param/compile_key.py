"""``compile_key=``: the kernel variant of a row derived from several compile-axis values.

A model's ``compile_axes`` name the axes whose values select a kernel variant; by
default every combination of their values is its own variant.  A kernel often
compiles fewer: RoPE's ``rope_dim`` selects only a block-size bucket
(``next_power_of_2``), so 64 and 128 share a variant.  ``compile_key`` is a function of
(some of) the compile axes' values, by parameter name, returning a hashable key; equal
keys are one variant.  It is evaluated here, once per combination of the compile axes'
values (the front end: the engine sees only the resulting partition,
:attr:`pairwise_param.model.IndexModel.compile_classes`).
"""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pairwise_param.axis import Axis
from pairwise_param.errors import InvalidArgument

__all__ = ["MAX_VARIANT_PRODUCT", "compile_classes", "row_variant"]

#: The compile axes' value combinations are enumerated; past this many the declaration
#: is refused with the fix (the engine's limit too: :mod:`pairwise_param.engine.variants`).
MAX_VARIANT_PRODUCT = 1 << 16


def compile_classes(
    model_axes: Sequence[Axis], axes: tuple[int, ...], key: Callable[..., Any] | None, where: str | None
) -> tuple[int, ...]:
    """The variant id of each combination of the compile axes' values
    (``itertools.product`` order; dense ids, first seen first) under ``key``; ``()``
    without a key or when it merges no two combinations (the model is then the one
    without a key, its fingerprint included)."""
    if key is None:
        return ()
    if not callable(key) or not axes:
        raise InvalidArgument(f"compile_key={key!r} needs compile_axes= and must be a function of their "
                              "values (by parameter name) returning a hashable variant key", where=where)
    names: dict[str, tuple[int, int | None]] = {}
    for a in axes:  # an axis's name binds its value; a grouped axis's names bind their parts
        names[model_axes[a].name] = (a, None)
        if model_axes[a].grouped:
            names.update((n, (a, j)) for j, n in enumerate(model_axes[a].names))
    try:
        params = list(inspect.signature(key).parameters.values())
    except (TypeError, ValueError):
        params = [inspect.Parameter("kw", inspect.Parameter.VAR_KEYWORD)]
    if any(p.kind is p.VAR_KEYWORD for p in params):
        wants = list(names)
    else:  # a parameter with a default that is no compile axis keeps its default
        wants = [p.name for p in params if p.name in names or p.default is p.empty]
    unknown = [n for n in wants if n not in names]
    if unknown:
        raise InvalidArgument(f"compile_key's parameter {unknown[0]!r} is not a compile axis (compile axes: "
                              f"{', '.join(names)}); add it to compile_axes or drop it from the key", where=where)
    sizes = [len(model_axes[a].values) for a in axes]
    total = 1
    for s in sizes:
        total *= s
    if total > MAX_VARIANT_PRODUCT:
        raise InvalidArgument(f"compile_axes span {total} value combinations (limit {MAX_VARIANT_PRODUCT}); declare "
                              "only the axes whose values select a kernel variant", where=where)
    ids: dict[Any, int] = {}
    out: list[int] = []
    for combo in itertools.product(*(range(s) for s in sizes)):
        at = dict(zip(axes, combo))
        kwargs: dict[str, Any] = {}
        for n in wants:
            a, j = names[n]
            value = model_axes[a].values[at[a]]
            kwargs[n] = value if j is None else value[j]
        try:
            out.append(ids.setdefault(key(**kwargs), len(ids)))
        except Exception as exc:  # noqa: BLE001 - a user function: named with its arguments, fail closed
            args = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
            raise InvalidArgument(f"compile_key({args}) failed or returned an unhashable key "
                                  f"({type(exc).__name__}: {exc}); return a tuple of plain values", where=where) from None
    return tuple(out) if len(ids) < len(out) else ()


def row_variant(model: Any, row: Mapping[str, Any]) -> tuple[int, ...]:
    """The variant (:meth:`pairwise_param.model.IndexModel.variant`) of a row given by
    its argument values (a collected item's ``{argname: value}``); ``model``: a
    :class:`pairwise_param.model.Model` (not imported: the model imports this module)."""
    cells: list[int | None] = [None] * len(model.axes)
    for a in model.compile_axes:
        axis = model.axes[a]
        cells[a] = axis.index_of(tuple(row.get(n) for n in axis.names) if axis.grouped else row.get(axis.name))
    variant: tuple[int, ...] = model.index_model.variant(cells)
    return variant
