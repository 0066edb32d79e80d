"""Rows in and out of files: CSV / JSON / Markdown for ``generate`` (the
renderers the format registry, :mod:`pairwise_param.cli.formats`, calls), CSV /
JSON for ``check``.

Cells are written as JSON scalars (``true``, ``2``, ``1.5``, ``-0.0``, ``null``,
``NaN``) except strings, which are written as they are
(:func:`pairwise_param.values.cell_text`), so a CSV written by ``generate`` reads
back in ``check`` unchanged.  One exception keeps that round trip exact: a
string whose text is another value's spelling in the same column (``"true"``
beside ``True``, ``"1"`` beside ``1``), or that itself looks JSON-quoted, is
written JSON-quoted (CSV cell ``"true"`` with its quotes); :func:`column_texts` is the one
rule both directions use.  When reading a CSV, each cell is matched against
the values the model has for that column (first by the spelling the writer
uses, then by JSON spelling, Python spelling or label); a cell that matches
none is passed on as text and reported by the coverage check as a value
outside the model.  JSON rows keep non-finite floats as numbers (``NaN``,
``Infinity``: Python's :mod:`json` spelling, which it reads back), and every
cell read is replaced by the model's own value when it is that value
(:func:`pairwise_param.values.same_value`: NaN is NaN, ``-0.0`` is not ``0.0``),
so a value written is a value read, exactly.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pairwise_param.cli.modelfile import read_text_file
from pairwise_param.errors import InvalidArgument
from pairwise_param.model import Model
from pairwise_param.tables.covering import CoveringArray
from pairwise_param.values import cell_text, json_value, same_value, value_label

__all__ = ["read_rows", "rows_csv", "rows_json", "rows_markdown"]


def _quoted(text: str) -> bool:
    return len(text) >= 2 and text[0] == text[-1] == '"'


def column_texts(pool: list[Any]) -> list[str]:
    """The CSV text of each value of one column: :func:`cell_text`, except a
    string that another value of the column spells the same (or that looks
    JSON-quoted) is written JSON-quoted, so every text names one value."""
    plain = [cell_text(v) for v in pool]
    others = {t for v, t in zip(pool, plain) if not isinstance(v, str)}
    return [
        json.dumps(v) if isinstance(v, str) and (t in others or _quoted(t)) else t
        for v, t in zip(pool, plain)
    ]


def _text_of(value: Any, pool: list[Any], texts: list[str]) -> str:
    for v, t in zip(pool, texts):
        if same_value(v, value):
            return t
    return cell_text(value)


def rows_csv(array: CoveringArray) -> str:
    """The rows as CSV, a header of argument names first."""
    names = list(array.argnames)
    pools = _candidates(array.model)
    texts = {n: column_texts(pools[n]) for n in names}
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    # the csv module quotes a "\n" but not a lone "\r" (not in the line terminator), which a
    # reader then takes for a line end: such a row is written with every cell quoted (quotes
    # are transparent to a CSV reader: `"2"` reads as `2`)
    quoted = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_ALL)
    (quoted if any("\r" in n for n in names) else w).writerow(names)
    for row in array:
        cells = [_text_of(row[n], pools[n], texts[n]) for n in names]
        (quoted if any("\r" in c for c in cells) else w).writerow(cells)
    return buf.getvalue()


def rows_markdown(array: CoveringArray) -> str:
    """The rows as a Markdown table, numbered."""
    names = list(array.argnames)
    lines = ["| # | " + " | ".join(names) + " |", "|--:|" + "|".join("---" for _ in names) + "|"]
    for i, row in enumerate(array, 1):
        lines.append(f"| {i} | " + " | ".join(cell_text(row[n]).replace("|", "\\|") for n in names) + " |")
    return "\n".join(lines) + "\n"


def rows_json(array: CoveringArray, *, effort: Any = 0, seed: int = 0) -> str:
    """The rows and their model as JSON (``pairwise-param/rows``)."""
    model = array.model
    names = list(array.argnames)
    doc = {
        "schema": "pairwise-param/rows",
        "schema_version": 1,
        "model": {
            "axes": {a.name: [json_value(v, exact=True) for v in a.values] for a in model.axes},
            "strength": model.strength,
            "constraints": [c.label for c in model.constraints],
        },
        "method": array.method,
        "effort": effort,
        "seed": seed,
        "fingerprint": array.fingerprint,
        "argnames": names,
        "rows": [{n: json_value(row[n], exact=True) for n in names} for row in array],
        "infeasible": [{k: json_value(v, exact=True) for k, v in d.items()} for d in array.infeasible],
    }
    return json.dumps(doc, indent=2) + "\n"


# -- reading --------------------------------------------------------------------------------------
def _candidates(model: Model) -> dict[str, list[Any]]:
    """Argument name -> the values the model has for it (components of grouped axes)."""
    out: dict[str, list[Any]] = {}
    for axis in model.axes:
        if axis.grouped:
            for j, n in enumerate(axis.names):
                seen: list[Any] = []
                for v in axis.values:
                    if not any(same_value(v[j], s) for s in seen):
                        seen.append(v[j])
                out[n] = seen
        else:
            out[axis.name] = list(axis.values)
    return out


def _match(text: str, pool: list[Any], texts: list[str] | None = None) -> Any:
    exact = [v for v, t in zip(pool, texts or column_texts(pool)) if t == text]
    if len(exact) == 1:  # the spelling generate writes
        return exact[0]
    for spell in (
        lambda v: v if isinstance(v, str) else None,
        lambda v: None if isinstance(v, str) else cell_text(v),
        repr,
        value_label,
        str,
    ):
        hits = [v for v in pool if spell(v) == text]
        if len(hits) == 1:
            return hits[0]
    stripped = text.strip()
    if stripped != text:
        return _match(stripped, pool)
    return text  # outside the model: measure() reports it


def _tuplify(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuplify(v) for v in value)
    return value


def _own(value: Any, pool: list[Any] | None) -> Any:
    """The model's own value when ``value`` is it (a NaN read back is another
    float object: the model's indexes find only its own), else ``value``."""
    for v in pool or ():
        if same_value(v, value):
            return v
    return value


