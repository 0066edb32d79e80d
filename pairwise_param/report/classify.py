"""Is a hand-written multi-name ``parametrize`` list a case table or an option table?

The one home of the audit's default rule (``docs/cli.md`` describes it).  An
*option table* lists combinations of independent options (``"causal,varlen"``
over ``True/False``): its full product is the product of its values and a
missing pair is a finding.  A *case table* lists cases (inputs with their
expected output, shapes, "the valid dtype combinations only", one-hot
choices): its rows are the point, so it is one grouped axis counted by its rows
and never audited.

The verdict depends on the list, NEVER on whether it covers its pairs (issue 35: a
rule that changed its mind when a row was dropped could never fail the gate on the
hole it exists for).  First match wins:

1. signs of cases in any list: fewer than two rows; a column named like an
   expectation (:data:`CASE_NAME`) or holding exceptions or regexes; all ints (a
   shape); shape columns; one-hot rows; a key column; a tolerance column;
2. a full product of its values: an option table;
3. short of its product (:func:`_short_of_product`): at most two columns with
   several values (a pairwise table of two IS their product: the valid
   combinations), a column of sizes (:data:`CASE_SIGNS`), fewer rows than 3/4 of the
   smallest covering table of its values, a column that favours one value, ``ids=``,
   a check/case-named column: a case table; otherwise options at a covering table's
   size: an option table, complete or not (vLLM's ``OPTIONS_WVSPLITKRC``).

"Is this column an option" is :func:`pairwise_param.report.whatif.axis_kind`, the
split that ``convert`` and the ``@PAIRWISE`` column use (``bias_mode=[0, 1, 2]``:
int codes, an option).  The one *uncertain* list (:data:`UNCERTAIN_SIGN`) is an
option list at a covering table's size whose int column that split cannot name:
shown with ``?``, outside the totals and the gate.

Measured on the labelled corpora (``tests/report/corpus/``, ``benchmarks/corpus/`` with
``benchmarks/audit_corpus.py --holes``); a test that disagrees says so with
``@pytest.mark.pairwise_cases`` / ``@pytest.mark.pairwise_options`` or the
``[tool.pairwise-param.report]`` table of ``pyproject.toml``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pairwise_param.report.whatif import axis_kind
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
#: Not ``case``/``scenario``/``eps``: a column that repeats names of input cases
#: (``edge_cases``, ``shape_case``) is an enum of inputs and ``eps`` an op's epsilon, both
#: options (a column naming each row is a key, found by :func:`key_column`).
LIKELY_CASE_NAME = re.compile(r"(^|_)(check|checks|tol|atol|rtol|ref|target|gold|str|text)s?($|_)", re.IGNORECASE)

#: Expectation-like names that on a column of flags name an option instead
#: (``output_dbias``, ``ref_bias``: produce a dbias, give the reference a bias).
FLAG_OPTION_NAME = re.compile(r"^(output_|ref_)", re.IGNORECASE)

#: The signs that make a list short of its product a list of cases (docs/cli.md, "the
#: rule"); each verdict's reason names the one found.
CASE_SIGNS = (
    "sizes tied to settings: a column of sizes beside the options",
    "a short list of chosen combinations: fewer rows than 3/4 of the smallest covering table",
    "chosen combinations: a column favours one value (a covering list spreads its values)",
    "ids= names each row: a list of scenarios",
    "a column name that reads as a check, a tolerance or a case",
    "tied settings: a column follows another (each of its values always beside the same value of the other)",
    "a product under one setting plus chosen rows: under one value every combination of the others",
    "chosen combinations: a value in too few rows to meet the other columns' values",
)

#: The one "uncertain" list: options at a covering table's size but for an int column that
#: may hold sizes or option codes (:func:`pairwise_param.report.whatif.axis_kind` cannot tell).
UNCERTAIN_SIGN = "an int column that may hold sizes or option codes; pairwise_options audits it"

#: A column named like a tolerance: never an option, even in a full product.
TOLERANCE_NAME = re.compile(r"(^|_)(tol|atol|rtol)s?($|_)", re.IGNORECASE)


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


def _distinct(col: Sequence[Any]) -> list[Any]:
    """A column's values, each once, in order of first appearance."""
    seen: dict[Any, Any] = {}
    for v in col:
        seen.setdefault(_key(v), v)
    return list(seen.values())


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


