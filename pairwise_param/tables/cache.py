"""Tables for the plugin: build (cover or full mode) or load from an on-disk cache.

A :class:`Table` holds index rows (value indices per axis, must-include rows
first), the t-tuples constraints make impossible, and the number of feasible
rows of the full product.  :func:`table_key` is a pure function of everything
the rows depend on: the model fingerprint (sizes, strength, interactions,
exclusions, include rows), ``ENGINE_VERSION``, the mode, effort and seed, and
the entry format.  A cache miss therefore recomputes exactly what a hit
would have returned (the engine is deterministic).

:class:`TableCache` stores one JSON entry per table through any object with
pytest's ``Cache.get(key, default)`` / ``Cache.set(key, value)`` interface
(``config.cache``), under ``pairwise_param/tables/<key>``.  Every loaded entry
is checked before use: format, engine version, fingerprint, shape, value
ranges, a digest of everything the engine produced (so a dropped row, a
changed count or a truncated list is caught), and then semantically: no row
breaks a constraint, the include rows come first, and every t-tuple of every
scope is either covered by a row or listed as infeasible, each listed one
truly impossible (:func:`_covers`).  Anything unexpected (corrupted or
deeply nested JSON, an older format, a foreign engine version) is ignored and
rebuilt, then overwritten.  Writes
racing between xdist workers are harmless: all write the same bytes, and a
torn read fails JSON parsing and is rebuilt.

Full mode needs no engine: its rows are :func:`pairwise_param.tables.product.full_rows`
(the full product minus rows that break a constraint); it is not cached.
Cover mode runs the engine through :func:`pairwise_param.tables.covering.run_engine`,
the same function ``cover()`` uses, so both return the same rows.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from pairwise_param.model import Model
from pairwise_param.tables.product import feasible_count, full_rows

if TYPE_CHECKING:
    from pairwise_param.engine import TupleRef

__all__ = ["FORMAT", "Table", "TableCache", "build_table", "table_key"]

#: Bump when the entry layout changes.  (2: entries carry a digest; 3: and
#: ``full_exact``, whether ``full_count`` is exact or an upper bound.)
FORMAT = 3
_PREFIX = "pairwise_param/tables/"

class CacheLike(Protocol):
    def get(self, key: str, default: Any) -> Any: ...
    def set(self, key: str, value: Any) -> None: ...


@dataclass(frozen=True)
class Table:
    """A table as the plugin keeps it: index rows, infeasible t-tuples, the
    construction used, and the feasible full-product count."""

    rows: tuple[tuple[int, ...], ...]
    infeasible: tuple[TupleRef, ...]
    method: str
    full_count: int  # feasible rows of the full product (what full mode runs)
    #: False when ``full_count`` is only an upper bound (:class:`pairwise_param.tables.product.Count`)
    full_exact: bool = True


def _engine_version() -> str:
    from pairwise_param.engine import ENGINE_VERSION

    return str(ENGINE_VERSION)


def table_key(model: Model, mode: str, effort: int | str, seed: int) -> str:
    """Cache key of a table (hex digest).  The effort is keyed as its level
    number, so ``effort="standard"`` and ``effort=1`` share one entry."""
    from pairwise_param.tables.covering import engine_options

    level = engine_options(effort, seed, model.where).effort
    blob = json.dumps([FORMAT, _engine_version(), model.fingerprint(), mode, level, seed])
    return hashlib.sha256(blob.encode()).hexdigest()[:40]


def build_table(model: Model, mode: str, effort: int = 0, seed: int = 0) -> Table:
    """Compute a table without any cache."""
    if mode == "full":
        rows = full_rows(model)
        return Table(rows, (), "full", len(rows), True)
    count = feasible_count(model)
    from pairwise_param.tables.covering import engine_options, run_engine

    generated = run_engine(model, engine_options(effort, seed, model.where))
    infeasible = tuple((tuple(s), tuple(v)) for s, v in generated.infeasible)
    return Table(tuple(tuple(r) for r in generated.rows), infeasible, str(generated.method), count.value, count.exact)


# -- the on-disk cache ------------------------------------------------------------
class TableCache:
    """Load-or-build with an optional pytest-style cache and an in-process memo.

    ``stats`` counts ``built`` (engine or enumeration ran), ``disk`` (loaded
    from the on-disk cache) and ``memo`` (reused within this process).
    """

    def __init__(self, store: CacheLike | None) -> None:
        self.store = store
        self.memo: dict[str, Table] = {}
        self.stats = {"built": 0, "disk": 0, "memo": 0}

    def get(self, model: Model, mode: str, effort: int = 0, seed: int = 0) -> Table:
        key = table_key(model, mode, effort, seed)
        hit = self.memo.get(key)
        if hit is not None:
            self.stats["memo"] += 1
            return hit
        table = None
        if self.store is not None and mode != "full":
            table = self._load(key, model)
            if table is not None:
                self.stats["disk"] += 1
        if table is None:
            table = build_table(model, mode, effort, seed)
            self.stats["built"] += 1
            if self.store is not None and mode != "full":
                self._save(key, model, table, mode, effort, seed)
        self.memo[key] = table
        return table

    def _save(self, key: str, model: Model, table: Table, mode: str, effort: int, seed: int) -> None:
        entry = {
            "format": FORMAT,
            "engine": _engine_version(),
            "fingerprint": model.fingerprint(),
            "mode": mode,
            "effort": effort,
            "seed": seed,
            "method": table.method,
            "full_count": table.full_count,
            "full_exact": table.full_exact,
            "rows": [list(r) for r in table.rows],
            "infeasible": [[list(s), list(v)] for s, v in table.infeasible],
        }
        entry["digest"] = _digest(key, table)
        assert self.store is not None
        with contextlib.suppress(OSError):  # a read-only or full disk must not break collection
            self.store.set(_PREFIX + key, entry)

    def _load(self, key: str, model: Model) -> Table | None:
        assert self.store is not None
        try:
            entry = self.store.get(_PREFIX + key, None)
        except (OSError, ValueError, RecursionError, MemoryError):  # deeply nested JSON: rebuild
            return None
        try:
            table = _validate(entry, model)
        except (TypeError, ValueError, KeyError, IndexError, AttributeError, RecursionError):
            return None
        if table is None or entry.get("digest") != _digest(key, table) or not _covers(model, table):
            return None
        return table


def _digest(key: str, table: Table) -> str:
    """SHA-256 of the key and everything the engine produced for it."""
    blob = json.dumps(
        [key, table.method, table.full_count, table.full_exact, [list(r) for r in table.rows], [[list(s), list(v)] for s, v in table.infeasible]],
        separators=(",", ":"),
    )
    return hashlib.sha256(blob.encode()).hexdigest()


def _covers(model: Model, table: Table) -> bool:
    """Is ``table`` a valid covering array of ``model``?  Include rows first
    (each row agrees with its include row's fixed cells), and in every scope
    each value combination is covered by a row or listed as infeasible, every
    listed one impossible (not completable to a valid row).  Coverage by the
    engine's row bitsets (:func:`~pairwise_param.engine.verify.uncovered`: one
    big-int AND per combination; the per-(row, scope) tuple sets it replaced
    took 21.6 s on a warm 3^60 t=3 table that builds in 5.3 s) plus one
    completion test per listed tuple: far less than a build."""
    rows = table.rows
    if len(rows) < len(model.include):
        return False
    for inc, row in zip(model.include, rows):
        if any(v is not None and v != x for v, x in zip(inc, row)):
            return False
    sizes = model.sizes
    listed: dict[tuple[int, ...], set[tuple[int, ...]]] = {}
    for scope, values in table.infeasible:
        listed.setdefault(scope, set()).add(values)
    from pairwise_param.engine.requirements import scope_weights
    from pairwise_param.engine.verify import uncovered

    feas = model.feasibility
    scopes = model.index_model.interactions
    for scope, missing in zip(scopes, uncovered(sizes, scopes, rows)):
        claimed = listed.pop(scope, set())
        if len(missing) != len(claimed):
            return False
        if missing:
            weights, _ = scope_weights(tuple(sizes), scope)
            if {sum(v * w for v, w in zip(values, weights)) for values in claimed} != set(missing):
                return False
        for values in claimed:
            cells: list[int | None] = [None] * len(sizes)
            for a, v in zip(scope, values):
                cells[a] = v
            if feas.violates(cells) is None and feas.completable(cells):
                return False
    return not listed


def _validate(entry: Any, model: Model) -> Table | None:
    if not isinstance(entry, dict):
        return None
    if entry.get("format") != FORMAT or entry.get("engine") != _engine_version():
        return None
    if entry.get("fingerprint") != model.fingerprint():
        return None
    sizes = model.sizes
    n = len(sizes)

    def is_index(v: Any, size: int) -> bool:
        return type(v) is int and 0 <= v < size

    rows = []
    for r in entry["rows"]:
        if not isinstance(r, list) or len(r) != n or not all(is_index(v, s) for v, s in zip(r, sizes)):
            return None
        row = tuple(r)
        if model.feasibility.violates(row) is not None:
            return None
        rows.append(row)
    if not rows or len(set(rows)) != len(rows):
        return None
    infeasible = []
    for scope, values in entry["infeasible"]:
        if len(scope) != len(values) or not all(is_index(a, n) for a in scope):
            return None
        if not all(is_index(v, sizes[a]) for a, v in zip(scope, values)):
            return None
        infeasible.append((tuple(scope), tuple(values)))
    count = entry["full_count"]
    exact = entry["full_exact"]
    method = entry["method"]
    if type(count) is not int or count < 1 or type(exact) is not bool or not isinstance(method, str):
        return None
    return Table(tuple(rows), tuple(infeasible), method, count, exact)
