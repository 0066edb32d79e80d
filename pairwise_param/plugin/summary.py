"""The plugin's numbers and per-row data, imported only in a session that
collected some ``@pairwise`` test (:mod:`pairwise_param.plugin.hooks` stays
small: pytest imports, and without cached bytecode compiles, it in every run).

* :func:`summarize` and :func:`summary_line` -- the terminal summary line;
* :func:`row_values` -- a row's axis values, for JUnit XML properties and the
  report section of each item;
* :func:`item_rows` -- which row of each of its test's tables an item runs;
* :class:`Deselected` -- the items a selection (``-k``, ``-m``) took out of the suite.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from pairwise_param.contract import INVALID_MARK, MODES

if TYPE_CHECKING:
    import pytest

    from pairwise_param.plugin.expand import Record

__all__ = [
    "ROW_PROPERTY_PREFIX", "ROW_SECTION", "Deselected", "item_rows", "row_values", "summarize", "summary_line",
    "test_base",
]

#: prefix of the JUnit XML properties, and the key of the report section, of a row's values
ROW_PROPERTY_PREFIX = "pairwise."
ROW_SECTION = "pairwise-param row"


def test_base(item: Any) -> str | None:
    """The node id of the test function an item was generated from (the key of the
    plugin's records: ``path::Class::test``), or None for an item that is not one
    (a doctest, a unittest case)."""
    name = getattr(item, "originalname", None)
    parent = getattr(item, "parent", None)
    if name is None or parent is None:
        return None
    return f"{parent.nodeid}::{name}"


class Deselected:
    """The ``@pairwise`` items each ``pytest_deselected`` call drops while the session's
    items are chosen (registered by the plugin's ``pytest_collection_modifyitems`` for
    the rest of the collection): ``-k``, ``-m``, ``--lf`` take items out of the suite
    every shard counts, pytest-split's split (its last call) does not."""

    def __init__(self, records: Mapping[str, Any]) -> None:
        self.records = records
        #: per call, how many of its items were @pairwise items
        self.calls: list[int] = []

    def pytest_deselected(self, items: Sequence[Any]) -> None:
        self.calls.append(sum(1 for item in items if test_base(item) in self.records))

    def finish(self, session: pytest.Session, counted: int | None) -> int | None:
        """At the collection's end: unregistered, and :meth:`selected` of the session's items."""
        manager = session.config.pluginmanager
        manager.unregister(self)
        if counted is None:
            return None
        kept = sum(1 for item in session.items if test_base(item) in self.records)
        return self.selected(counted, kept, manager.has_plugin("pytestsplitplugin"))

    def selected(self, counted: int, kept: int, split: bool) -> int | None:
        """``counted`` (the @pairwise items before any choice) less those a selection
        dropped; ``kept``: the @pairwise items left to run; ``split``: pytest-split chose
        this shard's part (its call, the last, is the split and is not subtracted).  None
        (unknown) where a splitter removed items without saying so (pytest-shard) and a
        selection dropped some too: it chose among the splitter's part only, so how many
        of the whole suite it keeps is not known here."""
        calls = self.calls[:-1] if split else self.calls
        dropped = sum(calls)
        told = dropped + (self.calls[-1] if split and self.calls else 0)
        if dropped and kept < counted - told:
            return None
        return counted - dropped


def item_rows(item: Any, recs: list[Record]) -> list[int] | None:
    """The row index of each of the test's tables (``recs``, in table order) that
    ``item`` runs (:meth:`~pairwise_param.plugin.expand.Record.row_of`), or None for an
    item that is not a row of each of them (no ``callspec``, another parametrization)."""
    params = getattr(getattr(item, "callspec", None), "params", None)
    if params is None or not recs:
        return None
    rows = [rec.row_of(params) for rec in recs]
    return None if None in rows else [r for r in rows if r is not None]


def row_values(item: pytest.Item, records: dict[str, list[Record]]) -> list[tuple[str, str]]:
    """(argument name, value label) of the item's ``@pairwise`` rows, in table order:
    each table's arguments (axes, then derived= values) as the item received them."""
    from pairwise_param.values import value_label

    base = test_base(item)
    recs = records.get(base) if base is not None else None
    params = getattr(getattr(item, "callspec", None), "params", None)
    if not recs or params is None or item_rows(item, recs) is None:
        return []
    return [(name, value_label(params[name])) for rec in recs for name in rec.argnames if name in params]


def summarize(items: list[Any], records: dict[str, list[Record]], tables: Any) -> dict[str, Any]:
    """The numbers of the summary line: the items that come from tables (after
    selection), how many tables, what the full product would run, strengths,
    modes, the t-tuples constraints forbid, and the table cache's counts.  Items
    holding an invalid value (the negative part) are counted apart: they stand
    for themselves, not for a share of the full product."""
    per_test: dict[str, int] = {}
    n_invalid = 0
    # only a table with invalid values has items holding one (their marks are read only there)
    negative = {base for base, recs in records.items() if any(r.invalid_rows for r in recs)}
    for item in items:
        base = test_base(item)
        if base is not None and base in records:
            if base in negative and item.get_closest_marker(INVALID_MARK) is not None:
                n_invalid += 1
                continue
            per_test[base] = per_test.get(base, 0) + 1
    n_items = 0
    n_tables = 0
    stand_for = Fraction(0)  # exact: a 3^700 product divided by its rows is past any float
    exact = True
    strengths: set[int] = set()
    modes_used: set[str] = set()
    infeasible: list[list[Any]] = []
    invalid_infeasible = [[base, r.invalid_infeasible] for base, recs in records.items() for r in recs
                          if r.invalid_infeasible]
    for base, count in per_test.items():
        recs = records[base]
        factor = Fraction(1)
        for r in recs:
            factor *= Fraction(r.full, max(1, r.rows))
            exact = exact and r.full_exact
            strengths.add(r.strength)
            modes_used.add(r.mode)
            if r.infeasible:
                infeasible.append([base, r.n_infeasible, r.infeasible])
            if r.absent_text:
                infeasible.append([base, len(r.absent_tuples), f"skipped at collection ({_absent_reasons(r)}): {r.absent_text}"])
        n_items += count
        n_tables += len(recs)
        stand_for += count * factor
    stats = dict(tables.stats) if tables is not None else {"built": 0, "disk": 0, "memo": 0}
    return {
        "items": n_items,
        "tables": n_tables,
        "full": round(stand_for),
        # False: some table's count is an upper bound (pairwise_param.tables.product.Count)
        "full_exact": exact,
        "strengths": sorted(strengths),
        "modes": sorted(modes_used),
        "infeasible": infeasible,
        "invalid": n_invalid,
        "invalid_infeasible": invalid_infeasible,
        "cache": stats,
    }


def _absent_reasons(rec: Record) -> str:
    """``dtype=bf16: no bf16 here; ...``: the values left out of a table and why."""
    from pairwise_param.values import value_label

    axes = rec.model.axes
    return "; ".join(f"{axes[a].name}={value_label(axes[a].values[v])}: {why}" for a, v, why in rec.absent)


def summary_line(summary: dict[str, Any], why: str = "") -> str:
    """The line; ``why``: what set the run's mode (``modes.mode_why``), shown after it so
    that a CI log says which mode ran and why (``mode=full (pairwise_full_when: env
    SGLANG_JIT_KERNEL_RUN_FULL_TESTS=1)``)."""
    items, full = summary["items"], summary["full"]
    ts = summary["strengths"]
    t = f"t={ts[0]}" if len(ts) == 1 else f"t={ts[0]}..{ts[-1]}"
    mode = "" if summary["modes"] == [MODES[0]] and not why else f", mode={'+'.join(summary['modes'])}"
    mode += f" ({why})" if why else ""
    from pairwise_param.tables.product import big_int_text, reduction_text

    ratio = reduction_text(full, items) if items else "1.0x"
    bound = not summary.get("full_exact", True)
    stand = f"at most {big_int_text(full)}" if bound else big_int_text(full)
    fewer = f"up to {ratio}" if bound else ratio
    tables = summary["tables"]
    n_invalid = summary.get("invalid", 0)
    negative = (
        f"; + {n_invalid} invalid-value item{'s' if n_invalid != 1 else ''} (one invalid value each)"
        if n_invalid else ""
    )
    n_variants = summary.get("variants")
    compiled = "" if n_variants is None else f", {n_variants} variant{'s' if n_variants != 1 else ''} (compile_axes)"
    return (
        f"pairwise-param: {items} item{'s' if items != 1 else ''} from {tables} table{'s' if tables != 1 else ''} "
        f"stand for {stand} full-product items ({fewer} fewer), {t}{mode}{compiled}{negative}"
    )