def classify(argnames: Sequence[str], rows: Sequence[Sequence[Any]], *, ids: bool = False) -> Verdict:
    """The default rule, first match wins (each rule's reason is reported).  ``ids``: the
    list names its rows (``ids=`` or ``pytest.param(..., id=)``), a sign of scenarios."""
    n = len(argnames)
    rows = [r for r in rows if len(r) == n]
    if len(rows) < 2:
        return Verdict("case", "fewer than two rows")
    cols = [[r[j] for r in rows] for j in range(n)]
    for name, col in zip(argnames, cols):
        flags = all(isinstance(v, bool) for v in col)
        if CASE_NAME.match(name) and not (flags and FLAG_OPTION_NAME.match(name)):
            return Verdict("case", f"column {name!r} names an expectation")
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
    tolerances = [n for n in argnames if TOLERANCE_NAME.search(n)]
    if tolerances:
        return Verdict("case", f"{CASE_SIGNS[4]} ({', '.join(map(repr, tolerances))})")
    sizes = [len({_key(v) for v in col}) for col in cols]
    product = 1
    for s in sizes:
        product *= s
    # a repeated row covers nothing new (pytest runs it twice; the report notes it)
    distinct = list({tuple(_key(v) for v in r): r for r in rows}.values())
    if len(distinct) >= product:
        return Verdict("option", "a full product of its values")
    cols = [[r[j] for r in distinct] for j in range(n)]
    return _short_of_product(argnames, cols, sizes, len(distinct), ids)


def _favours(most: int, least: int, values: int) -> bool:
    """A column whose values are not spread as a hand-written covering list spreads them:
    its commonest value more than twice (and two more than) its rarest, a column of three
    or more values given one row of slack (``fuse=True`` in 3 of 4 rows: a baseline and its
    variants)."""
    if values > 2:
        least += 1
    return most - least > 1 and most > 2 * least


@lru_cache(maxsize=256)
def _covering_rows(sizes: tuple[int, ...]) -> int:
    """Rows of the engine's strength-2 covering table of columns of these sizes (what
    ``cover`` or ``@pairwise`` would write for them)."""
    from pairwise_param.tables.covering import cover

    return len(cover({f"c{i}": list(range(n)) for i, n in enumerate(sizes)}, strength=2))


def _tied(argnames: Sequence[str], keys: list[list[Any]], multi: list[int]) -> tuple[str, str] | None:
    """A column that follows another: each value of ``i`` always beside the same value of
    ``j`` (``attn_mask_type='arbitrary'`` always with ``use_mask=True``; both ways: two
    columns that move together).  A covering list holds all ``a * b`` combinations of two
    columns; one row dropped or changed removes at most one, never down to ``a``."""
    for i in multi:
        for j in multi:
            if i != j and len(set(zip(keys[i], keys[j]))) == len(set(keys[i])):
                return argnames[i], argnames[j]
    return None


def _sub_product(keys: list[list[Any]], multi: list[int]) -> tuple[int, int] | None:
    """A value of one column under which the rows hold every combination of two or more
    other columns (a product of at least four), and under its other values fewer than half
    of theirs: a product under one setting plus chosen rows (``fp8_kv_cache=True`` with
    every scale and output, one row without it), not a product with holes.  A covering
    list spreads its rows over the values (about ``rows / values`` each), too few for such
    a product, and a dropped row cannot add one.  Returns the column's index and the row of
    the value's first appearance."""
    for j in multi:
        others = [i for i in multi if i != j]
        need = 1
        for i in others:
            need *= len(set(keys[i]))
        if len(others) < 2 or need < 4:
            continue
        values = dict.fromkeys(keys[j])
        for value in values:
            rows = [r for r, k in enumerate(keys[j]) if k == value]
            rest = len(keys[j]) - len(rows)  # under the other values: fewer than half their products
            if (len(rows) >= need and 2 * rest < need * (len(values) - 1)
                    and len({tuple(keys[i][r] for i in others) for r in rows}) == need):
                return j, rows[0]
    return None


