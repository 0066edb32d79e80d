"""Is a hand-written multi-name ``parametrize`` list a case table or an option table?

The one home of the audit's default rule (``docs/cli.md`` describes it).  An
*option table* lists combinations of independent options (``"causal,varlen"``
over ``True/False``): its full product is the product of its values and a
missing pair is a finding.  A *case table* lists cases (inputs with their
expected output, shapes, "the valid dtype combinations only", one-hot
choices): its rows are the point, so it is one grouped axis counted by its rows
and never audited.  On real suites most multi-name lists are case tables, so
the rule names what makes a list a case table; a list that is none of these but
is short of its full product AND shows a sign of being a list of cases is
*uncertain* (:data:`UNCERTAIN_SIGNS`): the report shows its coverage, marked
uncertain, and the gate (``--fail-under``) ignores it unless the test says
``@pytest.mark.pairwise_options``.  Everything else is an option table.

The rule is measured on the labelled corpus of ``tests/report/corpus/``
(precision and recall in ``docs/cli.md``); a test that disagrees says so with
``@pytest.mark.pairwise_cases`` / ``@pytest.mark.pairwise_options`` or the
``[tool.pairwise-param.report]`` table of ``pyproject.toml``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pairwise_param.values import hashable, value_key

__all__ = ["Verdict", "all_ints", "classify", "duplicate_rows", "key_column"]

#: Argument names that hold outputs or expectations, not options.
CASE_NAME = re.compile(
    r"^(expected|expect|exp_|error|err_|errors|exc|exception|raises|match|matches|supported|pattern|"
    r"reason|ref_|reference|want|golden|result|output|msg|message|ok$|valid$|should)",
    re.IGNORECASE,
)

#: Names that may hold an expectation or a per-row tolerance (weaker than CASE_NAME:
#: a sign of a case list, not a proof).
LIKELY_CASE_NAME = re.compile(r"(^|_)(check|checks|tol|atol|rtol|eps|ref|target|gold|str|text|case|scenario)s?($|_)",
                              re.IGNORECASE)

#: The signs that make a list short of its product "uncertain" rather than an option
#: table (docs/cli.md, "uncertain"); each verdict's reason names the one found.
UNCERTAIN_SIGNS = (
    "sizes tied to settings: an int column beside option columns, rows short of their product",
    "a short list of chosen combinations: no more rows than values in all",
    "ids= names each row: a list of scenarios",
    "a column name that reads as an expectation or a tolerance",
)


@dataclass(frozen=True)
class Verdict:
    """``kind`` is ``"case"``, ``"option"`` or ``"uncertain"``; ``reason`` says which rule
    decided."""

    kind: str
    reason: str

    @property
    def is_case(self) -> bool:
        return self.kind == "case"


def _key(v: Any) -> Any:
    return value_key(hashable(v))


def _is_exception(v: Any) -> bool:
    return isinstance(v, BaseException) or (isinstance(v, type) and issubclass(v, BaseException))


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_shape(v: Any) -> bool:
    """An int, or a tuple/list of ints (and None): a size or a shape."""
    if _is_int(v):
        return True
    return isinstance(v, (tuple, list)) and all(_is_int(x) or x is None for x in v)


def _output_column(col: Sequence[Any]) -> str | None:
    """Why a column's values are outputs (exceptions, regexes), or None."""
    if any(_is_exception(v) for v in col):
        return "values are exceptions"
    if any(isinstance(v, re.Pattern) for v in col):
        return "values are regular expressions"
    return None


def _functional(cols: list[list[Any]]) -> tuple[int, int] | None:
    """(a, b) when column ``a`` decides column ``b`` (each value of ``a`` meets exactly one
    value of ``b``, and ``b`` takes several values): the rows are the valid combinations."""
    keys = [[_key(v) for v in c] for c in cols]
    for a, ka in enumerate(keys):
        for b, kb in enumerate(keys):
            if a == b or len(set(kb)) < 2:
                continue
            seen: dict[Any, Any] = {}
            if all(seen.setdefault(x, y) == y for x, y in zip(ka, kb)):
                return a, b
    return None


def all_ints(rows: Sequence[Sequence[Any]]) -> bool:
    """Every value a plain int (not a bool): a shape such as ``(n, k, m)``."""
    return bool(rows) and all(_is_int(v) for r in rows for v in r)


def key_column(argnames: Sequence[str], rows: Sequence[Sequence[Any]]) -> str | None:
    """A name that takes a different value in every row (``"dtype,atol"`` with one
    tolerance per dtype), or None.  A strength-2 covering table cannot have one unless
    every other axis has a single value: it needs ``size(a) * size(b)`` rows for its two
    largest axes."""
    n = len(argnames)
    full = [r for r in rows if len(r) == n]
    for j, name in enumerate(argnames):
        if len({_key(r[j]) for r in full}) == len(rows):
            return name
    return None


