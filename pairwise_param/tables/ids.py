"""Readable, unique, stable test ids for the rows of a pairwise table.

Four styles (``@pairwise(..., ids="readable"|"pytest"|"stacked"|"product-index")``, else the run's
``--pairwise-ids`` / ini ``pairwise_ids``, default ``readable``).

``readable``: a row of ``dtype=torch.bfloat16, padded_a=True, bias_mode=2`` gets the id
``dtype=bfloat16-padded_a=True-bias_mode=2``: every axis shows its name and a
short text for its value.  The rules (documented in ``docs/pytest.md``):

* ``torch.dtype`` -> its name without ``torch.`` (``bfloat16``, ``float16``);
* bools, ints, floats, ``None`` -> ``repr`` (``True``, ``2``, ``1e-05``, ``None``);
* strings -> the string itself (``''`` for the empty string);
* enum members -> the member name; functions and classes -> ``__name__``;
* tuples -> ``(a,b)`` with each element labelled by these rules; frozensets ->
  ``{a,b}`` with the labels sorted (their repr order depends on the hash seed);
  dicts -> ``{k:v,...}`` and lists -> ``[a,b]`` the same way (in their order);
* anything else -> its ``repr`` when that is short and free of memory
  addresses, else ``<TypeName>#<position of the value in its axis>``.

A grouped axis ``"n,k,m"`` shows each bound name: ``n=1-k=64-m=128``.

``pytest``: the ids ``@pytest.mark.parametrize`` gives each axis on its own
(pytest's default rules: strings, numbers, bools, ``None``, enum members and
named objects as text, anything else ``<argname><position in the axis>``:
``dtype0``), joined by ``-`` in axis order: ``True-2-dtype1``.  Stacked
parametrize decorators join their ids bottom decorator first, so write the axes
in that order to keep a dashboard's node ids.  Positions are the value's in
its axis (not the row's), so ``--pairwise-mode=full`` gives the same ids.

``stacked``: the node ids of the stacked ``parametrize`` decorators the axes were
written from, top decorator first (what ``pairwise-param convert`` writes): each
axis's ids as in the ``pytest`` style, joined LAST axis first (pytest applies the
bottom decorator first and puts its id first); in full mode the plugin also lists
the rows last axis slowest (:func:`stacked_order`), as stacked decorators do, so
``--pairwise-mode=full`` gives exactly the original node ids, in their order.

``product-index``: ``case-{index}``, the row's index in the full product of the axes
(first axis slowest, as ``itertools.product`` lists it): exactly the ids of flashinfer's
``parametrize_product`` helper (``tests/test_helpers/parametrize.py``), so a suite that
moves from it keeps the node ids its xfail reports and waiver lists key on.  The index
does not depend on which rows the table picked (cover and full mode agree), but it
shifts when an axis other than the first grows; ``readable`` ids (value text only)
survive a value appended to any axis (:func:`product_index`).

When two values of one axis would get the same text (``1`` and ``"1"``), each
of them gets its position appended (readable: ``1#0``, ``1#1``; pytest style:
pytest's own counter suffix, ``1_0``, ``1_1``), so ids are unique
without depending on anything but the axis values and their order, hence
stable across runs, processes and xdist workers.

Custom ids: a mapping ``{"dtype": fn}`` or ``{"dtype": ["fp16", "bf16"]}``
replaces the value text of that axis (in the readable style the ``name=``
prefix stays); a single callable is called as in ``parametrize``,
``fn(value)``, or as ``fn(argname, value)`` when it takes two required
positional parameters; it may return ``None`` to keep the default.
"""

from __future__ import annotations

import enum
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pairwise_param.values import value_id

if TYPE_CHECKING:
    IdsOption = Mapping[str, Any] | Callable[..., Any] | str | None

__all__ = ["axis_segments", "product_index", "pytest_value_id", "row_ids", "stacked_order", "value_id", "value_param_ids"]

#: pytest's limit for a string value shown as it is in an auto-generated id
_PYTEST_LONG_STR = 100


def _takes_argname(fn: Callable[..., Any]) -> bool:
    """``fn(argname, value)`` (our older form) when ``fn`` has two required positional
    parameters; else ``fn(value)`` as ``parametrize(ids=fn)`` calls it (builtins such
    as ``str``, whose signature cannot be read, included)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = [
        p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    ]
    return len(positional) == 2


def _custom(ids: IdsOption, axis: str, argname: str, value: Any, position: int) -> str | None:
    """The user's text for one value (``None``: the default rule applies)."""
    if ids is None or isinstance(ids, str):
        return None
    if callable(ids) and not isinstance(ids, Mapping):
        out = ids(argname, value) if _takes_argname(ids) else ids(value)
    else:
        fn = ids.get(argname, ids.get(axis))
        if fn is None:
            return None
        if isinstance(fn, (list, tuple)):
            out = fn[position] if position < len(fn) else None
        else:
            out = fn(value)
    return None if out is None else str(out)


def pytest_value_id(value: Any, argname: str, position: int) -> str:
    """The id ``parametrize`` gives ``value`` by default (pytest's rules, without its
    ``pytest_make_parametrize_id`` hook); ``position``: the value's in its axis."""
    if isinstance(value, (str, bytes)):
        if len(value) <= _PYTEST_LONG_STR:
            return value if isinstance(value, str) else value.decode("ascii", "backslashreplace")
    elif value is None or isinstance(value, (float, int, bool, complex, enum.Enum)):
        return str(value)
    elif isinstance(getattr(value, "__name__", None), str):
        return str(value.__name__)
    return f"{argname}{position}"


