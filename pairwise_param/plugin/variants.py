"""Running a compile-aware table variant by variant (``compile_axes=`` of ``@pairwise``).

A row's *variant* is its values on the table's compile axes (with ``compile_key=``,
the first combination with its key: :meth:`pairwise_param.model.IndexModel.variant`):
the kernel specialization it compiles.  Loaded only in a session that collected such a table
(:mod:`pairwise_param.plugin.hooks` asks first):

* :func:`group_items` -- the items of one test are reordered so that the items of
  one variant run consecutively (stable: first-seen variant first, the items of a
  variant in their collected order); with pytest-xdist loaded, each such item gets an
  ``xdist_group`` mark named after its test and variant, so that ``--dist loadgroup``
  keeps a variant on one worker (automatic: the mark does nothing under the other
  ``--dist`` modes);
* :func:`variant_counts` -- the variants the collected items compile, per test, for the
  summary line and the run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pairwise_param.plugin.summary import item_rows, test_base

if TYPE_CHECKING:
    from pairwise_param.plugin.expand import Record

__all__ = ["compile_aware", "group_items", "variant_counts"]

#: pytest-xdist's mark for ``--dist loadgroup``
XDIST_GROUP = "xdist_group"


def compile_aware(records: dict[str, list[Record]]) -> bool:
    """Does some collected table declare compile axes?"""
    return any(r.model is not None and r.model.compile_axes for recs in records.values() for r in recs)


def _variant(item: Any, recs: list[Record]) -> tuple[tuple[int, ...], ...] | None:
    """The item's variant: per compile-aware table of its test, the row's values on the
    compile axes; None for an item of no such table."""
    rows = item_rows(item, recs)
    if rows is None:
        return None
    key = tuple(
        rec.model.index_model.variant(rec.rows_run[row])
        for rec, row in zip(recs, rows)
        if rec.model is not None and rec.model.compile_axes
    )
    return key or None


def variant_label(recs: list[Record], key: tuple[tuple[int, ...], ...]) -> str:
    """``dtype=float16,has_bias=True``: a variant in words."""
    from pairwise_param.values import value_label

    parts: list[str] = []
    tables = [rec for rec in recs if rec.model is not None and rec.model.compile_axes]
    for rec, values in zip(tables, key):
        axes = rec.model.axes
        parts.extend(f"{axes[a].name}={value_label(axes[a].values[v])}" for a, v in zip(rec.model.compile_axes, values))
    return ",".join(parts)


def group_items(items: list[Any], records: dict[str, list[Record]], xdist: bool) -> list[Any]:
    """``items`` with each test's items of one variant consecutive (see the module)."""
    import pytest

    out: list[Any] = []
    block: list[Any] = []
    block_base: str | None = None

    def flush() -> None:
        recs = records.get(block_base or "")
        if not recs or not any(r.model is not None and r.model.compile_axes for r in recs):
            out.extend(block)
            return
        order: dict[Any, int] = {}
        keyed = []
        for item in block:
            key = _variant(item, recs)
            rank = order.setdefault(key, len(order))
            keyed.append((rank, item))
            if xdist and key is not None:
                item.add_marker(getattr(pytest.mark, XDIST_GROUP)(name=f"{block_base}[{variant_label(recs, key)}]"))
        keyed.sort(key=lambda pair: pair[0])  # stable: collected order within a variant
        out.extend(item for _, item in keyed)

    for item in items:
        base = test_base(item)
        if base != block_base:
            flush()
            block, block_base = [], base
        block.append(item)
    flush()
    return out


def variant_counts(items: list[Any], records: dict[str, list[Record]]) -> dict[str, int]:
    """Per compile-aware test, the number of distinct variants its collected items run."""
    seen: dict[str, set[Any]] = {}
    for item in items:
        base = test_base(item)
        recs = records.get(base) if base is not None else None
        if not recs:
            continue
        key = _variant(item, recs)
        if key is not None:
            seen.setdefault(base, set()).add(key)  # type: ignore[arg-type]
    return {base: len(keys) for base, keys in seen.items()}