def _short_of_product(argnames: Sequence[str], cols: list[list[Any]], sizes: list[int], rows: int,
                      ids: bool) -> Verdict:
    """A list short of its full product: a covering list of options written by hand (its
    holes are findings) or a list of chosen cases.  Decided from the list itself, never
    from whether it covers its pairs, so a hole cannot turn an option table into anything
    else (the module docstring, "short of the product"): no sign below can be made by one
    row dropped from, or one value changed in, a covering list."""
    multi = [j for j, s in enumerate(sizes) if s > 1]
    if len(multi) <= 2:
        # a pairwise table of two columns IS their product: a list that is not was chosen
        return Verdict("case", "two columns short of their product: the valid combinations")
    kinds = [axis_kind(n, _distinct(c))[0] for n, c in zip(argnames, cols)]
    shapes = [n for n, k in zip(argnames, kinds) if k == "shape"]
    if shapes:
        return Verdict("case", f"{CASE_SIGNS[0]} ({', '.join(map(repr, shapes))})")
    top = sorted(sizes[j] for j in multi)
    least = top[-1] * top[-2]  # no covering table of these values has fewer rows
    if 4 * rows < 3 * least:  # a hole of one row leaves 3 of a 3-flag table's 4 rows: not this
        return Verdict("case", f"{CASE_SIGNS[1]} ({rows} rows; covering every pair needs at least {least})")
    keys = [[_key(v) for v in col] for col in cols]
    tied = _tied(argnames, keys, multi)
    if tied:
        return Verdict("case", f"{CASE_SIGNS[5]} ({tied[1]!r} follows {tied[0]!r})")
    sub = _sub_product(keys, multi)
    if sub:
        j, row = sub
        return Verdict("case", f"{CASE_SIGNS[6]} ({argnames[j]}={cols[j][row]!r})")
    # a covering list shows each value of a column beside every value of every other column:
    # in at least as many rows as the widest other column has values.  One row dropped leaves
    # a value one row short, never two; a list of exactly the engine's covering size for
    # these columns, one short AND lopsided (a baseline and its variants), is not a covering
    # list with a row dropped either (that has one row less)
    for j in multi:
        counts = Counter(keys[j]).values()
        fewest = min(counts)
        widest = max(sizes[i] for i in multi if i != j)
        lopsided = (fewest < widest and _favours(max(counts), fewest, len(counts))
                    and rows == _covering_rows(tuple(top)))  # the engine asked only for such a column
        if fewest + 1 < widest or lopsided:
            sign = CASE_SIGNS[2] if lopsided and fewest + 1 >= widest else CASE_SIGNS[7]
            return Verdict("case", f"{sign} (column {argnames[j]!r}: {max(counts)} rows against {fewest}; "
                                   f"a covering list has each value beside the {widest} values of another column"
                                   f"{', at its exact size' if lopsided else ''})")
    if ids:
        return Verdict("case", CASE_SIGNS[3])
    named = [n for n, c in zip(argnames, cols) if LIKELY_CASE_NAME.search(n)
             and not (FLAG_OPTION_NAME.match(n) and all(isinstance(v, bool) for v in c))]
    if named:
        return Verdict("case", f"{CASE_SIGNS[4]} ({', '.join(map(repr, named))})")
    unsure = [n for n, k in zip(argnames, kinds) if k == "uncertain"]
    if unsure:
        return Verdict("uncertain", f"{UNCERTAIN_SIGN} ({', '.join(map(repr, unsure))})")
    return Verdict("option", f"options at a covering table's size ({rows} rows of {len(multi)} options; "
                             f"every pair needs at least {least})")


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
