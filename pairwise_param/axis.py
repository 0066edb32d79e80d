"""One axis: a name, its ordered values, the argument names it binds, and the
lookup of a value's index (by identity key, then by equality across types).
:class:`Axis.build` is THE validation of one axis of a model."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pairwise_param.errors import (
    DuplicateAxis,
    DuplicateValue,
    EmptyAxis,
    InvalidArgument,
    InvalidInclude,
    UnhashableValue,
)
from pairwise_param.values import loose_eq, value_key, value_label

__all__ = ["Axis"]


@dataclass(frozen=True)
class Axis:
    """One axis: a name, its ordered values, and the argument names it binds.

    A plain axis binds one name (``names == (name,)``); a grouped axis
    (pytest's ``"n,k,m"`` style) has tuple values bound to several names.
    """

    name: str
    values: tuple[Any, ...]
    names: tuple[str, ...]
    _index: Mapping[tuple[str, Any], int] = field(repr=False, compare=False, hash=False)

    @property
    def grouped(self) -> bool:
        return len(self.names) > 1

    def __len__(self) -> int:
        return len(self.values)

    def index_of(self, value: Any, where: str | None = None) -> int:
        """Index of ``value``; falls back to equality when the type differs
        (``np.int64(2)`` finds ``2``).  Raises :class:`InvalidInclude` if absent."""
        try:
            return self._index[value_key(value)]
        except (KeyError, TypeError):
            pass
        matches = [
            i
            for i, v in enumerate(self.values)
            if loose_eq(v, value)
        ]
        if len(matches) == 1:
            return matches[0]
        shown = ", ".join(value_label(v) for v in self.values)
        raise InvalidInclude(
            f"axis {self.name!r} has no value {value!r} (values: {shown})", where=where
        )

    @staticmethod
    def build(name: str, values: Iterable[Any], where: str | None = None) -> Axis:
        """Validate and build an axis; ``name`` with commas makes a grouped axis."""
        if not isinstance(name, str) or not name.strip():
            raise InvalidArgument(f"axis names must be non-empty strings, got {name!r}", where=where)
        names = tuple(n.strip() for n in name.split(","))
        if any(not n for n in names):
            raise InvalidArgument(f"axis name {name!r} has an empty part", where=where)
        if len(set(names)) != len(names):
            raise DuplicateAxis(f"grouped axis {name!r} repeats a name", where=where)
        display = ",".join(names)
        if isinstance(values, (str, bytes, Mapping)):
            raise InvalidArgument(
                f"axis {display!r} values must be a list (or other sequence) of values, "
                f"got {type(values).__name__} {values!r}",
                where=where,
            )
        if isinstance(values, (set, frozenset)):
            # iteration order follows the hash seed: rows and ids would differ
            # between processes (pytest -n 2: "Different tests were collected")
            raise InvalidArgument(
                f"axis {display!r} values are a {type(values).__name__}, whose order changes from "
                "process to process; give a list (e.g. sorted(...)) so rows and test ids are stable",
                where=where,
            )
        try:
            vals = tuple(values)
        except TypeError:
            raise InvalidArgument(
                f"axis {display!r} values must be a list of values, got {values!r}", where=where
            ) from None
        if not vals:
            raise EmptyAxis(
                f"axis {display!r} has no values; give at least one (a single value "
                "still counts as an axis of size 1)",
                where=where,
            )
        if len(names) > 1:
            # list rows ([[1, 512], [8, 64]]) are accepted as parametrize accepts them
            vals = tuple(tuple(v) if isinstance(v, list) else v for v in vals)
        index: dict[tuple[str, Any], int] = {}
        for i, v in enumerate(vals):
            if len(names) > 1 and (not isinstance(v, tuple) or len(v) != len(names)):
                raise InvalidArgument(
                    f"grouped axis {display!r} needs tuples of {len(names)} values, "
                    f"value #{i} is {v!r}",
                    where=where,
                )
            try:
                key = value_key(v)
                hash(key)
            except TypeError:
                # an unhashable value (a dict of shape kwargs) is identified by its position;
                # a repeat is found by equality with the earlier unhashable values
                key = _unhashable_key(display, vals, i, index, where)
            if key in index:
                raise DuplicateValue(
                    f"axis {display!r} lists value {v!r} twice (positions {index[key]} and {i})",
                    where=where,
                )
            index[key] = i
        return Axis(display, vals, names, index)


_UNHASHABLE = "<unhashable>"


def _unhashable_key(
    display: str, vals: tuple[Any, ...], i: int, index: Mapping[tuple[str, Any], int], where: str | None
) -> tuple[str, Any]:
    """The index key of the unhashable value ``vals[i]``: its position.  Values are
    compared by equality with the earlier unhashable ones (a repeat is an error, as for
    hashable values); one whose ``==`` fails is refused with the way to pass it."""
    v = vals[i]
    for key, j in index.items():
        if key[0] != _UNHASHABLE:
            continue
        try:
            same = bool(vals[j] == v)
        except Exception:  # noqa: BLE001 - e.g. a tensor's ambiguous truth value
            raise UnhashableValue(
                f"axis {display!r} value #{i} {v!r} is unhashable ({type(v).__name__}) and cannot be "
                "compared with ==; pass an index or a name as the value and look the object up "
                "in the test (or use indirect= with a fixture)",
                where=where,
            ) from None
        if same:
            raise DuplicateValue(
                f"axis {display!r} lists value {v!r} twice (positions {j} and {i})", where=where
            )
    return (_UNHASHABLE, i)

