"""The on-disk table cache: load a table, or build it and keep it.

:func:`table_key` is a pure function of everything the rows depend on: the index
model's fingerprint (sizes, strength, interactions, exclusions, include rows, all
as value indices), ``ENGINE_VERSION``, the mode, effort and seed, and the entry
format.  A cache miss therefore recomputes exactly what a hit would have returned
(the engine is deterministic).  A table is index rows, so it does not depend on
the names or the values behind the indices: two tests with the same shape of
options (``dtype x 3 bools`` twice, with other values) share one entry, built
once per process and stored once (the 2000 tables of
``benchmarks/bench_collection_scale.py`` are 707 index models).

:class:`TableCache` stores one JSON entry per table through any object with
pytest's ``Cache.get(key, default)`` / ``Cache.set(key, value)`` interface
(``config.cache``: the plugin passes it; nothing here imports pytest), under
``pairwise_param/tables/<key>``.  Every loaded entry is checked before use:
format, engine version, fingerprint, shape, value ranges, a digest of everything
the engine produced (so a dropped row, a changed count or a truncated list is
caught), and then semantically: no row breaks a constraint, and
:func:`pairwise_param.tables.build.verified` (include rows first, every t-tuple
of every scope covered by a row or listed as infeasible, each listed one truly
impossible).  Anything unexpected (corrupted or deeply nested JSON, an older
format, a foreign engine version) is ignored and rebuilt, then overwritten.
Writes racing between xdist workers are harmless: all write the same bytes, and
a torn read fails JSON parsing and is rebuilt.

Tables are built by :func:`pairwise_param.tables.build.build_table` (the same
function ``cover()`` uses, so both return the same rows), with their full-product
count; a mode that enumerates every row (:func:`~pairwise_param.tables.build.exhaustive`)
is not kept on disk.

With ``pack=True`` (the plugin) the entries live in ONE store entry, the pack
(``pairwise_param/tables-pack``: ``{"format", "engine", "entries": {key: entry}}``),
read once per session on the first lookup and written once, by :meth:`TableCache.flush`
at session end, only when a table was built or found outside it: a 2000-table suite
reads one file instead of 2000 and a cold run writes one.  Each entry in it is
checked exactly as a separate one; an entry of the older one-file-per-table layout
is still read (and moves into the pack).  A torn pack (two xdist workers writing at
once) fails JSON parsing and is rebuilt table by table.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from typing import Any, Protocol

from pairwise_param.model import Model
from pairwise_param.tables.build import (
    Table,
    build_table,
    engine_options,
    engine_version,
    exhaustive,
    verified,
)

__all__ = ["FORMAT", "PACK_KEY", "CacheLike", "TableCache", "table_key"]

#: Bump when the entry layout changes.  (2: entries carry a digest; 3: and
#: ``full_exact``, whether ``full_count`` is exact or an upper bound; 4: keyed by
#: the index model's fingerprint.)
FORMAT = 4
_PREFIX = "pairwise_param/tables/"
#: the store key of the pack (``pack=True``)
PACK_KEY = "pairwise_param/tables-pack"

class CacheLike(Protocol):
    """What the cache needs of a store: pytest's ``config.cache`` interface."""

    def get(self, key: str, default: Any) -> Any: ...
    def set(self, key: str, value: Any) -> None: ...


def table_key(model: Model, mode: str, effort: int | str, seed: int) -> str:
    """Cache key of a table (hex digest).  The effort is keyed as its level
    number, so ``effort="standard"`` and ``effort=1`` share one entry."""
    level = engine_options(effort, seed, model.where).effort
    blob = json.dumps([FORMAT, engine_version(), model.index_model.fingerprint(), mode, level, seed])
    return hashlib.sha256(blob.encode()).hexdigest()[:40]


