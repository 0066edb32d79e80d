"""Values: identity, equality and text, one rule each for the whole library.

* identity (:func:`value_key`): equal values of different types stay distinct
  (``1`` and ``True``, ``0`` and ``0.0``), also inside tuples; the model uses
  it to index an axis, the report to count distinct values;
* equality across types (:func:`loose_eq`): ``numpy.int64(2)`` equals ``2``,
  but a bool never equals a non-bool (``True`` is not ``1``); used wherever a
  value given by a user (an include row, a hand-written row, a model file
  constraint) is matched against an axis' values;
* input normalisation (:func:`freeze`): lists become tuples, sets frozensets;
* sameness of two values read back from a file (:func:`same_value`): identity
  as :func:`value_key` (``-0.0`` is not ``0.0``), except that NaN is itself;
* text: :func:`value_label` for messages, :func:`value_id` for test ids,
  :func:`stable_label` for fingerprints, :func:`json_value` for JSON output,
  :func:`cell_text` for a cell of a rows file (CSV, Markdown).

No import of numpy or torch: foreign types are recognised by module and name.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

__all__ = [
    "cell_text",
    "freeze",
    "hashable",
    "json_value",
    "loose_eq",
    "same_value",
    "stable_label",
    "value_id",
    "value_key",
    "value_label",
]

_ADDRESS = re.compile(r"0x[0-9a-fA-F]{4,}")
_MAX_REPR = 40
_MAX_CONTAINER = 60  # a dict or list of shape kwargs longer than this is named by position


# -- identity and equality -----------------------------------------------------------------
def value_key(value: Any) -> tuple[str, Any]:
    """Identity of a value inside one axis: equal values of different types
    (``1`` and ``True``, ``0`` and ``0.0``) stay distinct, also inside tuples
    (``(1, 2)`` and ``(True, 2)`` are two values)."""
    kind = type(value).__module__ + "." + type(value).__qualname__
    if isinstance(value, tuple):
        return (kind, tuple(value_key(v) for v in value))
    if isinstance(value, float) and value == 0.0:
        return (kind, repr(value))  # 0.0 and -0.0: two values, as pytest's two ids
    return (kind, value)


def loose_eq(a: Any, b: Any) -> bool:
    """Equality across types (``numpy.int64(2) == 2``) but never bool vs non-bool."""
    if isinstance(a, bool) != isinstance(b, bool):
        return False
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - an odd __eq__ just means "not equal"
        return False


def same_value(a: Any, b: Any) -> bool:
    """``a`` and ``b`` are one value: same type, equal, ``-0.0`` apart from
    ``0.0`` and NaN equal to NaN (also inside tuples).  Matches a value read
    back from a rows file with the model's own value."""
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        return repr(a) == repr(b)  # the shortest repr names each float exactly; nan is "nan"
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - an odd __eq__ just means "not the same"
        return False


class _Opaque:
    """Stand-in for an unhashable value (a list, a tensor): identified by its type and repr."""

    __slots__ = ("kind", "text")

    def __init__(self, value: Any) -> None:
        self.kind = type(value).__module__ + "." + type(value).__qualname__
        self.text = repr(value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Opaque) and (other.kind, other.text) == (self.kind, self.text)

    def __hash__(self) -> int:
        return hash(("_Opaque", self.kind, self.text))

    def __repr__(self) -> str:
        return self.text


def hashable(value: Any) -> Any:
    """``value`` itself if hashable (tuples element-wise), else a stand-in
    identified by its ``repr`` (for counting values the report cannot index)."""
    try:
        hash(value)
    except TypeError:
        return _Opaque(value)
    if isinstance(value, tuple):
        return tuple(hashable(v) for v in value)
    return value


def freeze(value: Any) -> Any:
    """Lists -> tuples, dicts -> tuples of items, sets -> frozensets (recursively);
    other values unchanged."""
    if isinstance(value, list):
        return tuple(freeze(v) for v in value)
    if isinstance(value, tuple):
        frozen = tuple(freeze(v) for v in value)
        return value if all(a is b for a, b in zip(frozen, value)) else frozen
    if isinstance(value, dict):
        return tuple((k, freeze(v)) for k, v in value.items())
    if isinstance(value, set):
        return frozenset(value)
    return value