def read_rows(path: str | Path, model: Model) -> list[Any]:
    """Rows from a ``.csv`` or ``.json`` file (by suffix; other suffixes: JSON
    if it parses, else CSV), as mappings / sequences :func:`measure` accepts."""
    p = Path(path)
    where = str(p)
    text = read_text_file(p, "rows file", newline="")
    suffix = p.suffix.lower()
    data: Any = None
    if suffix != ".csv":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            if suffix == ".json":
                raise InvalidArgument(
                    f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}", where=where
                ) from None
    if data is not None:
        if isinstance(data, Mapping) and "rows" in data:
            data = data["rows"]
        if not isinstance(data, list):
            raise InvalidArgument(
                'JSON rows must be a list of objects (argument -> value) or {"rows": [...]}', where=where
            )
        rows: list[Any] = []
        pools = _candidates(model)
        for i, r in enumerate(data):
            if isinstance(r, Mapping):
                rows.append({str(k): _own(_tuplify(v), pools.get(str(k))) for k, v in r.items()})
            elif isinstance(r, list):
                rows.append(tuple(_tuplify(v) for v in r))
            else:
                raise InvalidArgument(f"row {i + 1} is {r!r}: rows are objects or lists", where=where)
        return rows
    reader = csv.reader(io.StringIO(text))
    try:
        header = next(reader)
    except StopIteration:
        raise InvalidArgument("the CSV file is empty; it needs a header of argument names", where=where) from None
    header = [h.strip() for h in header]
    pools = _candidates(model)
    unknown = [h for h in header if h not in pools]
    if unknown:
        raise InvalidArgument(
            f"CSV column(s) {', '.join(map(repr, unknown))} are not arguments of the model "
            f"(arguments: {', '.join(pools)})",
            where=where,
        )
    texts = {h: column_texts(pools[h]) for h in header}
    out: list[Any] = []
    for rec in reader:
        if not rec or (len(rec) == 1 < len(header) and not rec[0].strip()):
            continue  # a blank line (a row of empty strings is written as `""` or `,`)
        if len(rec) != len(header):
            raise InvalidArgument(
                f"row {len(out) + 1} (line {reader.line_num}) has {len(rec)} cells, the header {len(header)}",
                where=where,
            )
        out.append({h: _match(c, pools[h], texts[h]) for h, c in zip(header, rec)})
    return out
