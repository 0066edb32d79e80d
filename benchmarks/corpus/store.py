"""The labelled corpora on disk (``tables.jsonl``, ``axes.jsonl``) and finding their
entries again in the suites' checkouts.

An entry names a table or an axis by suite, file, test, decorator line and argnames; it
never holds the suite's code or values.  ``locate`` re-reads the checkout with
:mod:`benchmarks.corpus.static` and pairs each entry with the table it names: first by
(path, test, line, argnames), then, if the line moved, by (path, test, argnames) in order.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.corpus import static

HERE = Path(__file__).resolve().parent
TABLES = HERE / "tables.jsonl"
AXES = HERE / "axes.jsonl"
DEFAULT_ROOT = Path("/work/suites")


def load(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def dump(path: Path, entries: Iterable[dict[str, Any]]) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    with tmp.open("w", encoding="utf-8") as f:
        for e in entries:
            f.write(json.dumps(e) + "\n")
    tmp.replace(path)


@dataclass
class Located:
    entry: dict[str, Any]
    table: static.Table | None  # None: not found in the checkout
    why: str = ""  # why not found


class Checkouts:
    """Parsed test files of the checkouts under ``root`` (each file read once)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._files: dict[tuple[str, str], list[static.Table] | str] = {}

    def tables(self, suite: str, path: str) -> list[static.Table] | str:
        key = (suite, path)
        if key not in self._files:
            f = self.root / suite / path
            if not f.is_file():
                self._files[key] = f"no file {f}"
            else:
                try:
                    self._files[key] = static.tables_in_source(static.read(f), path)
                except SyntaxError as exc:
                    self._files[key] = f"{f}: {exc}"
        return self._files[key]

    def locate(self, entries: list[dict[str, Any]]) -> list[Located]:
        out = []
        for e in entries:
            found = self.tables(e["suite"], e["path"])
            if isinstance(found, str):
                out.append(Located(e, None, found))
                continue
            same = [t for t in found if t.test == e["test"] and t.argnames == e["argnames"]]
            exact = [t for t in same if t.line == e["line"]]
            if exact:
                out.append(Located(e, exact[0]))
            elif same:
                out.append(Located(e, same[0], "line moved"))
            else:
                out.append(Located(e, None, f"no parametrize {','.join(e['argnames'])} on {e['test']}"))
        return out


def ratio(a: int, b: int) -> str:
    """``a / b`` to three places, ``-`` when nothing was counted."""
    return f"{a / b:.3f}" if b else "-"


def report_missing(missing: list[str], root: Path, what: str) -> int:
    """Say which corpus entries the checkouts no longer hold; the scorers' exit code."""
    if not missing:
        return 0
    print(f"\n{len(missing)} {what} not found under {root}:", file=sys.stderr)
    for m in missing[:20]:
        print("  " + m, file=sys.stderr)
    return 2