def _all_pairs(cols: list[list[Any]], sizes: list[int]) -> bool:
    """Every pair of values of every two columns appears in some row (strength 2 complete)."""
    keys = [[_key(v) for v in c] for c in cols]
    for a in range(len(keys)):
        for b in range(a + 1, len(keys)):
            if len(set(zip(keys[a], keys[b]))) < sizes[a] * sizes[b]:
                return False
    return True


def _uncertain(argnames: Sequence[str], cols: list[list[Any]], sizes: list[int], rows: int,
               ids: bool) -> str | None:
    """Which of :data:`UNCERTAIN_SIGNS` a list short of its product shows, or None."""
    ints = [n for n, c in zip(argnames, cols) if all(_is_int(v) for v in c)]
    if ints and len(ints) < len(argnames):
        return f"{UNCERTAIN_SIGNS[0]} ({', '.join(map(repr, ints))})"
    if rows <= sum(sizes):
        return f"{UNCERTAIN_SIGNS[1]} ({rows} rows, {sum(sizes)} values)"
    if ids:
        return UNCERTAIN_SIGNS[2]
    named = [n for n in argnames if LIKELY_CASE_NAME.search(n)]
    if named:
        return f"{UNCERTAIN_SIGNS[3]} ({', '.join(map(repr, named))})"
    return None


def classify(argnames: Sequence[str], rows: Sequence[Sequence[Any]], *, ids: bool = False) -> Verdict:
    """The default rule, first match wins (each rule's reason is reported).  ``ids``: the
    list names its rows (``ids=`` or ``pytest.param(..., id=)``), a sign of scenarios."""
    n = len(argnames)
    rows = [r for r in rows if len(r) == n]
    if len(rows) < 2:
        return Verdict("case", "fewer than two rows")
    for name in argnames:
        if CASE_NAME.match(name):
            return Verdict("case", f"column {name!r} names an expectation")
    cols = [[r[j] for r in rows] for j in range(n)]
    for name, col in zip(argnames, cols):
        why = _output_column(col)
        if why:
            return Verdict("case", f"column {name!r}: {why}")
    if all_ints(rows):
        return Verdict("case", "all values are ints (a shape)")
    for name, col in zip(argnames, cols):
        if any(v is None for v in col) and any(_is_shape(v) for v in col if v is not None):
            return Verdict("case", f"column {name!r} mixes None with sizes (a shape)")
        if all(isinstance(v, (tuple, list)) and v and _is_shape(v) for v in col):
            return Verdict("case", f"column {name!r} holds shape tuples")
    if all(isinstance(v, bool) for col in cols for v in col) and n > 2 and all(sum(r) == 1 for r in rows):
        return Verdict("case", "one-hot rows (one choice out of several)")
    key = key_column(argnames, rows)
    if key is not None:
        return Verdict("case", f"column {key!r} differs in every row (a key)")
    sizes = [len({_key(v) for v in col}) for col in cols]
    product = 1
    for s in sizes:
        product *= s
    if len(rows) < product and n == 2:
        # a pairwise table of two columns IS their product: a list that is not was chosen
        return Verdict("case", "two columns short of their product: the valid combinations")
    if len(rows) < product:
        dep = _functional(cols)
        if dep is not None:
            a, b = dep
            return Verdict("case", f"{argnames[a]!r} decides {argnames[b]!r}: the valid combinations")
        # a list that holds every pair of values is a covering table written by hand: options
        sign = None if _all_pairs(cols, sizes) else _uncertain(argnames, cols, sizes, len(rows), ids)
        if sign is not None:
            return Verdict("uncertain", sign)
    named = [n for n in argnames if LIKELY_CASE_NAME.search(n) and CASE_NAME.search(n) is None]
    if named and any(re.search(r"tol|eps", n, re.IGNORECASE) for n in named):
        return Verdict("uncertain", f"{UNCERTAIN_SIGNS[3]} ({', '.join(map(repr, named))})")
    return Verdict("option", "independent options")


def duplicate_rows(rows: Sequence[Sequence[Any]]) -> list[int]:
    """Positions of rows that repeat an earlier row (pytest runs them twice)."""
    seen: set[Any] = set()
    out = []
    for i, r in enumerate(rows):
        k = tuple(_key(v) for v in r)
        if k in seen:
            out.append(i)
        seen.add(k)
    return out
