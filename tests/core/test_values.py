"""``values.py``: the one rule for value identity, equality, freezing and text."""

from __future__ import annotations

import enum

from pairwise_param.values import (
    freeze,
    hashable,
    json_value,
    loose_eq,
    stable_label,
    value_id,
    value_key,
    value_label,
)


class Mode(enum.Enum):
    ON = 1


class Int64:
    """numpy.int64 stand-in: equal to an int, not an int."""

    def __init__(self, v: int) -> None:
        self.v = v

    def __eq__(self, other: object) -> bool:
        return other == self.v

    __hash__ = None  # type: ignore[assignment]


def test_identity_keeps_types_apart_also_inside_tuples() -> None:
    assert value_key(1) != value_key(True) != value_key(1.0)
    assert value_key((1, 2)) != value_key((True, 2))
    assert value_key((1, 2)) == value_key((1, 2))


def test_loose_equality_across_types_but_never_bool() -> None:
    assert loose_eq(Int64(2), 2) and loose_eq(2, 2.0)
    assert not loose_eq(True, 1) and not loose_eq(0, False)

    class Odd:
        def __eq__(self, other: object) -> bool:
            raise RuntimeError("no")

    assert not loose_eq(Odd(), 1)


def test_hashable_and_freeze() -> None:
    assert hashable([1]) == hashable([1]) and hashable([1]) != hashable((1,))
    assert hash(hashable([1, [2]])) == hash(hashable([1, [2]]))
    assert freeze([1, [2, {3}]]) == (1, (2, frozenset({3})))
    t = (1, 2)
    assert freeze(t) is t


def test_texts() -> None:
    assert value_label("fp16") == "fp16" and value_label(Mode.ON) == "ON" and value_label(2) == "2"
    assert value_id("") == "''" and value_id((1, "a")) == "(1,a)" and value_id(len) == "len"
    assert stable_label(object()).startswith("builtins.object:<object object")
    assert " at 0x" not in stable_label(object())
    assert json_value((1, (2.5, None))) == [1, [2.5, None]]
    assert json_value(float("inf")) == "inf" and json_value(Mode.ON) == "ON"
