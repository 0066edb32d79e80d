"""What ``@pairwise`` would give a test that stacks full products of option axes, and
THE option/shape split that the report's ``@PAIRWISE`` column and ``pairwise-param
convert`` share.

The one place the report asks the engine for rows (lazily, through
:func:`pairwise_param.tables.covering.cover`): the analysis itself only measures what
was collected.  A maintainer sees ``1536 -> 192 with @pairwise(dtype, quant,
...)`` before touching a file; ``pairwise-param convert`` does the rewrite, deciding
which stacked axes are options with the same :func:`axis_kind`.

The split (:func:`axis_kind`), on one stacked single-name ``parametrize``: its
argument name and its values (the collected values in the report; in ``convert`` the
literal values as written, a dotted name such as ``torch.float16`` standing for
itself, a module-level list read where it is assigned):

0. one value -> ``single``: not an option to cover, but it goes into the table when
   it sits among the converted decorators (it costs no row and keeps the node ids);
1. no value, or a value that is a list, tuple, dict or set (a shape tuple, a case)
   -> ``shape``;
2. strings, bools, enum members, named objects (dtypes, functions, classes), floats
   -> ``option`` (a float list is a scalar parameter: ``eps``, ``dropout_p``);
3. plain ints (``None`` beside them allowed: "off"), read by the name's last word
   first, then any word of it (words: split at ``_``, lower case):

   * an option word (:data:`OPTION_WORDS`: ``mode``, ``type``, ``bits``, ``kind``,
     ``layout`` ...) -> ``option`` (``bias_mode=[0, 1, 2]``, ``weight_bits=[4, 8]``);
   * a size word (:data:`SHAPE_WORDS`: ``size``, ``dim``, ``len``, ``num``,
     ``batch``, ``heads``, ``seed`` ...) or a one-letter name (``m``, ``K``) ->
     ``shape``;
   * otherwise, ints only, at most four of them, 0 among them and all below 4
     (``[0, 1, 2]``: int codes) -> ``option``;
   * otherwise -> ``uncertain``: ``convert`` keeps it as ``parametrize`` and says
     so, naming ``--options``; the column counts it only when the test would reach
     three axes with it, and then names the ``--options`` that ``convert`` needs.

Which of the options ``convert`` converts is :func:`choose`'s (the bottom run of the
test's ``parametrize`` marks, so node ids are kept; all of them with ``--reorder``),
and the column shows the same axes, or says which flag ``convert`` needs; where the
default keeps the ids but ``--reorder`` would reach fewer items, it gives both numbers.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from typing import Any

from pairwise_param.report.types import WithPairwise

__all__ = ["MIN_AXES", "axis_kind", "choose", "with_pairwise"]

#: Stacked option axes needed before a test gains from ``@pairwise``: pairwise over two
#: axes is their product.  ``convert`` converts a test from this many (two with ``--options``).
MIN_AXES = 3

#: Words of an argument name that make an int list an option (``bias_mode``, ``weight_bits``).
OPTION_WORDS = frozenset({
    "mode", "modes", "type", "types", "kind", "bits", "bit", "variant", "level", "layout", "style",
    "version", "impl", "backend", "algo", "method", "format", "fmt", "flag", "flags", "option", "policy",
    "strategy", "scheme", "case", "op", "func", "fn", "act", "activation", "norm", "quant", "dtype",
    "recipe", "major", "order", "granularity", "rounding", "swizzle", "enable", "use", "has", "is", "with",
})
#: Words of an argument name that make an int list a shape (``block_size``, ``num_heads``).
SHAPE_WORDS = frozenset({
    "size", "sizes", "sz", "dim", "dims", "headdim", "len", "lens", "length", "lengths", "num", "n", "batch",
    "bs", "head", "heads", "nheads", "block", "blocks", "seq", "seqlen", "seqlens", "token", "tokens", "width",
    "height", "topk", "shape", "shapes", "window", "step", "steps", "seed", "seeds", "chunk", "group", "groups",
    "expert", "experts", "vocab", "hidden", "rank", "degree", "ratio", "split", "splits", "items", "item",
    "rows", "cols", "features", "threshold", "page", "pages", "count", "iters", "iter", "tile", "stride",
    "world", "tp", "ep", "pp", "requests", "queries", "ctx", "context", "kv", "qo", "q", "k", "m", "d",
})

_WORD = re.compile(r"[A-Za-z]+")


def _words(name: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(name.replace("_", " "))]


def _plain_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, (bool, enum.Enum))


def axis_kind(name: str, values: Sequence[Any]) -> tuple[str, str]:
    """``("option" | "single" | "shape" | "uncertain", reason)`` for a stacked single-name axis
    (the rule of the module docstring)."""
    if len(values) == 1:
        return "single", "one value (it rides along in the table at no cost)"
    if not values:
        return "shape", "no values"
    if any(isinstance(v, (list, tuple, dict, set, frozenset)) for v in values):
        return "shape", "its values are lists or tuples (shapes or cases)"
    ints = [v for v in values if v is not None]
    if not ints or not all(_plain_int(v) for v in ints):
        return "option", "option values (not plain ints)"
    words = _words(name)
    last = words[-1] if words else ""
    for probe in ([last], words):
        if any(w in OPTION_WORDS for w in probe):
            return "option", f"int codes: {name!r} names an option"
        if any(w in SHAPE_WORDS for w in probe):
            return "shape", f"sizes: {name!r} names a size"
    if len(name) == 1:
        return "shape", f"sizes: {name!r} is a one-letter size"
    if len(ints) == len(values) and len(values) <= 4 and 0 in ints and all(0 <= v < 4 for v in ints):
        return "option", "small int codes from 0"
    return "uncertain", f"ints that may be sizes or option codes; name it in --options if {name!r} is an option"


def choose(marks: Sequence[tuple[str | None, str]], reorder: bool = False) -> list[str]:
    """The option axes ``convert`` turns into one ``@pairwise``: ``marks`` are a test's
    ``parametrize`` marks top-down as ``(name, kind)`` (``kind`` from :func:`axis_kind`,
    or ``"other"`` for a mark that is no single-name axis).  ``@pairwise`` is expanded
    before any ``parametrize``, so the node ids stay only for the options BELOW every
    other mark (the bottom run; one-value marks in it go along); ``reorder``: every
    option, wherever it is.  The caller counts the options among them."""
    if reorder:
        return [n for n, k in marks if k in ("option", "single") and n is not None]
    out: list[str] = []
    for n, k in reversed(marks):
        if k not in ("option", "single") or n is None:
            break
        out.insert(0, n)
    return out


def with_pairwise(stacked: Sequence[tuple[str, Sequence[Any]]], full_product: int,
                  order: Sequence[str | None] | None = None) -> WithPairwise | None:
    """What ``@pairwise`` over the stacked option axes that ``convert`` would convert
    (:func:`axis_kind`, :func:`choose`) would collect; ``None`` unless at least
    :data:`MIN_AXES` of them exist and a covering table of them is smaller than their
    product (two axes: pairwise IS their product).  ``order``: the test's parametrize
    marks top-down (a stacked axis by name, None for any other; default: ``stacked``
    alone).  Where ``convert`` alone would not reach three axes, the answer names what
    it needs: ``convert_options`` (axes the split is unsure of) and ``convert_reorder``;
    where the default keeps the ids, ``items_reorder`` is what ``--reorder`` would reach
    (None unless fewer)."""
    values = dict(stacked)
    kind = {name: axis_kind(name, v)[0] for name, v in stacked}
    names = list(order) if order is not None else [n for n, _ in stacked]
    chosen: list[str] = []
    convert_options: tuple[str, ...] = ()
    reorder = False
    for unsure_ok, reorder in ((False, False), (False, True), (True, False), (True, True)):
        marks = [(n, "other" if n is None else
                  "option" if kind[n] == "option" or (unsure_ok and kind[n] == "uncertain") else kind[n])
                 for n in names]
        chosen = choose(marks, reorder)
        if sum(kind[n] != "single" for n in chosen) >= MIN_AXES:
            if unsure_ok and any(kind[n] == "uncertain" for n in chosen):
                convert_options = tuple(chosen)
            break
    else:
        return None
    rows, product = _table(values, chosen)
    if rows >= product or product == 0:
        return None
    items = full_product // product * rows
    # the default keeps the ids (options below every shape only); say what --reorder reaches
    items_reorder = None
    if not reorder:
        again = choose(marks, True)
        if set(again) != set(chosen):
            r_rows, r_product = _table(values, again)
            if r_product and full_product // r_product * r_rows < items:
                items_reorder = full_product // r_product * r_rows
    return WithPairwise(tuple(chosen), rows, product, items, convert_options, reorder, items_reorder)


def _table(values: dict[str, Sequence[Any]], chosen: Sequence[str]) -> tuple[int, int]:
    """(covering rows at strength 2, full product) of the ``chosen`` axes."""
    from pairwise_param.tables.covering import cover

    product = 1
    for name in chosen:
        product *= len(values[name])
    return len(cover({name: list(values[name]) for name in chosen}, strength=2)), product