# -- the on-disk cache ------------------------------------------------------------
class TableCache:
    """Load-or-build with an optional pytest-style cache and an in-process memo.

    ``stats`` counts ``built`` (engine or enumeration ran), ``disk`` (loaded
    from the on-disk cache) and ``memo`` (reused within this process).
    """

    def __init__(self, store: CacheLike | None, *, pack: bool = False) -> None:
        self.store = store
        self.memo: dict[str, Table] = {}
        self.stats = {"built": 0, "disk": 0, "memo": 0}
        self.pack = pack
        #: the pack's entries as read (None: not read yet); the entries to add at flush
        self._packed: dict[str, Any] | None = None
        self._fresh: dict[str, Any] = {}

    def get(self, model: Model, mode: str, effort: int = 0, seed: int = 0) -> Table:
        key = table_key(model, mode, effort, seed)
        hit = self.memo.get(key)
        if hit is not None:
            self.stats["memo"] += 1
            return hit
        table = None
        keep = self.store is not None and not exhaustive(mode)
        if keep:
            table = self._load(key, model)
            if table is not None:
                self.stats["disk"] += 1
        if table is None:
            table = build_table(model, mode, engine_options(effort, seed, model.where), count=True)
            self.stats["built"] += 1
            if keep:
                self._save(key, model, table, mode, effort, seed)
        self.memo[key] = table
        return table

    def _save(self, key: str, model: Model, table: Table, mode: str, effort: int, seed: int) -> None:
        entry = {
            "format": FORMAT,
            "engine": engine_version(),
            "fingerprint": model.index_model.fingerprint(),
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
        # a read-only or full disk must not break collection, nor pytest's "could not create
        # cache path" warning turned into an exception by -W error
        if self.pack:
            self._fresh[key] = entry
            return
        with contextlib.suppress(OSError, Warning):
            self.store.set(_PREFIX + key, entry)

    def flush(self) -> None:
        """``pack=True``: write the pack once, with this session's new entries added to
        the ones read (those of another format or engine version dropped); nothing is
        written when every table came from the pack."""
        if not self.pack or not self._fresh or self.store is None:
            return
        version = engine_version()
        entries = {k: e for k, e in (self._packed or {}).items()
                   if isinstance(e, dict) and e.get("format") == FORMAT and e.get("engine") == version}
        entries.update(self._fresh)
        self._fresh = {}
        with contextlib.suppress(OSError, Warning):
            self.store.set(PACK_KEY, {"format": FORMAT, "engine": version, "entries": entries})

    def _pack_entry(self, key: str) -> Any:
        assert self.store is not None
        if self._packed is None:
            self._packed = {}
            try:
                doc = self.store.get(PACK_KEY, None)
            except (OSError, ValueError, RecursionError, MemoryError):
                doc = None
            if (isinstance(doc, dict) and doc.get("format") == FORMAT and doc.get("engine") == engine_version()
                    and isinstance(doc.get("entries"), dict)):
                self._packed = doc["entries"]
        return self._packed.get(key)

    def _load(self, key: str, model: Model) -> Table | None:
        assert self.store is not None
        entry = self._pack_entry(key) if self.pack else None
        try:
            if entry is None:
                entry = self.store.get(_PREFIX + key, None)
                if self.pack and entry is not None:
                    self._fresh[key] = entry  # an entry of the one-file layout: into the pack
        except (OSError, ValueError, RecursionError, MemoryError):  # deeply nested JSON: rebuild
            return None
        try:
            table = _validate(entry, model)
        except (TypeError, ValueError, KeyError, IndexError, AttributeError, RecursionError):
            return None
        if table is None or entry.get("digest") != _digest(key, table) or not verified(model, table):
            return None
        return table


def _digest(key: str, table: Table) -> str:
    """SHA-256 of the key and everything the engine produced for it."""
    blob = json.dumps(
        [key, table.method, table.full_count, table.full_exact, [list(r) for r in table.rows], [[list(s), list(v)] for s, v in table.infeasible]],
        separators=(",", ":"),
    )
    return hashlib.sha256(blob.encode()).hexdigest()


def _validate(entry: Any, model: Model) -> Table | None:
    if not isinstance(entry, dict):
        return None
    if entry.get("format") != FORMAT or entry.get("engine") != engine_version():
        return None
    if entry.get("fingerprint") != model.index_model.fingerprint():
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