def _unique_readable(segments: list[str]) -> list[str]:
    # Appending the position can itself collide with another value's text (1, "1" and
    # "1#1" give x=1#0, x=1#1, x=1#1): repeat until unique.  Each pass gives the
    # colliding segments distinct suffixes, so this ends within len(values) passes.
    for _ in range(len(segments)):
        counts: dict[str, int] = {}
        for s in segments:
            counts[s] = counts.get(s, 0) + 1
        if all(c == 1 for c in counts.values()):
            break
        segments = [f"{s}#{pos}" if counts[s] > 1 else s for pos, s in enumerate(segments)]
    return segments


def _unique_pytest(segments: list[str]) -> list[str]:
    """pytest's own scheme for repeated ids: a counter suffix (``_`` before it when
    the id ends in a digit), skipping suffixed ids that already exist."""
    counts: dict[str, int] = {}
    for s in segments:
        counts[s] = counts.get(s, 0) + 1
    taken = set(segments)
    next_suffix: dict[str, int] = {}
    out = list(segments)
    for i, s in enumerate(segments):
        if counts[s] == 1:
            continue
        sep = "_" if s and s[-1].isdigit() else ""
        k = next_suffix.get(s, 0)
        while f"{s}{sep}{k}" in taken:
            k += 1
        out[i] = f"{s}{sep}{k}"
        taken.add(out[i])
        next_suffix[s] = k + 1
    return out


def axis_segments(
    names: Sequence[str],
    values: Sequence[Any],
    ids: IdsOption = None,
    style: str = "readable",
    fixed: Mapping[int, str] | None = None,
) -> list[str]:
    """One id segment per value of an axis, unique within the axis.

    ``names`` are the argument names the axis binds (one for a plain axis,
    several for a grouped axis whose values are tuples); ``style`` is
    ``readable`` or ``pytest``; ``fixed``: value position -> the text of a
    value given as ``pytest.param(value, id=...)`` (it wins over ``ids``).
    """
    axis = ",".join(names)
    pytest_style = style in ("pytest", "stacked")
    segments: list[str] = []
    for pos, value in enumerate(values):
        given = (fixed or {}).get(pos)
        if given is not None:
            segments.append(given if pytest_style or len(names) > 1 else f"{names[0]}={given}")
            continue
        whole = _custom(ids, axis, axis, value, pos) if len(names) > 1 else None
        if whole is not None:
            segments.append(whole)
            continue
        parts = []
        for n, v in zip(names, (value,) if len(names) == 1 else value):
            custom = _custom(ids, axis, n, v, pos)
            if pytest_style:
                parts.append(custom if custom is not None else pytest_value_id(v, n, pos))
            else:
                parts.append(f"{n}={custom if custom is not None else value_id(v, pos)}")
        segments.append("-".join(parts))
    return _unique_pytest(segments) if pytest_style else _unique_readable(segments)


def row_ids(
    axes: Sequence[tuple[Sequence[str], Sequence[Any]]],
    index_rows: Sequence[Sequence[int]],
    ids: IdsOption = None,
    style: str = "readable",
    fixed: Sequence[Mapping[int, str]] = (),
) -> list[str]:
    """Ids of index rows; ``axes`` is ``[(bound names, values), ...]`` in axis order;
    ``fixed[a]``: the ``pytest.param(..., id=)`` texts of axis ``a`` (see :func:`axis_segments`).

    Distinct rows always get distinct ids (segments are unique per axis).
    """
    if style == "product-index":
        sizes = [len(values) for _, values in axes]
        return [f"case-{product_index(sizes, row)}" for row in index_rows]
    per_axis = [
        axis_segments(names, values, ids, style, fixed[a] if a < len(fixed) else None)
        for a, (names, values) in enumerate(axes)
    ]
    if style == "stacked":
        return ["-".join(per_axis[a][row[a]] for a in reversed(range(len(row)))) for row in index_rows]
    return ["-".join(per_axis[a][v] for a, v in enumerate(row)) for row in index_rows]


def product_index(sizes: Sequence[int], row: Sequence[int]) -> int:
    """The position of the index row ``row`` in the full product of axes of ``sizes``,
    first axis slowest (``itertools.product`` order): flashinfer's ``case_index``."""
    index = 0
    for size, v in zip(sizes, row, strict=True):
        index = index * size + v
    return index


def stacked_order(index_rows: Sequence[Sequence[int]]) -> list[int]:
    """Positions of ``index_rows`` in the order stacked ``parametrize`` decorators
    (top decorator = first axis) give their product: the last axis slowest, the
    first fastest (pytest applies the bottom decorator first)."""
    return sorted(range(len(index_rows)), key=lambda i: tuple(reversed(index_rows[i])))


def value_param_ids(extra: Sequence[Mapping[int, tuple[Any, str | None]]]) -> list[dict[int, str]]:
    """Per axis, value position -> the ``id=`` of values given as
    ``pytest.param(value, id=...)`` (``extra[a]``: position -> (marks, id))."""
    return [{pos: text for pos, (_, text) in per_value.items() if text is not None} for per_value in extra]