# -- text ---------------------------------------------------------------------------------------
def value_label(value: Any) -> str:
    """A short, stable, readable text for a value (used in messages and reports).

    ``torch.float16`` -> ``float16``, enum members -> their name, strings as
    they are, others ``repr``.  Never depends on ``id()``.
    """
    mod = type(value).__module__
    if mod == "torch" and type(value).__name__ == "dtype":
        return str(value).replace("torch.", "")
    if hasattr(value, "name") and hasattr(type(value), "__members__"):  # enum member
        return str(value.name)
    if isinstance(value, str):
        return value
    return repr(value)


def stable_label(value: Any) -> str:
    """``value_label`` with its type, and without memory addresses (a default
    ``repr`` shows ``id()``, which changes from process to process): the text
    a model fingerprint hashes."""
    if isinstance(value, tuple):
        text = "(" + ",".join(stable_label(v) for v in value) + ")"
    elif isinstance(value, (set, frozenset)):  # its repr's order follows the hash seed
        text = "{" + ",".join(sorted(stable_label(v) for v in value)) + "}"
    else:
        text = value_label(value)
    text = re.sub(r" at 0x[0-9a-fA-F]+", "", text)
    return type(value).__module__ + "." + type(value).__qualname__ + ":" + text


def value_id(value: Any, position: int = 0) -> str:
    """The default short text of one value in a test id (rules in ``docs/pytest.md``);
    ``position`` names a value whose ``repr`` is unusable (``<Foo>#3``)."""
    t = type(value)
    if t.__module__ == "torch" and t.__name__ == "dtype":
        return str(value).replace("torch.", "")
    # (enum members that are ints, IntEnum, are handled below)
    if (value is None or isinstance(value, (bool, int, float, complex))) and not hasattr(t, "__members__"):
        return repr(value)
    if hasattr(value, "name") and hasattr(t, "__members__"):  # enum member
        return str(value.name)
    if isinstance(value, str):
        return value if value else "''"
    if isinstance(value, bytes):
        return repr(value)
    if isinstance(value, tuple):
        return "(" + ",".join(value_id(v, position) for v in value) + ")"
    if isinstance(value, (set, frozenset)):  # repr order depends on the hash seed: sort
        return "{" + ",".join(sorted(value_id(v, position) for v in value)) + "}"
    if type(value) in (dict, list):  # unhashable values (shape kwargs), in their own order
        inner = (
            ",".join(f"{value_id(k, position)}:{value_id(v, position)}" for k, v in value.items())
            if isinstance(value, dict)
            else ",".join(value_id(v, position) for v in value)
        )
        text = ("{%s}" if isinstance(value, dict) else "[%s]") % inner
        if len(text) <= _MAX_CONTAINER and "#" not in text:
            return text
        return f"<{t.__name__}>#{position}"
    if isinstance(value, type) or callable(value) and hasattr(value, "__name__"):
        name = getattr(value, "__name__", None)
        if isinstance(name, str) and name and name != "<lambda>":
            return name
    text = repr(value)
    if len(text) <= _MAX_REPR and not _ADDRESS.search(text) and "\n" not in text:
        return text
    return f"<{t.__name__}>#{position}"


def json_value(value: Any, *, exact: bool = False) -> Any:
    """A value as JSON: scalars as they are, tuples as lists, anything else as
    its label.  Non-finite floats are labels (``"nan"``: strict JSON, for
    reports) unless ``exact``: then they stay floats, which :func:`json.dumps`
    spells ``NaN`` / ``Infinity`` / ``-Infinity`` and :func:`json.loads` reads
    back (rows files, which must round-trip)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float) and (exact or math.isfinite(value)):
        return value
    if type(value) is tuple:
        return [json_value(v, exact=exact) for v in value]
    return value_label(value)


def cell_text(value: Any) -> str:
    """The text of a value in a cell of a rows file: strings as they are, other
    scalars in their JSON spelling (``true``, ``2``, ``-0.0``, ``null``, ``NaN``,
    ``-Infinity``), anything else (tuples, enums) its label.  The reader
    (``cli/rows.py``) matches a cell against these spellings."""
    if isinstance(value, str):
        return value
    if value is None or isinstance(value, (bool, int, float)):
        return json.dumps(value)
    return value_label(value)
